// The scheduler shared by every runtime adapter: one JavaScript agent, no workers.
//
// It keeps the live set (queued, executing and suspended tasks), the ready queue
// of starts and resumptions, and the execution permit: the right to run Wasm that
// uses the program's handler globals. It knows nothing about Wasm itself; the
// JSPI bridge (bridge.mjs) is its engine and enters or resumes a task when the
// scheduler grants it the permit.
//
// Short tasks advance through microtasks. After a bounded number of grants, or a
// bounded time (the turn's budget, turn.mjs), the scheduler stops granting and
// waits for one event-loop turn through the environment's macrotask source, so
// timers and input are served. It never spins: when nothing is ready it does nothing.
import { InternalError } from './errors.mjs';
import { Intervals } from './intervals.mjs';
import { LiveSet, TaskQueue } from './queues.mjs';
import { assertSchedulerInvariants } from './scheduler-checks.mjs';
import { checkEngine, positiveInteger } from './scheduler-options.mjs';
import { CANCELLED_LATER, LEGAL_TRANSITIONS, S, STATE_NAMES, Task, TaskState } from './task.mjs';
import { Turn } from './turn.mjs';

export { CANCELLED_LATER, LiveSet, S, Task, TaskState };

/**
 * @typedef {import('./task.mjs').TaskStateName} TaskStateName
 * @typedef {import('./scheduler-options.mjs').SchedulerEngine} SchedulerEngine
 * @typedef {import('./scheduler-options.mjs').SchedulerOptions} SchedulerOptions
 */

export class Scheduler {
  /** @param {SchedulerEngine} engine @param {SchedulerOptions} [options] */
  constructor(engine, options = {}) {
    checkEngine(engine);
    this.engine = engine;
    /** The turn's budget of steps and time; its end comes through `macrotask`. */
    this.turn = new Turn(options, () => this.turnEnded());
    this.hardMaxEntered = positiveInteger(options.hardMaxEntered ?? 16000, 'hardMaxEntered');
    this.maxEntered = Math.min(positiveInteger(options.maxEntered ?? 10000, 'maxEntered'), this.hardMaxEntered);
    this.checkInvariants = options.checkInvariants ?? false;

    this.live = new LiveSet();
    /** The keep-alive token and drain()'s waiter: what holds while the live set is not empty. */
    this.intervals = new Intervals(this.live, options.keepAlive ?? { hold() {}, release() {} });
    /** The task holding the execution permit, or null. */
    this.holder = /** @type {Task | null} */ (null);
    /**
     * Whether the holder waits with its permit lent (`lent`): nothing else
     * wanted the permit when it began to wait, so it keeps it, and its
     * wrapper takes it back in Wasm when the wait ends, without calling into
     * JavaScript. The scheduler reclaims a lent permit as soon as anything
     * else wants it. The lent task is always the holder, so the holder is the
     * one reference kept: a take in Wasm that passes the permit on stores one
     * task into the scheduler, not three (each such store is a write barrier).
     */
    this.holderLent = false;
    /**
     * Whether the holder has the lease (`lease`): a standing lend: the lent task, its permit lent as it began a wait
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
     */
    this.holderLeased = false;
    this.leaseEnd = 0;
    this.leaseFrom = 0; // the turn's steps when granted
    this.resumptions = new TaskQueue();
    this.boostedStarts = new TaskQueue();
    this.starts = new TaskQueue();
    this.seq = 0;

    this.pumping = false;
    this.exclusives = 0; // while above 0, no grants: something runs between tasks
    /** @type {(() => void)[]} */
    this.releaseWaiters = [];
    /** Tasks per live state, indexed by S.queued, S.executing, S.suspended. */
    this.byState = new Int32Array(3);
    this.ready = 0; // suspended tasks with a resumption in the ready queue
    /**
     * Whether the ready resumptions are held back until the turn's end
     * (releaseReady()): the turn had no room for them, nor for those made
     * ready later in it. They do not keep the holder from lending the
     * permit, nor a task whose wait ends from taking it, and the turn's end
     * grants and releases them first, in ready order.
     */
    this.holding = false;
    this.entered = 0; // tasks that entered Wasm and have not finished
    this.totals = {
      dispatched: 0, started: 0, returned: 0, failed: 0, cancelled: 0,
      steps: 0, yields: 0, intervals: 0, peakLive: 0, peakEntered: 0, lends: 0, reclaims: 0, takes: 0, releases: 0,
    };
  }

  /** How many ready resumptions are held back until the turn's end (holding). */
  get held() {
    return this.holding ? this.ready : 0;
  }

  /** Whether ready resumptions want the permit now: some are ready, none held back. */
  get readyWanting() {
    return this.ready !== 0 && !this.holding;
  }

  /** The holder, when it waits with its permit lent (holderLent); else null. */
  get lent() {
    return this.holderLent ? this.holder : null;
  }

  /** The holder, when it has the lease (holderLeased); else null. */
  get lease() {
    return this.holderLeased ? this.holder : null;
  }

  /**
   * The turn-end macrotask: the event loop had its turn. The lease ends, a
   * keep-alive the turn kept goes, and grants resume if the turn was paused.
   */
  turnEnded() {
    this.revokeLease();
    const held = this.holding;
    this.holding = false;
    const paused = this.turn.end();
    this.intervals.turnEnded();
    if (paused || held) {
      try {
        this.pump(true);
      } catch (error) {
        this.intervals.breakDown(error);
        console.error(error);
      }
    }
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
      this.intervals.begin();
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
    this.holderLent = false;
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
    if (this.turn.paused || this.exclusives !== 0 || this.releaseWaiters.length !== 0) return false;
    if (this.readyWanting && !this.releaseReady()) return false;
    if (this.byState[S.queued] !== 0 && this.pickWanting() !== null) return false;
    return this.takeStep();
  }

  /**
   * The executing task begins a wait while resumptions are ready: those at
   * the head of the ready order that the engine can let wake again by
   * themselves (release()) leave the ready queue, in order, so that the wait
   * may lend the permit and each of them take it in Wasm in turn, the way
   * they would have had the permit been open when their waits ended. A start
   * or a resumption the engine keeps stops it.
   *
   * A released resumption that wakes after the turn's budget ran out parks
   * again, so only as many are released as the turn has steps left at the
   * pace of its steps so far, and the rest are held back until the turn's
   * end (`holding`), which is asked for now: they wait on their gates, at
   * no cost, and do not keep the wait from lending. So is every resumption
   * made ready later in the turn. With all of them released, many tasks
   * with slow steps (or slow promise jobs: SpiderMonkey's) would each wake
   * and park again turn after turn; with none, a turn would grant them one
   * at a time, every wait of theirs giving the permit up. (A released task
   * that runs takes two steps, its take and its next wait, so up to half of
   * them may park again; a bound of half the steps left measured worse with
   * fast steps, where the turn then ended early for want of released work.)
   * The bound reads the clock, so it is looked at only once the head of the
   * ready order is a resumption the engine can release.
   * @returns {boolean} whether every resumption still ready is held back
   */
  releaseReady() {
    if (this.holding) return true;
    let room = -1;
    while (this.ready !== 0) {
      const task = this.pickNext();
      if (task === null || task._s !== S.suspended || !this.engine.releasable(task)) return false;
      if (room < 0) room = this.turn.room();
      if (room === 0) {
        this.holding = true;
        this.turn.askEndSoon();
        break;
      }
      room--;
      this.engine.release(task);
      this.resumptions.pop();
      task._ready = false;
      this.ready--;
      this.totals.releases++;
    }
    if (this.checkInvariants) this.assertInvariants();
    return true;
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
    if (task._cancelNow || this.readyWanting || this.turn.paused || this.exclusives !== 0 || this.releaseWaiters.length !== 0 || !this.turn.active) return false;
    if (this.byState[S.queued] !== 0 && this.pickWanting() !== null) return false;
    this.holderLeased = true;
    this.leaseFrom = this.turn.steps;
    this.leaseEnd = this.turn.nextCheck();
    return true;
  }

  /**
   * The task with the lease, if the lease holds for one more wait, which
   * this counts as a step of the turn; else null.
   * @returns {Task | null}
   */
  leaseStep() {
    if (!this.holderLeased || this.turn.steps >= this.leaseEnd) return null;
    this.turn.steps++;
    return this.holder;
  }

  /** Ends the lease, if there is one, counting the steps and lends taken under it. */
  revokeLease() {
    if (!this.holderLeased) return;
    const n = this.turn.steps - this.leaseFrom;
    this.totals.steps += n;
    this.totals.lends += n;
    this.holderLeased = false;
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
    if (taker._s !== S.suspended || taker._ready || this.turn.steps >= this.leaseEnd) {
      throw new InternalError(`handOff() to ${taker} (ready ${taker._ready}), turn step ${this.turn.steps} of the lease's ${this.leaseEnd}`);
    }
    loser._s = S.suspended;
    taker._s = S.executing;
    this.holder = taker;
    this.holderLent = false;
    // A step, but no lend: the lease counts its steps as lends.
    this.turn.steps++;
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
    // The loser was lent the permit with the lease, and the taker is now:
    // the holder is all that changes.
    loser._s = S.suspended;
    taker._s = S.executing;
    this.holder = taker;
    this.turn.steps++;
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
    this.holderLent = true;
  }

  /**
   * The executing task waits with its permit lent.
   * @param {Task} task
   */
  lend(task) {
    if (task !== this.holder) throw new InternalError(`lend() of ${task}, which does not hold the permit`);
    this.holderLent = true;
    this.totals.lends++;
  }

  /**
   * The lent task's wait ended while it still holds the permit (its
   * operation rejected): the permit is its own again, no longer lent.
   * @param {Task} task
   */
  endLend(task) {
    this.revokeLease();
    if (this.lent === task) this.holderLent = false;
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
    this.holderLent = false;
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
    if (this.lent !== null && this.pickWanting() !== null) this.reclaim();
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
    // The lease is the holder's: it ends before the holder does.
    this.revokeLease();
    this.holderLent = false;
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
    if (this.ready !== 0 || this.exclusives !== 0 || this.turn.paused || this.pickNext() !== null) return;
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
    if (this.live.size === 0) this.intervals.end(this.turn.endAsked());
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
      while (this.holder === null && !this.turn.paused) {
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
   * @param {boolean} [resumptions]  whether the ready resumptions are looked at (by default, when any is ready)
   * @returns {Task | null}
   */
  pickNext(resumptions = this.ready > 0) {
    if (this.exclusives !== 0) return null;
    let best = resumptions ? this.resumptions.peek(isParkedReady) : null;
    if (this.byState[S.queued] === 0) return best;
    const b = this.entered < this.hardMaxEntered ? this.boostedStarts.peek(isQueued) : null;
    const s = this.entered < this.maxEntered ? this.starts.peek(isQueued) : null;
    if (b && (!best || b._seq < best._seq)) best = b;
    if (s && (!best || s._seq < best._seq)) best = s;
    return best;
  }

  /**
   * The next task that wants the permit now: pickNext()'s, unless every
   * ready resumption is held back until the turn's end, which leaves the
   * starts.
   * @returns {Task | null}
   */
  pickWanting() {
    return this.pickNext(this.readyWanting);
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
    if (this.holder !== null || this.turn.paused || this.exclusives !== 0 || task._s !== S.suspended || task._ready) return false;
    if (this.readyWanting || (this.byState[S.queued] !== 0 && this.pickWanting() !== null)) return false;
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
    if (this.holder !== null || this.turn.paused) return null;
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
    if (!this.turn.take()) {
      // Give the event loop its turn; turnEnded() resumes granting.
      this.totals.yields++;
      return false;
    }
    this.totals.steps++;
    return true;
  }

  stats() {
    const lent = this.lent !== null && this.engine.lendParked(this.lent) ? 1 : 0;
    // The waits taken under the lease in force so far.
    const leased = this.lease !== null ? this.turn.steps - this.leaseFrom : 0;
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
