// Portable assertions for the contract cases, which run in Node and in
// Chromium alike (node:assert does not exist in a page).

export class AssertionError extends Error {
  /** @param {string} message @param {{ actual?: unknown, expected?: unknown }} [details] */
  constructor(message, details = {}) {
    const parts = [message];
    if ('actual' in details) parts.push(`  actual:   ${show(details.actual)}`);
    if ('expected' in details) parts.push(`  expected: ${show(details.expected)}`);
    super(parts.join('\n'));
    this.name = 'AssertionError';
  }
}

/** @param {unknown} v */
function show(v) {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Error ? `${x.name}: ${x.message}` : x));
  } catch {
    return String(v);
  }
}

/** @param {unknown} a @param {unknown} b @returns {boolean} */
function deepEqualValues(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqualValues(/** @type {any} */ (a)[k], /** @type {any} */ (b)[k]));
}

export const assert = {
  /** @param {unknown} value @param {string} [message] */
  ok(value, message = 'expected a truthy value') {
    if (!value) throw new AssertionError(message, { actual: value });
  },
  /** @param {unknown} actual @param {unknown} expected @param {string} [message] */
  equal(actual, expected, message = 'values differ') {
    if (!Object.is(actual, expected)) throw new AssertionError(message, { actual, expected });
  },
  /** @param {unknown} actual @param {unknown} expected @param {string} [message] */
  deepEqual(actual, expected, message = 'values differ') {
    if (!deepEqualValues(actual, expected)) throw new AssertionError(message, { actual, expected });
  },
  /** @param {string} actual @param {RegExp} pattern @param {string} [message] */
  match(actual, pattern, message = `does not match ${pattern}`) {
    if (typeof actual !== 'string' || !pattern.test(actual)) throw new AssertionError(message, { actual, expected: String(pattern) });
  },
  /** @param {() => unknown} fn @param {(e: any) => boolean} check @param {string} [message] */
  throws(fn, check, message = 'expected an exception') {
    try {
      fn();
    } catch (e) {
      if (!check(e)) throw new AssertionError(`${message}: wrong exception`, { actual: e });
      return;
    }
    throw new AssertionError(message);
  },
  /** @param {Promise<unknown>} promise @param {(e: any) => boolean} check @param {string} [message] */
  async rejects(promise, check, message = 'expected a rejection') {
    try {
      await promise;
    } catch (e) {
      if (!check(e)) throw new AssertionError(`${message}: wrong error`, { actual: e });
      return;
    }
    throw new AssertionError(message);
  },
};
