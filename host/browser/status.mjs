// Status values of the program ABI (docs/abi.md); the same numbers as
// core/include/snail/status.hpp and snail/abi.h.
export const Status = Object.freeze({
  ok: 0,
  cancelled: 1,
  failed: 2,
  invalid: 3,
  closed: 4,
  denied: 5,
  not_found: 6,
});

/** @type {readonly string[]} */
export const statusNames = Object.freeze(['ok', 'cancelled', 'failed', 'invalid', 'closed', 'denied', 'not_found']);

/** @param {number} s */
export function statusName(s) {
  return statusNames[s] ?? `unknown(${s})`;
}
