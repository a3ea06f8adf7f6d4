// Cancellation that real programs can live with: shields (cleanup whose waits
// still run after the task was cancelled, bounded by a deadline and by
// close()'s timeout) and cancelling a task's tree. The programs are
// tests/programs/cleanup.cpp (C++: snail::shield, task::cancel_tree) and
// cleanup_c.c (the C forms). These cases run in Node and in Chromium alike;
// each asserts the exact order of events and ends with every gauge at zero.
import { CancelledError, SnailError, Status, suspend } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';
import { assertQuiet, CLEANUP_EV, loadCleanup, manualTurns, nextTurn, until, untilTimer } from './support.mjs';

const NAMES = /** @type {Record<number, string>} */ (Object.fromEntries(Object.entries(CLEANUP_EV).map(([k, v]) => [v, k])));
const C = Status.cancelled;

/**
 * The events as [name, a, b], for exact comparison.
 * @param {{ kind: number, a: number, b: number }[]} events
 */
const story = (events) => events.map((e) => [NAMES[e.kind], e.a, e.b]);

/** @param {{ kind: number, a: number, b: number }[]} events @param {number} kind */
const only = (events, kind) => events.filter((e) => e.kind === kind);

/** @param {import('../../host/browser/index.mjs').Task} task */
const suspended = (task) => task.state === 'suspended';

/** The transaction's events when its rollback ran in full (tests/programs/cleanup.cpp). */
const ROLLED_BACK = [
  ['wait', 10, C], ['requested', 20, 0],
  ['wait', 21, 121], ['wait', 22, 122], ['wait', 23, 123], ['wait', 24, Status.ok],
  ['unwound', 2, 0],
  ['requested', 30, 1], ['wait', 30, C], ['unwound', 1, 0],
];

/**
 * Settles the rollback's writes one by one, each only once the one before
 * delivered (the next one starts only then).
 * @param {import('./support.mjs').ControlledOp[]} ops
 */
async function settleRollback(ops) {
  for (let i = 1; i <= 3; i++) {
    await until(() => ops.length === i + 1, `rollback write ${i} to start`);
    assert.equal(ops[i].n, 20 + i, 'the writes come in order');
    assert.equal(ops[i].signal.aborted, false, 'a shielded operation gets a signal the cancellation did not abort');
    ops[i].resolve(120 + i);
  }
}

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  {
    name: 'shields: a_cancelled_transaction_completes_its_shielded_rollback_in_order_then_unwinds',
    async run(ctx) {
      const { rt, events, ops, disposed } = await loadCleanup(ctx);
      const t = rt.dispatch('transaction', 0);
      await until(() => ops.length === 1, 'the write');
      assert.equal(t.cancel(), true);
      assert.equal(ops[0].signal.aborted, true, 'the write in progress was cancelled');
      await until(() => rt.stats().shielded === 1, 'the rollback to begin its shield');
      await settleRollback(ops);
      await t.done;
      assert.deepEqual(story(events), ROLLED_BACK, 'every rollback write delivered, in order; then the task unwound');
      assert.equal(t.state, 'cancelled');
      assert.equal(ops.length, 4, 'the wait after the shield returned cancelled at once');
      assert.deepEqual(disposed, [], 'delivered results are not disposed');
      assert.equal(rt.stats().shielded, 0);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: the_c_forms_begin_and_end_a_shield_around_a_rollback',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx, { program: 'cleanup_c' });
      const t = rt.dispatch('transaction', 0);
      await until(() => ops.length === 1, 'the write');
      t.cancel();
      await settleRollback(ops);
      await t.done;
      assert.deepEqual(story(events), [
        ['wait', 10, C], ['requested', 20, 0],
        ['wait', 21, 121], ['wait', 22, 122], ['wait', 23, 123],
        ['status', 25, Status.ok], ['unwound', 2, 0],
        ['requested', 30, 1], ['wait', 30, C], ['unwound', 1, 0],
      ]);
      assert.equal(t.state, 'cancelled');
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_task_that_ends_inside_a_shield_ends_the_shield_with_it',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx, { program: 'cleanup_c' });
      const t = rt.dispatch('forgets_to_end');
      await until(() => ops.length === 1, 'the wait in the shield');
      assert.equal(rt.stats().shielded, 1);
      ops[0].resolve(7);
      await t.done;
      assert.deepEqual(story(events), [['wait', 1, 7]]);
      assert.equal(t.state, 'returned');
      assert.equal(rt.stats().shielded, 0, 'the shield ended with the task');
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_task_cancelled_while_it_waits_in_a_shield_receives_the_result_and_nothing_is_disposed',
    async run(ctx) {
      const { rt, events, ops, disposed } = await loadCleanup(ctx);
      const t = rt.dispatch('commit');
      await until(() => ops.length === 1, 'the write');
      ops[0].resolve(5);
      await until(() => ops.length === 2, 'the commit to wait');
      t.cancel();
      assert.equal(t.cancelRequested, true);
      assert.equal(ops[1].signal.aborted, false, 'the shield keeps the operation going');
      assert.equal(ops[0].signal.aborted, true, 'the task\'s own signal aborted at the request, as outside a shield');
      await nextTurn();
      assert.equal(t.state, 'suspended', 'the shielded wait goes on');
      ops[1].resolve(77);
      await t.done;
      assert.deepEqual(story(events), [
        ['wait', 5, 5], ['wait', 10, 77], ['requested', 11, 0], ['wait', 12, Status.ok],
        ['requested', 20, 1], ['wait', 20, C], ['unwound', 1, 0],
      ]);
      assert.deepEqual(disposed, []);
      assert.equal(rt.stats().disposed, 0);
      assert.equal(t.state, 'cancelled');
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_result_queued_for_a_shielded_wait_when_the_cancellation_comes_is_delivered_not_disposed',
    async run(ctx) {
      // As cancellation.cases.mjs's sticky case, where the queued result is
      // disposed, but the wait is in a shield.
      const turns = manualTurns();
      const { rt, events, ops, disposed } = await loadCleanup(ctx, { maxSteps: 1, macrotask: turns.macrotask });
      const t = rt.dispatch('commit');
      await until(() => ops.length === 1, 'the write');
      ops[0].resolve(5);
      await until(() => { turns.endTurn(); return ops.length === 2; }, 'the commit to wait');
      ops[1].resolve(42);
      await until(() => t._ready, 'the resumption to be queued');
      assert.equal(rt.stats().ready, 1, 'the success waits in the ready queue, its turn used up');
      t.cancel();
      await until(() => { turns.endTurn(); return t.finished; }, 'the task to finish');
      assert.deepEqual(story(events).slice(0, 2), [['wait', 5, 5], ['wait', 10, 42]], 'Wasm received 42');
      assert.deepEqual(disposed, []);
      assert.equal(rt.stats().disposed, 0);
      assert.equal(t.state, 'cancelled');
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: when_the_deadline_passes_the_shielded_wait_ends_cancelled_and_the_task_unwinds',
    async run(ctx) {
      const { rt, events, ops, disposed } = await loadCleanup(ctx);
      const t = rt.dispatch('transaction', 30);
      await until(() => ops.length === 1, 'the write');
      t.cancel();
      await until(() => ops.length === 2, 'the first rollback write');
      // Never settled by the case: the deadline ends it.
      await t.done;
      assert.equal(ops[1].signal.aborted, true, 'the shield\'s signal aborted at the deadline');
      assert.ok(ops[1].signal.reason instanceof CancelledError);
      assert.match(ops[1].signal.reason.message, /is in a shield that expired: its deadline passed/);
      assert.deepEqual(story(events), [
        ['wait', 10, C], ['requested', 20, 0],
        ['wait', 21, C], ['wait', 22, C], ['wait', 23, C], ['wait', 24, C],
        ['unwound', 2, 0],
        ['requested', 30, 1], ['wait', 30, C], ['unwound', 1, 0],
      ], 'the wait in progress ended cancelled, the later ones at once');
      assert.equal(ops.length, 2, 'no operation started after the deadline');
      assert.deepEqual(disposed, []);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_success_after_the_deadline_passed_is_disposed_once',
    async run(ctx) {
      const { rt, events, ops, disposed } = await loadCleanup(ctx, { stubborn: true });
      const t = rt.dispatch('transaction', 30);
      await until(() => ops.length === 1, 'the write');
      t.cancel();
      ops[0].resolve(5); // too late: the task was cancelled
      await until(() => ops.length === 2, 'the first rollback write');
      await untilTimer(() => ops[1].signal.aborted, 'the deadline to pass');
      assert.equal(t.state, 'suspended', 'an operation that cannot abort still holds the task');
      ops[1].resolve(121);
      await t.done;
      assert.deepEqual(disposed, [5, 121], 'the late write and the success after the deadline, each once');
      assert.deepEqual(story(events).slice(0, 3), [['wait', 10, C], ['requested', 20, 0], ['wait', 21, C]]);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: nested_shields_the_inner_deadline_passes_and_the_outer_shield_holds',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx);
      const t = rt.dispatch('nested', 30);
      await until(() => ops.length === 1, 'the first wait');
      t.cancel();
      await until(() => ops.length === 2, 'the wait in the outer shield');
      ops[1].resolve(20);
      await untilTimer(() => ops.length === 3, 'the outer shield\'s wait after the inner one (the inner deadline to pass)');
      assert.equal(ops[2].signal, ops[1].signal, 'the outer shield\'s own signal again');
      assert.equal(ops[2].signal.aborted, false, 'the inner deadline did not abort the outer shield\'s signal');
      ops[2].resolve(40);
      await t.done;
      assert.deepEqual(story(events), [
        ['wait', 10, C],
        ['wait', 20, 20],
        ['wait', 30, C], ['requested', 31, 1], ['wait', 32, C], ['unwound', 2, 0],
        ['requested', 40, 0], ['wait', 40, 40],
        ['requested', 50, 1], ['wait', 50, C], ['unwound', 1, 0],
      ]);
      assert.equal(ops.length, 3);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: an_inner_shield_ends_no_later_than_the_outer_deadline_and_a_deadline_holds_in_a_task_never_cancelled',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx);
      const t = rt.dispatch('nested_deadline', 30);
      await t.done;
      assert.deepEqual(story(events), [
        ['wait', 10, C], ['requested', 11, 1],
        ['requested', 20, 1], ['wait', 20, C],
        ['requested', 30, 0], ['unwound', 1, 0],
      ]);
      assert.equal(ops.length, 0);
      assert.equal(t.state, 'returned', 'a deadline cancels the waits of its shield, not the task');
      assert.equal(t.cancelRequested, false);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: close_waits_for_shielded_cleanup_to_finish',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx);
      const t = rt.dispatch('shielded_op');
      await until(() => ops.length === 1, 'the shielded wait');
      let closed = false;
      const closing = rt.close().then((report) => { closed = true; return report; });
      assert.equal(t.cancelRequested, true, 'close() cancelled the task');
      assert.equal(ops[0].signal.aborted, false);
      await nextTurn();
      assert.equal(closed, false, 'close() waits for the shielded cleanup');
      ops[0].resolve(10);
      await until(() => ops.length === 2, 'the second shielded wait');
      ops[1].resolve(11);
      const report = await closing;
      assert.deepEqual(story(events), [['wait', 10, 10], ['wait', 11, 11], ['wait', 20, C], ['unwound', 1, 0]]);
      assert.deepEqual([report.timedOut, report.stuck, report.shielded, report.cancelled], [false, [], [], [t.id]]);
      assert.equal(t.state, 'cancelled');
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: close_with_a_timeout_cuts_a_shielded_wait_short_and_names_it',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx);
      const t = rt.dispatch('shielded_op');
      await until(() => ops.length === 1, 'the shielded wait');
      const report = await rt.close({ timeout: 30 });
      assert.equal(report.timedOut, true);
      assert.deepEqual(report.shielded, [{ id: t.id, entry: 'shielded_op', waitingOn: 'test.op' }]);
      assert.deepEqual(report.stuck, [{ id: t.id, entry: 'shielded_op', state: 'suspended', waitingOn: 'test.op' }]);
      assert.equal(ops[0].signal.aborted, true, 'the timeout aborted the shield\'s signal');
      assert.match(ops[0].signal.reason.message, /is in a shield that expired: close\(\) timed out/);
      await t.done;
      assert.deepEqual(story(events), [['wait', 10, C], ['wait', 11, C], ['wait', 20, C], ['unwound', 1, 0]]);
      assert.equal(ops.length, 1);
      const again = await rt.close();
      assert.deepEqual([again.timedOut, again.stuck, again.shielded], [false, [], []]);
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_shield_begun_after_close_gave_up_begins_expired',
    async run(ctx) {
      const { rt, events, ops, disposed } = await loadCleanup(ctx, { stubborn: true });
      const t = rt.dispatch('transaction', 0);
      await until(() => ops.length === 1, 'the write');
      const report = await rt.close({ timeout: 20 });
      assert.deepEqual([report.timedOut, report.shielded.length, report.stuck.length], [true, 0, 1]);
      ops[0].resolve(9);
      await t.done;
      assert.deepEqual(story(events), [
        ['wait', 10, C], ['requested', 20, 1],
        ['wait', 21, C], ['wait', 22, C], ['wait', 23, C], ['wait', 24, C],
        ['unwound', 2, 0],
        ['requested', 30, 1], ['wait', 30, C], ['unwound', 1, 0],
      ]);
      assert.deepEqual(disposed, [9]);
      assert.equal(ops.length, 1, 'no rollback write started');
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_shielded_import_runs_and_delivers_in_a_cancelled_task',
    async run(ctx) {
      const { rt, events, ops, disposed } = await loadCleanup(ctx);
      const t = rt.dispatch('shielded_import');
      await until(() => ops.length === 1, 'the first wait');
      t.cancel();
      await until(() => ops.length === 2, 'the shielded import to run');
      assert.equal(ops[1].n, 20);
      assert.equal(ops[1].signal.aborted, false);
      assert.ok(ops[1].signal !== ops[0].signal, 'a signal of the shield\'s own');
      assert.equal(rt.stats().shielded, 1, 'the import\'s wait is in a shield');
      ops[1].resolve(200);
      await t.done;
      assert.deepEqual(story(events), [
        ['wait', 10, C], ['requested', 11, 1],
        ['wait', 20, 200], ['requested', 21, 1],
        ['wait', 30, C], ['unwound', 1, 0],
      ]);
      assert.deepEqual(disposed, []);
      assert.equal(ops.length, 2);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_shielded_import_whose_deadline_passes_ends_cancelled',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx, { shield: 30 });
      const t = rt.dispatch('shielded_import');
      await until(() => ops.length === 1, 'the first wait');
      t.cancel();
      await t.done;
      assert.equal(ops.length, 2);
      assert.equal(ops[1].signal.aborted, true);
      assert.deepEqual(story(events).slice(2, 3), [['wait', 20, C]]);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_shielded_import_never_waits_with_the_permit_lent_and_its_shield_ends_with_each_wait',
    async run(ctx) {
      // A task alone waits with the permit lent in an import without a
      // disposer, and a lent wait that fulfils goes on in Wasm, past the wait
      // path that ends a shielded import's shield: a shielded import waits
      // suspended. The same import without the option shows the difference
      // (a turn's time budget that never runs out lets every wait lend).
      for (const shield of [false, true]) {
        /** @type {(() => void)[]} */
        const held = [];
        const pause = suspend((_signal, n) => new Promise((resolve) => { held.push(() => resolve(n)); }), undefined, { shield });
        const { rt } = await loadCleanup(ctx, { pause, maxTimeMs: 60_000 });
        const t = rt.dispatch('pauses', 3);
        for (let i = 0; i < 3; i++) {
          await until(() => held.length === i + 1, `wait ${i + 1} (shield: ${shield})`);
          const { lent, shielded } = rt.stats();
          assert.deepEqual({ lent, shielded }, shield ? { lent: 0, shielded: 1 } : { lent: 1, shielded: 0 }, `wait ${i + 1} (shield: ${shield})`);
          held[i]();
        }
        await t.done;
        assert.deepEqual([t.state, t.value], ['returned', 3]);
        assert.equal(rt.stats().shielded, 0, 'each shield ended with its wait');
        await rt.close();
        assertQuiet(rt);
      }
    },
  },
  {
    name: 'signals: an_operation_that_cannot_see_its_arguments_is_given_no_signal_and_makes_no_abort_controller',
    async run(ctx) {
      // An arrow function of no parameters cannot read the signal it would be
      // given, so none is made for it, in every engine (the runtime reads the
      // function's source to know); an operation with a parameter gets its
      // task's signal, one for all the task's waits.
      const Original = globalThis.AbortController;
      let made = 0;
      globalThis.AbortController = class extends Original {
        constructor() {
          super();
          made++;
        }
      };
      try {
        for (const reads of [false, true]) {
          /** @type {(() => void)[]} */
          const held = [];
          /** @type {unknown[]} */
          const seen = [];
          let next = 2;
          const pause = reads
            ? suspend((signal, n) => {
              seen.push(signal);
              return new Promise((resolve) => { held.push(() => resolve(n)); });
            })
            : suspend(() => new Promise((resolve) => {
              const v = next++;
              held.push(() => resolve(v));
            }));
          made = 0;
          const { rt } = await loadCleanup(ctx, { pause, maxTimeMs: 60_000 });
          const t = rt.dispatch('pauses', 3);
          for (let i = 0; i < 3; i++) {
            await until(() => held.length === i + 1, `wait ${i + 1} (reads: ${reads})`);
            held[i]();
          }
          await t.done;
          assert.deepEqual([t.state, t.value], ['returned', 3], `reads: ${reads}`);
          assert.equal(made, reads ? 1 : 0, `AbortControllers made (reads: ${reads})`);
          if (reads) assert.ok(seen.length === 3 && seen.every((x) => x === seen[0] && x instanceof AbortSignal), 'one signal for the task\'s waits');
          await rt.close();
          assertQuiet(rt);
        }
      } finally {
        globalThis.AbortController = Original;
      }
    },
  },
  {
    name: 'shields: suspend_refuses_a_shield_option_that_is_not_true_false_or_a_deadline',
    async run() {
      const op = async () => 0;
      for (const bad of [0, -1, NaN, '5', null, {}]) {
        assert.throws(() => suspend(op, undefined, /** @type {any} */ ({ shield: bad })), (e) => e instanceof SnailError && e.code === 'ERR_ARG'
          && e.message.startsWith('suspend() option shield must be true, false, or the shield\'s deadline in milliseconds'), `shield: ${String(bad)}`);
      }
      for (const good of [true, false, 1, 2.5, Infinity]) suspend(op, undefined, { shield: good });
    },
  },
  {
    name: 'shields: misuse_gives_statuses_and_a_deadline_of_zero_begins_expired',
    async run(ctx) {
      const { rt, events } = await loadCleanup(ctx);
      const t = rt.dispatch('misuse');
      await t.done;
      const I = Status.invalid;
      assert.deepEqual(story(events), [
        ['status', 1, I], ['status', 2, I], ['status', 3, I], ['status', 4, I], ['status', 5, I],
        ['status', 6, Status.ok], ['wait', 7, C], ['requested', 7, 1],
        ['status', 8, Status.ok], ['requested', 8, 0],
      ]);
      assert.equal(t.state, 'returned');
      // An export called directly from JavaScript is no task.
      const entry = /** @type {(arg: number) => number} */ (/** @type {any} */ (rt.instance.exports)['snail.entry.misuse']);
      assert.throws(() => entry(0), (e) => e instanceof SnailError && e.code === 'ERR_NOT_IN_TASK'
        && /^snail\.shield_end was called outside a task/.test(e.message));
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_cancelled_tasks_shielded_waits_take_the_permit_in_wasm_like_any_other',
    async run(ctx) {
      // Every pending pause settles at once, in a shuffled order, each turn
      // (as the lending case of that name): waits that end take the permit
      // from the task it is lent to, in Wasm, also in cancelled tasks' shields.
      /** @type {(() => void)[]} */
      let pending = [];
      let scheduled = false;
      let seed = 4242;
      const flush = () => {
        scheduled = false;
        const now = pending;
        pending = [];
        for (let i = now.length - 1; i > 0; i--) {
          seed = (seed * 1103515245 + 12345) >>> 0;
          const j = seed % (i + 1);
          [now[i], now[j]] = [now[j], now[i]];
        }
        for (const go of now) go();
      };
      const pause = suspend((_signal, n) => new Promise((resolve) => {
        pending.push(() => resolve(n));
        if (!scheduled) {
          scheduled = true;
          nextTurn().then(flush);
        }
      }));
      const { rt } = await loadCleanup(ctx, { maxTimeMs: 60_000, pause });
      const tasks = Array.from({ length: 40 }, (_, i) => rt.dispatch('shielded_pauses', 40 + (i % 7)));
      await until(() => rt.stats().started === 40, 'every task to start');
      for (const t of tasks) t.cancel();
      const takes = rt.stats().takes;
      await rt.drain();
      assert.deepEqual(tasks.map((t) => t.value), tasks.map((_, i) => 40 + (i % 7)), 'every pause delivered its own value');
      assert.ok(tasks.every((t) => t.state === 'cancelled'));
      const s = rt.stats();
      assert.ok(s.takes - takes > 100, `${s.takes - takes} waits after the cancellation ended with the permit taken in Wasm`);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'shields: a_wait_whose_shield_expired_does_not_take_the_permit_in_wasm',
    async run(ctx) {
      // The shielded task's test.pause(1000) is held by the case; every
      // other pause settles in the next turn (the loop's own pause(1000),
      // its 999th, too). The looping task waits with the permit lent and
      // open most of the time: the held wait, once its shield expired, must
      // end through the wait path with the cancellation, not take the permit
      // with the value.
      /** @type {(() => void)[]} */
      const held = [];
      const pause = suspend((_signal, n) => new Promise((resolve) => {
        if (n === 1000 && held.length === 0) held.push(() => resolve(n));
        else nextTurn().then(() => resolve(n));
      }));
      const { rt, events } = await loadCleanup(ctx, { maxTimeMs: 60_000, pause });
      const s = rt.dispatch('shielded_pause', 20);
      await until(() => held.length === 1, 'the shielded wait');
      const looping = rt.dispatch('pauses', 1_000_000);
      await until(() => rt.stats().lent === 1, 'the loop to wait lent');
      await untilTimer(() => s._cancelNow, 'the shield to expire');
      await until(() => rt.stats().lent === 1, 'the loop to wait lent again');
      held[0]();
      await s.done;
      assert.deepEqual(story(events), [['wait', 1000, C]], 'the expired wait delivered the cancellation');
      assert.equal(s.state, 'returned');
      looping.cancel();
      await looping.done;
      assert.equal(looping.state, 'cancelled');
      await rt.close();
      assertQuiet(rt);
    },
  },

  // --- trees ----------------------------------------------------------------

  {
    name: 'trees: cancelling_the_root_from_javascript_cancels_a_tree_of_1000_tasks_and_every_node_unwinds',
    async run(ctx) {
      const { rt, events } = await loadCleanup(ctx);
      const root = rt.dispatch('tree');
      await until(() => rt.stats().suspended === 1000, 'every node to sleep');
      const depths = [0, 0, 0, 0];
      for (const e of only(events, CLEANUP_EV.ran)) depths[e.b]++;
      assert.deepEqual(depths, [1, 9, 90, 900], 'four depths');
      assert.equal(rt.cancel(root, { children: true }), true);
      assert.equal(rt.stats().cancellationsRequested, 1000);
      await rt.drain();
      const ids = (/** @type {number} */ kind) => only(events, kind).map((e) => e.a).sort((a, b) => a - b);
      const all = Array.from({ length: 1000 }, (_, i) => i);
      assert.deepEqual(ids(CLEANUP_EV.unwound), all, 'every node unwound once');
      assert.ok(only(events, CLEANUP_EV.wait).every((e) => e.b === C), 'every sleep ended cancelled');
      assert.deepEqual([rt.stats().cancelled, rt.stats().returned], [1000, 0], 'every node ended cancelled');
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'trees: the_queued_tasks_of_a_tree_are_discarded_and_the_entered_ones_unwind',
    async run(ctx) {
      // Admission control holds most of the tree back: those never entered Wasm.
      const { rt, events } = await loadCleanup(ctx, { maxEntered: 100 });
      const root = rt.dispatch('tree');
      await until(() => rt.stats().suspended === 100, 'a hundred nodes to sleep');
      const queued = rt.stats().queued;
      assert.ok(queued > 0, 'nodes wait for admission');
      assert.equal(rt.cancel(root, { children: true }), true);
      assert.equal(rt.stats().discarded, queued, 'every queued node was discarded at once');
      await rt.drain();
      assert.equal(only(events, CLEANUP_EV.unwound).length, 100, 'every entered node unwound');
      assert.equal(only(events, CLEANUP_EV.ran).length, 100, 'no discarded node ran');
      assert.equal(rt.stats().cancelled, 100 + queued);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'trees: a_task_cancelled_from_wasm_with_its_tree_takes_1000_tasks_with_it',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx);
      const t = rt.dispatch('tree_from_wasm');
      await until(() => rt.stats().suspended === 1001, 'every node to sleep');
      ops[0].resolve(0);
      await t.done;
      await rt.drain();
      assert.equal(t.state, 'returned', 'the task that cancelled the tree is not in it');
      assert.deepEqual(only(events, CLEANUP_EV.status).map((e) => [e.a, e.b]), [[1, Status.ok], [2, C]], 'cancel_tree ok; the root joined cancelled');
      assert.equal(only(events, CLEANUP_EV.unwound).length, 1000);
      assert.equal(new Set(only(events, CLEANUP_EV.unwound).map((e) => e.a)).size, 1000);
      assert.deepEqual([rt.stats().cancelled, rt.stats().returned], [1000, 1]);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'trees: the_c_form_cancels_a_tree_from_wasm',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx, { program: 'cleanup_c' });
      const t = rt.dispatch('tree_from_wasm');
      await until(() => rt.stats().suspended === 14, 'every node to sleep');
      ops[0].resolve(0);
      await rt.drain();
      assert.equal(t.state, 'returned');
      assert.deepEqual(only(events, CLEANUP_EV.status).map((e) => [e.a, e.b]), [[1, Status.ok], [2, C]]);
      assert.deepEqual(only(events, CLEANUP_EV.unwound).map((e) => e.a).sort((a, b) => a - b), Array.from({ length: 13 }, (_, i) => i));
      assert.equal(rt.stats().cancelled, 13);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'trees: by_default_cancelling_a_task_leaves_its_children_and_a_finished_tasks_tree_is_still_reached',
    async run(ctx) {
      const { rt, events } = await loadCleanup(ctx);
      const root = rt.dispatch('tree');
      await until(() => rt.stats().suspended === 1000, 'every node to sleep');
      // The specification's default: dispatched work is independent.
      root.cancel();
      await root.done;
      assert.equal(rt.stats().live, 999, 'the children stay live');
      // A child of the root, cancelled alone: finished, its handle released
      // at dispatch, nothing can name it any more.
      const child = /** @type {import('../../host/browser/index.mjs').Task} */ (rt.tasks().find((t) => t.id === root.id + 1));
      child.cancel();
      await child.done;
      assert.equal(child.cancel({ children: true }), false, 'a finished child whose handle is gone names no tree');
      assert.equal(rt.stats().live, 998);
      // The root finished, but a root task is named: its tree is reached
      // through the finished child too.
      assert.equal(root.cancel({ children: true }), true);
      await rt.drain();
      assert.equal(only(events, CLEANUP_EV.unwound).length, 1000);
      assert.equal(rt.stats().cancelled, 1000);
      assert.equal(root.cancel({ children: true }), false, 'nothing left');
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'trees: a_child_that_outlived_its_returned_parents_is_reached_and_dispatches_its_children_cancelled_outside_a_shield',
    async run(ctx) {
      const { rt, events } = await loadCleanup(ctx);
      const first = rt.dispatch('chain');
      await until(() => rt.stats().suspended === 1 && rt.stats().returned === 2, 'the last link to sleep');
      assert.equal(first.state, 'returned');
      assert.equal(first.cancel(), false, 'a finished task');
      assert.equal(first.cancel({ children: true }), true, 'its tree has a live task');
      await rt.drain();
      assert.deepEqual(story(events), [
        ['wait', 3, C],
        ['dropped', 100, 0], ['status', 100, C],
        ['ran', 101, 0], ['status', 101, Status.ok],
        ['unwound', 3, 0],
      ], 'the child dispatched after the cancellation was dropped; the one dispatched in a shield ran');
      assert.deepEqual([rt.stats().cancelled, rt.stats().discarded, rt.stats().returned], [2, 1, 3]);
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'trees: wasm_cancels_the_tree_of_a_finished_child_whose_handle_it_holds',
    async run(ctx) {
      const { rt, events, ops } = await loadCleanup(ctx);
      const t = rt.dispatch('chain_from_wasm');
      await until(() => ops.length === 1 && rt.stats().suspended === 2, 'the last link to sleep');
      ops[0].resolve(0);
      await rt.drain();
      assert.deepEqual(story(events), [
        ['status', 1, Status.ok], ['wait', 2, 0], ['status', 3, Status.ok],
        ['wait', 3, C],
        ['dropped', 100, 0], ['status', 100, C],
        ['ran', 101, 0], ['status', 101, Status.ok],
        ['unwound', 3, 0],
      ]);
      assert.equal(t.state, 'returned');
      await rt.close();
      assertQuiet(rt);
    },
  },
  {
    name: 'trees: cancel_refuses_options_it_does_not_have',
    async run(ctx) {
      const { rt } = await loadCleanup(ctx);
      const t = rt.dispatch('chain');
      const refused = (/** @type {() => unknown} */ fn, /** @type {RegExp} */ message) => assert.throws(fn, (e) => e instanceof SnailError && e.code === 'ERR_ARG' && message.test(e.message));
      refused(() => rt.cancel(t, /** @type {any} */ ({ children: 'yes' })), /^rt\.cancel\(\): option children must be true or false, got string/);
      refused(() => t.cancel(/** @type {any} */ ({ kids: true })), /^task\.cancel\(\) has no option "kids"; its options are children/);
      refused(() => t.cancel(/** @type {any} */ (null)), /^the options of task\.cancel\(\) must be an object, got null/);
      assert.equal(t.cancelRequested, false, 'a refused call cancels nothing');
      assert.equal(t.cancel({ children: false }), true, 'children: false is a plain cancel');
      await rt.close();
      assertQuiet(rt);
    },
  },
];
