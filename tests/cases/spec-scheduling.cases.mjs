// Cases written for sentences of the specification (docs/specification.md)
// that no other case proved on its own. They run in Node and in Chromium.
import { MemoryStorage, Runtime, SnailError, suspend, TaskFailedError } from '../../host/browser/index.mjs';
import { Scheduler } from '../../host/browser/tasks.mjs';
import { assert } from './assert.mjs';
import { assertQuiet, closeQuiet, handlerValues, loadContracts, manualTurns, nextTurn, until, untilTimer } from './support.mjs';
import { internals } from '../../host/browser/debug.mjs';

/** The three states of a live task. */
const LIVE = ['queued', 'executing', 'suspended'];

/**
 * A `test.pause` whose operations the case settles by hand: `held` lists the
 * waits in progress, oldest first, each with its argument.
 * @param {object} [options]  the suspend() options
 */
function pausesByHand(options) {
  /** @type {{ n: number, resolve: (v: number) => void, reject: (e: unknown) => void }[]} */
  const held = [];
  const pause = suspend((_signal, n) => new Promise((resolve, reject) => { held.push({ n, resolve, reject }); }), undefined, options);
  return { pause, held };
}

/** Lets every pending microtask run (and the ones they queue), without an event-loop turn. */
async function microtasks(/** @type {number} */ hops = 50) {
  for (let i = 0; i < hops; i++) await null;
}

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  {
    name: 'scheduling: event_and_storage_waits_of_the_task_api_are_suspensions_in_the_scheduler_of_tasks_mjs',
    async run(ctx) {
      // A storage whose first put waits until the case lets it go.
      /** @type {() => void} */
      let letPutGo = () => {};
      const putHeld = new Promise((resolve) => { letPutGo = () => resolve(undefined); });
      let puts = 0;
      class HeldStorage extends MemoryStorage {
        /** @param {AbortSignal} signal @param {string} store @param {string} key @param {Uint8Array} value */
        async put(signal, store, key, value) {
          if (puts++ === 0) await putHeld;
          return super.put(signal, store, key, value);
        }
      }
      /** @type {string[]} */
      const out = [];
      const rt = await Runtime.load(ctx.program('services'), {
        checkInvariants: true,
        stdout: (text) => { out.push(text); },
        services: { storage: new HeldStorage() },
      });
      const scheduler = internals(rt).scheduler;
      assert.ok(scheduler instanceof Scheduler, 'the runtime runs its tasks on the Scheduler of tasks.mjs');
      const button = new EventTarget();
      rt.events.register('click #save', button, 'click');
      const waiter = rt.dispatch('event_once');
      const storer = rt.dispatch('storage_roundtrip');
      await until(() => waiter.state === 'suspended' && storer.state === 'suspended', 'both waits to begin');
      assert.equal(waiter.waitingOn, 'snail.event_wait("click #save")');
      assert.equal(storer.waitingOn, 'snail.storage_put("prefs", "a", 1 bytes)');
      // The scheduler's own live set holds both, parked, and no task holds the permit.
      assert.deepEqual(scheduler.live.toArray(), [waiter, storer]);
      assert.deepEqual([scheduler.holder, scheduler.byState[0], scheduler.byState[1], scheduler.byState[2]], [null, 0, 0, 2]);
      const stepsBefore = rt.stats().steps;
      button.dispatchEvent(new CustomEvent('click', { detail: 'now' }));
      letPutGo();
      await rt.drain();
      assert.equal(waiter.state, 'returned');
      assert.equal(storer.state, 'returned');
      assert.equal(out.join('').split('\n')[0], 'event ok [now]');
      // Every storage wait of the round trip (9) and the event wait was a resumption the scheduler granted.
      assert.ok(rt.stats().steps - stepsBefore >= 10, `${rt.stats().steps - stepsBefore} grants after the waits began`);
      await closeQuiet(rt);
    },
  },
  {
    name: 'scheduling: a_full_run_creates_no_worker_and_enters_wasm_through_jspi',
    async run(ctx) {
      const g = /** @type {any} */ (globalThis);
      const saved = { Worker: g.Worker, SharedWorker: g.SharedWorker, Suspending: WebAssembly.Suspending, promising: WebAssembly.promising };
      const counts = { workers: 0, suspending: 0, promising: 0, promisingCalls: 0 };
      const Original = saved.Suspending;
      class CountingWorker {
        constructor() {
          counts.workers++;
          throw new Error('the runtime created a worker');
        }
      }
      g.Worker = CountingWorker;
      g.SharedWorker = CountingWorker;
      /** @type {any} */ (WebAssembly).Suspending = class extends Original {
        /** @param {Function} f */
        constructor(f) {
          super(/** @type {any} */ (f));
          counts.suspending++;
        }
      };
      /** @type {any} */ (WebAssembly).promising = (/** @type {any} */ f) => {
        counts.promising++;
        const p = saved.promising(f);
        return (/** @type {any[]} */ ...args) => {
          counts.promisingCalls++;
          return p(...args);
        };
      };
      try {
        const { rt, violations } = await loadContracts(ctx);
        const tasks = [
          ...Array.from({ length: 20 }, (_, i) => rt.dispatch('bind_and_wait', i + 1)),
          ...Array.from({ length: 5 }, (_, i) => rt.dispatch('random_tree', 11 + i)),
          rt.dispatch('bind_and_pause', 3),
          rt.dispatch('sleep_ms', 600_000),
        ];
        // The tasks sleep (bind_and_wait): a timer brings their end, not a number of turns.
        await untilTimer(() => rt.stats().live === 1, 'every task but the long sleep to finish');
        await rt.close();
        assert.deepEqual(tasks.slice(0, 26).map((t) => t.state), Array(26).fill('returned'));
        assert.equal(tasks[26].state, 'cancelled');
        assert.deepEqual(violations, []);
        assert.equal(counts.workers, 0, 'no Worker or SharedWorker was constructed');
        assert.ok(counts.suspending > 0, 'the imports were made WebAssembly.Suspending');
        assert.ok(counts.promising > 0 && counts.promisingCalls > 0, `tasks entered Wasm through WebAssembly.promising (${counts.promisingCalls} calls)`);
        assertQuiet(rt);
      } finally {
        g.Worker = saved.Worker;
        g.SharedWorker = saved.SharedWorker;
        if (saved.Worker === undefined) delete g.Worker;
        if (saved.SharedWorker === undefined) delete g.SharedWorker;
        /** @type {any} */ (WebAssembly).Suspending = saved.Suspending;
        /** @type {any} */ (WebAssembly).promising = saved.promising;
      }
    },
  },
  {
    name: 'scheduling: every_live_task_is_queued_executing_or_suspended_and_the_runtime_lists_exactly_those',
    async run(ctx) {
      // A model of the live set from the trace (in at dispatch, out at
      // finish or discard), compared with what the runtime lists whenever a
      // task reports from Wasm. An exception there would fail the task, so
      // what differs is collected.
      /** @type {Set<number>} */
      const model = new Set();
      /** @type {Set<string>} */
      const statesSeen = new Set();
      /** @type {string[]} */
      const problems = [];
      let samples = 0;
      const { rt, violations } = await loadContracts(ctx, {
        trace: (e) => {
          if (e.type === 'dispatch') model.add(e.task);
          if (e.type === 'finish' || e.type === 'discard') model.delete(e.task);
        },
        onEvent: (_e, runtime) => {
          samples++;
          const listed = runtime.tasks();
          const ids = listed.map((t) => t.id).sort((a, b) => a - b).join(' ');
          const live = [...model].sort((a, b) => a - b).join(' ');
          if (ids !== live) problems.push(`the runtime lists [${ids}], the live tasks are [${live}]`);
          const counts = { queued: 0, executing: 0, suspended: 0 };
          for (const t of listed) {
            if (!LIVE.includes(t.state) || t.finished) problems.push(`${t} is listed as live`);
            else counts[/** @type {'queued'|'executing'|'suspended'} */ (t.state)]++;
            statesSeen.add(t.state);
          }
          const s = runtime.stats();
          const stated = { queued: s.queued, executing: s.executing, suspended: s.suspended };
          if (JSON.stringify(counts) !== JSON.stringify(stated) || listed.length !== s.live) {
            problems.push(`listed ${JSON.stringify(counts)}, stats ${JSON.stringify(stated)} of ${s.live}`);
          }
        },
      });
      const all = [
        ...Array.from({ length: 6 }, (_, i) => rt.dispatch('bind_and_wait', i + 1)),
        rt.dispatch('dispatch_one', 10),
        rt.dispatch('trap_after_dispatch', 20),
        rt.dispatch('copy_on_dispatch', 30),
      ];
      const cancelled = rt.dispatch('sleep_ms', 600_000);
      const discarded = rt.dispatch('nop', 1);
      discarded.cancel();
      await until(() => rt.stats().live === 1, 'every task but the long sleep to finish');
      cancelled.cancel();
      await rt.drain();
      assert.deepEqual(problems.slice(0, 3), [], `${problems.length} differences`);
      assert.ok(samples >= 30, `${samples} samples`);
      assert.deepEqual([...statesSeen].sort(), ['executing', 'queued', 'suspended'], 'each live state was seen');
      assert.deepEqual(all.map((t) => t.state), [...Array(6).fill('returned'), 'returned', 'failed', 'returned']);
      assert.deepEqual([cancelled.state, discarded.state], ['cancelled', 'cancelled']);
      assert.deepEqual(rt.tasks(), []);
      assert.equal(model.size, 0);
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'scheduling: the_ready_queue_grants_starts_and_resumptions_in_the_order_they_became_ready',
    async run(ctx) {
      // One grant per event-loop turn, and turns end only when the case says:
      // while a turn is used up, starts and resumptions wait side by side.
      const turns = manualTurns();
      const { pause, held } = pausesByHand();
      /** @type {string[]} */
      const grants = [];
      const { rt, violations } = await loadContracts(ctx, {
        maxSteps: 1,
        macrotask: turns.macrotask,
        pause,
        trace: (e) => { if (e.type === 'start' || e.type === 'resume') grants.push(`${e.type} #${e.task}`); },
      });
      const a = rt.dispatch('pause_loop', 1);
      const b = rt.dispatch('pause_loop', 1);
      await until(() => held.length === 1, 'the first task to wait');
      turns.endTurn();
      await until(() => held.length === 2, 'the second task to wait');
      // The turn's one step is used: nothing more is granted until it ends.
      const c = rt.dispatch('nop', 3);
      held[0].resolve(0);
      await microtasks();
      const d = rt.dispatch('nop', 4);
      held[1].resolve(0);
      await microtasks();
      const e = rt.dispatch('nop', 5);
      const s = rt.stats();
      assert.deepEqual([s.queued, s.ready, s.suspended, s.executing], [3, 2, 2, 0], 'three starts and two resumptions wait for the permit');
      grants.length = 0;
      while (rt.stats().live > 0) {
        assert.ok(turns.endTurn() > 0, 'the scheduler asked for a turn');
        await microtasks();
      }
      assert.deepEqual(grants, [`start #${c.id}`, `resume #${a.id}`, `start #${d.id}`, `resume #${b.id}`, `start #${e.id}`]);
      assert.deepEqual([a.value, b.value, c.value, d.value, e.value], [1, 1, 3, 4, 5]);
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'scheduling: short_tasks_advance_in_microtasks_and_a_bounded_number_of_steps_ends_the_turn',
    async run(ctx) {
      const turns = manualTurns();
      const { rt } = await loadContracts(ctx, { maxSteps: 64, now: () => 0, macrotask: turns.macrotask });
      // 10 starts and 50 resumptions: within one turn's 64 steps, they finish
      // with no event-loop turn at all.
      const short = Array.from({ length: 10 }, () => rt.dispatch('yield_loop', 5));
      await microtasks(2000);
      assert.deepEqual(short.map((t) => t.value), Array(10).fill(5), 'the short tasks finished in microtasks');
      assert.equal(rt.stats().steps, 60);
      assert.equal(rt.stats().yields, 0);
      assert.equal(turns.endTurn(), 1, 'only the end of the turn was asked for');

      // 10 starts and 200 resumptions: the turn ends after 64 grants, and
      // the work waits for the next turn while the event loop goes on.
      const long = Array.from({ length: 10 }, () => rt.dispatch('yield_loop', 20));
      /** @type {number[]} */
      const perTurn = [];
      let before = rt.stats().steps;
      while (rt.stats().live > 0) {
        await microtasks(2000);
        let inputRan = false;
        const input = nextTurn().then(() => { inputRan = true; });
        await input;
        assert.ok(inputRan, 'a macrotask of the event loop ran while the work waited');
        perTurn.push(rt.stats().steps - before);
        before = rt.stats().steps;
        assert.equal(turns.endTurn(), 1);
      }
      assert.deepEqual(perTurn, [64, 64, 64, 18], 'each turn granted at most 64 steps');
      assert.deepEqual(long.map((t) => t.value), Array(10).fill(20));
      assert.equal(rt.stats().yields, 3);
      await closeQuiet(rt);
    },
  },
  {
    name: 'scheduling: a_cpu_loop_that_never_suspends_keeps_the_agent_from_timers_and_other_tasks',
    async run(ctx) {
      // test.pause as a plain function: pause_loop is then a loop of 20,000
      // calls that never suspends. A clock that jumps a second at every
      // reading says every turn is over, and the step budget is one.
      let clock = 0;
      let timerFired = false;
      let calls = 0;
      let interrupted = 0;
      /** @type {import('../../host/browser/index.mjs').Task | null} */
      let other = null;
      const { rt, violations } = await loadContracts(ctx, {
        maxSteps: 1,
        maxTimeMs: 0.001,
        timeCheckEvery: 1,
        now: () => (clock += 1000),
        pause: (/** @type {number} */ n) => {
          calls++;
          if (timerFired || (other !== null && other.state !== 'queued')) interrupted++;
          return n;
        },
      });
      nextTurn().then(() => { timerFired = true; });
      const loop = rt.dispatch('pause_loop', 20_000);
      other = rt.dispatch('nop', 7);
      await loop.done;
      assert.equal(loop.value, 20_000);
      assert.equal(calls, 20_000);
      assert.equal(interrupted, 0, 'no timer and no other task ran while the loop did');
      assert.equal(await other.result, 7);
      await until(() => timerFired, 'the timer, once the loop ended');
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'scheduling: a_settled_operation_only_makes_its_task_ready_and_the_grant_installs_its_bindings_then_settles_the_wait',
    async run(ctx) {
      // The permit is free, but the turn's budget is used up: the operations
      // that settle meanwhile make their tasks ready and nothing more.
      const turns = manualTurns();
      const { pause, held } = pausesByHand({ failed: 'reject' });
      /** @type {{ type: string, task: number, values: number[], executing: number }[]} */
      const trace = [];
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      let violations;
      ({ rt, violations } = await loadContracts(ctx, {
        maxSteps: 1,
        macrotask: turns.macrotask,
        pause,
        trace: (e) => {
          if (e.type === 'resume' || e.type === 'suspend') trace.push({ type: e.type, task: e.task, values: handlerValues(rt), executing: rt.stats().executing });
        },
      }));
      const a = rt.dispatch('bind_and_pause', 7);
      const b = rt.dispatch('pause_loop', 1);
      await until(() => held.length === 1, 'the first task to wait');
      turns.endTurn();
      await until(() => held.length === 2, 'the second task to wait');
      assert.equal(rt.stats().steps, 2);
      held[0].resolve(0);
      const error = new Error('the operation failed');
      held[1].reject(error);
      await microtasks();
      await nextTurn();
      const s = rt.stats();
      assert.deepEqual([a.state, b.state, s.ready, s.executing, s.steps], ['suspended', 'suspended', 2, 0, 2], 'both tasks are ready, neither runs');
      assert.deepEqual(handlerValues(rt), [0, 0, 0], 'the globals hold the defaults');
      assert.equal(trace.filter((e) => e.type === 'resume').length, 0);
      assert.equal(held.length, 2, 'the first task made no further wait: its Wasm did not run');

      turns.endTurn();
      await until(() => held.length === 3, 'the first task to wait again');
      const resumeA = trace.find((e) => e.type === 'resume' && e.task === a.id);
      assert.deepEqual(resumeA, { type: 'resume', task: a.id, values: [7, 21, 0], executing: 1 }, 'its bindings were installed before its wait was settled');
      assert.equal(b.state, 'suspended');
      turns.endTurn();
      await b.done;
      assert.equal(b.state, 'failed');
      assert.ok(b.error instanceof TaskFailedError);
      assert.equal(/** @type {any} */ (b.error).cause, error, 'the wait was rejected with the operation\'s error');
      const resumeB = trace.find((e) => e.type === 'resume' && e.task === b.id);
      assert.deepEqual(resumeB?.values, [1, 0, 0], 'pause_loop\'s binding was installed before the rejection');
      held[2].resolve(1);
      while (!a.finished) {
        if (held.length === 4) held[3].resolve(2);
        turns.endTurn();
        await microtasks();
        await nextTurn();
      }
      assert.equal(await a.result, 7);
      assert.deepEqual(violations, [], 'the first task saw its own bindings after every wait');
      await closeQuiet(rt);
    },
  },
  {
    name: 'scheduling: a_resumed_task_keeps_the_permit_until_its_wasm_suspends_again',
    async run(ctx) {
      // A clock the case moves: it ends a turn whenever the case wants, while
      // the step budget stays large. The first task's resumption and a start
      // are ready together; the start must wait until the task suspends again,
      // although the turn has budget left and the task's wait is settled.
      let clock = 0;
      const turns = manualTurns();
      const { pause, held } = pausesByHand();
      /** @type {string[]} */
      const order = [];
      /** @type {import('../../host/browser/index.mjs').Runtime} */
      let rt;
      /** @type {import('../../host/browser/index.mjs').Task | null} */
      let q = null;
      /** @type {import('../../host/browser/index.mjs').Task | null} */
      let a = null;
      let afterGate = null;
      let violations;
      ({ rt, violations } = await loadContracts(ctx, {
        maxTimeMs: 1000,
        timeCheckEvery: 1,
        now: () => clock,
        macrotask: turns.macrotask,
        pause,
        trace: (e) => {
          if (e.type !== 'start' && e.type !== 'resume' && e.type !== 'suspend' && e.type !== 'finish') return;
          order.push(`${e.type} ${e.task === a?.id ? 'a' : e.task === q?.id ? 'q' : e.task}`);
          if (e.type === 'resume' && e.task === a?.id && afterGate === null) {
            // Queued before the scheduler settles the gate: runs right after it.
            afterGate = 'pending';
            queueMicrotask(() => {
              afterGate = { a: a?.state, q: q?.state, executing: rt.stats().executing, waits: held.length, values: handlerValues(rt) };
            });
          }
        },
      }));
      a = rt.dispatch('bind_and_pause', 5);
      await until(() => held.length === 1, 'the task to wait');
      // Past half the turn's time at a step (a start that returns at once),
      // the turn asks for its end; past all of it, it is over at the next reading.
      clock = 600;
      assert.equal(await rt.dispatch('nop', 1).result, 1);
      clock = 10_000;
      held[0].resolve(0);
      await microtasks();
      q = rt.dispatch('nop', 9);
      await microtasks();
      assert.deepEqual([rt.stats().ready, rt.stats().queued, rt.stats().executing], [1, 1, 0]);
      order.length = 0;
      turns.endTurn(); // a new turn: its clock starts at 10,000
      await until(() => held.length === 2, 'the task to wait again');
      assert.deepEqual(afterGate, { a: 'executing', q: 'queued', executing: 1, waits: 1, values: [5, 15, 0] },
        'with its wait settled, the task holds the permit and its Wasm has not run yet');
      assert.deepEqual(order.slice(0, 3), ['resume a', 'suspend a', 'start q'], 'the start waited for the task to suspend again');
      assert.equal(await q.result, 9);
      held[1].resolve(1);
      await until(() => held.length === 3, 'the last wait');
      held[2].resolve(2);
      assert.equal(await a.result, 5);
      assert.deepEqual(violations, []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'scheduling: each_runtime_owns_its_program_instance_its_handler_globals_and_its_tasks',
    async run(ctx) {
      const one = await loadContracts(ctx, { maxSteps: 3 });
      const two = await loadContracts(ctx, { maxSteps: 5 });
      const x1 = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (one.rt.instance.exports));
      const x2 = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (two.rt.instance.exports));
      // Every handler global the program exports is in its runtime's enumeration, and no other.
      const exported = Object.keys(x1).filter((k) => k.startsWith('snail.handler.')).map((k) => k.slice('snail.handler.'.length)).sort();
      assert.deepEqual(one.rt.handlerGlobals.map((h) => h.name).sort(), exported);
      assert.deepEqual(exported, ['h_alpha', 'h_beta', 'h_gamma']);
      for (const k of exported) assert.ok(x1[`snail.handler.${k}`] !== x2[`snail.handler.${k}`], `each runtime has its own ${k}`);

      // Tasks of both interleave; one runtime's bindings never reach the other.
      const waiting = one.rt.dispatch('sleep_ms', 600_000);
      const t1 = Array.from({ length: 30 }, (_, i) => one.rt.dispatch('bind_and_wait', 100 + i));
      const t2 = Array.from({ length: 30 }, (_, i) => two.rt.dispatch('bind_and_wait', 200 + i));
      const observers = Array.from({ length: 10 }, () => two.rt.dispatch('observe_defaults'));
      await until(() => one.rt.stats().live === 1 && two.rt.stats().live === 0, 'both runtimes to finish their work');
      assert.ok(t1.every((t, i) => t.value === 100 + i) && t2.every((t, i) => t.value === 200 + i));
      assert.deepEqual(observers.map((t) => t.value), Array(10).fill(0));
      assert.deepEqual([one.violations, two.violations], [[], []]);
      assert.equal(one.rt.stats().returned, 30);
      assert.equal(two.rt.stats().returned, 40);

      // A runtime acts only on its own tasks.
      assert.throws(() => two.rt.cancel(waiting), (e) => e instanceof SnailError && e.code === 'ERR_ARG' && /belongs to another runtime/.test(e.message));
      assert.equal(two.rt.cancel(waiting.id), false, 'the other runtime does not know the id');
      assert.equal(waiting.state, 'suspended');
      await two.rt.close();
      assert.equal(waiting.state, 'suspended', 'closing the other runtime left it alone');
      await one.rt.close();
      assert.equal(waiting.state, 'cancelled');
      assertQuiet(one.rt);
      assertQuiet(two.rt);
    },
  },
];
