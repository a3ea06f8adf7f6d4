// Runs every contract case of tests/cases/ in the browser under test (Chromium
// or Firefox, harness.mjs): the same source as the node:test run
// (tests/node/cases.test.mjs), so a behaviour that differs between the hosts
// fails here. Each case gets a fresh page.
import { after, before, describe, test } from 'node:test';

import { suites } from '../cases/index.mjs';
import { BROWSER_NAME, openBlankPage, runInPage, useBrowser } from './harness.mjs';

const env = useBrowser({ before, after });

for (const [suite, cases] of Object.entries(suites)) {
  describe(`${suite} (${BROWSER_NAME})`, () => {
    for (const c of cases) {
      test(c.name, async (t) => {
        const { page, log } = await openBlankPage(env.browser, env.server.url);
        t.after(() => page.close());
        const result = await runInPage(page, async ({ suite, name }) => {
          const { suites } = await import('/tests/cases/index.mjs');
          const found = suites[suite].find((/** @type {{ name: string }} */ x) => x.name === name);
          if (!found) throw new Error(`no case "${name}" in suite ${suite}`);
          const ctx = {
            env: 'browser',
            program: (/** @type {string} */ n) => `/build/programs/${n}.wasm`,
            httpBase: location.origin,
          };
          await found.run(ctx);
          return 'passed';
        }, { suite, name: c.name }, { log, what: c.name, timeoutMs: 60_000 });
        if (result !== 'passed') throw new Error(`${c.name}: ${String(result)}`);
      });
    }
  });
}
