// Promise helpers shared by the runtime's modules (internal).

/**
 * Whether a value is a thenable: what the runtime accepts where an operation,
 * a factory or a disposer may return a promise.
 * @param {unknown} x
 * @returns {x is PromiseLike<unknown>}
 */
export function isThenable(x) {
  return x !== null && typeof x === 'object' && typeof (/** @type {any} */ (x).then) === 'function';
}

/**
 * Whether a function cannot see any argument it is called with: an arrow
 * function of no parameters, whose source begins `() =>` or `async () =>`
 * (an arrow function has no `arguments` of its own). Any other function may:
 * one with a rest parameter, one that reads `arguments`, a bound or a
 * built-in function, whose source the test does not show.
 * @param {Function} fn
 */
export function seesNoArguments(fn) {
  return fn.length === 0 && /^(?:async\s*)?\(\s*\)\s*=>/.test(Function.prototype.toString.call(fn));
}

const SETTLED = Promise.resolve();

/**
 * Runs `fn` from a microtask, as a promise reaction: in browsers that costs a
 * fraction of queueMicrotask(), which goes through the embedder.
 * @param {() => void} fn
 */
export function microtask(fn) {
  SETTLED.then(fn);
}
