// Input is not starved: while thousands of tasks churn through yields, a click
// that the browser driver dispatches reaches the C++ task waiting for it while the
// churn is still going, because the scheduler gives the event loop a turn
// whenever its step or time budget runs out. The latency is reported, not
// asserted: a wall-clock bound would make the test depend on the machine.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { openBlankPage, runInPage, useBrowser } from './harness.mjs';

const env = useBrowser({ before, after });

/** Churning tasks, and the most yields each makes before giving up on the click. */
const CHURNERS = 4000;
const ROUNDS = 1000;

test('input: a click is handled while thousands of tasks churn, between two scheduler turns', async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const started = await runInPage(page, async ({ churners, rounds }) => {
    document.body.innerHTML = '<button id="hit" style="width: 200px; height: 60px">Hit</button>';
    const snail = await import('/host/browser/index.mjs');
    const g = /** @type {any} */ (globalThis);
    const m = { dispatchedAt: 0, inputAt: 0, seenAt: 0, churnLiveAtSeen: -1, yieldsAtSeen: -1, text: '' };
    g.measure = m;
    const rt = await snail.Runtime.load('/build/programs/browser_host.wasm', {
      stdout: (/** @type {string} */ text) => {
        if (text.startsWith('hit')) {
          m.seenAt = performance.now();
          const s = rt.stats();
          // Every live task but the one printing is a churner.
          m.churnLiveAtSeen = s.live - 1;
          m.yieldsAtSeen = s.yields;
        }
        m.text += text;
      },
    });
    g.rt = rt;
    // When the browser dispatched the click, and when the input happened.
    document.getElementById('hit')?.addEventListener('click', (e) => {
      m.dispatchedAt = performance.now();
      m.inputAt = e.timeStamp;
    }, { capture: true });
    snail.registerSelector(rt.events, 'click #hit', '#hit', 'click');
    g.hit = rt.dispatch('click_hit');
    for (let i = 0; i < 50 && g.hit.state !== 'suspended'; i++) await new Promise((r) => setTimeout(r, 0));
    if (g.hit.state !== 'suspended') throw new Error(`the click task is ${g.hit.state}`);
    g.churn = [];
    for (let i = 0; i < churners; i++) g.churn.push(rt.dispatch('churn', rounds));
    g.startedAt = performance.now();
    // Returning needs the event loop: this page function only completes
    // because the scheduler yields.
    return { live: rt.stats().live };
  }, { churners: CHURNERS, rounds: ROUNDS }, { log });
  assert.equal(started.live, CHURNERS + 1);

  const clickStart = process.hrtime.bigint();
  await page.click('#hit');
  const clickMs = Number(process.hrtime.bigint() - clickStart) / 1e6;

  const r = await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    await g.rt.drain();
    const rounds = g.churn.map((/** @type {any} */ x) => x.value);
    const stats = g.rt.stats();
    await g.rt.close();
    return {
      m: g.measure,
      hit: g.hit.state,
      churnStates: [...new Set(g.churn.map((/** @type {any} */ x) => x.state))],
      roundsTotal: rounds.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0),
      maxRounds: Math.max(...rounds),
      sinceStart: g.measure.seenAt - g.startedAt,
      stats,
      limits: g.rt.limits,
    };
  }, undefined, { log, timeoutMs: 120_000 });

  assert.equal(r.hit, 'returned');
  assert.match(r.m.text, /^hit ok \[\{"type":"click","id":"hit","tag":"button",/);
  assert.deepEqual(r.churnStates, ['returned']);
  assert.ok(r.m.churnLiveAtSeen > 0, `the click task saw the click while ${r.m.churnLiveAtSeen} churning tasks were live`);
  assert.ok(r.maxRounds < ROUNDS, `the churn stopped early because of the click (the longest churner made ${r.maxRounds} of ${ROUNDS} yields)`);
  assert.ok(r.m.yieldsAtSeen > 0, 'the scheduler had yielded the event loop');
  assert.ok(r.stats.yields > 0);
  const budget = `maxSteps ${r.limits.maxSteps}, maxTimeMs ${r.limits.maxTimeMs}`;
  const report = `click under churn: input to dispatch ${(r.m.dispatchedAt - r.m.inputAt).toFixed(1)} ms, ` +
    `dispatch to the task's resumption ${(r.m.seenAt - r.m.dispatchedAt).toFixed(1)} ms, driver click() ${clickMs.toFixed(0)} ms; ` +
    `${r.m.churnLiveAtSeen} churners live at the click, ${r.m.yieldsAtSeen} scheduler yields by then (${budget}), ` +
    `${r.roundsTotal} churn yields in all, ${r.stats.steps} steps`;
  t.diagnostic(report);
  console.log(report);
});
