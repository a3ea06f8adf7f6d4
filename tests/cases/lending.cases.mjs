// The lent permit: a task that begins to wait while nothing else wants the
// permit keeps it for the wait, and its wrapper goes on in Wasm when the
// operation fulfils. To everyone else the task is suspended, and anything that
// wants the permit takes it back. These cases run in Node and in Chromium.
import { SnailError, Status, suspend, TaskFailedError } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';
import { internals } from '../../host/browser/debug.mjs';
import { assertQuiet, closeQuiet, handlerValues, heldPauses, loadContracts, nextTurn, until } from './support.mjs';

// A time budget no first run can use up: whether a wait may keep the permit
// then depends on nothing but what else wants it.
const BUDGET = { maxTimeMs: 60_000 };

/** @param {import('../../host/browser/index.mjs').Task} task */
const suspended = (task) => task.state === 'suspended';

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  {
    name: 'lending: a_task_waiting_with_the_permit_lent_is_suspended_to_every_observer',
    async run(ctx) {
      const { rt, violations } = await loadContracts(ctx, BUDGET);
      const t = rt.dispatch('sleep_ms', 30);
      await until(() => rt.stats().lends === 1, 'the sleep to begin');
      assert.equal(t.state, 'suspended');
      assert.equal(t.waitingOn, 'snail.sleep(30 ms)');
      assert.equal(String(t), `task #${t.id} (sleep_ms, suspended)`);
      assert.deepEqual(rt.tasks().map((x) => x.state), ['suspended']);
      const s = rt.stats();
      assert.deepEqual([s.executing, s.suspended, s.lent, s.pendingGates, s.reclaims], [0, 1, 1, 1, 0]);
      // A task started meanwhile takes the permit back and sees the defaults.
      assert.equal(await rt.dispatch('observe_defaults', 0).result, 0);
      assert.deepEqual([rt.stats().reclaims, rt.stats().lent], [1, 0]);
      await t.done;
      assert.equal(t.state, 'returned');
      assert.equal(t.value, Status.ok);
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: work_that_arrives_while_a_task_waits_takes_the_permit_back',
    async run(ctx) {
      const { rt, violations } = await loadContracts(ctx, BUDGET);
      const sleeper = rt.dispatch('sleep_ms', 40);
      await until(() => rt.stats().lends === 1, 'the sleep to begin');
      const order = /** @type {string[]} */ ([]);
      sleeper.done.then(() => order.push('sleeper'));
      const quick = rt.dispatch('nop', 5);
      quick.done.then(() => order.push('quick'));
      assert.equal(await quick.result, 5);
      assert.equal(rt.stats().reclaims, 1, 'the dispatch took the permit back');
      assert.equal(sleeper.state, 'suspended');
      assert.equal(sleeper.waitingOn, 'snail.sleep(40 ms)');
      await sleeper.done;
      assert.deepEqual(order, ['quick', 'sleeper']);
      assert.equal(sleeper.value, Status.ok);
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: a_wait_javascript_starts_by_calling_an_export_directly_is_refused_and_leaves_the_waiting_task_as_it_was',
    async run(ctx) {
      // While a task waits with the permit lent, the permit holder's wait is
      // parked: a wait begun now comes from JavaScript calling an export
      // directly, and used to be taken for the holder's own (its operation
      // never ran and the holder looked executing while it was parked).
      const { pause, held, release } = heldPauses();
      const { rt, violations } = await loadContracts(ctx, { ...BUDGET, pause });
      const entry = /** @type {(arg: number) => number} */ (/** @type {any} */ (rt.instance.exports)['snail.entry.bind_and_pause']);
      const t = rt.dispatch('bind_and_pause', 6);
      await until(() => held.length === 1, 'the first pause');
      assert.equal(rt.stats().lent, 1, 'the task waits with the permit lent');
      assert.throws(() => entry(9), (e) => e instanceof SnailError && e.code === 'ERR_NOT_IN_TASK'
        && /waits with the permit, so outside any task \(an export called directly from JavaScript\?\)/.test(e.message));
      // Nothing of the waiting task changed: still suspended and lent, the
      // defaults in the globals (the direct call's bindings are gone), and
      // no second pause began.
      assert.deepEqual([t.state, rt.stats().lent, rt.stats().executing, held.length, ...handlerValues(rt)], ['suspended', 1, 0, 1, 0, 0, 0]);
      for (let i = 0; i < 3; i++) {
        await until(() => held.length === 1, `pause ${i + 1}`);
        release();
      }
      assert.equal(await t.result, 6, 'the task went on with its own values');
      // With no task at all, the same call is refused and the defaults stay.
      // (The engine used to throw its own SuspendError here.)
      assert.throws(() => entry(9), (e) => e instanceof SnailError && e.code === 'ERR_NOT_IN_TASK'
        && /^test\.pause was called outside a task \(from the program's initialisation, or an export called directly\)/.test(e.message));
      assert.deepEqual(handlerValues(rt), [0, 0, 0]);
      const after = rt.dispatch('observe_defaults', 0);
      assert.equal(await after.result, 0, 'a root task still starts from the defaults');
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: a_wait_javascript_starts_between_a_start_grant_and_its_entry_leaves_the_inherited_bindings',
    async run(ctx) {
      // A granted start is entered by its carrier a microtask later. A wait
      // begun in between by JavaScript calling an export directly used to be
      // taken for the start's own: its registers were saved over the
      // bindings the task inherited, and children started with the defaults.
      /** @type {Map<string, number>} */
      const refused = new Map();
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      let result;
      ({ rt, violations: result } = await loadContracts(ctx, {
        trace: (/** @type {any} */ e) => {
          if (e.type !== 'start') return;
          queueMicrotask(() => {
            const sleep = /** @type {(ms: number) => number} */ (/** @type {any} */ (rt.instance.exports)['snail.entry.sleep_ms']);
            try {
              sleep(1);
            } catch (error) {
              const kind = error instanceof SnailError ? error.code : /** @type {Error} */ (error).name;
              refused.set(kind, (refused.get(kind) ?? 0) + 1);
            }
          });
        },
      }));
      const roots = Array.from({ length: 40 }, (_, i) => rt.dispatch('random_tree', i + 1));
      await Promise.all(roots.map((t) => t.done));
      assert.deepEqual(result, [], 'every child saw the bindings it inherited');
      assert.ok(roots.every((t) => t.state === 'returned'));
      assert.ok((refused.get('ERR_NOT_IN_TASK') ?? 0) > 0, `the direct calls were refused as waits outside a task: ${JSON.stringify([...refused])}`);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: cancelling_the_task_that_waits_with_the_permit_resumes_it_cancelled',
    async run(ctx) {
      const { rt } = await loadContracts(ctx, BUDGET);
      const t = rt.dispatch('sleep_ms', 600_000);
      await until(() => rt.stats().lends === 1, 'the sleep to begin');
      assert.equal(t.cancel(), true);
      assert.equal(rt.stats().reclaims, 1);
      await t.done;
      assert.equal(t.state, 'cancelled');
      assert.equal(t.value, Status.cancelled, 'the sleep ended cancelled and the entry returned its status');
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: an_operation_that_dispatches_lets_the_child_run_before_it_settles',
    async run(ctx) {
      const order = /** @type {string[]} */ ([]);
      /** @type {import('../../host/browser/index.mjs').Task[]} */
      const children = [];
      const { rt, violations } = await loadContracts(ctx, {
        ...BUDGET,
        onPause: (phase, runtime) => {
          order.push(phase);
          if (phase === 'start' && children.length === 0) {
            const child = runtime.dispatch('nop', 9);
            children.push(child);
            child.done.then(() => order.push('child'));
          }
        },
      });
      const t = rt.dispatch('bind_and_pause', 4);
      assert.equal(await t.result, 4);
      assert.deepEqual(order.slice(0, 3), ['start', 'child', 'settle'], 'the child ran while its parent waited');
      assert.equal(children[0].value, 9);
      assert.ok(rt.stats().reclaims >= 1, 'the dispatch took the lent permit back');
      assert.deepEqual(violations, [], 'the waiting task kept its bindings');
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: a_rejected_operation_reaches_the_task_that_kept_the_permit',
    async run(ctx) {
      // As a status: the program sees `failed` where it expected 0.
      const failing = await loadContracts(ctx, { ...BUDGET, pause: suspend(() => Promise.reject(new Error('no'))) });
      const a = failing.rt.dispatch('pause_loop', 1);
      await a.done;
      assert.equal(a.state, 'returned');
      assert.deepEqual(failing.violations, [{ code: 15, a: 0 }], 'pause(0) delivered Status.failed');
      assert.equal(failing.rt.stats().lends, 1);
      await failing.rt.close();
      assertQuiet(failing.rt);

      // Thrown into the program: the task fails with the operation's error.
      const error = new Error('thrown into the task');
      const throwing = await loadContracts(ctx, { ...BUDGET, pause: suspend(() => Promise.reject(error), undefined, { failed: 'reject' }) });
      const b = throwing.rt.dispatch('pause_loop', 1);
      await b.done;
      assert.equal(b.state, 'failed');
      assert.ok(b.error instanceof TaskFailedError);
      assert.equal(/** @type {any} */ (b.error).cause, error);
      assert.equal(throwing.rt.stats().lends, 1);
      // The registers were installed before the error reached the program: a
      // task after it runs normally.
      assert.equal(await throwing.rt.dispatch('pause_loop', 0).result, 0);
      assert.equal(await throwing.rt.dispatch('observe_defaults', 0).result, 0);
      await throwing.rt.close();
      assertQuiet(throwing.rt);
    },
  },
  {
    name: 'lending: a_task_whose_waits_end_at_once_still_gives_the_event_loop_its_turns',
    async run(ctx) {
      const turns = /** @type {number[]} */ ([]);
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      ({ rt } = await loadContracts(ctx, {
        maxSteps: 16,
        maxTimeMs: 1000,
        macrotask: (cb) => { nextTurn().then(() => { turns.push(rt.stats().steps); cb(); }); },
        pause: suspend((_signal, n) => Promise.resolve(n)),
      }));
      let stepsWhenTimerRan = -1;
      nextTurn().then(() => { stepsWhenTimerRan = rt.stats().steps; });
      const t = rt.dispatch('pause_loop', 200);
      assert.equal(await t.result, 200);
      const s = rt.stats();
      assert.ok(s.lends >= 150, `most waits kept the permit (${s.lends} of 200)`);
      assert.ok(s.yields >= 10, `the lent waits count against the step budget (${s.yields} turns given back)`);
      assert.ok(stepsWhenTimerRan >= 0 && stepsWhenTimerRan < s.steps, `a macrotask ran after ${stepsWhenTimerRan} of ${s.steps} steps: not starved`);
      for (let i = 1; i < turns.length; i++) assert.ok(turns[i] - turns[i - 1] <= 16 + 1, 'no turn ran past its step budget');
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: a_cancelled_task_whose_waits_end_at_once_still_gives_the_event_loop_its_turns',
    async run(ctx) {
      // After cancellation every wait of the task ends at once with the
      // cancelled status; a program that loops on waits without looking at
      // it used to run all of them in one turn, and a timer queued meanwhile
      // waited for the whole loop.
      const turns = /** @type {number[]} */ ([]);
      const { pause, held } = heldPauses();
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      ({ rt } = await loadContracts(ctx, {
        maxSteps: 16,
        maxTimeMs: 1000,
        macrotask: (cb) => { nextTurn().then(() => { turns.push(rt.stats().steps); cb(); }); },
        pause,
      }));
      const t = rt.dispatch('pause_loop', 400);
      await until(() => held.length === 1, 'the first pause');
      t.cancel();
      const yieldsAtCancel = rt.stats().yields;
      let stepsWhenTimerRan = -1;
      nextTurn().then(() => { stepsWhenTimerRan = rt.stats().steps; });
      await t.done;
      assert.equal(t.state, 'cancelled');
      assert.equal(t.value, 400, 'the loop went through every wait');
      const s = rt.stats();
      assert.ok(s.yields - yieldsAtCancel >= 20, `the cancelled waits count against the step budget (${s.yields - yieldsAtCancel} turns given back)`);
      assert.ok(stepsWhenTimerRan >= 0 && stepsWhenTimerRan < s.steps, `a macrotask ran after ${stepsWhenTimerRan} of ${s.steps} steps: not starved`);
      for (let i = 1; i < turns.length; i++) assert.ok(turns[i] - turns[i - 1] <= 16 + 1, 'no turn ran past its step budget');
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: repeated_lent_waits_take_exactly_the_turn_budget_and_count_every_step_and_lend',
    async run(ctx) {
      // A task that keeps waiting lent on the same import takes its later
      // waits with no checks (a lease); they still count, each as a step and
      // a lend, and the turn still ends after exactly maxSteps steps.
      const turns = /** @type {number[]} */ ([]);
      let lentWaits = 0;
      let waits = 0;
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      ({ rt } = await loadContracts(ctx, {
        maxSteps: 16,
        maxTimeMs: 60_000,
        macrotask: (cb) => { nextTurn().then(() => { turns.push(rt.stats().steps); cb(); }); },
        pause: suspend((_signal, n) => {
          waits++;
          // During its operation a lent wait's task is suspended and lent to every observer.
          if (rt.stats().lent === 1) lentWaits++;
          return Promise.resolve(n);
        }),
      }));
      const t = rt.dispatch('pause_loop', 300);
      assert.equal(await t.result, 300);
      const s = rt.stats();
      assert.equal(waits, 300);
      assert.ok(lentWaits >= 250, `most waits kept the permit (${lentWaits} of 300)`);
      assert.equal(s.lends, lentWaits, 'stats().lends counts every lent wait, the lease\'s too');
      // A step per grant (the start and each resumption that was not lent)
      // and per lent wait.
      assert.equal(s.steps, 1 + (300 - lentWaits) + lentWaits);
      assert.ok(turns.length >= 15, `${turns.length} turns`);
      for (let i = 1; i < turns.length; i++) assert.equal(turns[i] - turns[i - 1], 16, `turn ${i} took exactly maxSteps steps`);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: repeated_lent_waits_end_their_turn_on_the_time_budget',
    async run(ctx) {
      // Every operation moves a fake clock on by 0.1 ms: with a 1 ms budget a
      // turn ends after about ten steps, however many maxSteps allows, also
      // while the task keeps waiting lent.
      let clock = 0;
      // The steps taken when each turn ended.
      const turns = /** @type {number[]} */ ([]);
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      ({ rt } = await loadContracts(ctx, {
        maxSteps: 4096,
        maxTimeMs: 1,
        now: () => clock,
        macrotask: (cb) => { nextTurn().then(() => { turns.push(rt.stats().steps); cb(); }); },
        pause: suspend((_signal, n) => {
          clock += 0.1;
          return Promise.resolve(n);
        }),
      }));
      const t = rt.dispatch('pause_loop', 300);
      assert.equal(await t.result, 300);
      assert.ok(rt.stats().lends >= 200, `most waits kept the permit (${rt.stats().lends})`);
      assert.ok(turns.length >= 20, `the turns ended on time: ${turns.length} of them for 300 waits`);
      for (let i = 1; i < turns.length; i++) assert.ok(turns[i] - turns[i - 1] <= 12, `turn ${i} took ${turns[i] - turns[i - 1]} steps, past its 1 ms`);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: what_changes_while_a_task_keeps_waiting_lent_reaches_its_next_wait',
    async run(ctx) {
      // A dispatch, a cancellation, a rejection, a thrown error and a value
      // that is not a Promise, each from the operation of a wait deep in a
      // run of lent waits (where the task takes its waits with no checks):
      // each takes effect as it does on a first wait.
      /** @type {Record<number, (rt: import('../../host/browser/index.mjs').Runtime, task: import('../../host/browser/index.mjs').Task) => unknown>} */
      let script = {};
      /** @type {import('../../host/browser/index.mjs').Task | null} */
      let current = null;
      const order = /** @type {string[]} */ ([]);
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      let violations;
      ({ rt, violations } = await loadContracts(ctx, {
        ...BUDGET,
        pause: suspend((_signal, n) => {
          const step = script[n];
          return step ? step(rt, /** @type {any} */ (current)) : Promise.resolve(n);
        }),
      }));
      const run = async (/** @type {number} */ waits, /** @type {typeof script} */ s) => {
        script = s;
        order.length = 0;
        const lendsBefore = rt.stats().lends;
        current = rt.dispatch('pause_loop', waits);
        await current.done;
        return { task: current, lends: rt.stats().lends - lendsBefore };
      };

      // A dispatch: the child runs while its parent waits.
      /** @type {import('../../host/browser/index.mjs').Task | null} */
      let child = null;
      const dispatched = await run(40, {
        20: (r) => {
          child = r.dispatch('nop', 7);
          return Promise.resolve(20);
        },
        21: (_r, task) => {
          order.push(`${task.state}: child ${child?.state}`);
          return Promise.resolve(21);
        },
      });
      assert.equal(dispatched.task.value, 40);
      assert.deepEqual(order, ['suspended: child returned'], 'the child ran before its parent went on');
      assert.ok(dispatched.lends >= 30, `${dispatched.lends} lent waits`);
      assert.deepEqual(violations, []);

      // The task's own cancellation: its wait ends cancelled, and so do the rest.
      const cancelled = await run(40, { 20: (_r, task) => { task.cancel(); return Promise.resolve(20); } });
      assert.equal(cancelled.task.state, 'cancelled');
      assert.equal(cancelled.task.value, 40, 'the loop went through every wait');
      assert.deepEqual(violations.map((v) => `${v.code}:${v.a}`), [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39].map((a) => `15:${a}`), 'pause(20) onwards delivered the cancelled status');
      violations.length = 0;

      // A rejection, then a thrown error: the status failed at that wait only.
      const rejected = await run(40, { 20: () => Promise.reject(new Error('no')), 30: () => { throw new Error('thrown'); } });
      assert.equal(rejected.task.value, 40);
      assert.deepEqual(violations, [{ code: 15, a: 20 }, { code: 15, a: 30 }], 'pause(20) and pause(30) delivered Status.failed');
      assert.ok(rejected.lends >= 35, `the waits after them kept the permit again (${rejected.lends} lent)`);
      violations.length = 0;

      // A dispatch, then a throw: the task still suspends (its wait failed),
      // so the child goes first, as on a first wait.
      child = null;
      const threw = await run(40, {
        20: (r) => {
          child = r.dispatch('nop', 8);
          throw new Error('thrown after the dispatch');
        },
        21: (_r, task) => {
          order.push(`${task.state}: child ${child?.state}`);
          return Promise.resolve(21);
        },
      });
      assert.equal(threw.task.value, 40);
      assert.deepEqual(order, ['suspended: child returned'], 'the child ran before its parent went on');
      assert.deepEqual(violations, [{ code: 15, a: 20 }], 'pause(20) delivered Status.failed');
      violations.length = 0;

      // Not a Promise: the adapter's error is thrown into the task.
      const broken = await run(40, { 20: () => 20 });
      assert.equal(broken.task.state, 'failed');
      assert.match(String(/** @type {any} */ (broken.task.error).cause?.message), /returned number, not a Promise/);
      assert.deepEqual(violations, []);

      // And the runtime goes on as before.
      assert.equal((await run(40, {})).task.value, 40);
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: many_tasks_that_wait_at_once_keep_their_bindings_and_frames',
    async run(ctx) {
      // Operations that settle in a scrambled order: lends, takes in Wasm and
      // reclaims mix (a turn of 16 steps ends the lease often, so that the
      // permit is closed to takes when some settle).
      let n = 0;
      const { rt, violations } = await loadContracts(ctx, {
        ...BUDGET,
        maxSteps: 16,
        pause: suspend((_signal, i) => (++n % 3 === 0 ? Promise.resolve(i) : new Promise((resolve) => { nextTurn().then(() => resolve(i)); }))),
      });
      const tasks = Array.from({ length: 40 }, (_, i) => rt.dispatch('pause_loop', 5 + (i % 7)));
      await rt.drain();
      assert.deepEqual(tasks.map((t) => t.value), tasks.map((_, i) => 5 + (i % 7)));
      assert.deepEqual(violations, []);
      const s = rt.stats();
      assert.ok(s.lends > 0 && s.takes > 0 && s.reclaims > 0, `lends ${s.lends}, takes ${s.takes}, reclaims ${s.reclaims}`);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: taking_the_permit_back_leaves_the_waiting_task_its_registers',
    async run(ctx) {
      // A task that keeps the permit has its registers saved at its wait;
      // the start that takes the permit back runs on the defaults and must
      // leave them saved, or the task resumes with someone else's bindings
      // and stack pointer.
      const { pause, held, release } = heldPauses();
      const { rt, violations } = await loadContracts(ctx, { ...BUDGET, pause });
      const t = rt.dispatch('pause_loop', 2);
      await until(() => held.length === 1, 'the first pause');
      assert.equal(rt.stats().lends, 1);
      // Binds a handler and waits: leaves other registers than the defaults' in place.
      assert.equal(await rt.dispatch('observe_defaults', 0).result, 0);
      assert.equal(rt.stats().reclaims, 1);
      const other = rt.dispatch('bind_and_wait', 9);
      release();
      await until(() => held.length === 1, 'the second pause');
      release();
      assert.equal(await t.result, 2);
      assert.equal(await other.result, 9);
      assert.deepEqual(violations, [], 'both tasks kept their bindings and frames');
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: a_dispatch_wakes_a_parked_carrier_which_picks_the_start_itself',
    async run(ctx) {
      const { rt, violations } = await loadContracts(ctx, BUDGET);
      assert.equal(await rt.dispatch('nop', 1).result, 1);
      assert.equal(rt.stats().idleCarriers, 1, 'the carrier parked when its task returned');
      // One at a time: every start runs on that one carrier.
      for (let i = 0; i < 20; i++) {
        const t = rt.dispatch('nop', i);
        assert.equal(t.state, 'queued', 'a dispatched task is queued until the scheduler starts it');
        assert.equal(await t.result, i);
      }
      let s = rt.stats();
      assert.deepEqual([s.peakCarriers, s.carrierReuses, s.idleCarriers], [1, 20, 1]);
      // Cancelled before the woken carrier picks it: discarded, never started;
      // the carrier parks again and takes the next start.
      const gone = rt.dispatch('nop', 5);
      gone.cancel();
      assert.equal(gone.state, 'cancelled');
      await nextTurn();
      assert.equal(rt.stats().idleCarriers, 1);
      assert.equal(await rt.dispatch('observe_defaults', 0).result, 0);
      // Dispatched while a task waits with the permit lent: the woken carrier
      // takes the permit back for the start.
      const sleeper = rt.dispatch('sleep_ms', 20);
      await until(() => rt.stats().lends > s.lends, 'the sleep to begin');
      assert.equal(await rt.dispatch('nop', 9).result, 9);
      await sleeper.done;
      s = rt.stats();
      assert.equal(s.started, 24, 'every start but the cancelled one ran');
      assert.ok(s.reclaims >= 1);
      assert.equal(sleeper.value, Status.ok);
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: a_task_waiting_with_the_permit_lent_has_its_values_saved_and_the_defaults_in_the_handler_globals',
    async run(ctx) {
      // The specification: at a JSPI wait the runtime saves the registers and
      // restores the defaults. A lent wait too: its wrapper saves them before
      // the operation starts and installs them when the task goes on.
      const samples = /** @type {{ phase: string, lent: number, values: number[] }[]} */ ([]);
      const { rt, violations } = await loadContracts(ctx, {
        ...BUDGET,
        onPause: (/** @type {string} */ phase, /** @type {any} */ runtime) => {
          samples.push({ phase, lent: runtime.stats().lent, values: handlerValues(runtime) });
        },
      });
      assert.equal(await rt.dispatch('bind_and_pause', 7).result, 7);
      assert.equal(samples.length, 6);
      for (const s of samples) assert.deepEqual([s.lent, ...s.values], [1, 0, 0, 0], `at a pause ${s.phase}`);
      // The task read its own values back after every pause (the program
      // reports a violation otherwise, which the case checks below).
      assert.equal(rt.stats().lends > 0, true, 'the waits were lent');
      // Taken back: the defaults are in the globals while the task waits.
      samples.length = 0;
      const t = rt.dispatch('bind_and_pause', 8);
      await until(() => samples.length === 1, 'the first pause');
      assert.equal(await rt.dispatch('observe_defaults', 0).result, 0);
      const s = rt.stats();
      assert.deepEqual([s.lent, s.suspended, ...handlerValues(rt)], [0, 1, 0, 0, 0]);
      assert.equal(await t.result, 8);
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: the_waits_of_a_cancelled_task_keep_its_registers_in_place',
    async run(ctx) {
      // Cancelled while it waits: every later wait ends at once and the task
      // keeps the permit and its registers, which change between the waits.
      const { pause, held, release } = heldPauses();
      const { rt, violations } = await loadContracts(ctx, { ...BUDGET, pause });
      const t = rt.dispatch('rebind_per_wait', 5);
      await until(() => held.length === 1, 'the first pause');
      t.cancel();
      await t.done;
      assert.equal(t.state, 'cancelled');
      assert.equal(t.value, 5, 'the task went on through its five waits');
      assert.deepEqual(violations, [], 'each wait found the binding made just before it');
      // The same without cancelling: the waits that give the permit up.
      const u = rt.dispatch('rebind_per_wait', 3);
      for (let i = 0; i < 3; i++) {
        await until(() => held.length === 1, `pause ${i + 1}`);
        release();
      }
      assert.equal(await u.result, 3);
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: tasks_whose_waits_settle_out_of_order_take_the_permit_in_wasm_and_keep_their_bindings_and_frames',
    async run(ctx) {
      // Every pending pause settles at once, in a shuffled order, each turn:
      // the task whose wait ends takes the permit from the one it is lent
      // to, in Wasm, while nothing else wants it.
      /** @type {(() => void)[]} */
      let pending = [];
      let scheduled = false;
      let seed = 12345;
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
      const { rt, violations } = await loadContracts(ctx, {
        ...BUDGET,
        pause: suspend((_signal, n) => new Promise((resolve) => {
          pending.push(() => resolve(n));
          if (!scheduled) {
            scheduled = true;
            nextTurn().then(flush);
          }
        })),
      });
      const tasks = Array.from({ length: 40 }, (_, i) => rt.dispatch('pause_loop', 20 + (i % 7)));
      await rt.drain();
      assert.deepEqual(tasks.map((t) => t.value), tasks.map((_, i) => 20 + (i % 7)), 'every wait delivered its own value');
      assert.deepEqual(violations, [], 'every task kept its bindings and frames');
      const s = rt.stats();
      assert.ok(s.takes > 100, `${s.takes} waits ended with the permit taken in Wasm (lends ${s.lends}, reclaims ${s.reclaims})`);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: a_task_cancelled_while_it_waits_does_not_take_the_permit_in_wasm',
    async run(ctx) {
      // The pauses ignore their signal: a cancelled task's wait ends when its
      // pause settles, and must then deliver the cancellation, not the value
      // (which taking the permit in Wasm would).
      /** @type {(() => void)[]} */
      const held = [];
      const { rt, violations } = await loadContracts(ctx, {
        ...BUDGET,
        pause: suspend((_signal, n) => new Promise((resolve) => { held.push(() => resolve(n)); })),
      });
      const a = rt.dispatch('pause_loop', 3);
      await until(() => held.length === 1, 'a to wait');
      const b = rt.dispatch('pause_loop', 3);
      await until(() => held.length === 2, 'b to wait (b\'s start took the permit back from a)');
      const [releaseA, releaseB] = held.splice(0);
      a.cancel();
      releaseB();
      await until(() => held.length === 1, 'b to wait again, with the permit lent and open');
      assert.equal(rt.stats().lent, 1, 'b waits with the permit lent');
      const takes = rt.stats().takes;
      releaseA();
      await a.done;
      assert.equal(a.state, 'cancelled');
      assert.equal(rt.stats().takes, takes, 'the cancelled task did not take the permit');
      // pause(i) must deliver i: the cancelled status (1) differs from it but for i = 1.
      assert.equal(Status.cancelled, 1);
      assert.deepEqual(violations.filter((v) => v.code === 15).map((v) => v.a), [0, 2], 'pause(0) onwards delivered the cancelled status');
      while (held.length) {
        held.shift()?.();
        await nextTurn();
      }
      assert.equal(await b.result, 3);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: a_task_alone_keeps_the_permit_lent_across_its_waits_and_never_parks',
    async run(ctx) {
      // Nothing else wants the permit: each wait keeps it lent, and the
      // wrapper goes on in Wasm as the operation fulfils, with no gate.
      const { rt, violations } = await loadContracts(ctx, {
        ...BUDGET,
        pause: suspend((_signal, n) => Promise.resolve(n)),
      });
      const t = rt.dispatch('pause_loop', 50);
      await rt.drain();
      assert.equal(t.value, 50);
      assert.deepEqual(violations, []);
      const s = rt.stats();
      assert.ok(s.lends >= 50, `${s.lends} of 50 waits kept the permit lent`);
      assert.deepEqual([s.parks, s.releases, s.reclaims], [0, 0, 0], 'no wait parked');
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: resumptions_ready_behind_the_permit_are_released_to_take_it_in_wasm_and_keep_their_bindings_and_frames',
    async run(ctx) {
      // Every wait is answered at once (an already resolved promise). The
      // tasks whose waits end after a turn used up its budget of steps join
      // the ready queue. The first of them granted in the next turn releases
      // the others as it begins its next wait: each wakes again by itself and
      // takes the permit in Wasm from the one it is lent to, instead of being
      // granted from the ready queue one at a time.
      const { rt, violations } = await loadContracts(ctx, {
        maxSteps: 256,
        maxTimeMs: 60_000,
        pause: suspend((_signal, n) => Promise.resolve(n)),
      });
      const tasks = Array.from({ length: 30 }, (_, i) => rt.dispatch('pause_loop', 40 + (i % 5)));
      await rt.drain();
      assert.deepEqual(tasks.map((t) => t.value), tasks.map((_, i) => 40 + (i % 5)), 'every wait delivered its own value');
      assert.deepEqual(violations, [], 'every task kept its bindings and frames');
      const s = rt.stats();
      const waits = tasks.reduce((n, t) => n + /** @type {number} */ (t.value), 0);
      assert.ok(s.yields >= 3, `${s.yields} turns ended on the budget`);
      assert.ok(s.releases >= 20, `${s.releases} ready resumptions were released`);
      // Each released resumption parked first; a task of the first turn that
      // woke after the budget was used up parked too.
      assert.ok(s.parks >= s.releases, `${s.parks} waits parked, ${s.releases} were released`);
      assert.ok(s.takes > waits / 2, `${s.takes} of ${waits} waits ended with the permit taken in Wasm (releases ${s.releases}, lends ${s.lends})`);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: resumptions_beyond_the_room_of_a_turn_are_held_back_to_its_end_and_every_task_completes',
    async run(ctx) {
      // A turn of 16 steps releases at most as many resumptions as it has
      // steps left; the others wait on their gates for the turn's end, which
      // grants and releases them first, instead of being released to wake,
      // find the turn used up and park again.
      /** @type {import('../../host/browser/tasks.mjs').Scheduler | null} */
      let sched = null;
      let mostHeld = 0;
      const { rt, violations } = await loadContracts(ctx, {
        maxSteps: 16,
        maxTimeMs: 60_000,
        pause: suspend((_signal, n) => {
          if (sched !== null && sched.held > mostHeld) mostHeld = sched.held;
          return Promise.resolve(n);
        }),
      });
      sched = internals(rt).scheduler;
      const tasks = Array.from({ length: 30 }, (_, i) => rt.dispatch('pause_loop', 20 + (i % 5)));
      await rt.drain();
      assert.deepEqual(tasks.map((t) => t.value), tasks.map((_, i) => 20 + (i % 5)), 'every wait delivered its own value');
      assert.deepEqual(violations, [], 'every task kept its bindings and frames');
      const s = rt.stats();
      assert.ok(mostHeld >= 10, `at most ${mostHeld} ready resumptions were held back at once`);
      assert.ok(s.releases >= 20, `${s.releases} ready resumptions were released`);
      assert.equal(sched.held, 0);
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: resumptions_held_back_are_granted_at_the_turns_end_when_the_holder_waits_for_them',
    async run(ctx) {
      // The operation settles only once every task waits on it (a barrier),
      // so the task lent the permit cannot go on until the tasks held back
      // have run: the turn's end must grant them even though no step was
      // refused (the turn was not paused).
      const n = 24;
      /** @type {(() => void)[]} */
      let waiting = [];
      /** @type {import('../../host/browser/tasks.mjs').Scheduler | null} */
      let sched = null;
      let mostHeld = 0;
      const { rt, violations } = await loadContracts(ctx, {
        maxSteps: 16,
        maxTimeMs: 60_000,
        pause: suspend((_signal, i) => new Promise((resolve) => {
          if (sched !== null && sched.held > mostHeld) mostHeld = sched.held;
          waiting.push(() => resolve(i));
          if (waiting.length === n) {
            const all = waiting.reverse();
            waiting = [];
            queueMicrotask(() => { for (const settle of all) settle(); });
          }
        })),
      });
      sched = internals(rt).scheduler;
      const tasks = Array.from({ length: n }, () => rt.dispatch('pause_loop', 12));
      await until(() => tasks.every((t) => t.state === 'returned'), 'every task to return', 20_000);
      assert.ok(mostHeld > 0, 'resumptions were held back');
      assert.deepEqual(violations, []);
      assert.deepEqual(tasks.map((t) => t.value), tasks.map(() => 12));
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: a_task_cancelled_after_its_release_wakes_to_the_cancellation',
    async run(ctx) {
      // The operation of the wait that released the ready tasks cancels one of
      // them before it wakes: the wait it parked in must end cancelled (pause(j)
      // would deliver j), not with the value its wrapper holds.
      /** @type {Map<import('../../host/browser/index.mjs').Task, number>} */
      const lastPause = new Map();
      /** @type {import('../../host/browser/index.mjs').Task[]} */
      const released = [];
      /** @type {{ task: import('../../host/browser/index.mjs').Task, wait: number } | null} */
      let victim = null;
      const { rt, violations } = await loadContracts(ctx, {
        maxSteps: 64,
        maxTimeMs: 60_000,
        pause: suspend((/** @type {import('../../host/browser/index.mjs').WaitContext} */ context, /** @type {number} */ n) => {
          // The last of several: one released before it wakes first, takes
          // the permit and lends it as it waits, so the permit is open when
          // the cancelled task wakes (the cancellation took it back).
          if (victim === null && released.length > 1) {
            const task = /** @type {import('../../host/browser/index.mjs').Task} */ (released.at(-1));
            victim = { task, wait: /** @type {number} */ (lastPause.get(task)) };
            task.cancel();
          }
          released.length = 0;
          lastPause.set(context.task, n);
          return Promise.resolve(n);
        }, undefined, { context: true }),
      });
      internals(rt).watchReleases((task) => released.push(task));
      const tasks = Array.from({ length: 6 }, () => rt.dispatch('pause_loop', 30));
      await rt.drain();
      const v = /** @type {{ task: import('../../host/browser/index.mjs').Task, wait: number } | null} */ (victim);
      if (v === null) throw new Error(`no task was released (releases ${rt.stats().releases})`);
      assert.equal(v.task.state, 'cancelled');
      for (const t of tasks) if (t !== v.task) assert.equal(t.value, 30, `${t} delivered every wait`);
      // Only the cancelled task's waits fail to deliver pause(i) = i: from the
      // one it was released from on (the cancelled status is 1).
      const from = v.wait === 1 ? 2 : v.wait;
      assert.deepEqual(violations.filter((x) => x.code === 15).map((x) => x.a).filter((a) => a !== 1), Array.from({ length: 30 - from }, (_, i) => from + i).filter((a) => a !== 1));
      await closeQuiet(rt);
    },
  },
  {
    name: 'lending: yields_under_the_lease_keep_the_permit_and_give_way_to_work_that_arrives',
    async run(ctx) {
      // A task that only yields, with nothing else ready, keeps the permit lent
      // across each yield (counted as steps and lends); a dispatch from
      // JavaScript meanwhile ends the lease and runs before the yielder is done.
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      const order = /** @type {string[]} */ ([]);
      ({ rt } = await loadContracts(ctx, { maxSteps: 64, maxTimeMs: 60_000 }));
      const yielder = rt.dispatch('yield_loop', 2000);
      yielder.done.then(() => order.push('yielder'));
      await until(() => rt.stats().lends > 100, 'the yields to keep the permit');
      const quick = rt.dispatch('nop', 7);
      quick.done.then(() => order.push('quick'));
      assert.equal(await quick.result, 7);
      assert.equal(await yielder.result, 2000);
      assert.deepEqual(order, ['quick', 'yielder']);
      const s = rt.stats();
      assert.ok(s.lends >= 1900, `${s.lends} of 2000 yields kept the permit lent`);
      assert.ok(s.yields >= 2000 / 64 - 1, `${s.yields} event-loop turns for 2000 yields with a budget of 64 steps`);
      await closeQuiet(rt);
    },
  },
];
