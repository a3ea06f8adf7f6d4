// A page whose Content-Security-Policy forbids evaluating strings (no
// 'unsafe-eval'): the runtime's waits cannot have code of their own there
// (own-code.mjs), and run on the shared code; the first copy is refused and
// no other is tried. On the same page with no policy, the same runtimes make
// copies; under a policy that only reports, each copy is reported, and a
// runtime loaded with ownCode: false makes none. The page's own module
// script (pages/own-code-run.mjs) runs them: the policy governs it, not a
// function evaluated through the browser's protocol.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { BROWSER_NAME, startServer, useBrowser } from './harness.mjs';
import { EACH } from './pages/two-runtimes.mjs';

const env = useBrowser({ before, after });

/** A server whose pages come with a policy that reports what strict-csp.html forbids, and forbids nothing. */
const POLICY = "script-src 'self' 'wasm-unsafe-eval'";
/** @type {Awaited<ReturnType<typeof startServer>>} */
let reporting;
before(async () => { reporting = await startServer({ pageHeaders: { 'content-security-policy-report-only': POLICY } }); });
after(async () => { await reporting?.close(); });

/**
 * What pages/own-code-run.mjs reports on the page at `pagePath`.
 * @param {import('node:test').TestContext} t @param {string} pagePath
 * @param {string} [server]  the server's URL (default: the suite's)
 */
async function runOn(t, pagePath, server = env.server.url) {
  const page = await env.browser.newPage();
  t.after(() => page.close());
  const response = await page.goto(`${server}${pagePath}`);
  assert.ok(response?.ok(), `${pagePath} opens`);
  const r = await page.evaluate(() => /** @type {any} */ (window).ownCodeRun);
  assert.equal(r.error, undefined, r.error);
  return r;
}

const WANT = Array(16).fill(EACH);

test(`${BROWSER_NAME}: waits run on the shared code where the page's policy forbids evaluating strings`, async (t) => {
  const r = await runOn(t, '/tests/browser/pages/strict-csp.html');
  assert.equal(r.evaluates, 'EvalError', 'the policy is in force');
  assert.deepEqual(r.results, WANT);
  assert.deepEqual(r.yields, [100, 100]);
  assert.deepEqual(r.own, { copies: 0, copying: false });
  // The page's own probe and the runtime's first copy; no copy after it.
  assert.deepEqual(r.violations.map((/** @type {string} */ d) => d.replace(/-elem$/, '')), ['enforce script-src', 'enforce script-src']);
});

test(`${BROWSER_NAME}: waits run on copies of their own where the page allows evaluating strings`, async (t) => {
  const r = await runOn(t, '/tests/browser/pages/own-code.html');
  assert.equal(r.evaluates, true);
  assert.deepEqual(r.results, WANT);
  assert.deepEqual(r.yields, [100, 100]);
  assert.equal(r.own.copying, true);
  // Each runtime: its import's operation starts, its lent wait and snail.yield's wait.
  assert.ok(r.own.copies >= 6, `${r.own.copies} copies`);
  assert.deepEqual(r.violations, []);
});

test(`${BROWSER_NAME}: under a policy that only reports, each copy is reported, and ownCode: false makes none`, async (t) => {
  const copying = await runOn(t, '/tests/browser/pages/own-code.html', reporting.url);
  assert.equal(copying.evaluates, true, 'the policy forbids nothing');
  assert.deepEqual(copying.results, WANT);
  assert.equal(copying.own.copies, 6);
  // The page's own probe, and every copy.
  assert.deepEqual(copying.violations.map((/** @type {string} */ d) => d.replace(/-elem$/, '')), Array(7).fill('report script-src'));
  const shared = await runOn(t, '/tests/browser/pages/own-code.html?ownCode=false', reporting.url);
  assert.deepEqual(shared.results, WANT);
  assert.deepEqual(shared.yields, [100, 100]);
  assert.deepEqual(shared.own, { copies: 0, copying: true });
  assert.deepEqual(shared.violations.map((/** @type {string} */ d) => d.replace(/-elem$/, '')), ['report script-src']);
});
