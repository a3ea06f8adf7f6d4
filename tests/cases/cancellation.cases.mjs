// The "Cancellation and adapters" section of the specification, sentence by
// sentence, as cases that run in Node and in Chromium alike. Each asserts
// exact counts and the order of events, and ends with every gauge at zero.
import { CancelledError, Runtime, SnailError, Status, suspend, TaskFailedError } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';
import { assertQuiet, closeQuiet, EV, loadCancellation, manualTurns, nextTurn, ofKind, until } from './support.mjs';

/** @param {import('../../host/browser/index.mjs').Task} task */
const suspended = (task) => task.state === 'suspended';

/** @param {{ kind: number, a: number, b: number }[]} events @param {number} kind */
const pairs = (events, kind) => ofKind(events, kind).map((e) => [e.a, e.b]);

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  {
    name: 'cancellation: cancel_requests_cancellation_and_done_marks_completion',
    async run(ctx) {
      const { rt, events } = await loadCancellation(ctx);
      const t = rt.dispatch('sleep_guarded', 1);
      await until(() => suspended(t), 'the task to sleep');
      // done marks completion: when it resolves, the task has unwound and left the live set.
      const atDone = [];
      t.done.then(() => atDone.push({ unwound: pairs(events, EV.unwound).length, state: t.state, live: rt.stats().live }));
      assert.equal(t.cancel(), true, 'cancel() of a live task');
      assert.equal(t.cancelRequested, true);
      assert.equal(rt.cancel(t), true, 'a second request is accepted');
      assert.equal(rt.cancel(t.id), true, 'by id too');
      assert.equal(rt.stats().cancellationsRequested, 1, 'one request, however often it is made');
      await t.done;
      assert.deepEqual(atDone, [{ unwound: 1, state: 'cancelled', live: 0 }]);
      assert.equal(t.state, 'cancelled');
      assert.deepEqual(pairs(events, EV.woke), [[1, Status.cancelled], [1, Status.cancelled]], 'the sleep ended cancelled; the next one at once');
      assert.deepEqual(pairs(events, EV.sawCancel), [[1, 1]]);
      assert.deepEqual(pairs(events, EV.unwound), [[1, 0]]);
      await assert.rejects(t.result, (e) => e instanceof CancelledError && e.task === t);
      assert.equal(t.value, 7, 'the entry returned after unwinding');
      assert.equal(t.cancel(), false, 'cancel() of a finished task does nothing');
      assert.equal(rt.cancel(12345), false, 'an unknown id');
      assert.throws(() => rt.cancel('x'), (e) => e instanceof SnailError && e.code === 'ERR_ARG');
      // Only a Task or a positive integer is a task id: anything else is refused alike.
      for (const bad of [NaN, -1, 0, 1.5, Infinity, null, undefined, {}]) {
        assert.throws(() => rt.cancel(/** @type {any} */ (bad)), (e) => e instanceof SnailError && e.code === 'ERR_ARG'
          && e.message.startsWith('cancel() takes a Task or a task id, a positive integer (task.id), got '), `cancel(${String(bad)})`);
      }
      assert.throws(() => rt.cancel(/** @type {any} */ (String(t.id))), (e) => e instanceof SnailError && e.code === 'ERR_ARG'
        && e.message.endsWith(`got "${t.id}"; pass the number: cancel(${t.id})`));
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: a_queued_task_that_never_entered_wasm_is_discarded_at_once',
    async run(ctx) {
      const { rt, events } = await loadCancellation(ctx);
      const tasks = [1, 2, 3, 4, 5].map((i) => rt.dispatch('sleep_guarded', i));
      // Synchronously, before any microtask: three are discarded on the spot.
      assert.equal(tasks[0].cancel(), true);
      assert.equal(tasks[2].cancel(), true);
      assert.equal(rt.cancel(tasks[4].id), true);
      assert.deepEqual(tasks.map((t) => t.state), ['cancelled', 'queued', 'cancelled', 'queued', 'cancelled']);
      assert.equal(rt.stats().live, 2);
      assert.equal(rt.stats().discarded, 3);
      await until(() => suspended(tasks[1]) && suspended(tasks[3]), 'the others to sleep');
      tasks[1].cancel();
      tasks[3].cancel();
      await rt.drain();
      assert.equal(rt.stats().started, 2, 'the discarded tasks never entered Wasm');
      assert.deepEqual(pairs(events, EV.unwound).map(([a]) => a).sort(), [2, 4], 'only entered tasks unwound');
      assert.equal(rt.stats().discarded, 3);
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: a_discarded_child_has_its_closure_dropped_without_running',
    async run(ctx) {
      const { rt, events } = await loadCancellation(ctx);
      const t = rt.dispatch('discard_children', 4);
      assert.equal(await t.result, 4, 'every join reported the child cancelled');
      assert.deepEqual(pairs(events, EV.dropped), [[0, 0], [1, 0], [2, 0], [3, 0]], 'each closure was destroyed once, through its drop function');
      assert.deepEqual(ofKind(events, EV.ran), [], 'no discarded closure ran');
      assert.equal(rt.stats().discarded, 4);
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: a_suspended_task_resumes_with_cancellation_and_unwinds_before_leaving_the_live_set',
    async run(ctx) {
      /** @type {string[]} */
      const order = [];
      const { rt, events, ops } = await loadCancellation(ctx, {
        onEvent: (/** @type {{ kind: number, a: number, b: number }} */ e, /** @type {Runtime} */ runtime) => {
          if (e.kind === EV.unwound) order.push(`unwound while live=${runtime.stats().live}`);
        },
      });
      const t = rt.dispatch('op_guarded', 5);
      await until(() => ops.length === 1, 'the operation to start');
      t.done.then(() => order.push('done'));
      t.cancel();
      await t.done;
      assert.deepEqual(pairs(events, EV.op), [[5, Status.cancelled], [5, Status.cancelled]]);
      assert.equal(ops.length, 1, 'the later wait ended at once, without an operation');
      assert.deepEqual(order, ['unwound while live=1', 'done'], 'the destructor ran while the task was still live');
      assert.equal(t.state, 'cancelled');
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: is_sticky_when_a_successful_result_already_queued_a_resumption',
    async run(ctx) {
      const turns = manualTurns();
      const { rt, events, ops, disposed } = await loadCancellation(ctx, { maxSteps: 1, macrotask: turns.macrotask });
      const t = rt.dispatch('op_guarded', 7);
      // The start used the turn's only step; the turn does not end until we say.
      await until(() => ops.length === 1, 'the operation to start');
      ops[0].resolve(42);
      await until(() => t._ready, 'the resumption to be queued');
      assert.equal(rt.stats().ready, 1, 'the success waits in the ready queue, its turn used up');
      t.cancel();
      await until(() => { turns.endTurn(); return t.finished; }, 'the task to unwind');
      assert.deepEqual(disposed, [42], 'the queued success was disposed, once');
      assert.deepEqual(pairs(events, EV.op), [[7, Status.cancelled], [7, Status.cancelled]], 'Wasm never saw 42');
      assert.equal(rt.stats().disposed, 1);
      assert.equal(t.state, 'cancelled');
      // Its entry returned all the same (the status of its first wait): the
      // value is there, and the result still rejects with the cancellation.
      assert.equal(t.value, Status.cancelled);
      let rejected = null;
      await t.result.catch((e) => { rejected = e; });
      assert.ok(rejected instanceof CancelledError, `the result rejected with ${rejected}`);
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: an_executing_task_sees_the_request_at_its_next_check_and_wait',
    async run(ctx) {
      /** @type {import('../../host/browser/index.mjs').Task | null} */
      let running = null;
      const { rt, events } = await loadCancellation(ctx, {
        onEvent: (/** @type {{ kind: number, a: number }} */ e, /** @type {Runtime} */ runtime) => {
          if (e.kind !== EV.ran || running === null) return;
          assert.equal(running.state, 'executing');
          assert.equal(runtime.cancel(running), true, 'cancelled while executing');
        },
      });
      const t = rt.dispatch('cancelled_while_running', 3);
      running = t;
      await t.done;
      assert.deepEqual(pairs(events, EV.sawCancel), [[3, 1]]);
      assert.deepEqual(pairs(events, EV.woke), [[3, Status.cancelled]], 'the wait returned cancelled at once');
      assert.equal(rt.stats().armedTimers, 0);
      assert.equal(t.state, 'cancelled');

      const spinner = rt.dispatch('spin_until_cancelled', 4);
      await until(() => rt.stats().steps > 20, 'the spinner to yield a few times');
      spinner.cancel();
      await spinner.done;
      const [[, spins]] = pairs(events, EV.sawCancel).filter(([a]) => a === 4);
      assert.ok(spins > 0, 'it yielded before it saw the request');
      assert.equal(spinner.state, 'cancelled');
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: tasks_that_only_yield_are_cancelled_without_an_abort_signal',
    async run(ctx) {
      const { rt, events } = await loadCancellation(ctx);
      // Two spinners take turns: each yield parks its task behind the other.
      const a = rt.dispatch('spin_until_cancelled', 5);
      const b = rt.dispatch('spin_until_cancelled', 6);
      await until(() => rt.stats().steps > 40, 'the spinners to take turns');
      // A yield completes at once: no AbortController is made for it.
      const signals = [a, b].map((t) => /** @type {any} */ (t)._exec.signal);
      a.cancel();
      b.cancel();
      await Promise.all([a.done, b.done]);
      assert.deepEqual(signals, [null, null], 'the yielding tasks made no signal');
      assert.deepEqual([a.state, b.state], ['cancelled', 'cancelled']);
      const seen = pairs(events, EV.sawCancel);
      assert.deepEqual(seen.map(([arg]) => arg).sort(), [5, 6]);
      assert.ok(seen.every(([, spins]) => spins > 10), `both yielded many times before they saw the request: ${JSON.stringify(seen)}`);
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: wasm_cancels_a_child_through_its_handle_and_join_reports_it',
    async run(ctx) {
      const { rt, events } = await loadCancellation(ctx);
      const t = rt.dispatch('cancel_child', 20);
      assert.equal(await t.result, Status.cancelled);
      const joined = pairs(events, EV.joined);
      assert.equal(joined.length, 2);
      assert.equal(joined[0][1], Status.ok, 'snail_cancel() accepted the request');
      assert.equal(joined[1][1], Status.cancelled, 'join() reported the child cancelled');
      assert.deepEqual(pairs(events, EV.woke), [[21, Status.cancelled]]);
      assert.deepEqual(pairs(events, EV.unwound), [[21, 0]]);
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: the_operation_gets_an_abort_signal_and_its_cleanup_is_part_of_the_task_lifetime',
    async run(ctx) {
      /** @type {string[]} */
      const order = [];
      const { rt, ops, cleanup } = await loadCancellation(ctx, { cleanupTurns: 3, onCleanupFinished: () => order.push('cleaned') });
      const t = rt.dispatch('op_guarded', 8);
      await until(() => ops.length === 1, 'the operation to start');
      assert.equal(ops[0].signal.aborted, false);
      t.cancel();
      assert.equal(ops[0].signal.aborted, true, 'the signal aborted with the request');
      assert.ok(ops[0].signal.reason instanceof CancelledError);
      const drained = rt.drain().then(() => order.push('drained'));
      await nextTurn();
      assert.equal(cleanup.started, 1);
      assert.equal(cleanup.finished, 0);
      assert.equal(rt.stats().live, 1, 'the task stays live while its operation cleans up');
      assert.equal(t.state, 'suspended');
      await drained;
      assert.equal(cleanup.finished, 1);
      assert.deepEqual(order, ['cleaned', 'drained'], 'drain() waited for the cleanup, with no second counter');
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: a_non_abortable_success_after_cancel_is_disposed_once_and_the_resumption_rejected',
    async run(ctx) {
      const { rt, events, ops, disposed } = await loadCancellation(ctx, { stubborn: true });
      const t = rt.dispatch('op_guarded', 9);
      await until(() => ops.length === 1, 'the operation to start');
      t.cancel();
      for (let i = 0; i < 5; i++) await nextTurn();
      assert.equal(t.state, 'suspended', 'an operation that cannot abort keeps the task parked');
      ops[0].resolve(99);
      await t.done;
      assert.deepEqual(disposed, [99]);
      assert.deepEqual(pairs(events, EV.op), [[9, Status.cancelled], [9, Status.cancelled]]);
      // That its external effects stay is spec-cancellation's case of a put that cannot abort.
      assert.equal(rt.stats().disposed, 1);
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: delivered_results_are_never_disposed',
    async run(ctx) {
      const { rt, events, ops, disposed } = await loadCancellation(ctx);
      const t = rt.dispatch('op_guarded', 11);
      await until(() => ops.length === 1, 'the first operation');
      ops[0].resolve(5);
      await until(() => ops.length === 2, 'the second operation');
      t.cancel();
      await t.done;
      assert.deepEqual(pairs(events, EV.op), [[11, 5], [11, Status.cancelled]]);
      assert.deepEqual(disposed, [], 'the delivered 5 was not disposed; the aborted operation failed');
      assert.equal(rt.stats().disposed, 0);
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: operation_failures_are_never_disposed',
    async run(ctx) {
      const { rt, events, ops, disposed } = await loadCancellation(ctx, { stubborn: true });
      const a = rt.dispatch('op_guarded', 12);
      await until(() => ops.length === 1, 'the operation');
      ops[0].reject(new Error('boom'));
      await until(() => ops.length === 2, 'the second operation');
      ops[1].resolve(3);
      await a.done;
      assert.deepEqual(pairs(events, EV.op), [[12, Status.failed], [12, 3]], 'the failure arrived as the failed status');
      const b = rt.dispatch('op_guarded', 13);
      await until(() => ops.length === 3, 'the next operation');
      b.cancel();
      ops[2].reject(new Error('late failure'));
      await b.done;
      assert.deepEqual(disposed, [], 'failures are never disposed');
      assert.equal(b.state, 'cancelled');
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: a_throwing_disposer_still_rejects_the_parked_invocation_and_wasm_unwinds',
    async run(ctx) {
      /** @type {string[]} */
      const order = [];
      const { rt, events, ops } = await loadCancellation(ctx, {
        stubborn: true,
        discard: () => { order.push('disposer'); throw new Error('disposer broke'); },
        onEvent: (/** @type {{ kind: number }} */ e) => { if (e.kind === EV.unwound) order.push('unwound'); },
      });
      const t = rt.dispatch('op_guarded', 14);
      await until(() => ops.length === 1, 'the operation');
      t.cancel();
      ops[0].resolve(77);
      await t.done.then(() => order.push('done'));
      assert.deepEqual(order, ['disposer', 'unwound', 'done']);
      assert.deepEqual(pairs(events, EV.op)[0], [14, Status.cancelled]);
      assert.equal(rt.stats().disposerFailures, 1);
      const report = await rt.close();
      assert.equal(report.disposerErrors.length, 1);
      assert.equal(report.disposerErrors[0].task, t.id);
      assert.equal(report.disposerErrors[0].operation, 'the disposer of test.op');
      assert.match(String(/** @type {Error} */ (report.disposerErrors[0].error).message), /^disposer broke$/);
      assertQuiet(rt);
    },
  },
  {
    name: 'cancellation: a_disposer_that_re_enters_or_suspends_gets_a_clear_error',
    async run(ctx) {
      let attempt = 0;
      const { rt, ops } = await loadCancellation(ctx, {
        stubborn: true,
        discard: (_r, _c, runtime) => {
          attempt++;
          if (attempt === 1) runtime.dispatch('op_guarded', 1);
          if (attempt === 2) runtime.cancel(1);
          if (attempt === 3) return new Promise((r) => { setTimeout(r, 1); });
          return undefined;
        },
      });
      for (let i = 0; i < 3; i++) {
        const t = rt.dispatch('op_guarded', 30 + i);
        await until(() => ops.length === i + 1, 'the operation');
        t.cancel();
        ops[i].resolve(i);
        await t.done;
        assert.equal(t.state, 'cancelled', 'the task unwound all the same');
      }
      const report = await rt.close();
      const messages = report.disposerErrors.map((d) => /** @type {Error} */ (d.error).message);
      assert.deepEqual(messages, [
        'the disposer of test.op tried to use rt.dispatch(): disposers and drop functions are synchronous and may not suspend or re-enter snail-core',
        'the disposer of test.op tried to use rt.cancel(): disposers and drop functions are synchronous and may not suspend or re-enter snail-core',
        'the disposer of test.op returned a Promise: disposers are synchronous; hand asynchronous cleanup to context.track()',
      ]);
      assert.ok(report.disposerErrors.every((d) => /** @type {any} */ (d.error).code === 'ERR_REENTRANT'));
      assert.equal(rt.stats().dispatched, 3, 'the re-entrant dispatch did not happen');
      assertQuiet(rt);
    },
  },
  {
    name: 'cancellation: a_native_disposer_frees_an_undelivered_buffer_in_linear_memory',
    async run(ctx) {
      const { rt, events, liveBuffers } = await loadCancellation(ctx);
      const delivered = rt.dispatch('buffer_guarded', 1);
      await delivered.done;
      assert.equal(delivered.value, 0);
      assert.equal(ofKind(events, EV.buffer).length, 1);
      assert.ok(ofKind(events, EV.buffer)[0].b > 0);
      assert.deepEqual(ofKind(events, EV.freed), [], 'a delivered buffer is the program\'s, not disposed');
      assert.equal(liveBuffers(), 0);

      const cancelled = rt.dispatch('buffer_guarded', 2);
      await until(() => suspended(cancelled), 'the wait');
      cancelled.cancel(); // the operation cannot abort: it allocates its buffer anyway
      await cancelled.done;
      const freed = ofKind(events, EV.freed);
      assert.equal(freed.length, 1, 'the native disposer ran once');
      assert.ok(freed[0].a > 0, 'with the buffer the operation allocated');
      assert.deepEqual(pairs(events, EV.buffer)[1], [2, 0], 'Wasm received no buffer, only the cancellation');
      assert.deepEqual(pairs(events, EV.unwound), [[1, 0], [2, 0]]);
      assert.equal(cancelled.state, 'cancelled');
      assert.equal(liveBuffers(), 0, 'no buffer leaked');
      assert.equal(rt.stats().disposed, 1);
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: close_awaits_asynchronous_cleanup_a_disposer_handed_over',
    async run(ctx) {
      const closing = { done: false };
      const { rt, ops } = await loadCancellation(ctx, {
        stubborn: true,
        discard: (_r, context) => {
          context.track((async () => {
            for (let i = 0; i < 4; i++) await nextTurn();
            closing.done = true;
          })());
        },
      });
      const t = rt.dispatch('op_guarded', 40);
      await until(() => ops.length === 1, 'the operation');
      t.cancel();
      ops[0].resolve(1);
      await t.done;
      assert.equal(rt.stats().pendingCleanups, 1, 'the descriptor is still closing');
      const report = await rt.close();
      assert.equal(closing.done, true, 'close() waited for the cleanup');
      assert.equal(report.pendingCleanups, 0);
      assertQuiet(rt);
    },
  },
  {
    name: 'cancellation: close_rejects_new_work_cancels_every_live_task_and_waits_for_them',
    async run(ctx) {
      const { rt, events, ops } = await loadCancellation(ctx, { maxEntered: 3, hardMaxEntered: 3 });
      const tasks = [1, 2, 3, 4, 5].map((i) => rt.dispatch('op_guarded', i));
      await until(() => ops.length === 3, 'three operations');
      assert.equal(rt.stats().queued, 2, 'admission control holds two starts back');
      const closing = rt.close();
      assert.throws(() => rt.dispatch('op_guarded', 9), (e) => e instanceof SnailError && e.code === 'ERR_CLOSED' && /is closed/.test(e.message));
      const report = await closing;
      assert.deepEqual(report.cancelled, tasks.map((t) => t.id));
      assert.deepEqual(report.stuck, []);
      assert.equal(report.timedOut, false);
      assert.ok(tasks.every((t) => t.state === 'cancelled'));
      assert.deepEqual(pairs(events, EV.unwound).map(([a]) => a).sort(), [1, 2, 3], 'the entered tasks unwound; the queued ones never ran');
      assert.equal(rt.stats().discarded, 2);
      assertQuiet(rt);
    },
  },
  {
    name: 'cancellation: close_with_a_timeout_reports_the_stuck_task_and_operation_by_name',
    async run(ctx) {
      const { rt, ops, disposed } = await loadCancellation(ctx, { stubborn: true });
      const t = rt.dispatch('op_guarded', 50);
      await until(() => ops.length === 1, 'the operation');
      const report = await rt.close({ timeout: 30 });
      assert.equal(report.timedOut, true);
      assert.deepEqual(report.stuck, [{ id: t.id, entry: 'op_guarded', state: 'suspended', waitingOn: 'test.op' }]);
      assert.equal(rt.stats().live, 1, 'the stuck task stays live, cancelled');
      assert.equal(t.cancelRequested, true);
      // Its operation settles late: the result is disposed and the task unwinds.
      ops[0].resolve(123);
      const again = await rt.close();
      assert.equal(again.timedOut, false);
      assert.deepEqual(again.stuck, []);
      assert.deepEqual(disposed, [123]);
      assert.equal(t.state, 'cancelled');
      assertQuiet(rt);
    },
  },
  {
    name: 'cancellation: a_program_that_chooses_rejection_ends_cancelled_by_the_thrown_error',
    async run(ctx) {
      const { rt, events, ops } = await loadCancellation(ctx, { opOptions: { cancelled: 'reject' } });
      const t = rt.dispatch('op_guarded', 60);
      await until(() => ops.length === 1, 'the operation');
      t.cancel();
      await t.done;
      assert.equal(t.state, 'cancelled');
      assert.ok(t.error instanceof CancelledError);
      assert.match(t.error.message, /was cancelled while waiting on test\.op/);
      assert.deepEqual(ofKind(events, EV.op), [], 'the rejection unwound the Wasm frames without a delivery');
      await closeQuiet(rt);
    },
  },
  {
    name: 'cancellation: suspending_imports_that_bypass_the_bridge_or_drop_their_promise_are_named',
    async run(ctx) {
      const event = () => {};
      await assert.rejects(Runtime.load(ctx.program('cancellation'), {
        imports: { test: { event, op: new WebAssembly.Suspending(async () => 1), op_buffer: suspend(async () => 0) } },
      }), (e) => e instanceof SnailError && e.code === 'ERR_ADAPTER'
        && /^imports\.test\.op is a WebAssembly\.Suspending made outside snail-core; declare it with suspend\(operation\)/.test(e.message));

      const rt = await Runtime.load(ctx.program('cancellation'), {
        imports: { test: { event, op: suspend(/** @type {any} */ (() => 5)), op_buffer: suspend(async () => 0) } },
      });
      const t = rt.dispatch('op_guarded', 1);
      await t.done;
      assert.equal(t.state, 'failed');
      assert.ok(t.error instanceof TaskFailedError);
      assert.match(t.error.message, /the operation of suspending import test\.op returned number, not a Promise/);
      await closeQuiet(rt);
    },
  },
];
