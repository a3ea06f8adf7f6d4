// The scheduler's turn budget (internal): how many steps it may take in one
// event-loop turn, and for how long, before it stops granting the permit and
// lets the event loop have its turn, so that timers and input are served.
//
// The first step of a turn asks the environment's macrotask source for the
// turn's end; the scheduler grants again from there. A turn is only begun by
// a step, so when nothing is ready no macrotask is asked for: it never spins.
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
    // most this many apart (timeUsed()).
    this.timeCheckEvery = positiveInteger(options.timeCheckEvery ?? 1024, 'timeCheckEvery');
    this.macrotask = options.macrotask ?? ((cb) => setTimeout(cb, 0));
    this.now = options.now ?? (() => Date.now());
    this.onEnd = onEnd;

    this.active = false; // a turn-end macrotask is pending
    this.steps = 0; // steps taken in this turn
    this.start = 0; // the clock when the turn's first step was taken
    this.nextClockCheck = 0; // the turn step at which the clock is read next
    this.paused = false; // budget exhausted: waiting for the turn-end macrotask
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
      this.nextClockCheck = 1;
      this.macrotask(this.onEnd);
    } else if (this.steps >= this.maxSteps || (this.steps >= this.nextClockCheck && this.timeUsed())) {
      this.paused = true;
      return false;
    }
    this.steps++;
    return true;
  }

  /**
   * Reads the clock: whether the turn used its time budget. If not, the next
   * reading comes after about a sixteenth of the budget at the pace of the
   * steps so far (never more than halfway to the budget, nor more than
   * timeCheckEvery steps later). While the clock has not moved (a coarse
   * clock, as browsers give pages), the gap doubles.
   */
  timeUsed() {
    const elapsed = this.now() - this.start;
    if (elapsed > 0) this.pace = elapsed / this.steps;
    if (elapsed >= this.maxTimeMs) return true;
    const steps = this.steps;
    const gap = elapsed > 0 ? Math.floor(Math.min(this.maxTimeMs / 16, (this.maxTimeMs - elapsed) / 2) / (elapsed / steps)) : steps;
    this.nextClockCheck = steps + Math.max(1, Math.min(this.timeCheckEvery, gap));
    return false;
  }

  /**
   * About how many more steps this turn can take, at the pace of its steps
   * so far (or of the last turn's, before the clock moved): reads the clock.
   */
  room() {
    if (!this.active) return this.maxSteps;
    const left = this.maxSteps - this.steps;
    const elapsed = this.now() - this.start;
    const pace = elapsed > 0 && this.steps > 0 ? elapsed / this.steps : this.pace;
    return pace > 0 ? Math.min(left, Math.floor((this.maxTimeMs - elapsed) / pace)) : left;
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
    const paused = this.paused;
    this.paused = false;
    return paused;
  }
}
