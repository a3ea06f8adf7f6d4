// The scheduler on its own (tasks.mjs), driven through a fake engine: no Wasm,
// no bridge. Each test injects the clock and the macrotask source, records
// what the scheduler asks of its engine, and checks the invariants after
// every step (checkInvariants).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { InternalError } from '../../host/browser/errors.mjs';
import { S, Scheduler, Task } from '../../host/browser/tasks.mjs';

/** An engine that records every call and lets the test say which lent task still waits. */
class FakeEngine {
  constructor() {
    /** @type {string[]} */
    this.log = [];
    /** @type {Set<Task>} lent tasks whose Wasm has not taken the permit back */
    this.parked = new Set();
    /** @type {string | null} what registersOffDefaults() reports */
    this.off = null;
    /** @type {string | null} what engineProblem() reports */
    this.problem = null;
    /** @type {Set<Task>} ready resumptions release() lets wake again by themselves */
    this.releasableTasks = new Set();
  }
  /** @param {Task} task */
  enter(task) { this.log.push(`enter ${task.entry}`); }
  /** @param {Task} task */
  resume(task) { this.log.push(`resume ${task.entry}`); }
  /** @param {Task} task */
  lendParked(task) { return this.parked.has(task); }
  /** @param {Task} task */
  reclaimed(task) {
    this.parked.delete(task);
    this.log.push(`reclaimed ${task.entry}`);
  }
  exclusiveEnded() { this.log.push('exclusive ended'); }
  registersOffDefaults() { return this.off; }
  engineProblem() { return this.problem; }
  leaseEnded() { this.log.push('lease ended'); }
  /** @param {Task} task */
  releasable(task) { return this.releasableTasks.has(task); }
  /** @param {Task} task */
  release(task) {
    if (!this.releasableTasks.delete(task)) throw new Error(`release() of ${task.entry}, which is not releasable`);
    this.log.push(`released ${task.entry}`);
  }
  /** @param {Task} start */
  admissionBlocked(start) { this.log.push(`admission blocked ${start.entry}`); }
}

/**
 * A scheduler with a fake engine, a clock the test moves and turns the test ends.
 * @param {import('../../host/browser/tasks.mjs').SchedulerOptions} [options]
 */
function setup(options = {}) {
  const engine = new FakeEngine();
  /** @type {(() => void)[]} */
  const turns = [];
  const clock = { ms: 0 };
  const keepAlive = { held: 0, released: 0, disposed: 0, hold() { this.held++; }, release() { this.released++; }, dispose() { this.disposed++; } };
  const sched = new Scheduler(engine, {
    checkInvariants: true,
    macrotask: (cb) => { turns.push(cb); },
    now: () => clock.ms,
    keepAlive,
    ...options,
  });
  let id = 0;
  /** A new task, in the live set. @param {string} entry */
  const add = (entry) => {
    const task = new Task(++id, entry, null);
    sched.add(task);
    return task;
  };
  /** Ends the pending event-loop turns, as the macrotask source would. */
  const endTurn = () => { for (const cb of turns.splice(0)) cb(); };
  return { sched, engine, turns, clock, keepAlive, add, endTurn };
}

test('scheduler: starts_are_granted_one_at_a_time_in_dispatch_order', () => {
  const { sched, engine, add } = setup();
  const [a, b, c] = [add('a'), add('b'), add('c')];
  sched.pump(true);
  assert.deepEqual(engine.log, ['enter a'], 'one start holds the permit, the others wait');
  assert.equal(sched.holder, a);
  assert.equal(a._s, S.executing);
  assert.equal(b._s, S.queued);
  sched.finish(a, 'returned');
  sched.pump(true);
  sched.finish(b, 'returned');
  sched.pump(true);
  sched.finish(c, 'returned');
  assert.deepEqual(engine.log, ['enter a', 'enter b', 'enter c']);
  assert.equal(sched.live.size, 0);
  assert.equal(sched.stats().returned, 3);
});

test('scheduler: done_resolves_with_the_task_itself_which_is_no_thenable', async () => {
  const { sched, add } = setup();
  const a = add('a');
  const done = a.done;
  sched.pump(true);
  sched.finish(a, 'returned');
  assert.equal(await done, a);
  assert.equal(await a.done, a, 'a finished task too');
  // Promise resolution looks up `then` on the task; the prototype answers
  // (undefined), and nothing can make a task a thenable by assigning one.
  assert.equal(a.then, undefined);
  assert.throws(() => { /** @type {any} */ (a).then = () => {}; }, TypeError);
  assert.equal(await Promise.resolve(a), a);
});

test('scheduler: resumptions_and_starts_take_the_permit_in_the_order_they_became_ready', () => {
  const { sched, engine, add } = setup();
  const a = add('a');
  sched.pump(true);
  sched.suspend(a);
  const b = add('b');
  sched.readyTask(a); // after b's start: b goes first
  const c = add('c'); // after a's resumption
  sched.pump(true);
  sched.finish(b, 'returned');
  sched.pump(true);
  assert.equal(sched.holder, a);
  sched.finish(a, 'returned');
  sched.pump(true);
  assert.equal(sched.holder, c);
  assert.deepEqual(engine.log, ['enter a', 'enter b', 'resume a', 'enter c']);
});

test('scheduler: after_max_steps_grants_it_yields_one_event_loop_turn_and_then_goes_on', () => {
  const { sched, engine, turns, add, endTurn } = setup({ maxSteps: 3 });
  const tasks = ['a', 'b', 'c', 'd', 'e'].map(add);
  for (const t of tasks) {
    sched.pump(true);
    if (sched.holder === t) sched.finish(t, 'returned');
  }
  assert.deepEqual(engine.log, ['enter a', 'enter b', 'enter c'], 'three grants, then the turn is used up');
  assert.equal(sched.turn.paused, true);
  assert.equal(sched.stats().yields, 1);
  assert.equal(turns.length, 1, 'one turn-end macrotask is pending');
  endTurn();
  assert.deepEqual(engine.log, ['enter a', 'enter b', 'enter c', 'enter d'], 'the next turn grants again');
  assert.equal(sched.turn.paused, false);
});

test('scheduler: a_turn_that_used_its_time_budget_yields_though_steps_are_left', () => {
  const { sched, engine, clock, turns, add, endTurn } = setup({ maxTimeMs: 1, timeCheckEvery: 1 });
  const tasks = ['a', 'b', 'c', 'd'].map(add);
  sched.pump(true);
  clock.ms = 0.6; // half the time budget: the turn asks for its end
  sched.finish(tasks[0], 'returned');
  sched.pump(true);
  assert.equal(turns.length, 1, 'the turn-end macrotask is asked for');
  clock.ms = 2; // the step took longer than the rest of the turn's budget
  sched.finish(tasks[1], 'returned');
  sched.pump(true);
  assert.deepEqual(engine.log, ['enter a', 'enter b'], 'the clock says the turn is over');
  assert.equal(sched.stats().yields, 1);
  endTurn();
  assert.deepEqual(engine.log, ['enter a', 'enter b', 'enter c']);
});

test('scheduler: a_turn_asks_for_its_end_only_once_it_used_half_its_steps', () => {
  const { sched, engine, turns, add, endTurn } = setup({ maxSteps: 8 });
  const tasks = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'].map(add);
  const run = () => { sched.pump(true); const t = sched.holder; if (t !== null) sched.finish(t, 'returned'); };
  for (let i = 0; i < 4; i++) run();
  assert.equal(turns.length, 0, 'four steps of eight ask for no macrotask');
  run();
  assert.equal(turns.length, 1, 'the fifth asks for the turn\'s end');
  for (let i = 0; i < 4; i++) run();
  assert.equal(engine.log.length, 8, 'eight steps, then the turn is used up');
  assert.equal(sched.turn.paused, true);
  assert.equal(turns.length, 1, 'one turn-end macrotask, asked for once');
  endTurn();
  assert.equal(engine.log.length, 9, 'the next turn grants again');
  assert.equal(turns.length, 1, 'and, after a turn that was used up, asks for its end as it begins');
  sched.finish(/** @type {Task} */ (sched.holder), 'returned');
  endTurn();
  run();
  assert.equal(engine.log.length, 10);
  assert.equal(turns.length, 0, 'the turn after one that was not used up asks for nothing yet');
});

test('scheduler: time_past_the_budget_before_the_end_was_asked_for_is_counted_again_from_there', () => {
  // The count went on across event-loop turns the scheduler did not see
  // (tasks waited on I/O in between): that time asks for the turn's end and
  // does not use the budget; time past the budget after it does.
  const { sched, engine, clock, turns, add, endTurn } = setup({ maxTimeMs: 1, timeCheckEvery: 1 });
  const tasks = ['a', 'b', 'c', 'd'].map(add);
  sched.pump(true);
  clock.ms = 5;
  sched.finish(tasks[0], 'returned');
  sched.pump(true);
  assert.deepEqual(engine.log, ['enter a', 'enter b'], 'the turn goes on');
  assert.equal(turns.length, 1, 'and asks for its end');
  assert.equal(sched.stats().yields, 0);
  clock.ms = 6.5;
  sched.finish(tasks[1], 'returned');
  sched.pump(true);
  assert.deepEqual(engine.log, ['enter a', 'enter b'], 'a budget of time past that: the turn is over');
  assert.equal(sched.stats().yields, 1);
  endTurn();
  assert.deepEqual(engine.log, ['enter a', 'enter b', 'enter c']);
});

test('scheduler: with_nothing_ready_it_schedules_nothing', () => {
  const { sched, turns, add, endTurn } = setup();
  const a = add('a');
  sched.pump(true);
  sched.suspend(a);
  endTurn();
  sched.pump(true);
  assert.equal(turns.length, 0, 'no macrotask while nothing is ready: it never spins');
  assert.equal(sched.holder, null);
});

test('scheduler: admission_holds_starts_beyond_max_entered_and_a_boost_lets_a_joined_one_in', () => {
  const { sched, engine, add } = setup({ maxEntered: 2, hardMaxEntered: 3 });
  const [a, b, c, d] = [add('a'), add('b'), add('c'), add('d')];
  sched.pump(true);
  sched.suspend(a);
  sched.pump(true);
  sched.suspend(b);
  sched.pump(true);
  assert.equal(sched.holder, null, 'two entered: the third start waits');
  assert.equal(c._s, S.queued);
  assert.equal(sched.boost(d), true, 'd is joined: it may enter above the soft bound');
  sched.pump(true);
  assert.equal(sched.holder, d);
  sched.suspend(d);
  assert.equal(sched.boost(c), true);
  sched.pump(true);
  assert.equal(sched.holder, null, 'the hard bound holds even for a boosted start');
  assert.deepEqual(engine.log, ['enter a', 'enter b', 'enter d', 'admission blocked c'], 'the engine is asked whether anything can still run');
  assert.equal(sched.stats().peakEntered, 3);
});

test('scheduler: a_start_the_hard_bound_keeps_out_for_good_fails_without_entering', () => {
  const { sched, engine, add } = setup({ maxEntered: 1, hardMaxEntered: 2 });
  const [a, b, c] = [add('a'), add('b'), add('c')];
  sched.pump(true);
  sched.suspend(a);
  sched.boost(b);
  sched.pump(true);
  sched.suspend(b);
  sched.boost(c);
  // The engine says nothing entered can go on: the start fails.
  engine.admissionBlocked = (/** @type {Task} */ start) => {
    engine.log.push(`fail ${start.entry}`);
    sched.failQueued(start);
  };
  sched.pump(true);
  assert.deepEqual(engine.log, ['enter a', 'enter b', 'fail c']);
  assert.equal(c.state, 'failed');
  assert.equal(sched.stats().failed, 1);
  assert.equal(sched.live.size, 2);
  // Nothing is asked while a resumption could be granted.
  engine.log.length = 0;
  sched.readyTask(b);
  const d = add('d');
  sched.boost(d);
  sched.pump(true);
  assert.deepEqual(engine.log, ['resume b']);
});

test('scheduler: a_boosted_start_takes_its_turn_by_when_it_was_boosted', () => {
  const { sched, engine, add } = setup({ maxEntered: 1 });
  const [a, b] = [add('a'), add('b')];
  const c = add('c');
  sched.pump(true);
  sched.suspend(a);
  sched.readyTask(a); // ready before either boost
  sched.boost(c);
  sched.boost(b);
  sched.pump(true);
  assert.equal(sched.holder, a, 'the resumption made ready first goes first');
  sched.finish(a, 'returned');
  sched.pump(true);
  assert.equal(sched.holder, c, 'then the start boosted first, though dispatched after b');
  sched.suspend(c);
  sched.readyTask(c);
  sched.pump(true);
  assert.equal(sched.holder, b, 'b was boosted before c became ready again');
  assert.deepEqual(engine.log, ['enter a', 'resume a', 'enter c', 'enter b']);
});

test('scheduler: a_lent_permit_is_reclaimed_when_other_work_wants_it', () => {
  const { sched, engine, add } = setup();
  const a = add('a');
  sched.pump(true);
  assert.equal(sched.mayLend(), true, 'nothing else wants the permit');
  sched.lend(a);
  engine.parked.add(a);
  assert.equal(a.state, 'executing', 'the fake engine has no owner to say it waits');
  const b = add('b');
  sched.pump(true);
  assert.deepEqual(engine.log, ['enter a', 'reclaimed a', 'enter b']);
  assert.equal(a._s, S.suspended, 'the reclaimed task is an ordinary suspended one');
  assert.equal(sched.holder, b);
  assert.equal(sched.stats().reclaims, 1);
});

test('scheduler: a_lent_task_that_woke_keeps_the_permit', () => {
  const { sched, engine, add } = setup();
  const a = add('a');
  sched.pump(true);
  sched.mayLend();
  sched.lend(a);
  // Not parked: its Wasm took the permit back before anything wanted it.
  add('b');
  sched.pump(true);
  assert.deepEqual(engine.log, ['enter a'], 'nothing reclaimed: a runs');
  assert.equal(sched.holder, a);
  assert.equal(sched.lent, null);
});

test('scheduler: no_lend_while_work_is_ready', () => {
  const { sched, add } = setup();
  const a = add('a');
  sched.pump(true);
  add('b');
  assert.equal(sched.mayLend(), false, 'a start waits for the permit');
  sched.suspend(a);
  sched.pump(true);
  sched.readyTask(a);
  assert.equal(sched.mayLend(), false, 'a resumption waits for the permit');
});

/**
 * Runs `n` short tasks to completion, so that the turn has taken steps and
 * read the clock (a lease lasts until the next reading at most).
 * @param {ReturnType<typeof setup>} s @param {number} n
 */
function runShortTasks({ sched, add }, n) {
  for (let i = 0; i < n; i++) {
    const t = add(`short${i}`);
    sched.pump(true);
    sched.finish(t, 'returned');
  }
}

test('scheduler: a_lease_counts_its_waits_as_steps_and_ends_with_anything_that_could_want_the_permit', () => {
  const s = setup({ maxSteps: 100 });
  const { sched, add } = s;
  runShortTasks(s, 8);
  const a = add('a');
  sched.pump(true);
  assert.equal(sched.mayLend(), true);
  sched.lend(a);
  assert.equal(sched.grantLease(a), true);
  for (let i = 0; i < 5; i++) assert.equal(sched.leaseStep(), a);
  const before = sched.stats();
  assert.equal(before.steps, 8 + 7, 'the short tasks, a grant, a lend and five waits under the lease');
  assert.equal(before.lends, 6);
  add('b'); // a new task revokes the lease
  assert.equal(sched.lease, null);
  assert.equal(sched.leaseStep(), null);
  assert.equal(sched.stats().steps, 8 + 7, 'the lease\'s steps were counted once');
  assert.equal(sched.stats().lends, 6);
});

test('scheduler: a_lease_runs_out_at_the_next_clock_check', () => {
  const s = setup({ maxSteps: 1000, timeCheckEvery: 16 });
  const { sched, add } = s;
  runShortTasks(s, 20);
  const a = add('a');
  sched.pump(true);
  sched.mayLend();
  sched.lend(a);
  assert.equal(sched.grantLease(a), true);
  let steps = 0;
  while (steps < 10_000 && sched.leaseStep() !== null) steps++;
  assert.ok(steps > 0 && steps < 10_000, `waits were taken under the lease, and it ended (${steps})`);
  assert.equal(sched.turn.steps, sched.leaseEnd, 'the lease ended at its end step');
  assert.ok(sched.leaseEnd <= sched.turn.nextClockCheck, 'no later than the next reading of the clock');
});

test('scheduler: a_claim_takes_the_permit_only_when_nothing_is_ahead', () => {
  const { sched, engine, add } = setup();
  const [a, b] = [add('a'), add('b')];
  sched.pump(true);
  sched.suspend(a);
  sched.pump(true);
  assert.equal(sched.holder, b);
  assert.equal(sched.claim(a), false, 'the permit is held');
  sched.suspend(b);
  const c = add('c');
  assert.equal(sched.claim(a), false, 'a start is ahead');
  sched.pump(true);
  sched.finish(c, 'returned');
  assert.equal(sched.claim(a), true);
  assert.equal(sched.holder, a);
  assert.deepEqual(engine.log, ['enter a', 'enter b', 'enter c'], 'a claim grants without the engine');
});

test('scheduler: each_interval_holds_the_keep_alive_once_and_drain_resolves_when_the_live_set_empties', async () => {
  const { sched, keepAlive, add, endTurn } = setup();
  await sched.intervals.drain(); // empty: at once
  const a = add('a');
  const drained = sched.intervals.drain();
  assert.equal(sched.intervals.drain(), drained, 'one promise per interval');
  sched.pump(true);
  sched.finish(a, 'returned');
  await drained;
  assert.equal(keepAlive.held, 1);
  assert.equal(keepAlive.released, 0, 'a turn in progress releases it at its end');
  endTurn();
  assert.equal(keepAlive.released, 1);
  const b = add('b');
  sched.pump(true);
  sched.finish(b, 'returned');
  endTurn();
  assert.equal(sched.stats().intervals, 2);
  assert.equal(keepAlive.held, 2);
  assert.equal(keepAlive.released, 2);
});

test('scheduler: an_exclusive_section_waits_for_the_holder_and_stops_grants_until_released', async () => {
  const { sched, engine, add } = setup();
  const a = add('a');
  sched.pump(true);
  let released = /** @type {(() => void) | null} */ (null);
  sched.exclusive().then((r) => { released = r; });
  await null;
  assert.equal(released, null, 'a holds the permit');
  const b = add('b');
  sched.finish(a, 'returned');
  await null;
  assert.equal(typeof released, 'function');
  sched.pump(true);
  assert.equal(b._s, S.queued, 'no grant during the section');
  /** @type {() => void} */ (released)();
  assert.deepEqual(engine.log, ['enter a', 'exclusive ended']);
});

test('scheduler: a_cancelled_queued_task_is_discarded_and_its_start_entries_do_not_accumulate', () => {
  const { sched, add } = setup();
  const hold = add('hold');
  sched.pump(true);
  for (let i = 0; i < 1000; i++) sched.discard(add(`q${i}`));
  assert.equal(sched.stats().cancelled, 1000);
  assert.ok(sched.starts.length <= 128, `${sched.starts.length} stale start entries`);
  sched.finish(hold, 'returned');
});

test('scheduler: broken_invariants_and_illegal_transitions_are_internal_errors', () => {
  const { sched, engine, add } = setup();
  const a = add('a');
  engine.off = 'register out holds 7, not its default 0';
  assert.throws(() => sched.assertInvariants(), (e) => e instanceof InternalError && /no task holds the permit, but register out holds 7/.test(e.message));
  engine.off = null;
  assert.throws(() => sched.transition(a, S.suspended), (e) => e instanceof InternalError && /illegal transition .* queued -> suspended/.test(e.message));
  assert.throws(() => sched.suspend(a), /does not hold the permit/);
  assert.throws(() => sched.readyTask(a), /not a parked suspended task/);
  sched.pump(true);
  sched.finish(a, 'returned');
  assert.throws(() => sched.finish(a, 'returned'), InternalError);
});

test('scheduler: a_wait_releases_the_releasable_resumptions_in_ready_order_and_reads_the_clock_only_for_them', () => {
  let reads = 0;
  const clock = { ms: 0 };
  const { sched, engine, add } = setup({ now: () => { reads++; return clock.ms; } });
  const [a, b, h] = [add('a'), add('b'), add('h')];
  sched.pump(true);
  sched.suspend(a);
  sched.pump(true);
  sched.suspend(b);
  sched.pump(true);
  assert.equal(sched.holder, h);
  sched.readyTask(b);
  sched.readyTask(a);
  // Nothing the engine can release heads the ready order: the wait may not
  // lend, and the turn's clock is not read for the bound.
  const before = reads;
  assert.equal(sched.mayLend(), false);
  assert.equal(reads, before, 'no clock reading for resumptions that cannot be released');
  assert.equal(sched.ready, 2);
  // Both can be released: they leave the ready queue in ready order and the wait lends.
  engine.releasableTasks.add(a);
  engine.releasableTasks.add(b);
  assert.equal(sched.mayLend(), true);
  assert.ok(reads > before, 'the bound read the clock');
  assert.deepEqual(engine.log.filter((l) => l.startsWith('released')), ['released b', 'released a']);
  assert.equal(sched.ready, 0);
  assert.equal(sched.stats().releases, 2);
  assert.equal(a._ready || b._ready, false);
});

test('scheduler: no_resumption_is_released_once_the_turn_has_no_room_for_them', () => {
  const { sched, engine, add, clock } = setup();
  const [a, h] = [add('a'), add('h')];
  sched.pump(true);
  sched.suspend(a);
  sched.pump(true);
  sched.readyTask(a);
  engine.releasableTasks.add(a);
  // The turn's time is used up after it asked for its end: the bound (room
  // for about half of them) keeps a ready.
  clock.ms = 0.3;
  assert.equal(sched.turn.room() > 0, true);
  clock.ms = 10;
  assert.equal(sched.mayLend(), false);
  assert.equal(sched.ready, 1);
  assert.ok(engine.releasableTasks.has(a), 'a was not released');
  assert.equal(sched.holder, h);
});

test('scheduler: a_wait_releases_as_many_resumptions_as_the_turn_has_steps_left_and_holds_the_rest_back_to_its_end', () => {
  const { sched, engine, add, clock, turns, endTurn } = setup({ maxTimeMs: 1 });
  const r = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].map(add);
  const [x, y, h] = [add('x'), add('y'), add('h')];
  for (const t of [...r, x, y]) {
    sched.pump(true);
    sched.suspend(t);
  }
  sched.pump(true);
  assert.equal(sched.holder, h);
  for (const t of r) {
    sched.readyTask(t);
    engine.releasableTasks.add(t);
  }
  // Nine steps in 0.75 ms of a 1 ms turn: room for 3 more steps, so three
  // are released.
  clock.ms = 0.75;
  assert.equal(sched.turn.room(), 3);
  assert.equal(sched.mayLend(), true, 'the resumptions held back do not keep the wait from lending');
  assert.deepEqual(engine.log.filter((l) => l.startsWith('released')), ['released r1', 'released r2', 'released r3']);
  assert.equal(sched.ready, 3);
  assert.equal(sched.held, 3);
  assert.equal(turns.length, 1, 'the turn\'s end is asked for');
  sched.lend(h);
  engine.parked.add(h);
  assert.equal(sched.grantLease(h), true, 'nor from taking the lease');
  // A resumption made ready later in the turn is held back behind them.
  sched.readyTask(x);
  engine.releasableTasks.add(x);
  assert.equal(sched.releaseReady(), true);
  assert.equal(sched.held, 4);
  assert.ok(!engine.log.includes('released x'));
  // A task whose wait ended by itself may claim the permit past them.
  assert.equal(sched.claim(y), true);
  assert.equal(sched.holder, y);
  sched.suspend(y);
  // The turn's end grants the first of them, in ready order.
  endTurn();
  assert.equal(sched.held, 0);
  assert.equal(sched.holder, r[3]);
  assert.equal(engine.log.at(-1), 'resume r4');
  assert.equal(sched.ready, 3, 'r5, r6 and x wait for r4\'s next wait to release them');
});

test('scheduler: a_turn_with_no_room_left_releases_none_and_holds_every_resumption_back', () => {
  const { sched, engine, add, clock, turns, endTurn } = setup({ maxTimeMs: 1 });
  const [a, b, h] = [add('a'), add('b'), add('h')];
  for (const t of [a, b]) {
    sched.pump(true);
    sched.suspend(t);
  }
  sched.pump(true);
  sched.readyTask(a);
  sched.readyTask(b);
  engine.releasableTasks.add(a);
  engine.releasableTasks.add(b);
  clock.ms = 0.99;
  assert.equal(sched.turn.room(), 0);
  clock.ms = 1.5;
  assert.equal(sched.turn.room(), 0, 'a turn past its time has no room left, not less than none');
  assert.equal(sched.releaseReady(), true);
  assert.deepEqual([sched.ready, sched.held, turns.length], [2, 2, 1]);
  assert.ok(!engine.log.some((l) => l.startsWith('released')));
  sched.suspend(h);
  endTurn();
  assert.equal(sched.holder, a, 'the turn\'s end grants the head of the ready order');
});

test('scheduler: an_engine_must_give_every_callback_at_construction', () => {
  const engine = new FakeEngine();
  const partial = { enter: engine.enter, resume: engine.resume, lendParked: engine.lendParked, reclaimed: engine.reclaimed, exclusiveEnded: engine.exclusiveEnded, engineProblem: engine.engineProblem, leaseEnded: engine.leaseEnded, releasable: engine.releasable, release: engine.release, admissionBlocked: engine.admissionBlocked };
  assert.throws(() => new Scheduler(/** @type {any} */ (partial)), (e) => e instanceof InternalError && /registersOffDefaults/.test(e.message));
});
