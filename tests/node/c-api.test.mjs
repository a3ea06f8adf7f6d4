// The C API (<snail/snail.h>) against the real runtime: tests/programs/c_api.c
// (handler globals of every type, waits, dispatch, drop functions, the C
// disposer) and examples/c/tasks.c under the command.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

import { Runtime, Status, suspend } from '../../host/browser/index.mjs';
import { C_TASKS_LINES } from '../cases/support.mjs';
import { program, rng, root } from './helpers.mjs';

const EV = { i32: 1, i64: 2, f32: 3, f64: 4, ref: 5, status: 6, dropped: 7, ran: 8, freed: 9, handle: 10 };

/**
 * Loads c_api.wasm with test imports that record what the program reports.
 * `ops` are the pending test.op calls, which the test settles.
 */
async function loadCApi() {
  /** @type {{ kind: number, a: number, b: number }[]} */
  const events = [];
  /** @type {Map<number, unknown>} what note_* reported, by kind */
  const notes = new Map();
  /** @type {{ n: number, resolve: (v: number) => void }[]} */
  const ops = [];
  /** @type {{ n: number, resolve: (v: number) => void }[]} */
  const buffers = [];
  /** @type {Map<number, { n: number }>} the host objects test.make made */
  const made = new Map();
  const note = (/** @type {number} */ kind, /** @type {unknown} */ value) => {
    assert.ok(!notes.has(kind), `kind ${kind} reported twice`);
    notes.set(kind, value);
  };
  const rt = await Runtime.load(program('c_api'), {
    checkInvariants: true,
    imports: {
      test: {
        event: (/** @type {number} */ kind, /** @type {number} */ a, /** @type {number} */ b) => { events.push({ kind, a, b }); },
        note_i64: note,
        note_f32: note,
        note_f64: note,
        note_ref: note,
        make: (/** @type {number} */ n) => {
          const object = { n };
          made.set(n, object);
          return object;
        },
        op: suspend((signal, n) => new Promise((resolve, reject) => {
          ops.push({ n, resolve });
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        })),
        buffer: suspend((_signal, n) => new Promise((resolve) => { buffers.push({ n, resolve }); }), undefined, { cancelled: 0, failed: 0 }),
        read: suspend(() => Promise.resolve(Status.failed)),
      },
    },
  });
  return { rt, events, notes, ops, buffers, made };
}

/** Lets pending work run until `done()` holds (every step is a macrotask). @param {() => boolean} done */
async function until(done) {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(done(), 'the awaited state was reached');
}

test('c api: every_handler_type_is_a_register_of_its_task_and_a_child_copies_it', async () => {
  const { rt, notes, ops, made } = await loadCApi();
  assert.deepEqual(rt.handlerGlobals.map((h) => `${h.name}:${h.type}`), ['depth:i32', 'wide:i64', 'single:f32', 'twice:f64', 'host:externref']);
  const ids = [1, 2, 3, 4, 5, 6, 7, 8];
  const tasks = ids.map((n) => rt.dispatch('handlers', n));
  // Every parent and every child waits in test.op; they resume in shuffled
  // order, each after the others changed their own bindings.
  const next = rng(20);
  let settled = 0;
  while (settled < ids.length * 2) {
    await until(() => ops.length > 0);
    const [op] = ops.splice(next() % ops.length, 1);
    op.resolve(Status.ok);
    settled++;
  }
  await rt.drain();
  assert.deepEqual(tasks.map((t) => [t.state, t.value]), ids.map(() => ['returned', Status.ok]), tasks.map((t) => String(t.error)).join('; '));
  const seen = (/** @type {number} */ who) => ({
    i64: notes.get(EV.i64 + 100 * who), f32: notes.get(EV.f32 + 100 * who),
    f64: notes.get(EV.f64 + 100 * who), ref: notes.get(EV.ref + 100 * who),
  });
  for (const n of ids) {
    // A root task starts from the defaults, its child from the parent's values at dispatch.
    assert.deepEqual(seen(-n - 1), { i64: 0n, f32: 0, f64: 0, ref: null }, `root ${n}: the defaults`);
    assert.deepEqual(seen(n * 10 + 1), { i64: BigInt(n) << 33n, f32: n + 0.5, f64: n * 0.25, ref: made.get(n) }, `child of ${n}`);
    assert.equal(seen(n * 10 + 1).ref, made.get(n), 'the very object the parent bound');
    assert.deepEqual(seen(n), { i64: BigInt(n + 1000) << 33n, f32: n + 1000.5, f64: (n + 1000) * 0.25, ref: made.get(n + 1000) }, `parent ${n}, after its wait`);
  }
  assert.equal(notes.size, ids.length * 3 * 4);
  await rt.close();
  assert.equal(rt.stats().live, 0);
});

test('c api: waits_return_statuses_and_after_a_cancellation_every_wait_returns_cancelled', async () => {
  const { rt, events, ops } = await loadCApi();
  const task = rt.dispatch('waits', 7);
  await until(() => ops.length === 1);
  task.cancel();
  await task.done;
  assert.equal(task.state, 'cancelled');
  assert.deepEqual(events.filter((e) => e.kind === EV.status).map((e) => [e.a, e.b]), [
    [1, Status.ok], [2, Status.ok], [3, Status.cancelled], [4, 1], [5, Status.cancelled], [6, Status.cancelled],
  ]);
  await rt.close();
});

test('c api: children_run_or_are_dropped_and_refused_dispatches_leave_no_handle', async () => {
  const { rt, events } = await loadCApi();
  const task = rt.dispatch('children', 5);
  await task.done;
  assert.equal(task.state, 'returned', String(task.error));
  assert.deepEqual(events.map((e) => [e.kind, e.a, e.b]), [
    [EV.dropped, 6, 0], // cancel() of the queued child drops it with its argument, at once
    [EV.status, 1, Status.ok], // ... and then returns
    [EV.status, 2, Status.invalid], // a table index the table does not have
    [EV.handle, 2, 0],
    [EV.ran, 5, 0],
    [EV.status, 3, Status.ok],
    [EV.status, 4, 10],
    [EV.status, 5, Status.cancelled],
    [EV.status, 6, Status.invalid],
  ]);
  await rt.close();
  assert.equal(rt.stats().handles, 0);
});

test('c api: the_c_disposer_frees_the_buffer_of_a_cancelled_task_and_never_a_delivered_one', async () => {
  const { rt, events, buffers } = await loadCApi();
  const alloc = /** @type {(n: number) => number} */ (/** @type {any} */ (rt.instance.exports)['snail.alloc']);
  const cancelled = rt.dispatch('buffer', 1);
  const delivered = rt.dispatch('buffer', 2);
  await until(() => buffers.length === 2);
  const [first, second] = buffers.map((b) => ({ ...b, pointer: alloc(16) }));
  // The result is queued when the cancellation comes: the cancellation wins,
  // and the program's disposer receives the buffer.
  first.resolve(first.pointer);
  cancelled.cancel();
  second.resolve(second.pointer);
  await rt.drain();
  assert.equal(cancelled.state, 'cancelled');
  assert.equal(delivered.state, 'returned', String(delivered.error));
  assert.deepEqual(events.filter((e) => e.kind === EV.freed).map((e) => e.a), [first.pointer]);
  assert.deepEqual(events.filter((e) => e.kind === EV.status).map((e) => e.b), [1, 0], 'cancel_requested: 1 in the cancelled task, 0 in the other');
  assert.equal(rt.stats().disposed, 1);
  await rt.close();
});

test('c api: examples_c_tasks_prints_its_lines_under_the_command', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'host/cli/snail-core.mjs'), 'run', program('c_tasks')], { encoding: 'utf8' });
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, `${C_TASKS_LINES.join('\n')}\n`);
  assert.equal(r.status, 0);
});
