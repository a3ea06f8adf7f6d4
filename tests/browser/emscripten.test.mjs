// A program built with Emscripten's generated JavaScript, in the browser under test: the
// shared scenario of tests/cases/emscripten.cases.mjs (several suspending
// tasks, a cancellation, drains, a clean close) against the ES module build
// (tests/programs/emscripten/: -sEXPORT_ES6 -sENVIRONMENT=web,worker), whose
// factory the page imports. tools/build.mjs builds it when emcc is installed;
// without it this test fails and says what to install.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { BROWSER_NAME, openBlankPage, root, runInPage, useBrowser } from './harness.mjs';

const env = useBrowser({ before, after });

test(`emscripten: several_suspending_tasks_a_cancellation_and_drains (${BROWSER_NAME}, ES module, -O2)`, async (t) => {
  for (const file of ['tasks.wasm', 'tasks.mjs']) {
    const full = path.join(root, 'build/programs/emscripten', file);
    if (!fs.existsSync(full)) {
      assert.fail(`${full} was not built: install Emscripten (apt-get install emscripten; tools/bootstrap.sh does), then run node tools/build.mjs`);
    }
  }
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const result = await runInPage(page, async () => {
    const { runScenario } = await import('/tests/cases/emscripten.cases.mjs');
    return runScenario({
      env: 'browser',
      variant: 'tasks',
      wasm: '/build/programs/emscripten/tasks.wasm',
      checkedStack: false,
      factory: async () => (await import('/build/programs/emscripten/tasks.mjs')).default,
    });
  }, undefined, { log, what: 'the Emscripten scenario', timeoutMs: 60_000 });
  assert.equal(result.counts.dispatched, 18);
  assert.equal(result.counts.cancelled, 2);
  assert.equal(result.counts.disposed, 1);
  assert.ok(result.counts.steps > 15);
  assert.equal(log.hasErrors(), false, log.format());
});
