// The engine probes (host/browser/engine-probe.mjs) in the browser under
// test: raw JSPI works, and waits go through the suspension module with the
// stubs' tail calls, so a program's waits keep the permit lent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { BROWSER_NAME, openBlankPage, runInPage, useBrowser } from './harness.mjs';

const env = useBrowser({ before, after });

test(`engine probe (${BROWSER_NAME}): raw jspi and the tail-call stubs work, and programs use them`, async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const r = await runInPage(page, async () => {
    const probes = await import('/host/browser/engine-probe.mjs');
    const { Runtime } = await import('/host/browser/index.mjs');
    const raw = await probes.probeRawJspi();
    const direct = await probes.probeDirectWaits();
    const rt = await Runtime.load('/build/programs/demo.wasm', { stdout: () => {} });
    const task = rt.dispatch('main');
    await rt.drain();
    const lends = rt.stats().lends;
    await rt.close();
    return { raw, direct, state: task.state, lends };
  }, undefined, { log, timeoutMs: 120_000 });
  assert.equal(r.raw.ok, true, r.raw.failure);
  assert.deepEqual({ ok: r.direct.ok, tailCall: r.direct.tailCall, failure: r.direct.failure }, { ok: true, tailCall: true, failure: null });
  assert.equal(r.state, 'returned');
  assert.ok(r.lends > 0, 'waits kept the permit lent: the suspension module was used');
});
