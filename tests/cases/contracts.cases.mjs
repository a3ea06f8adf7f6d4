// Contracts 1-6 of DESIGN.md as cases that run in Node and in Chromium alike
// (tests/node/cases.test.mjs and tests/browser/cases.test.mjs).
import { TaskFailedError } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';
import { closeQuiet, CONTRACT_EV, handlerValues, loadContracts, nextTurn, until } from './support.mjs';

/** Runs `cb` in a later event-loop turn. @param {() => void} cb */
const later = (cb) => { nextTurn().then(cb); };

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  {
    name: 'contract 1: dispatch_inserts_the_child_into_the_live_set_before_returning',
    async run(ctx) {
      const seen = [];
      const { rt, events, violations } = await loadContracts(ctx, {
        onEvent: (e, runtime) => {
          if (e.kind !== CONTRACT_EV.dispatched) return;
          // The parent is still executing: the child must already be live.
          const child = runtime.tasks().find((t) => t.id === e.a);
          seen.push({ state: child?.state, live: runtime.stats().live, parent: runtime.stats().executing });
        },
      });
      const parent = rt.dispatch('dispatch_one', 10);
      assert.equal(rt.stats().live, 1, 'rt.dispatch inserted the root before returning');
      assert.equal(parent.state, 'queued');
      assert.equal(await parent.result, 15);
      assert.deepEqual(seen, [{ state: 'queued', live: 2, parent: 1 }]);
      assert.deepEqual(violations, []);
      assert.equal(events.length, 1);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 1: a_parent_joining_its_queued_child_at_the_admission_bound_never_deadlocks',
    async run(ctx) {
      // With one task allowed in Wasm, each parent that joins holds the only
      // place: its child must enter above the bound. The parent may keep its
      // permit lent across the join (nothing else can start), so the join
      // itself has to take the permit back for the child. Nested joins
      // (random_tree, up to three levels) and several parents in a row too.
      const { rt, violations } = await loadContracts(ctx, { maxEntered: 1, hardMaxEntered: 64 });
      const parents = [10, 20, 30].map((a) => rt.dispatch('dispatch_one', a));
      const trees = [7, 8].map((seed) => rt.dispatch('random_tree', seed));
      await until(() => rt.stats().live === 0, 'every parent to finish (a deadlock leaves them waiting on their children)');
      assert.deepEqual(parents.map((t) => t.value), [15, 25, 35]);
      assert.deepEqual(trees.map((t) => t.state), ['returned', 'returned']);
      assert.ok(rt.stats().peakEntered > 1, 'joined children entered above the soft bound');
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 1: a_chain_of_joins_deeper_than_the_hard_bound_fails_with_an_error_naming_it_and_never_hangs',
    async run(ctx) {
      // Each link dispatches one child and joins it: every task that entered
      // waits in a join, so the link the hard bound keeps out could never
      // start. It fails instead, naming the bound, and the chain unwinds.
      const failed = /** @type {import('../../host/browser/index.mjs').Task[]} */ ([]);
      const { rt } = await loadContracts(ctx, { maxEntered: 4, hardMaxEntered: 12, onTaskFailed: (t) => { failed.push(t); } });
      const deep = rt.dispatch('join_chain', 20);
      await until(() => rt.stats().live === 0, 'the chain to end (a deadlock leaves it waiting for good)');
      assert.equal(deep.state, 'returned');
      assert.equal(deep.value, -1, 'the root learnt that a link below it failed');
      assert.equal(failed.length, 1, 'one link failed');
      assert.equal(failed[0].state, 'failed');
      assert.match(String(/** @type {Error} */ (failed[0].error).message), /could not start: 12 tasks have entered Wasm, the hard bound \(hardMaxEntered\), and each of them waits in a join for a task that cannot start/);
      assert.equal(rt.stats().peakEntered, 12);
      // A chain the bound holds completes.
      const shallow = rt.dispatch('join_chain', 11);
      assert.equal(await shallow.result, 11);
      assert.equal(failed.length, 1);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 4: a_drop_function_runs_outside_any_task_on_the_defaults_and_the_stack_of_the_program',
    async run(ctx) {
      // The drop function runs inside a running task's cancel: it must see
      // the handler globals' defaults and the program's own stack, and the
      // task its own bindings again afterwards.
      /** @type {{ alpha: number, beta: number, sp: number }[]} */
      const seen = [];
      /** @type {WebAssembly.Global | null} */
      let sp = null;
      const { rt, violations } = await loadContracts(ctx, {
        onEvent: (/** @type {{ kind: number, a: number, b: number }} */ e) => {
          if (e.kind === CONTRACT_EV.dropped) seen.push({ alpha: e.a, beta: e.b, sp: /** @type {WebAssembly.Global} */ (sp).value });
        },
      });
      sp = /** @type {any} */ (rt.instance.exports).__stack_pointer;
      const neutral = /** @type {WebAssembly.Global} */ (sp).value;
      const t = rt.dispatch('drop_while_bound', 7);
      assert.equal(await t.result, 7);
      assert.deepEqual(seen, [{ alpha: 0, beta: 0, sp: neutral }], 'the drop function saw the defaults and the neutral stack pointer');
      assert.deepEqual(violations, [], 'the task had its bindings back after the cancel and the join');
      assert.equal(rt.stats().discarded, 1);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 2: a_trap_removes_only_the_failed_task_and_siblings_go_on',
    async run(ctx) {
      const { rt, events } = await loadContracts(ctx);
      const parent = rt.dispatch('trap_sibling', 100);
      assert.equal(await parent.result, 103);
      const joined = events.filter((e) => e.kind === CONTRACT_EV.joined).map((e) => e.b);
      assert.deepEqual(joined, [0, 2, 0], 'ok, failed, ok: the trap failed only its own task');
      const s = rt.stats();
      assert.equal(s.failed, 1);
      assert.equal(s.returned, 3);
      assert.equal(s.live, 0);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 2: children_of_a_trapping_parent_stay_live_and_finish',
    async run(ctx) {
      const { rt, events } = await loadContracts(ctx);
      const parent = rt.dispatch('trap_after_dispatch', 77);
      await rt.drain();
      assert.equal(parent.state, 'failed');
      assert.ok(parent.error instanceof TaskFailedError);
      assert.match(String(parent.error.message), /trap_after_dispatch.*failed: unreachable/i);
      await assert.rejects(parent.result, (e) => e instanceof TaskFailedError);
      const childDone = events.filter((e) => e.kind === CONTRACT_EV.childDone);
      assert.deepEqual(childDone.map((e) => e.a), [77], 'the child finished, with the binding it inherited');
      assert.equal(rt.stats().returned, 1);
      assert.equal(rt.stats().failed, 1);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 2: a_task_failure_does_not_cancel_siblings',
    async run(ctx) {
      const { rt } = await loadContracts(ctx);
      const failing = rt.dispatch('trap_after_dispatch', 1);
      const others = Array.from({ length: 20 }, (_, i) => rt.dispatch('bind_and_wait', i + 1));
      await rt.drain();
      assert.equal(failing.state, 'failed');
      for (const [i, t] of others.entries()) {
        assert.equal(t.state, 'returned');
        assert.equal(t.value, i + 1);
      }
      assert.equal(rt.stats().cancelled, 0);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 3: drain_resolves_at_once_when_the_live_set_is_empty',
    async run(ctx) {
      // At once: within the microtasks of this turn, before any event-loop
      // turn (the scheduler's macrotask source is held: none can run).
      const { rt } = await loadContracts(ctx, { macrotask: () => { throw new Error('no turn may be needed'); } });
      let resolved = false;
      rt.drain().then(() => { resolved = true; });
      for (let i = 0; i < 3 && !resolved; i++) await null;
      assert.equal(resolved, true, 'drain() of an empty live set resolved within microtasks');
      assert.equal(rt.stats().intervals, 0);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 3: drain_waits_for_the_live_set_and_new_work_starts_a_new_interval',
    async run(ctx) {
      const { rt } = await loadContracts(ctx);
      const first = [rt.dispatch('bind_and_wait', 1), rt.dispatch('bind_and_wait', 2)];
      let drained = false;
      const d1 = rt.drain().then(() => { drained = true; });
      await nextTurn();
      assert.equal(drained, false, 'drain() did not resolve while tasks were live');
      await d1;
      assert.ok(first.every((t) => t.finished), 'drain() resolved only after every task finished');
      assert.equal(rt.stats().live, 0);
      assert.equal(rt.stats().intervals, 1);

      // Exhaustion passed; new work begins a second interval.
      const second = rt.dispatch('bind_and_wait', 3);
      let drained2 = false;
      const d2 = rt.drain().then(() => { drained2 = true; });
      await null;
      assert.equal(drained2, false);
      await d2;
      assert.equal(second.state, 'returned');
      assert.equal(rt.stats().intervals, 2);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 4: at_most_one_task_holds_the_permit_and_between_tasks_globals_hold_defaults',
    async run(ctx) {
      const samples = [];
      const { rt, violations } = await loadContracts(ctx, {
        // At the start of a pause the caller has just parked; at its completion
        // (a macrotask) no Wasm runs. Either way no task may be executing, and
        // every handler global must hold its default, also when the caller
        // waits with the permit lent (docs/abi.md, section 6).
        onPause: (phase, runtime) => {
          const s = runtime.stats();
          samples.push({ phase, executing: s.executing, lent: s.lent, values: handlerValues(runtime) });
        },
      });
      const tasks = Array.from({ length: 100 }, (_, i) => rt.dispatch('bind_and_pause', i + 1));
      const sleepers = Array.from({ length: 100 }, (_, i) => rt.dispatch('bind_and_wait', i + 1));
      await rt.drain();
      assert.equal(samples.length, 600, 'every pause was sampled at its start and its completion');
      for (const s of samples) {
        assert.equal(s.executing, 0, `a task held the permit at a pause ${s.phase}`);
        assert.deepEqual(s.values, [0, 0, 0], `handler globals held task values at a pause ${s.phase}${s.lent ? ' (lent)' : ''}`);
      }
      assert.deepEqual(violations, [], 'no task observed another task\'s bindings');
      assert.ok(tasks.every((t, i) => t.value === i + 1));
      assert.ok(sleepers.every((t, i) => t.value === i + 1));
      assert.ok(rt.stats().peakEntered > 100, 'the tasks really were suspended at the same time');
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 4: root_tasks_start_from_the_defaults',
    async run(ctx) {
      const { rt } = await loadContracts(ctx);
      const busy = Array.from({ length: 10 }, (_, i) => rt.dispatch('bind_and_wait', i + 5));
      const observers = Array.from({ length: 10 }, () => rt.dispatch('observe_defaults'));
      await rt.drain();
      assert.deepEqual(observers.map((t) => t.value), Array(10).fill(0));
      assert.ok(busy.every((t) => t.state === 'returned'));
      // Again in the slots the busy tasks left, which still hold the bindings
      // they saved while they waited.
      const later = Array.from({ length: 10 }, () => rt.dispatch('observe_defaults'));
      await rt.drain();
      assert.deepEqual(later.map((t) => t.value), Array(10).fill(0));
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 5: the_child_binding_vector_is_a_copy_that_outlives_the_parent',
    async run(ctx) {
      const { rt, events } = await loadContracts(ctx);
      const parent = rt.dispatch('copy_on_dispatch', 40);
      await rt.drain();
      assert.equal(parent.state, 'returned');
      const order = events.map((e) => e.kind);
      // The parent returned (and unwound its bindings) before the child ran.
      assert.equal(order[0], CONTRACT_EV.parentDone);
      const saw = events.filter((e) => e.kind === CONTRACT_EV.childSaw).map((e) => [e.a, e.b]);
      assert.deepEqual(saw, [[40, 41], [40, 41], [40, 41]]);
      assert.equal(order.at(-1), CONTRACT_EV.childDone);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 6: short_tasks_yield_an_event_loop_turn_after_the_step_budget',
    async run(ctx) {
      const turns = [];
      const { rt } = await loadContracts(ctx, {
        maxSteps: 16,
        maxTimeMs: 1000,
        macrotask: (cb) => { later(() => { turns.push(rt.stats().steps); cb(); }); },
      });
      let timerRan = false;
      let stepsWhenTimerRan = -1;
      const tasks = Array.from({ length: 50 }, () => rt.dispatch('yield_loop', 40));
      later(() => { timerRan = true; stepsWhenTimerRan = rt.stats().steps; });
      await rt.drain();
      const s = rt.stats();
      assert.ok(tasks.every((t) => t.value === 40));
      assert.ok(s.yields > 0, 'the scheduler yielded to the event loop');
      assert.ok(timerRan, 'a macrotask queued behind the work ran');
      assert.ok(stepsWhenTimerRan < s.steps, `the macrotask ran after ${stepsWhenTimerRan} of ${s.steps} steps: not starved`);
      // Every turn is at most maxSteps long.
      for (let i = 1; i < turns.length; i++) assert.ok(turns[i] - turns[i - 1] <= 16 + 1);
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 6: the_time_budget_also_bounds_a_turn',
    async run(ctx) {
      // A clock that advances 1 ms whenever the scheduler reads it: with a 5 ms
      // budget and no step limit to speak of, only time can end a turn.
      let clock = 0;
      const turns = [];
      const { rt } = await loadContracts(ctx, {
        maxSteps: 1_000_000,
        maxTimeMs: 5,
        timeCheckEvery: 1,
        now: () => clock++,
        macrotask: (cb) => { later(() => { turns.push(rt.stats().steps); cb(); }); },
      });
      const tasks = Array.from({ length: 20 }, () => rt.dispatch('yield_loop', 5));
      await rt.drain();
      assert.ok(tasks.every((t) => t.value === 5));
      const s = rt.stats();
      assert.ok(s.yields > 0, 'the time budget made the scheduler yield');
      assert.ok(turns.length >= Math.floor(s.steps / 6), `${turns.length} turns for ${s.steps} steps`);
      for (let i = 1; i < turns.length; i++) assert.ok(turns[i] - turns[i - 1] <= 6, 'no turn ran past its time budget');
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 6: the_clock_is_read_about_every_sixteenth_of_the_budget',
    async run(ctx) {
      // Reading the clock costs more than a step, so the scheduler reads it
      // at a pace that follows the steps. Here every step takes 10 µs of a
      // make-believe clock: a 0.5 ms turn is about 50 steps, and a reading
      // comes about every 31 µs, every 3 steps.
      /** @type {number[]} the step count at each reading */
      const reads = [];
      const turns = /** @type {number[]} */ ([]);
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      ({ rt } = await loadContracts(ctx, {
        maxSteps: 1_000_000,
        maxTimeMs: 0.5,
        now: () => { const steps = rt.stats().steps; reads.push(steps); return steps * 0.01; },
        macrotask: (cb) => { later(() => { turns.push(rt.stats().steps); cb(); }); },
      }));
      const tasks = Array.from({ length: 10 }, () => rt.dispatch('yield_loop', 60));
      await rt.drain();
      assert.ok(tasks.every((t) => t.value === 60));
      assert.ok(turns.length >= 5, `${turns.length} turns`);
      for (let i = 1; i < turns.length - 1; i++) {
        const steps = turns[i] - turns[i - 1];
        assert.ok(steps >= 45 && steps <= 55, `a turn of ${steps} steps, where the budget is 50`);
        const inTurn = reads.filter((r) => r > turns[i - 1] && r <= turns[i]);
        const gaps = inTurn.slice(1).map((r, k) => r - inTurn[k]);
        assert.ok(gaps.length >= 8 && Math.max(...gaps) <= 4, `readings ${gaps.join(', ')} steps apart`);
      }
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 6: a_clock_that_does_not_move_is_read_ever_less_often',
    async run(ctx) {
      // A coarse clock (browsers give pages one) may not move for a whole
      // turn: the gap between readings doubles, and the step limit ends it.
      let reads = 0;
      const turns = /** @type {{ steps: number, reads: number }[]} */ ([]);
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      ({ rt } = await loadContracts(ctx, {
        maxSteps: 1024,
        now: () => { reads++; return 0; },
        macrotask: (cb) => { later(() => { turns.push({ steps: rt.stats().steps, reads }); cb(); }); },
      }));
      const tasks = Array.from({ length: 20 }, () => rt.dispatch('yield_loop', 250));
      await rt.drain();
      assert.ok(tasks.every((t) => t.value === 250));
      assert.ok(turns.length >= 3, `${turns.length} turns`);
      for (let i = 1; i < turns.length - 1; i++) {
        const steps = turns[i].steps - turns[i - 1].steps;
        const r = turns[i].reads - turns[i - 1].reads;
        assert.equal(steps, 1024, 'the step limit ends the turn');
        assert.ok(r >= 10 && r <= 13, `${r} clock readings for 1024 steps: about log2(1024) + 1`);
      }
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 6: sleeping_tasks_wake_in_deadline_order_not_in_the_order_they_slept',
    async run(ctx) {
      const { rt } = await loadContracts(ctx);
      /** @type {number[]} */
      const woke = [];
      const t0 = performance.now();
      const sleeps = [60, 10, 35, 10];
      const tasks = sleeps.map((ms) => rt.dispatch('sleep_ms', ms));
      /** @type {number[]} */
      const after = [];
      tasks.forEach((t, i) => t.done.then(() => {
        after[i] = performance.now() - t0;
        woke.push(i);
      }));
      await until(() => rt.stats().suspended === 4, 'the four tasks to sleep');
      assert.equal(rt.stats().armedTimers, 4, 'every sleep counts as an armed timer');
      await rt.drain();
      assert.deepEqual(woke, [1, 3, 2, 0], 'by deadline; the two 10 ms sleeps in the order they began');
      // Host timers may fire up to a millisecond before the clock says so.
      sleeps.forEach((ms, i) => assert.ok(after[i] >= ms - 1.5, `task ${i} woke ${after[i]} ms after it slept ${ms} ms`));
      assert.ok(tasks.every((t) => t.state === 'returned' && t.value === 0));
      await closeQuiet(rt);
    },
  },
  {
    name: 'contract 6: the_scheduler_never_spins_while_every_task_waits',
    async run(ctx) {
      let macrotasks = 0;
      const { rt } = await loadContracts(ctx, { macrotask: (cb) => { macrotasks++; later(cb); } });
      const t = rt.dispatch('sleep_ms', 80);
      while (rt.stats().suspended !== 1) await nextTurn();
      await nextTurn();
      const before = { steps: rt.stats().steps, macrotasks };
      // While the only task sleeps, the scheduler does nothing at all: no steps and
      // no macrotasks of its own.
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(rt.stats().steps, before.steps);
      assert.equal(macrotasks, before.macrotasks);
      assert.equal(rt.stats().suspended, 1);
      await rt.drain();
      assert.equal(t.value, 0);
      const idle = { steps: rt.stats().steps, macrotasks };
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(rt.stats().steps, idle.steps);
      assert.ok(macrotasks - idle.macrotasks <= 1, 'at most the pending turn-end callback ran');
      await closeQuiet(rt);
    },
  },
];
