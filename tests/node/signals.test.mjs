// A task's AbortSignal is made at its first wait whose operation may read
// it. An operation that cannot see its arguments (an arrow function of no
// parameters) is given none, and no AbortController is made for it (in
// browsers one costs a call into the embedder): on the lent wait, under the
// lease, after a take of the permit in Wasm, on the general way and without
// a suspension module. Its task is cancelled all the same, when the
// operation settles (it cannot abort). Any operation that may read its
// arguments gets the task's signal, one per task, aborted on cancellation.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';

import { Runtime, suspend } from '../../host/node/root.mjs';
import { seesNoArguments } from '../../host/browser/imports.mjs';
import { wat } from './wat.mjs';

// Each task waits `n` times on test.op and returns the sum of what it got.
const PROGRAM = wat(`(module
  (import "test" "op" (func $op (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "snail.entry.waits") (param $n i32) (result i32) (local $sum i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $sum (i32.add (local.get $sum) (call $op (local.get $n))))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $sum)))`);

/** Counts the AbortControllers made while a test runs. */
let made = 0;
const Original = globalThis.AbortController;
beforeEach(() => {
  made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
});
afterEach(() => {
  globalThis.AbortController = Original;
});

/**
 * A runtime whose test.op is `operation`.
 * @param {(...args: any[]) => Promise<number>} operation @param {object} [options]
 */
const load = (operation, options = {}) => Runtime.load(PROGRAM, {
  checkInvariants: true,
  // No turn runs out of time: whether a wait lends depends on nothing else.
  maxTimeMs: 60_000,
  imports: { test: { op: suspend(operation) } },
  ...options,
});

/** An operation whose promises settle in shuffled microtask batches, so that tasks take the permit from each other. */
function shuffled() {
  /** @type {((v: number) => void)[]} */
  let pending = [];
  let seed = 7;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const now = pending;
    pending = [];
    for (let i = now.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const j = seed % (i + 1);
      [now[i], now[j]] = [now[j], now[i]];
    }
    for (const resolve of now) resolve(1);
  };
  return () => new Promise((resolve) => {
    pending.push(resolve);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
  });
}

test('signals: which_operations_can_see_their_arguments', () => {
  const cannot = [() => Promise.resolve(1), async () => 1, async() => 1, (  ) => 1];
  // Rest parameters, `arguments`, defaults, bound and built-in functions,
  // methods: each may see the signal, or its source does not show that it
  // cannot.
  const may = [
    (/** @type {unknown} */ signal) => signal,
    (/** @type {unknown[]} */ ...args) => args[0],
    function () { return arguments[0]; },
    (a = 1) => a,
    (() => 1).bind(null),
    Math.random,
    { op() { return 1; } }.op,
    async function () { return 1; },
    (/* no parameters, but a comment */) => 1,
  ];
  for (const fn of cannot) assert.equal(seesNoArguments(fn), true, String(fn));
  for (const fn of may) assert.equal(seesNoArguments(fn), false, String(fn));
});

for (const [way, options] of /** @type {const} */ ([['a suspension module', {}], ['no suspension module', { directWaits: false }]])) {
  test(`signals: an_operation_of_no_parameters_makes_no_abort_controller_with_${way.replaceAll(' ', '_')}`, async () => {
    // Alone (lent waits under the lease), eight at once (takes of the permit
    // in Wasm), and beside a start (the general way).
    const rt = await load(shuffled(), options);
    const alone = rt.dispatch('waits', 50);
    await rt.drain();
    assert.equal(alone.value, 50);
    const many = Array.from({ length: 8 }, () => rt.dispatch('waits', 200));
    await rt.drain();
    for (const t of many) assert.equal(t.value, 200);
    const st = rt.stats();
    if (!('directWaits' in options)) {
      assert.ok(st.lends > 0 && st.takes > 0, `the waits were lent and the permit taken in Wasm (${st.lends} lends, ${st.takes} takes)`);
    }
    await rt.close();
    assert.equal(made, 0, 'AbortControllers made for operations that cannot see them');
  });

  test(`signals: an_operation_that_may_read_its_signal_gets_its_tasks_signal_with_${way.replaceAll(' ', '_')}`, async () => {
    const settle = shuffled();
    /** @type {Set<AbortSignal>} */
    const seen = new Set();
    let calls = 0;
    const rt = await load((/** @type {AbortSignal} */ signal, /** @type {number} */ _i) => {
      assert.ok(signal instanceof AbortSignal && !signal.aborted, `the operation got ${signal}`);
      seen.add(signal);
      calls++;
      return settle();
    }, options);
    const tasks = Array.from({ length: 4 }, () => rt.dispatch('waits', 30));
    await rt.drain();
    for (const t of tasks) assert.equal(t.value, 30);
    await rt.close();
    assert.equal(calls, 120);
    assert.equal(seen.size, 4, 'each task has one signal for all its waits');
    assert.equal(made, 4, 'one AbortController a task');
  });
}

test('signals: a_task_waiting_on_an_operation_of_no_parameters_is_cancelled_when_it_settles', async () => {
  /** @type {((v: number) => void)[]} */
  const pending = [];
  const rt = await load(() => new Promise((resolve) => { pending.push(resolve); }));
  const t = rt.dispatch('waits', 3);
  while (pending.length === 0) await new Promise((r) => setTimeout(r, 0));
  t.cancel();
  // It cannot abort: the task waits for it, as for any operation that
  // ignores its signal.
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(t.state, 'suspended');
  pending[0](1);
  await rt.drain();
  assert.equal(t.state, 'cancelled');
  assert.equal(pending.length, 1, 'no wait after the cancellation ran the operation');
  await rt.close();
  assert.equal(made, 0);
});

test('signals: an_operation_that_reads_its_signal_is_aborted_when_its_task_is_cancelled', async () => {
  /** @type {AbortSignal[]} */
  const signals = [];
  const rt = await load((/** @type {AbortSignal} */ signal) => new Promise((_resolve, reject) => {
    signals.push(signal);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  }));
  const t = rt.dispatch('waits', 3);
  while (signals.length === 0) await new Promise((r) => setTimeout(r, 0));
  t.cancel();
  await rt.drain();
  assert.equal(t.state, 'cancelled');
  assert.equal(signals[0].aborted, true);
  await rt.close();
  assert.equal(made, 1);
});
