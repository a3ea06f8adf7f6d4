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

const SETTLED = Promise.resolve();

/**
 * Runs `fn` from a microtask, as a promise reaction: in browsers that costs a
 * fraction of queueMicrotask(), which goes through the embedder.
 * @param {() => void} fn
 */
export function microtask(fn) {
  SETTLED.then(fn);
}
