// The scheduler shared by every runtime adapter: one JavaScript agent, no workers.
//
// It keeps the live set (queued, executing and suspended tasks), the ready queue
// of starts and resumptions, and the execution permit: the right to run Wasm that
// uses the program's handler globals. It knows nothing about Wasm itself; the
// JSPI bridge (bridge.mjs) is its engine and enters or resumes a task when the
// scheduler grants it the permit.
//
// Short tasks advance through microtasks. After a bounded number of grants, or a
// bounded time, the scheduler stops granting and waits for one event-loop turn
// through the environment's macrotask source, so timers and input are served. It
// never spins: when nothing is ready it does nothing at all.
import { InternalError, SnailError } from './errors.mjs';
import { LiveSet, TaskQueue } from './queues.mjs';
import { assertSchedulerInvariants } from './scheduler-checks.mjs';
import { CANCELLED_LATER, LEGAL_TRANSITIONS, S, STATE_NAMES, Task, TaskState } from './task.mjs';

export { CANCELLED_LATER, LiveSet, S, Task, TaskState };

/** @typedef {import('./task.mjs').TaskStateName} TaskStateName */

/**
 * What the scheduler asks of its engine (the JSPI bridge; a fake one in the
 * scheduler's unit tests). Every callback is given at construction.
 * @typedef {object} SchedulerEngine
 * @property {(task: Task, fromTopLevel: boolean) => void} enter  start a granted task's Wasm
 * @property {(task: Task) => void} resume  a granted resumption: deliver to the task's Wasm
 * @property {(task: Task) => boolean} lendParked  whether the task the permit is lent to
 *   still waits (its Wasm did not take the permit back yet)
 * @property {(task: Task) => void} reclaimed  the lent permit was taken back from this
 *   task, which still waits: it becomes an ordinary suspended task on the engine's side
 * @property {() => void} exclusiveEnded  the last exclusive section ended: grants may resume
 *   (resumptions made ready meanwhile wait for a pump)
 * @property {() => string | null} registersOffDefaults  for the invariant check: which
 *   register does not hold its default now, or null
 * @property {() => string | null} engineProblem  for the invariant check: what breaks the
 *   engine's own invariants now (a step it took that the scheduler has not seen), or null
 * @property {() => void} leaseEnded  the lease ended: whatever the engine lets the lease's
 *   waits and wakes do without the scheduler stops
 * @property {(start: Task) => void} admissionBlocked  nothing can be granted and the hard
 *   bound on entered tasks keeps this joined start out: if no entered task can ever go on
 *   (each waits for a start, directly or through the tasks it joins), fail it (failQueued())
 *
 * @typedef {object} SchedulerOptions
 * @property {number} [maxSteps]  grants per event-loop turn (default 4096)
 * @property {number} [maxTimeMs]  time per event-loop turn in ms (default 0.5)
 * @property {number} [maxEntered]  tasks that may enter Wasm (soft bound for new starts)
 * @property {number} [hardMaxEntered]  absolute bound, joined children included
 * @property {(callback: () => void) => void} [macrotask]  yields one event-loop turn
 * @property {() => number} [now]  monotonic clock in ms
 * @property {{ hold: () => void, release: () => void, dispose?: () => void }} [keepAlive]  held while tasks are live
 * @property {boolean} [checkInvariants]  run assertInvariants() after every step
 * @property {number} [timeCheckEvery]  read the clock at most this many steps apart (default 1024);
 *   sooner when the steps so far were slow: about every sixteenth of maxTimeMs
 */

/** Every callback a SchedulerEngine has. */
const ENGINE_CALLBACKS = Object.freeze(/** @type {const} */ (['enter', 'resume', 'lendParked', 'reclaimed', 'exclusiveEnded', 'registersOffDefaults', 'engineProblem', 'leaseEnded', 'admissionBlocked']));

export class Scheduler {
  /** @param {SchedulerEngine} engine @param {SchedulerOptions} [options] */
  constructor(engine, options = {}) {
    for (const callback of ENGINE_CALLBACKS) {
      if (typeof engine?.[callback] !== 'function') throw new InternalError(`the scheduler's engine has no ${callback}()`);
    }
    this.engine = engine;
    this.maxSteps = positiveInteger(options.maxSteps ?? 4096, 'maxSteps');
    this.maxTimeMs = positiveNumber(options.maxTimeMs ?? 0.5, 'maxTimeMs');
    this.hardMaxEntered = positiveInteger(options.hardMaxEntered ?? 16000, 'hardMaxEntered');
    this.maxEntered = Math.min(positiveInteger(options.maxEntered ?? 10000, 'maxEntered'), this.hardMaxEntered);
    // Reading the clock costs more than a step (about 0.35 µs in Chromium,
    // whose steps take 0.1 µs), so it is read every few steps: about every
    // sixteenth of the time budget at the pace of the steps so far, and at
    // most this many apart (turnTimeUsed()).
    this.timeCheckEvery = positiveInteger(options.timeCheckEvery ?? 1024, 'timeCheckEvery');
    this.macrotask = options.macrotask ?? ((cb) => setTimeout(cb, 0));
    this.now = options.now ?? (() => Date.now());
    this.keepAlive = options.keepAlive ?? { hold() {}, release() {} };
    this.checkInvariants = options.checkInvariants ?? false;

    this.live = new LiveSet();
    /** The task holding the execution permit, or null. */
    this.holder = /** @type {Task | null} */ (null);
    /**
     * The holder, when it waits with its permit lent: nothing else wanted the
     * permit when it began to wait, so it keeps it, and its wrapper takes it
     * back in Wasm when the wait ends, without calling into JavaScript. The
     * scheduler reclaims a lent permit as soon as anything else wants it.
     * Invariant: while the lent task still waits, it is the holder.
     * @type {Task | null}
     */
    this.lent = null;
    /**
     * A standing lend: the lent task, its permit lent as it began a wait
     * while nothing else wanted the permit, may begin further waits lent
     * without the checks of mayLend(), one step each (leaseStep()), up to
     * turn step `leaseEnd`. Which waits those are is the engine's business
     * (it keeps the wait the lease is for). Anything that could make
     * mayLend() false revokes it (revokeLease()): a transition of any task, a
     * new task, a resumption made ready, a boost, a reclaim (an exclusive
     * section, a cancellation), a step taken the general way, the turn's end;
     * and on the engine's side anything that changes the task's wait record
     * (a wait of another kind, a rejected lent wait) or forbids waits (a
     * disposer). The waits taken under it count as steps and lends when it
     * ends (stats() adds those of a lease in force).
     * @type {Task | null}
     */
    this.lease = null;
    this.leaseEnd = 0;
    this.leaseFrom = 0; // turnSteps when granted
    this.resumptions = new TaskQueue();
    this.boostedStarts = new TaskQueue();
    this.starts = new TaskQueue();
    this.seq = 0;

    this.turnActive = false; // a turn-end macrotask is pending
    this.turnSteps = 0;
    this.turnStart = 0;
    this.nextClockCheck = 0; // the turn step at which the clock is read next
    this.paused = false; // budget exhausted: waiting for the turn-end macrotask
    this.pumping = false;
    this.releasePending = false; // the live set emptied in a turn in progress: the keep-alive goes at its end

    /** @type {{ promise: Promise<void>, resolve: () => void, reject: (e: unknown) => void } | null} what drain() returns until the live set empties */
    this.drainWaiter = null;
    /** @type {unknown} set when an internal error broke the scheduler */
    this.broken = null;
    this.exclusives = 0; // while above 0, no grants: something runs between tasks
    /** @type {(() => void)[]} */
    this.releaseWaiters = [];
    /** Tasks per live state, indexed by S.queued, S.executing, S.suspended. */
    this.byState = new Int32Array(3);
    this.ready = 0; // suspended tasks with a resumption in the ready queue
    this.entered = 0; // tasks that entered Wasm and have not finished
    this.totals = {
      dispatched: 0, started: 0, returned: 0, failed: 0, cancelled: 0,
      steps: 0, yields: 0, intervals: 0, peakLive: 0, peakEntered: 0, lends: 0, reclaims: 0, takes: 0,
    };
    this.onTurnEnd = () => {
      this.revokeLease();
      this.turnActive = false;
      if (this.releasePending) {
        this.releasePending = false;
        this.keepAlive.release();
      }
      if (this.paused) {
        this.paused = false;
        try {
          this.pump(true);
        } catch (error) {
          this.breakDown(error);
          console.error(error);
        }
      }
    };
  }

  /**
   * Checks a transition against the state machine and applies it.
   * @param {Task} task @param {number} to  a state of S
   */
  transition(task, to) {
    this.revokeLease();
    const from = task._s;
    if ((LEGAL_TRANSITIONS[from] & (1 << to)) === 0) {
      throw new InternalError(`illegal transition of ${task}: ${STATE_NAMES[from]} -> ${STATE_NAMES[to]}`);
    }
    if (from < S.returned) this.byState[from]--;
    task._s = to;
    if (to < S.returned) this.byState[to]++;
  }

  /**
   * Inserts a new task into the live set as queued, with its start in the ready
   * queue. The caller decides when to pump.
   * @param {Task} task
   */
  add(task) {
    if (task._s !== S.queued || this.live.has(task)) {
      throw new InternalError(`add() of a task that is not new: ${task}`);
    }
    if (this.live.size === 0) {
      this.totals.intervals++;
      // Still held if the last interval ended in this turn.
      if (this.releasePending) this.releasePending = false;
      else this.keepAlive.hold();
    }
    this.revokeLease();
    this.live.add(task);
    this.byState[S.queued]++;
    this.totals.dispatched++;
    if (this.live.size > this.totals.peakLive) this.totals.peakLive = this.live.size;
    task._seq = ++this.seq;
    this.starts.push(task);
    if (this.checkInvariants) this.assertInvariants();
  }

  /**
   * Marks a queued start as joined: it may enter Wasm above the soft bound, so a
   * task waiting for it cannot deadlock behind admission control.
   * @param {Task} task
   * @returns {boolean} whether the start became eligible: the caller pumps
   */
  boost(task) {
    if (task._s !== S.queued || task._boosted) return false;
    this.revokeLease();
    task._boosted = true;
    task._seq = ++this.seq;
    this.boostedStarts.push(task);
    return true;
  }

  /**
   * The executing task parks at a wait: it gives the permit back.
   * @param {Task} task
   */
  suspend(task) {
    if (task !== this.holder) throw new InternalError(`suspend() of ${task}, which does not hold the permit`);
    if (this.lent === task) this.lent = null;
    this.transition(task, S.suspended);
    this.holder = null;
    if (this.releaseWaiters.length) this.permitReleased();
    if (this.checkInvariants) this.assertInvariants();
  }

  /**
   * Whether the executing task may wait with its permit lent: nothing else
   * wants the permit now and the turn has a step left for its resumption,
   * which it takes now.
   */
  mayLend() {
    if (this.ready !== 0 || this.paused || this.exclusives !== 0 || this.releaseWaiters.length !== 0) return false;
    if (this.byState[S.queued] !== 0 && this.pickNext() !== null) return false;
    return this.takeStep();
  }

  /**
   * The lent task may take its next waits lent with no checks, one step
   * each (leaseStep()), until revoked or the turn's steps or clock check come
   * due.
   * @param {Task} task
   * @returns {boolean} whether the lease was granted
   */
  grantLease(task) {
    if (task !== this.lent || task !== this.holder) throw new InternalError(`grantLease() of ${task}, which is not lent the permit`);
    // The operation of the wait that lent it may have changed what mayLend() checks.
    if (task._cancelNow || this.ready !== 0 || this.paused || this.exclusives !== 0 || this.releaseWaiters.length !== 0 || !this.turnActive) return false;
    if (this.byState[S.queued] !== 0 && this.pickNext() !== null) return false;
    this.lease = task;
    this.leaseFrom = this.turnSteps;
    this.leaseEnd = Math.min(this.maxSteps, this.nextClockCheck);
    return true;
  }

  /**
   * The task with the lease, if the lease holds for one more wait, which
   * this counts as a step of the turn; else null.
   * @returns {Task | null}
   */
  leaseStep() {
    const task = this.lease;
    if (task === null || this.turnSteps >= this.leaseEnd) return null;
    this.turnSteps++;
    return task;
  }

  /** Ends the lease, if there is one, counting the steps and lends taken under it. */
  revokeLease() {
    if (this.lease === null) return;
    const n = this.turnSteps - this.leaseFrom;
    this.totals.steps += n;
    this.totals.lends += n;
    this.lease = null;
    this.engine.leaseEnded();
  }

  /**
   * The engine let a suspended task take the permit from the task it is lent
   * to, which holds the lease and still waits, with one step of the lease
   * (the permit was open: nothing else wanted it). The loser becomes an
   * ordinary suspended task and the taker the holder, executing; the lease
   * passes to the taker, whose next wait may lend again under it
   * (relend()). Not transition(): a transition revokes the lease.
   * @param {Task} loser @param {Task} taker
   */
  handOff(loser, taker) {
    if (loser !== this.lease || loser !== this.lent || loser !== this.holder) {
      throw new InternalError(`handOff() from ${loser}, which does not wait with the lease`);
    }
    if (taker._s !== S.suspended || taker._ready || this.turnSteps >= this.leaseEnd) {
      throw new InternalError(`handOff() to ${taker} (ready ${taker._ready}), turn step ${this.turnSteps} of the lease's ${this.leaseEnd}`);
    }
    loser._s = S.suspended;
    taker._s = S.executing;
    this.lent = null;
    this.holder = taker;
    this.lease = taker;
    // A step, but no lend: the lease counts its steps as lends.
    this.turnSteps++;
    this.leaseFrom++;
    this.totals.steps++;
    this.totals.takes++;
    if (this.checkInvariants) this.assertInvariants();
  }

  /**
   * handOff() and relend() in one: the taker waits lent at once, under the
   * lease (the checks of both run under checkInvariants).
   * @param {Task} loser @param {Task} taker
   */
  handOffAndLend(loser, taker) {
    if (this.checkInvariants) {
      this.handOff(loser, taker);
      this.relend(taker);
      return;
    }
    loser._s = S.suspended;
    taker._s = S.executing;
    this.lent = taker;
    this.holder = taker;
    this.lease = taker;
    this.turnSteps++;
    this.leaseFrom++;
    this.totals.steps++;
    this.totals.takes++;
  }

  /**
   * The task the lease passed to (handOff()) waits lent again, under the lease.
   * @param {Task} task
   */
  relend(task) {
    if (task !== this.lease || task !== this.holder || this.lent !== null) throw new InternalError(`relend() of ${task}, which did not take the lease`);
    this.lent = task;
  }

  /**
   * The executing task waits with its permit lent.
   * @param {Task} task
   */
  lend(task) {
    if (task !== this.holder) throw new InternalError(`lend() of ${task}, which does not hold the permit`);
    this.lent = task;
    this.totals.lends++;
  }

  /**
   * The lent task's wait ended while it still holds the permit (its
   * operation rejected): the permit is its own again, no longer lent.
   * @param {Task} task
   */
  endLend(task) {
    this.revokeLease();
    if (this.lent === task) this.lent = null;
  }

  /**
   * Takes a lent permit back, if its task still waits: the task becomes an
   * ordinary suspended task, whose resumption goes through the ready queue.
   * A task that woke already keeps the permit: it runs.
   */
  reclaim() {
    this.revokeLease();
    const task = this.lent;
    if (task === null) return;
    this.lent = null;
    if (!this.engine.lendParked(task)) return;
    this.totals.reclaims++;
    this.engine.reclaimed(task);
    this.transition(task, S.suspended);
    this.holder = null;
    if (this.releaseWaiters.length) this.permitReleased();
    if (this.checkInvariants) this.assertInvariants();
  }

  /** Takes a lent permit back when other work could be granted it. */
  reclaimForWork() {
    if (this.lent !== null && this.pickNext() !== null) this.reclaim();
  }

  /**
   * The operation a suspended task waits for settled: its resumption joins the
   * ready queue.
   * @param {Task} task
   */
  readyTask(task) {
    if (task._s !== S.suspended || task._ready) {
      throw new InternalError(`ready() of ${task}, which is not a parked suspended task`);
    }
    this.revokeLease();
    task._ready = true;
    task._seq = ++this.seq;
    this.ready++;
    this.resumptions.push(task);
    if (this.checkInvariants) this.assertInvariants();
  }

  /**
   * The executing task left Wasm for good: it returned, failed or finished
   * unwinding after cancellation. Only this task leaves the live set.
   * @param {Task} task @param {'returned'|'failed'|'cancelled'} how
   */
  finish(task, how) {
    if (task !== this.holder) throw new InternalError(`finish() of ${task}, which does not hold the permit`);
    if (this.lent === task) this.lent = null;
    this.holder = null;
    this.entered--;
    if (this.releaseWaiters.length) this.permitReleased();
    this.retire(task, how);
  }

  /**
   * A queued task that never entered Wasm is discarded: it leaves the live set
   * without running.
   * @param {Task} task
   */
  discard(task) {
    this.dropQueued(task, TaskState.cancelled);
  }

  /**
   * Nothing can be granted, and the hard bound keeps a joined start out (a
   * start someone waits for may enter above the soft bound, never above the
   * hard one). If every entered task waits for such a start, directly or
   * through the task it joins, nothing can ever run again: the engine
   * decides (it knows what each task waits for) and fails the start.
   */
  checkAdmission() {
    const holder = this.holder;
    if (holder !== null && !(holder === this.lent && this.engine.lendParked(holder))) return;
    if (this.ready !== 0 || this.exclusives !== 0 || this.paused || this.pickNext() !== null) return;
    const start = this.boostedStarts.peek(isQueued);
    if (start !== null) this.engine.admissionBlocked(start);
  }

  /**
   * A queued task that cannot ever start fails without entering Wasm.
   * @param {Task} task
   */
  failQueued(task) {
    this.dropQueued(task, TaskState.failed);
  }

  /** @param {Task} task @param {'failed' | 'cancelled'} how */
  dropQueued(task, how) {
    if (task._s !== S.queued) throw new InternalError(`a queued task leaves the live set, but ${task} is not queued`);
    this.retire(task, how);
    // The discarded task stays in its start queue until it reaches the head,
    // which may be never (nothing else queued) or late (the head waits for
    // admission): drop the stale entries once they outnumber the live ones,
    // so that cancelling queued work never accumulates.
    // Each queue on its own: a boosted start is in both.
    const queued = this.byState[S.queued];
    if (this.starts.length > 64 && this.starts.length > 2 * queued) this.starts.compact(isQueued);
    if (this.boostedStarts.length > 64 && this.boostedStarts.length > 2 * queued) this.boostedStarts.compact(isQueued);
  }

  /** @param {Task} task @param {'returned'|'failed'|'cancelled'} how */
  retire(task, how) {
    this.transition(task, S[how]);
    this.totals[how]++;
    this.live.delete(task);
    if (task._done) task._done.resolve(task);
    if (this.live.size === 0) {
      // A turn in progress releases it at its end, unless new tasks came by
      // then: tasks that come and go within a turn toggle nothing.
      if (this.turnActive) this.releasePending = true;
      else this.keepAlive.release();
      const waiter = this.drainWaiter;
      this.drainWaiter = null;
      waiter?.resolve();
    }
    if (this.checkInvariants) this.assertInvariants();
  }

  /**
   * Grants the permit to ready work while the turn's budget lasts. Entering a
   * task's Wasm synchronously is allowed only from the top level (no Wasm frames
   * below us); elsewhere the start is granted and entered from a microtask.
   * @param {boolean} fromTopLevel
   */
  pump(fromTopLevel) {
    if (this.pumping) return;
    this.reclaimForWork();
    this.pumping = true;
    try {
      while (this.holder === null && !this.paused) {
        const task = this.pickNext();
        if (task === null) break;
        if (!this.takeStep()) return;
        this.grant(this.popPicked(task), fromTopLevel);
      }
      if (this.entered >= this.hardMaxEntered) this.checkAdmission();
    } finally {
      this.pumping = false;
    }
  }

  /**
   * The next task to get the permit, by ready order, honouring admission control.
   * @returns {Task | null}
   */
  pickNext() {
    if (this.exclusives !== 0) return null;
    let best = this.ready > 0 ? this.resumptions.peek(isParkedReady) : null;
    if (this.byState[S.queued] === 0) return best;
    const b = this.entered < this.hardMaxEntered ? this.boostedStarts.peek(isQueued) : null;
    const s = this.entered < this.maxEntered ? this.starts.peek(isQueued) : null;
    if (b && (!best || b._seq < best._seq)) best = b;
    if (s && (!best || s._seq < best._seq)) best = s;
    return best;
  }

  /** Removes the picked task from the head of its queue. @param {Task} task */
  popPicked(task) {
    if (task._s === S.suspended) this.resumptions.pop();
    else if (this.boostedStarts.peek(isQueued) === task) this.boostedStarts.pop();
    else this.starts.pop();
    return task;
  }

  /**
   * Waits until no task holds the permit and keeps it that way until the
   * returned release function is called: for work that must run between tasks
   * (loading a module into the program). Grants resume after the release.
   * @returns {Promise<() => void>}
   */
  exclusive() {
    this.reclaim();
    this.exclusives++;
    const release = () => {
      this.exclusives--;
      if (this.exclusives === 0) this.engine.exclusiveEnded();
    };
    if (this.holder === null) return Promise.resolve(release);
    return new Promise((resolve) => { this.releaseWaiters.push(() => resolve(release)); });
  }

  /** Called whenever the permit becomes free. */
  permitReleased() {
    if (this.releaseWaiters.length === 0) return;
    const waiters = this.releaseWaiters;
    this.releaseWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * A suspended task whose operation settled takes the permit directly, if the
   * permit is free, nothing is ready ahead of it and the turn has budget left.
   * @param {Task} task
   * @returns {boolean} whether it now holds the permit
   */
  claim(task) {
    if (this.lent !== null) this.reclaim();
    if (this.holder !== null || this.paused || this.exclusives !== 0 || task._s !== S.suspended || task._ready) return false;
    if (this.ready !== 0 || (this.byState[S.queued] !== 0 && this.pickNext() !== null)) return false;
    if (!this.takeStep()) return false;
    this.holder = task;
    this.transition(task, S.executing);
    if (this.checkInvariants) this.assertInvariants();
    return true;
  }

  /**
   * A start whose carrier just became free may run on that carrier at once, as
   * long as it is next in line and the budget allows. Returns the task, granted,
   * or null; then what is next in line, if anything, was granted as pump()
   * grants it.
   * @returns {Task | null}
   */
  takeStartForCarrier() {
    this.reclaimForWork();
    if (this.holder !== null || this.paused) return null;
    const task = this.pickNext();
    if (task === null) return null;
    if (task._s !== S.queued) {
      this.pump(false);
      return null;
    }
    if (!this.takeStep()) return null;
    this.popPicked(task);
    this.holder = task;
    this.startGranted(task);
    return task;
  }

  /** @param {Task} task */
  startGranted(task) {
    this.transition(task, S.executing);
    this.entered++;
    this.totals.started++;
    if (this.entered > this.totals.peakEntered) this.totals.peakEntered = this.entered;
    if (this.checkInvariants) this.assertInvariants();
  }

  /** @param {Task} task @param {boolean} fromTopLevel */
  grant(task, fromTopLevel) {
    this.holder = task;
    if (task._s === S.queued) {
      this.startGranted(task);
      this.engine.enter(task, fromTopLevel);
    } else {
      task._ready = false;
      this.ready--;
      this.transition(task, S.executing);
      if (this.checkInvariants) this.assertInvariants();
      this.engine.resume(task);
    }
  }

  /** Counts one step against the turn's budget; false when the turn is used up. */
  takeStep() {
    // The lease's own steps are counted without this; its waits end here.
    this.revokeLease();
    if (!this.turnActive) {
      this.turnActive = true;
      this.turnSteps = 0;
      this.turnStart = this.now();
      this.nextClockCheck = 1;
      this.macrotask(this.onTurnEnd);
    } else if (this.turnSteps >= this.maxSteps || (this.turnSteps >= this.nextClockCheck && this.turnTimeUsed())) {
      // Give the event loop its turn; onTurnEnd resumes granting.
      this.paused = true;
      this.totals.yields++;
      return false;
    }
    this.turnSteps++;
    this.totals.steps++;
    return true;
  }

  /**
   * Reads the clock: whether the turn used its time budget. If not, the next
   * reading comes after about a sixteenth of the budget at the pace of the
   * steps so far (never more than halfway to the budget, nor more than
   * timeCheckEvery steps later). While the clock has not moved (a coarse
   * clock, as browsers give pages), the gap doubles.
   */
  turnTimeUsed() {
    const elapsed = this.now() - this.turnStart;
    if (elapsed >= this.maxTimeMs) return true;
    const steps = this.turnSteps;
    const gap = elapsed > 0 ? Math.floor(Math.min(this.maxTimeMs / 16, (this.maxTimeMs - elapsed) / 2) / (elapsed / steps)) : steps;
    this.nextClockCheck = steps + Math.max(1, Math.min(this.timeCheckEvery, gap));
    return false;
  }

  /**
   * Resolves when the live set is empty; at once if it already is. Every call
   * in one interval gets the same promise, so that polling drain() while work
   * goes on holds one waiter, not one per call.
   * @returns {Promise<void>}
   */
  drain() {
    if (this.broken !== null) return Promise.reject(this.broken);
    if (this.live.size === 0) return Promise.resolve();
    if (this.drainWaiter === null) {
      /** @type {any} */
      const waiter = {};
      waiter.promise = new Promise((resolve, reject) => { waiter.resolve = resolve; waiter.reject = reject; });
      this.drainWaiter = waiter;
    }
    return /** @type {{ promise: Promise<void> }} */ (this.drainWaiter).promise;
  }

  /**
   * No task is live: the keep-alive token lets go of its timer too, unless a
   * turn in progress still holds it (work dispatched before the turn's end
   * keeps it held, and takes no new one).
   */
  disposeKeepAliveIfIdle() {
    if (this.live.size === 0 && !this.releasePending) this.keepAlive.dispose?.();
  }

  /** The runtime closed: the keep-alive token lets go of its timer. */
  disposeKeepAlive() {
    this.keepAlive.dispose?.();
  }

  /**
   * An internal error broke the scheduler: pending and future drain() calls
   * reject with it instead of waiting forever.
   * @param {unknown} error
   */
  breakDown(error) {
    if (this.broken !== null) return;
    this.broken = error;
    const waiter = this.drainWaiter;
    this.drainWaiter = null;
    waiter?.reject(error);
  }

  stats() {
    const lent = this.lent !== null && this.engine.lendParked(this.lent) ? 1 : 0;
    // The waits taken under the lease in force so far.
    const leased = this.lease !== null ? this.turnSteps - this.leaseFrom : 0;
    return {
      live: this.live.size,
      queued: this.byState[S.queued],
      executing: this.byState[S.executing] - lent,
      suspended: this.byState[S.suspended] + lent,
      ready: this.ready,
      entered: this.entered,
      lent,
      ...this.totals,
      steps: this.totals.steps + leased,
      lends: this.totals.lends + leased,
    };
  }

  /** Checks every invariant of the scheduler; throws InternalError on the first broken one. */
  assertInvariants() {
    assertSchedulerInvariants(this);
  }
}

/** @param {Task} t */
function isQueued(t) {
  return t._s === S.queued;
}

/** @param {Task} t */
function isParkedReady(t) {
  return t._s === S.suspended && t._ready;
}

/** @param {unknown} v @param {string} name */
function positiveInteger(v, name) {
  if (!Number.isInteger(v) || /** @type {number} */ (v) <= 0) {
    throw new SnailError(`option ${name} must be a positive integer, got ${String(v)}`, { code: 'ERR_OPTION' });
  }
  return /** @type {number} */ (v);
}

/** @param {unknown} v @param {string} name */
function positiveNumber(v, name) {
  if (typeof v !== 'number' || !(v > 0)) {
    throw new SnailError(`option ${name} must be a positive number, got ${String(v)}`, { code: 'ERR_OPTION' });
  }
  return v;
}
