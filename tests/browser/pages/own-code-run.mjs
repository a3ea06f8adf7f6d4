// Run by strict-csp.html and own-code.html as the page's own module script,
// which the page's Content-Security-Policy governs (a function the test
// evaluates through the browser's protocol may evaluate strings regardless).
// `?ownCode=false` loads the runtimes with that option. window.ownCodeRun is
// the promise of what the test checks.
import * as snail from '/host/browser/index.mjs';
import { ownCopies } from '/host/browser/own-code.mjs';
import { twoRuntimes } from './two-runtimes.mjs';

/** @type {string[]} the directives of the policy's violations, as the page saw them */
const violations = [];
document.addEventListener('securitypolicyviolation', (e) => { violations.push(`${e.disposition} ${e.violatedDirective}`); });

async function run() {
  const evaluates = (() => {
    try {
      return new Function('return true')();
    } catch (e) {
      return /** @type {Error} */ (e).name;
    }
  })();
  const ownCode = new URLSearchParams(location.search).get('ownCode') !== 'false';
  const { results, yields } = await twoRuntimes(snail, '/build/programs/bench/bench.wasm', { ownCode });
  // A violation's event is dispatched as a task of its own.
  await new Promise((resolve) => { setTimeout(resolve, 50); });
  return { evaluates, results, yields, own: ownCopies(), violations };
}

/** @type {any} */ (window).ownCodeRun = run().catch((e) => ({ error: `${e?.name}: ${e?.message}` }));
