// Two runtimes of the benchmark program at once, each with eight tasks
// waiting 60 times on a suspend() import whose operations settle in shuffled
// order, and each yielding 100 times: what the tests of own-code.mjs run in
// Node (tests/node/own-code.test.mjs) and in a page (own-code-run.mjs). It
// imports nothing, so both can give it the runtime as they import it.

/** What each task of twoRuntimes() returns: the sum of its waits' values. */
export const EACH = (60 * 59) / 2;

/**
 * @param {{ Runtime: typeof import('../../../host/browser/index.mjs').Runtime, suspend: typeof import('../../../host/browser/index.mjs').suspend }} snail
 * @param {string} program  the benchmark program's path or URL
 * @param {object} [options]  more options of Runtime.load
 * @returns {Promise<{ results: number[], yields: number[] }>}
 */
export async function twoRuntimes({ Runtime, suspend }, program, options = {}) {
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
    const runtimes = await Promise.all([
      Runtime.load(program, { ...options, stdout: () => {}, imports: { bench: { op: suspend((/** @type {AbortSignal} */ _signal, /** @type {number} */ i) => later(i)) } } }),
      Runtime.load(program, { ...options, stdout: () => {}, imports: { bench: { op: suspend((/** @type {AbortSignal} */ _signal, /** @type {number} */ i) => (i % 3 === 0 ? Promise.resolve(i) : later(i))) } } }),
    ]);
    const results = await Promise.all(runtimes.flatMap((rt) => Array.from({ length: 8 }, () => rt.dispatch('op_loop', 60).result)));
    // snail.yield, whose wait the lease answers, has code of its own as well.
    const yields = await Promise.all(runtimes.map((rt) => rt.dispatch('yield_loop', 100).result));
    for (const rt of runtimes) await rt.close();
    return { results, yields };
  } finally {
    clearInterval(flush);
  }
}
