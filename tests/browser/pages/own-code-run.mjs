// Run by strict-csp.html and own-code.html as the page's own module script,
// which the page's Content-Security-Policy governs (a function the test
// evaluates through the browser's protocol may evaluate strings regardless):
// two runtimes of the benchmark program, eight tasks each waiting 60 times
// on a suspend() import whose operations settle in shuffled order.
// window.ownCodeRun is the promise of what the test checks.
import { Runtime, suspend } from '/host/browser/index.mjs';
import { ownCopies } from '/host/browser/own-code.mjs';

/** @type {string[]} the directives of the policy's violations, as the page saw them */
const violations = [];
document.addEventListener('securitypolicyviolation', (e) => { violations.push(e.violatedDirective); });

async function run() {
  const evaluates = (() => {
    try {
      return new Function('return true')();
    } catch (e) {
      return /** @type {Error} */ (e).name;
    }
  })();
  /** @type {(() => void)[]} */
  const settled = [];
  const later = (/** @type {number} */ i) => new Promise((resolve) => { settled.push(() => resolve(i)); });
  const flush = setInterval(() => {
    for (let i = settled.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [settled[i], settled[j]] = [settled[j], settled[i]];
    }
    for (const settle of settled.splice(0)) settle();
  }, 0);
  try {
    const runtimes = await Promise.all([0, 1].map(() => Runtime.load('/build/programs/bench/bench.wasm', {
      stdout: () => {},
      imports: { bench: { op: suspend((/** @type {AbortSignal} */ _signal, /** @type {number} */ i) => (i % 3 === 0 ? Promise.resolve(i) : later(i))) } },
    })));
    const results = await Promise.all(runtimes.flatMap((rt) => Array.from({ length: 8 }, () => rt.dispatch('op_loop', 60).result)));
    // snail.yield, whose wait the lease answers, is copied as well.
    const yields = await Promise.all(runtimes.map((rt) => rt.dispatch('yield_loop', 100).result));
    for (const rt of runtimes) await rt.close();
    // A violation's event is dispatched as a task of its own.
    await new Promise((resolve) => { setTimeout(resolve, 50); });
    return { evaluates, results, yields, own: ownCopies(), violations };
  } finally {
    clearInterval(flush);
  }
}

/** @type {any} */ (window).ownCodeRun = run().catch((e) => ({ error: `${e?.name}: ${e?.message}` }));
