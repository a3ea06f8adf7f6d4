// The lent permit (internal): a task that keeps the permit across a wait
// because nothing else wanted it (lent: its wrapper takes it back in Wasm),
// and a task whose wait ends while another is lent the permit, which takes
// the permit in its wrapper, in Wasm, when the permit is open (the take,
// wasm/gates.mjs). The wait path begins lent waits (wait-functions.mjs)
// and notices takes through it; the scheduler's engine callbacks
// lendParked, reclaimed, engineProblem and leaseEnded land here.
import { InternalError } from './errors.mjs';
import { assertWaitBegins, checkWaitMove, Execution, W, WAIT_MODE_NAMES } from './execution.mjs';
import { S } from './task.mjs';

/** @typedef {import('./tasks.mjs').Task} Task */
/** @typedef {import('./imports.mjs').WaitSpec} WaitSpec */

/**
 * @typedef {object} LendingHooks
 * @property {import('./tasks.mjs').Scheduler} scheduler
 * @property {import('./words.mjs').SharedWords} words
 * @property {(Task | undefined)[]} slotTasks  the task owning each register-file slot
 * @property {(fn: () => void) => void} guard  runs a callback from the event loop; an exception is a
 *   bug that breaks the runtime down
 * @property {(task: Task, x: Execution) => unknown} takeWait  takes a task's wait record and clears it (Waits.takeWait)
 */

export class Lending {
  /** @param {LendingHooks} hooks */
  constructor(hooks) {
    this.sched = hooks.scheduler;
    this.words = hooks.words;
    this.slotTasks = hooks.slotTasks;
    this.guard = hooks.guard;
    this.takeWait = hooks.takeWait;
    /** Check every move of a wait, and the records where waits begin and end. */
    this.check = this.sched.checkInvariants;
    /** Whether the permit may be opened to a take in Wasm (a benchmark's anatomy turns it off). */
    this.takesAllowed = true;
    /**
     * @type {WaitSpec | null} the import whose next wait under the lease is
     * the last one again: the task with the lease waits lent on it, its wait
     * record stands, its record holds its signal, and no other task waits (so
     * none took the permit). Anything else that begins a wait, a take, and
     * the lease's end clear it.
     */
    this.again = null;
  }

  /**
   * Moves a task's wait to mode `to` (checked against the legal moves under checkInvariants).
   * @param {Task} task @param {Execution} x @param {number} to
   */
  moveWait(task, x, to) {
    if (this.check) checkWaitMove(task, x.mode, to);
    x.mode = to;
  }

  /** Takes note of the take in Wasm that the words record (Waits.sync() found one). */
  syncTake() {
    this.again = null;
    const words = this.words;
    const taker = this.slotTasks[words.taken];
    const loser = this.slotTasks[words.loser];
    if (taker === undefined || loser === undefined || loser._exec.mode !== W.lent) {
      throw new InternalError(`a take in Wasm by slot ${words.taken} from slot ${words.loser}, which do not hold a waiting task and the task lent the permit`);
    }
    words.clearTake();
    const tx = taker._exec;
    const lx = loser._exec;
    this.sched.handOff(loser, taker);
    // The loser waits on as an ordinary suspended task: its wrapper calls
    // `after` when it wakes.
    this.moveWait(loser, lx, W.direct);
    words.mayTake(loser._slot, /** @type {WaitSpec} */ (lx.wait).lendable && !loser._cancelNow);
    // The taker's wait ended in Wasm with what JSPI delivered, which is its
    // delivery (it may take the permit only then); the lease is its now.
    this.moveWait(taker, tx, W.none);
    this.takeWait(taker, tx);
    words.mayTake(taker._slot, false);
  }

  /**
   * The task that took the permit in Wasm waits again, on the import the
   * lease is for: syncTake() and relend() in one, with what checkInvariants
   * checks only under it (it is the wait path of many tasks whose waits
   * settle in turn).
   * @param {WaitSpec} spec
   */
  takeAndLend(spec) {
    this.again = null;
    const words = this.words;
    const i32 = /** @type {Int32Array} */ (words.i32);
    const taker = /** @type {Task} */ (this.slotTasks[words.taken]);
    const loser = this.slotTasks[words.loser];
    const lx = /** @type {Execution} */ (loser?._x);
    if (loser === undefined || lx.mode !== W.lent) {
      throw new InternalError(`a take in Wasm from slot ${words.loser}, which holds no task lent the permit`);
    }
    words.clearTake();
    const tx = /** @type {Execution} */ (taker._x);
    if (this.check) {
      checkWaitMove(loser, lx.mode, W.direct);
      checkWaitMove(taker, tx.mode, W.none);
      checkWaitMove(taker, W.none, W.lent);
    }
    this.sched.handOffAndLend(loser, taker);
    // The loser waits on as an ordinary suspended task, whose wrapper calls
    // `after` when it wakes; the taker's last wait ended with what JSPI
    // delivered, and this one begins lent.
    lx.mode = W.direct;
    tx.mode = W.lent;
    tx.wait = spec;
    tx.waitArgs = null;
    const stride = words.waitStride;
    i32[words.waitWord + loser._slot * stride] = /** @type {WaitSpec} */ (lx.wait).lendable && !loser._cancelNow ? 1 : 0;
    i32[words.waitWord + taker._slot * stride] = 0;
  }

  /**
   * The engine's engineProblem: a take in Wasm the wait path has not seen,
   * read from the memory itself (`taken` says 0 unless the permit was
   * opened: a take it does not expect is a problem too).
   */
  unseenTake() {
    const slot = this.words.takenInMemory;
    if (slot === 0) return null;
    const who = `${this.slotTasks[slot] ?? `slot ${slot}`} took the permit in Wasm`;
    return this.words.opened ? `${who}, and the wait path has not taken note` : `${who}, which the JavaScript side had not opened`;
  }

  /** The engine's leaseEnded: the permit is open no longer. */
  leaseEnded() {
    this.again = null;
    this.words.close();
  }

  /**
   * The executing task keeps its permit, lent, across the wait it begins: its
   * wrapper takes it back in Wasm. The wait is recorded as for a suspension,
   * in case the permit is reclaimed and the task resumes the ordinary way.
   * @param {Task} task @param {WaitSpec} spec @param {any[] | null} args
   * @returns {Execution} the task's execution record
   */
  lendAcross(task, spec, args) {
    const x = task._exec;
    if (this.check && x.mode !== W.begun) assertWaitBegins(task, x);
    x.wait = spec;
    x.waitArgs = spec.keepsArgs ? args : null;
    this.moveWait(task, x, W.lent);
    // The wrapper put the task's slot in the LENT word as it called the wait.
    this.sched.lend(task);
    return x;
  }

  /**
   * The lease passed to the task as it took the permit in Wasm: its next
   * wait of the lease's import lends again, as its first did.
   * @param {Task} task @param {WaitSpec} spec
   */
  relend(task, spec) {
    const x = task._exec;
    if (this.check) assertWaitBegins(task, x);
    x.wait = spec;
    x.waitArgs = null;
    this.moveWait(task, x, W.lent);
    this.sched.relend(task);
  }

  /**
   * Under checkInvariants, at every wait taken under the lease: the
   * scheduler's invariants, and the task's wait record as its last lent wait
   * of the same import left it. A broken one breaks the runtime down (thrown
   * into the wait, it would reach the task as the wait's failure). The
   * closure is here, not in the wait: a closure over the wait's locals there
   * made every suspended task larger (resident memory, bench/analysis.md).
   * @param {Task} task @param {WaitSpec} spec
   */
  assertLease(task, spec) {
    this.guard(() => {
      this.sched.assertInvariants();
      const x = task._exec;
      if (x.mode !== W.lent || x.wait !== spec || x.waitArgs !== null) {
        throw new InternalError(`invariant broken: ${task} waits under the lease in mode ${WAIT_MODE_NAMES[x.mode]} in ${x.wait?.name ?? 'no wait'}, not lent in ${spec.name}`);
      }
    });
  }

  /**
   * Under checkInvariants, at every wait taken as the last one again
   * (Lending.again): what assertLease() checks, and that what made it the
   * same wait still holds: the task holds the lease and is lent the permit,
   * its signal is made if the operation reads it, no other task waits, and no take is left unseen.
   * @param {Task} task @param {WaitSpec} spec
   */
  assertAgain(task, spec) {
    this.assertLease(task, spec);
    this.guard(() => {
      const sched = this.sched;
      const unsignalled = spec.seesSignal && task._exec.signal === null;
      if (sched.lent !== task || sched.lease !== task || unsignalled || this.words.taken !== 0 || sched.byState[S.suspended] !== 0) {
        throw new InternalError(`invariant broken: ${task} waits in ${spec.name} as its last wait again, but it is ${sched.lent === task ? '' : 'not '}lent the permit, ${sched.lease === task ? 'holds' : 'does not hold'} the lease, ${unsignalled ? 'has no signal' : 'has the signal its operation reads'}, ${sched.byState[S.suspended]} other tasks wait and slot ${this.words.taken} took the permit unseen`);
      }
    });
  }

  /**
   * Whether a task whose permit was lent still waits: its wrapper has not
   * taken the permit back.
   * @param {Task} task
   */
  lendParked(task) {
    const x = task._x;
    return x instanceof Execution && x.mode === W.lent && this.words.keeps(task._slot);
  }

  /**
   * The scheduler took the permit lent to this task back while it waits: it
   * waits on as an ordinary suspended task. Its wrapper saved its registers
   * as the wait began, and calls `after` when it wakes.
   * @param {Task} task
   */
  reclaimed(task) {
    const x = task._exec;
    this.words.clearLent();
    this.moveWait(task, x, W.direct);
    this.words.mayTake(task._slot, /** @type {WaitSpec} */ (x.wait).lendable && !task._cancelNow);
    this.words.setCurrent(0);
  }
}
