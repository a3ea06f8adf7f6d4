// Result conversions (internal): what JSPI converts to a wait's result type
// (the JS API's ToWebAssemblyValue), and the error a task fails with when its
// operation fulfilled with a value that does not convert. The wait path
// (waits.mjs) checks a delivery with these where it has the value, and
// tells JSPI's conversion errors from the operation's own.
import { SnailError } from './errors.mjs';

/** @typedef {import('./imports.mjs').WaitSpec} WaitSpec */

/**
 * Whether an error a wait failed with may be JSPI's, thrown as it converted
 * the operation's value to the import's result type (TypeError, or
 * SyntaxError for a string that is no BigInt), rather than the operation's.
 * @param {unknown} error @param {unknown} op  the operation's promise, if kept
 */
export function mayBeConversion(error, op) {
  return op !== null && (error instanceof TypeError || error instanceof SyntaxError);
}

/**
 * Whether JSPI converts `value` to a Wasm value of `type` (the JS API's
 * ToWebAssemblyValue): a number type refuses a BigInt or a Symbol, i64 wants
 * a BigInt (or a boolean, or a string that parses as one).
 * @param {string} type @param {unknown} value
 */
export function converts(type, value) {
  switch (type) {
    case 'i32': case 'f32': case 'f64':
      return typeof value !== 'bigint' && typeof value !== 'symbol';
    case 'i64':
      if (typeof value === 'bigint' || typeof value === 'boolean') return true;
      if (typeof value !== 'string') return false;
      try {
        BigInt(value);
        return true;
      } catch {
        return false;
      }
    default:
      return true;
  }
}

/** @param {unknown} v */
export function describeValue(v) {
  if (typeof v === 'bigint') return `the BigInt ${v}n`;
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `the ${typeof v} ${String(v)}`;
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'symbol') return 'a Symbol';
  return `${typeof v === 'function' ? 'a function' : `a ${/** @type {object} */ (v).constructor?.name ?? 'object'}`}`;
}

/**
 * The error of a wait whose operation fulfilled with a value Wasm cannot
 * receive: a broken adapter, which the task fails with.
 * @param {WaitSpec} spec @param {unknown} value @param {unknown} cause  JSPI's error, if it threw one
 */
export function unconvertible(spec, value, cause) {
  const type = spec.resultType;
  const want = type === 'i64' ? 'a BigInt (5n, not 5)' : type === null ? 'a value of its result type' : 'a number';
  return new SnailError(`the operation of suspending import ${spec.name} fulfilled with ${describeValue(value)}, which does not convert to ${type ?? 'its result type'}: fulfil with ${want}`, { code: 'ERR_ADAPTER', cause: cause ?? undefined });
}
