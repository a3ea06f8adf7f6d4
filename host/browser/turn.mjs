// The scheduler's turn budget (internal): how many steps it may take in one
// event-loop turn, and for how long, before it stops granting the permit and
// lets the event loop have its turn, so that timers and input are served.
//
// A turn's count begins with a step. Its end comes through the environment's
// macrotask source, which is asked for it only once the turn has used half
// its budget (of steps or time), or when it is used up: tasks whose waits
// settle a few at a time from the event loop's own macrotasks (I/O, a
// message) take a few steps a turn, and one more macrotask of the
// scheduler's for each such turn would cost as much as the turn's own. The
// turn after one that was used up asks as it begins, as every turn did:
// work that fills its turns (many tasks woken in one batch) then has each
// turn end at the event loop's next one, before the next batch comes, and
// the full budget for it.
// So the count may go on across turns the scheduler did not see: it bounds
// the steps of one turn from above, and a turn paused by it goes on after
// one macrotask. Time counted beyond the budget before any end was asked for
// may be time the event loop had turns in: the end is asked for then, and the
// time counted again from there. A turn is only begun by a step, so when
// nothing is ready no macrotask is asked for: it never spins.
import { positiveInteger, positiveNumber } from './scheduler-options.mjs';

/**
 * @typedef {object} TurnOptions
 * @property {number} [maxSteps]  grants per event-loop turn (default 4096)
 * @property {number} [maxTimeMs]  time per event-loop turn in ms (default 0.5)
 * @property {number} [timeCheckEvery]  read the clock at most this many steps apart (default 1024);
 *   sooner when the steps so far were slow: about every sixteenth of maxTimeMs
 * @property {(callback: () => void) => void} [macrotask]  yields one event-loop turn
 * @property {() => number} [now]  monotonic clock in ms
 */

export class Turn {
  /**
   * @param {TurnOptions} options
   * @param {() => void} onEnd  the turn-end macrotask, made once: beginning a
   *   turn allocates nothing
   */
  constructor(options, onEnd) {
    this.maxSteps = positiveInteger(options.maxSteps ?? 4096, 'maxSteps');
    this.maxTimeMs = positiveNumber(options.maxTimeMs ?? 0.5, 'maxTimeMs');
    // Reading the clock costs more than a step (about 0.35 µs in Chromium,
    // whose steps take 0.1 µs), so it is read every few steps: about every
    // sixteenth of the time budget at the pace of the steps so far, and at
    // most this many apart (usedUp()).
    this.timeCheckEvery = positiveInteger(options.timeCheckEvery ?? 1024, 'timeCheckEvery');
    this.macrotask = options.macrotask ?? ((cb) => setTimeout(cb, 0));
    this.now = options.now ?? (() => Date.now());
    this.onEnd = onEnd;

    this.active = false; // a turn is being counted: a step began it, its end has not come
    this.asked = false; // the turn-end macrotask is pending
    this.steps = 0; // steps taken in this turn
    this.start = 0; // the clock when the turn's time began to be counted
    this.startStep = 0; // the turn step at `start`
    this.nextClockCheck = 0; // the turn step at which the budget is looked at next
    this.paused = false; // budget exhausted: waiting for the turn-end macrotask
    this.busy = false; // the last turn was used up: the next asks for its end as it begins
    this.pace = 0; // ms per step at the last clock reading that saw time pass (0: none yet)
  }

  /**
   * Counts one step against the budget, beginning a turn if none is active;
   * false when the turn is used up: the turn is paused until its end.
   */
  take() {
    if (!this.active) {
      this.active = true;
      this.steps = 0;
      this.start = this.now();
      this.startStep = 0;
      this.nextClockCheck = 1;
      // A budget of one step asks for the end at once, and so does the turn
      // after one that was used up: work that fills its turns ends each at
      // the event loop's next turn, with the full budget for what comes after.
      if (this.busy || this.maxSteps < 2) this.askEnd();
    } else if (this.steps >= this.nextClockCheck && this.usedUp()) {
      this.askEnd();
      this.paused = true;
      return false;
    }
    this.steps++;
    return true;
  }

  /** Asks the macrotask source for the turn's end, once a turn. */
  askEnd() {
    if (this.asked) return;
    this.asked = true;
    this.macrotask(this.onEnd);
  }

  /**
   * The turn's end is wanted (work is held back until it): it is asked for
   * now, or, while no turn is counted, as the next one begins.
   */
  askEndSoon() {
    if (this.active) this.askEnd();
    else this.busy = true;
  }

  /**
   * Whether a turn is being counted; if one is, its end is asked for (what
   * is left to the turn's end, a keep-alive, needs it to come).
   */
  endAsked() {
    if (this.active) this.askEnd();
    return this.active;
  }

  /**
   * Reads the clock: the time counted in this turn. Half the time budget
   * asks for the turn's end. Time beyond the budget before any end was asked
   * for may have passed in turns of the event loop that the scheduler did not
   * see: the end is asked for, and the time is counted again from now.
   */
  elapsed() {
    const now = this.now();
    const elapsed = now - this.start;
    if (this.asked || elapsed < this.maxTimeMs / 2) return elapsed;
    this.askEnd();
    if (elapsed < this.maxTimeMs) return elapsed;
    this.start = now;
    this.startStep = this.steps;
    return 0;
  }

  /**
   * Looks at the budget: whether the turn used its steps or its time; else
   * the end is asked for once half of either is used (elapsed()), and the next look
   * comes after about a sixteenth of the time budget at the pace of the
   * steps so far (never more than halfway to the budget, nor more than
   * timeCheckEvery steps later, nor past half the steps or all of them).
   * While the clock has not moved (a coarse clock, as browsers give pages),
   * the gap doubles.
   */
  usedUp() {
    const steps = this.steps;
    if (steps >= this.maxSteps) return true;
    const elapsed = this.elapsed();
    if (elapsed >= this.maxTimeMs) return true;
    const half = Math.floor(this.maxSteps / 2);
    if (steps >= half) this.askEnd();
    const counted = steps - this.startStep;
    const timed = elapsed > 0 && counted > 0;
    if (timed) this.pace = elapsed / counted;
    const gap = timed ? Math.floor(Math.min(this.maxTimeMs / 16, (this.maxTimeMs - elapsed) / 2) / this.pace) : counted;
    const next = steps + Math.max(1, Math.min(this.timeCheckEvery, gap));
    this.nextClockCheck = Math.min(next, this.asked ? this.maxSteps : half);
    return false;
  }

  /**
   * About how many more steps this turn can take, at the pace of its steps
   * so far (or of the last turn's, before the clock moved), and none once
   * its steps or its time are used up: reads the clock.
   */
  room() {
    if (!this.active) return this.maxSteps;
    const left = this.maxSteps - this.steps;
    const elapsed = this.elapsed();
    const counted = this.steps - this.startStep;
    const pace = elapsed > 0 && counted > 0 ? elapsed / counted : this.pace;
    const room = pace > 0 ? Math.min(left, Math.floor((this.maxTimeMs - elapsed) / pace)) : left;
    return Math.max(0, room);
  }

  /**
   * The turn step at which take() looks at the budget next: steps before it
   * can be counted without a check (the scheduler's lease runs up to it).
   */
  nextCheck() {
    return Math.min(this.maxSteps, this.nextClockCheck);
  }

  /**
   * The turn-end macrotask ran: the turn is over.
   * @returns {boolean} whether it was paused: the scheduler grants again
   */
  end() {
    this.active = false;
    this.asked = false;
    const paused = this.paused;
    this.paused = false;
    this.busy = paused;
    return paused;
  }
}
