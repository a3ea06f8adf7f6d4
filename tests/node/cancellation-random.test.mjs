// Seeded randomized cancellation: thousands of schedules mixing dispatch, waits,
// completions and failures arriving in random order, cancellations at random
// points, operations that cannot abort and disposers that throw. After every
// schedule each successful result went exactly one way, delivered to Wasm or
// disposed once, failures were never disposed, no result reached a task whose
// cancellation had been requested (whether it settled before or after the
// cancel()), and after close() every gauge is zero.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import { assertQuiet, EV, loadCancellation, nextTurn } from '../cases/support.mjs';
import { nodeContext, program, rng } from './helpers.mjs';

const SEED = Number(process.env.SNAIL_SEED ?? 3112026);
const SCHEDULES = 2000;

test(`cancellation: random_schedules_deliver_or_dispose_every_result_exactly_once (${SCHEDULES} schedules, seed ${SEED})`, async () => {
  const next = rng(SEED);
  const module = new WebAssembly.Module(fs.readFileSync(program('cancellation')));
  const ctx = { ...nodeContext, program: () => module };
  let totals = { delivered: 0, disposed: 0, failed: 0, cancelled: 0, throwing: 0, tasks: 0, settledAfterCancel: 0 };
  for (let schedule = 0; schedule < SCHEDULES; schedule++) {
    const where = `schedule ${schedule} (seed ${SEED})`;
    let throwing = 0;
    /** Results delivered to a task whose cancellation was requested (sticky cancel). @type {string[]} */
    const afterCancel = [];
    const { rt, events, ops, disposed } = await loadCancellation(ctx, {
      // Wasm reports each delivery as it gets it: the executing task is the one.
      onEvent: (e, runtime) => {
        if (e.kind !== EV.op || e.b < 1000) return;
        const task = runtime.tasks().find((t) => t.state === 'executing');
        assert.ok(task, `${where}: a delivery outside any task`);
        if (task.cancelRequested) afterCancel.push(`${task} got ${e.b}`);
      },
      maxSteps: 1 + (next() % 6),
      stubbornIf: () => next() % 3 === 0,
      discard: () => {
        if (next() % 5 === 0) {
          throwing++;
          throw new Error('disposer failure on purpose');
        }
      },
    });
    /** @type {Map<number, number>} value -> times resolved */
    const resolved = new Map();
    /** Values an operation resolved with after its task's cancel(): each must be disposed. @type {number[]} */
    const settledAfterCancel = [];
    const resolve = (/** @type {typeof ops[number]} */ o, /** @type {number} */ v) => {
      if (o.signal.aborted) settledAfterCancel.push(v);
      o.resolve(v);
    };
    let value = 1000;
    const tasks = [];
    const taskCount = 2 + (next() % 6);
    for (let i = 0; i < taskCount; i++) tasks.push(rt.dispatch('op_sequence', next() & 0xffff));
    for (let step = 0; step < 400 && tasks.some((t) => !t.finished); step++) {
      const pending = ops.filter((o) => !o.settled);
      const live = tasks.filter((t) => !t.finished);
      const action = next() % 10;
      if (action < 4 && pending.length) {
        const v = ++value;
        resolved.set(v, (resolved.get(v) ?? 0) + 1);
        resolve(pending[next() % pending.length], v);
      } else if (action < 5 && pending.length) {
        pending[next() % pending.length].reject(new Error('operation failure on purpose'));
      } else if (action < 7 && live.length) {
        live[next() % live.length].cancel();
      } else if (action < 8 && tasks.length < 12) {
        const t = rt.dispatch('op_sequence', next() & 0xffff);
        tasks.push(t);
        if (next() % 2) t.cancel(); // sometimes while it is still queued
      } else {
        await nextTurn();
      }
    }
    // Anything still waiting completes now, so that the schedule ends.
    while (tasks.some((t) => !t.finished)) {
      for (const o of ops.filter((x) => !x.settled)) {
        const v = ++value;
        resolved.set(v, 1);
        resolve(o, v);
      }
      await nextTurn();
    }
    const report = await rt.close();

    const delivered = events.filter((e) => e.kind === EV.op && e.b >= 1000).map((e) => e.b);
    const seen = new Map();
    for (const v of [...delivered, ...disposed]) seen.set(v, (seen.get(v) ?? 0) + 1);
    for (const [v] of resolved) {
      assert.equal(seen.get(v), 1, `${where}: result ${v} was delivered or disposed ${seen.get(v) ?? 0} times`);
    }
    for (const v of seen.keys()) assert.ok(resolved.has(v), `${where}: ${v} was delivered or disposed but never resolved`);
    const deliveredSet = new Set(delivered);
    for (const v of disposed) assert.ok(!deliveredSet.has(v), `${where}: ${v} was delivered and disposed`);
    assert.deepEqual(afterCancel, [], `${where}: results reached tasks after cancel()`);
    const disposedSet = new Set(disposed);
    for (const v of settledAfterCancel) assert.ok(disposedSet.has(v), `${where}: ${v} settled after cancel() and was not disposed`);
    assert.equal(rt.stats().disposed, disposed.length, where);
    assert.equal(rt.stats().disposerFailures, throwing, where);
    assert.equal(report.disposerErrors.length, throwing, where);
    for (const t of tasks) {
      assert.ok(t.state === 'returned' || t.state === 'cancelled', `${where}: ${t} ended ${t.state}: ${t.error}`);
      if (t.cancelRequested) assert.equal(t.state, 'cancelled', `${where}: ${t} was cancelled but ended ${t.state}`);
    }
    assertQuiet(rt);
    totals = {
      delivered: totals.delivered + delivered.length,
      disposed: totals.disposed + disposed.length,
      failed: totals.failed + events.filter((e) => e.kind === EV.op && e.b === 2).length,
      cancelled: totals.cancelled + tasks.filter((t) => t.state === 'cancelled').length,
      throwing: totals.throwing + throwing,
      tasks: totals.tasks + tasks.length,
      settledAfterCancel: totals.settledAfterCancel + settledAfterCancel.length,
    };
  }
  // Every path was taken, many times.
  for (const [k, v] of Object.entries(totals)) assert.ok(v > 100, `only ${v} ${k} over ${SCHEDULES} schedules`);
  console.log(`# ${SCHEDULES} schedules: ${JSON.stringify(totals)}`);
});
