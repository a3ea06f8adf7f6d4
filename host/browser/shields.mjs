// Shields (internal): scopes of a task inside which its waits run as though
// its cancellation had not been requested, so that cleanup which must wait (a
// rollback's writes, a flush) can finish after the task was cancelled.
//
// A shield is opened by the program (snail.shield_begin and shield_end, the
// C++ snail::shield), or for one wait by a suspending import declared with
// suspend()'s `shield` option. Inside it:
// - a wait runs and delivers its result, whether or not cancellation was
//   requested before or during it (contract 9 does not apply: the result is
//   delivered, so nothing is disposed);
// - the operation receives a signal of the shield's own, which the task's
//   cancellation does not abort;
// - when the shield's deadline passes, or close() gives up at its timeout,
//   the shield *expires*: its signal aborts, the wait in progress ends
//   cancelled (a result that comes later is disposed, as after any
//   cancellation), and every later wait in it returns cancelled at once.
// When the shield ends, a task whose cancellation was requested is cancelled
// again: its waits return cancelled, its own signal (aborted when the request
// was made) is the one operations get, and it unwinds as its code decides.
//
// A shield inside another ends no later than the outer one: its deadline is
// the earlier of the two, and it expires when the outer one does. The shields
// of a task are a stack, innermost first; only tasks in a shield have a
// record here, so a task that never opens one pays nothing (the wait path
// reads one flag bit, Task._cancelNow, which this module keeps).
import { CancelledError, InternalError } from './errors.mjs';

/** @typedef {import('./task.mjs').Task} Task */
/** @typedef {import('./sleepers.mjs').TimerHost} TimerHost */

class Shield {
  /**
   * @param {Shield | null} outer @param {number} deadline @param {boolean} expired
   * @param {AbortController | null} abort @param {AbortSignal | null} signal
   * @param {string | null} wait  the import a shield for one wait is for, else null
   */
  constructor(outer, deadline, expired, abort, signal, wait) {
    /** The shield this one is inside, or null. */
    this.outer = outer;
    /** When it expires, on the timer host's clock (ms); Infinity for never. */
    this.deadline = deadline;
    this.expired = expired;
    /** @type {unknown} the host timer armed for the deadline, undefined if none */
    this.timer = undefined;
    // The signal of the waits outside this shield (the outer shield's, or the
    // task's own), kept here while the execution record holds this shield's.
    this.outerAbort = abort;
    this.outerSignal = signal;
    this.wait = wait;
  }
}

/**
 * @typedef {object} ShieldHooks
 * @property {TimerHost} timers  the clock and host timers of deadlines
 * @property {(fn: () => void) => void} fromEventLoop  runs a timer's callback as the bridge
 *   runs every callback from the event loop (after taking note of a take in Wasm, guarded)
 * @property {(task: Task, reason: CancelledError) => void} expired  the shield the task is
 *   in expired: the wait in progress, if any, ends with the cancellation (bridge.mjs)
 * @property {(task: Task) => void} cancelledAgain  a shield ended and the task's waits are
 *   cancelled now: its wait word is cleared (it may not take the permit in Wasm)
 * @property {() => void} revokeLease  the scheduler's: the waits under a lease receive one
 *   signal, which a shield that begins or ends changes
 */

export class Shields {
  /** @param {ShieldHooks} hooks */
  constructor(hooks) {
    this.timers = hooks.timers;
    this.fromEventLoop = hooks.fromEventLoop;
    this.expiredHook = hooks.expired;
    this.cancelledAgain = hooks.cancelledAgain;
    this.revokeLease = hooks.revokeLease;
    /** @type {Map<Task, Shield>} the innermost shield of each task in one */
    this.open = new Map();
    /** close() gave up at its timeout: every shield expired, and a new one begins expired. */
    this.cut = false;
    /** Shields opened so far, for stats(). */
    this.opened = 0;
  }

  /** Tasks in a shield now. */
  get size() {
    return this.open.size;
  }

  /**
   * Opens a shield for the task (the permit holder, running or beginning a
   * wait), with a deadline `ms` milliseconds from now (Infinity: none).
   * @param {Task} task @param {number} ms  >= 0 @param {string | null} [wait]  the import of a shield for one wait
   */
  begin(task, ms, wait = null) {
    const outer = task._shielded ? /** @type {Shield} */ (this.open.get(task)) : null;
    const now = this.timers.now();
    const outerDeadline = outer === null ? Infinity : outer.deadline;
    const deadline = Math.min(now + ms, outerDeadline);
    const expired = this.cut || ms === 0 || (outer !== null && outer.expired);
    const x = task._exec;
    const shield = new Shield(outer, deadline, expired, x.abort, x.signal, wait);
    // The waits inside get a signal of the shield's own, made when one is
    // first needed (the wait path's signalOf()).
    x.abort = null;
    x.signal = null;
    this.open.set(task, shield);
    this.opened++;
    task._shielded = true;
    task._cancelNow = expired;
    // A deadline the outer shield gives is the outer shield's timer's to
    // keep: when it passes, both expire at once.
    if (!expired && deadline < outerDeadline) {
      shield.timer = this.timers.set(() => this.fromEventLoop(() => this.expire(task, shield, 'its deadline passed')), deadline - now);
    }
    this.revokeLease();
  }

  /**
   * A shielded import's wait begins: it runs in a shield of its own, unless
   * the task's waits are cancelled in spite of any shield (the one it is in
   * expired, or close() gave up), and then it ends cancelled like any other.
   * @param {Task} task @param {number} ms @param {string} name  the import
   */
  beginWait(task, ms, name) {
    if (this.cut || (task._shielded && task._cancelNow)) return;
    this.begin(task, ms, name);
  }

  /**
   * A wait ends: if a shield was opened for it, the shield ends with it, once
   * the wait path decided what the wait delivers.
   * @param {Task} task @param {string} name  the import
   */
  endWait(task, name) {
    const shield = task._shielded ? this.open.get(task) : undefined;
    if (shield === undefined || shield.wait === null) return;
    if (shield.wait !== name) throw new InternalError(`${task} ends a wait in ${name} inside the shield of a wait in ${shield.wait}`);
    this.close(task, shield);
  }

  /**
   * The program ends the task's innermost shield (snail.shield_end).
   * @param {Task} task
   * @returns {boolean} false if the task is in no shield the program opened
   */
  end(task) {
    const shield = task._shielded ? this.open.get(task) : undefined;
    if (shield === undefined || shield.wait !== null) return false;
    this.close(task, shield);
    return true;
  }

  /** @param {Task} task @param {Shield} shield  the innermost */
  close(task, shield) {
    if (shield.timer !== undefined) this.timers.clear(shield.timer);
    shield.timer = undefined;
    const x = task._exec;
    x.abort = shield.outerAbort;
    x.signal = shield.outerSignal;
    const outer = shield.outer;
    if (outer !== null) {
      this.open.set(task, outer);
      task._cancelNow = outer.expired;
    } else {
      this.open.delete(task);
      task._shielded = false;
      task._cancelNow = task._cancelRequested;
    }
    this.revokeLease();
    if (task._cancelNow) this.cancelledAgain(task);
  }

  /**
   * The task's cancellation was requested while it is in a shield: its own
   * signal (the one outside every shield) aborts now, so that it is aborted
   * when the shields end, as a cancelled task's signal is. The shields'
   * signals do not.
   * @param {Task} task
   */
  requested(task) {
    let shield = /** @type {Shield} */ (this.open.get(task));
    while (shield.outer !== null) shield = shield.outer;
    shield.outerAbort?.abort(CancelledError.quick(`task #${task.id} (${task.entry}) was cancelled`, { task }));
  }

  /**
   * A shield of the task expires, and every shield inside it: the waits in
   * them return cancelled, and their signals abort.
   * @param {Task} task @param {Shield} shield @param {string} why
   */
  expire(task, shield, why) {
    shield.timer = undefined;
    if (shield.expired) return;
    const innermost = this.open.get(task);
    if (innermost === undefined) return;
    const reason = CancelledError.quick(`task #${task.id} (${task.entry}) is in a shield that expired: ${why}`, { task });
    // Every shield from the innermost out to this one; the signal of each but
    // the innermost is kept by the shield inside it.
    for (let s = /** @type {Shield | null} */ (innermost); s !== null; s = s.outer) {
      s.expired = true;
      if (s.timer !== undefined) this.timers.clear(s.timer);
      s.timer = undefined;
      if (s === shield) break;
      s.outerAbort?.abort(reason);
    }
    task._cancelNow = true;
    this.expiredHook(task, reason);
  }

  /**
   * close() gave up at its timeout: every shield expires, and one that begins
   * later begins expired.
   * @returns {{ id: number, entry: string, waitingOn: string | null }[]} the tasks that were in a shield
   */
  cutAll() {
    this.cut = true;
    const cut = [];
    for (const [task, innermost] of [...this.open]) {
      cut.push({ id: task.id, entry: task.entry, waitingOn: task.waitingOn });
      let outermost = innermost;
      while (outermost.outer !== null) outermost = outermost.outer;
      this.expire(task, outermost, 'close() timed out');
    }
    return cut;
  }

  /**
   * The task finished (a task may end inside a shield): its shields end with it.
   * @param {Task} task
   */
  finished(task) {
    for (let s = this.open.get(task) ?? null; s !== null; s = s.outer) {
      if (s.timer !== undefined) this.timers.clear(s.timer);
      s.timer = undefined;
    }
    this.open.delete(task);
    task._shielded = false;
  }
}
