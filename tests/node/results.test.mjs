// What a suspend() operation fulfils with reaches Wasm converted to the
// import's result type, as the JS API converts it (ToWebAssemblyValue); a
// value that does not convert is a broken adapter: the task fails with
// ERR_ADAPTER naming the import, the type and what came, on every path a
// wait takes (lent, parked on the operation's own promise, continued by a
// reaction, with its results kept for a disposer). An operation that rejects
// with an error of the same kind still delivers the import's failed value.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SnailError, Status, suspend, TaskFailedError } from '../../host/node/root.mjs';
import { Runtime } from '../../host/node/root.mjs';
import { wat } from './wat.mjs';

const PROGRAM = wat(`(module
  (import "test" "i32" (func $i32 (param i32) (result i32)))
  (import "test" "i64" (func $i64 (param i32) (result i64)))
  (import "test" "f32" (func $f32 (param i32) (result f32)))
  (import "test" "f64" (func $f64 (param i32) (result f64)))
  (import "test" "ext" (func $ext (param i32) (result externref)))
  (import "test" "keep_i64" (func $keep_i64 (param i64)))
  (import "test" "keep_f64" (func $keep_f64 (param f64)))
  (import "test" "keep_ext" (func $keep_ext (param externref)))
  (memory (export "memory") 1)
  (func (export "snail.entry.i32") (param i32) (result i32) (call $i32 (local.get 0)))
  (func (export "snail.entry.i64") (param i32) (result i32) (call $keep_i64 (call $i64 (local.get 0))) (i32.const 0))
  (func (export "snail.entry.f32") (param i32) (result i32) (call $keep_f64 (f64.promote_f32 (call $f32 (local.get 0)))) (i32.const 0))
  (func (export "snail.entry.f64") (param i32) (result i32) (call $keep_f64 (call $f64 (local.get 0))) (i32.const 0))
  (func (export "snail.entry.ext") (param i32) (result i32) (call $keep_ext (call $ext (local.get 0))) (i32.const 0))
  (func (export "snail.entry.idle") (param i32) (result i32) (local.get 0)))`);

const ERROR = Symbol('adapter error');
const object = { a: 1 };
const symbol = Symbol('s');
/** For each result type: what the operation fulfils with, and what Wasm receives (ERROR: the task fails). */
const CASES = {
  i32: [[5, 5], ['7', 7], [true, 1], [undefined, 0], [5n, ERROR], [symbol, ERROR]],
  i64: [[5n, 5n], ['7', 7n], [true, 1n], [5, ERROR], [undefined, ERROR], ['x', ERROR], [symbol, ERROR]],
  f32: [[1.5, 1.5], ['2', 2], [5n, ERROR]],
  f64: [[2.25, 2.25], ['3', 3], [null, 0], [5n, ERROR], [symbol, ERROR]],
  ext: [[object, object], [5n, 5n], [undefined, undefined]],
};
const TYPE = { i32: 'i32', i64: 'i64', f32: 'f32', f64: 'f64', ext: 'externref' };

/**
 * A runtime whose test.* operations fulfil with `value` (or reject with it,
 * `reject`), and the values Wasm handed the keep_* imports.
 * @param {{ value?: unknown, reject?: unknown, directWaits?: boolean, keep?: boolean }} options
 */
async function load({ value, reject, directWaits = true, keep = false }) {
  /** @type {unknown[]} */
  const kept = [];
  const operation = () => (reject !== undefined ? Promise.reject(reject) : Promise.resolve(value));
  // A disposer makes the wait keep the operation's own results.
  const make = () => (keep ? suspend(operation, () => {}) : suspend(operation));
  const rt = await Runtime.load(PROGRAM, {
    directWaits,
    checkInvariants: true,
    // No turn runs out of time: whether a wait lends depends on nothing else.
    maxTimeMs: 60_000,
    imports: {
      test: {
        i32: make(), i64: make(), f32: make(), f64: make(), ext: make(),
        keep_i64: (/** @type {bigint} */ v) => { kept.push(v); },
        keep_f64: (/** @type {number} */ v) => { kept.push(v); },
        keep_ext: (/** @type {unknown} */ v) => { kept.push(v); },
      },
    },
  });
  return { rt, kept };
}

/** The ways a wait goes, and how a case makes its task go that way. */
const PATHS = {
  // Nothing else wants the permit: the task waits with it lent.
  lent: { options: {}, crowd: false },
  // A start is queued when the task waits: it gives the permit up, and JSPI
  // parks it on the operation's own promise.
  direct: { options: {}, crowd: true },
  // No suspension module: a reaction continues the operation.
  chained: { options: { directWaits: false }, crowd: false },
  // A disposer: the wait keeps the operation's own value for its delivery.
  kept: { options: { keep: true }, crowd: true },
};

for (const [path, how] of Object.entries(PATHS)) {
  test(`results: every_conversion_of_every_result_type_on_the_${path}_path`, async () => {
    for (const [entry, cases] of Object.entries(CASES)) {
      for (const [value, expected] of cases) {
        const what = `${entry} fulfilled with ${typeof value === 'symbol' ? 'a Symbol' : typeof value === 'bigint' ? `${value}n` : JSON.stringify(value)} (${path})`;
        const { rt, kept } = await load({ value, ...how.options });
        const t = rt.dispatch(entry, 1);
        const other = how.crowd ? rt.dispatch('idle', 2) : null;
        await rt.drain();
        if (expected === ERROR) {
          assert.equal(t.state, 'failed', what);
          assert.ok(t.error instanceof TaskFailedError, what);
          const cause = /** @type {any} */ (t.error).cause;
          assert.ok(cause instanceof SnailError && cause.code === 'ERR_ADAPTER', `${what}: ${t.error}`);
          assert.match(cause.message, new RegExp(`suspending import test\\.${entry} fulfilled with .* which does not convert to ${TYPE[entry]}`), what);
          if (entry === 'i64') assert.match(cause.message, /BigInt/, what);
        } else {
          assert.equal(t.state, 'returned', `${what}: ${t.error}`);
          const received = entry === 'i32' ? t.value : kept[0];
          assert.ok(Object.is(received, expected), `${what}: Wasm received ${String(received)}`);
        }
        if (other) assert.equal(other.value, 2);
        if (path !== 'chained' && path !== 'kept') {
          const st = rt.stats();
          if (path === 'lent') assert.ok(st.lends > 0, `${what}: the wait was lent`);
          if (path === 'direct') assert.ok(st.lent === 0 && st.steps >= 2, `${what}: the wait gave the permit up`);
        }
        await rt.close();
      }
    }
  });
}

test('results: an_operation_that_rejects_with_a_type_error_delivers_the_failed_status_on_every_path', async () => {
  for (const [path, how] of Object.entries(PATHS)) {
    for (const entry of ['i32', 'i64']) {
      const { rt, kept } = await load({ reject: new TypeError('the operation broke'), ...how.options });
      const t = rt.dispatch(entry, 1);
      if (how.crowd) rt.dispatch('idle', 2);
      await rt.drain();
      assert.equal(t.state, 'returned', `${entry} on the ${path} path: ${t.error}`);
      if (entry === 'i32') assert.equal(t.value, Status.failed, path);
      else assert.deepEqual(kept, [BigInt(Status.failed)], path);
      await rt.close();
    }
  }
});
