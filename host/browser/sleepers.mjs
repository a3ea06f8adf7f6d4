// The built-in sleep's timers (internal): one host timer per runtime, armed
// for the earliest deadline, in front of a heap of sleeping tasks.
//
// A host timer per sleeping task would cost a setTimeout for every sleep and
// a clearTimeout for every cancelled one: in Chromium each is about 1 to 3 µs,
// and clearing 10,000 of them (close() of a runtime whose tasks sleep) takes
// 7 to 30 ms. Here a sleep is a push onto a heap, and a cancelled sleep is
// marked and left where it is (removed when it reaches the top, or swept out
// when a sleep begins and cancelled entries outnumber the live ones); the host
// timer moves only when the earliest deadline does.
import { armedCounts } from './adapters.mjs';
import { now } from './capabilities.mjs';
import { Status } from './status.mjs';

const ARMED = armedCounts();

/** setTimeout's longest delay; a longer sleep re-arms on the way. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Cancelled entries are swept out (when a sleep begins) once there are more than this many, and more than live ones. */
const SWEEP_AT = 64;

/**
 * The clock and host timers the sleepers use (injected in tests).
 * @typedef {{ now: () => number, set: (fn: () => void, ms: number) => unknown, clear: (id: unknown) => void }} TimerHost
 */

/** @type {TimerHost} */
const realTimers = {
  now,
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (id) => clearTimeout(/** @type {ReturnType<typeof setTimeout>} */ (id)),
};

/** One sleeping task. */
class Sleep {
  /**
   * @param {number} deadline @param {number} seq
   * @param {{ cancelWait: (() => void) | null }} x  the task's execution record
   * @param {(status: number) => void} resolve
   */
  constructor(deadline, seq, x, resolve) {
    this.deadline = deadline;
    this.seq = seq; // sleeps with the same deadline wake in the order they began
    /** @type {{ cancelWait: (() => void) | null } | null} */
    this.x = x;
    /** @type {((status: number) => void) | null} null once woken or cancelled */
    this.resolve = resolve;
  }
}

/** @param {Sleep} a @param {Sleep} b */
const before = (a, b) => a.deadline < b.deadline || (a.deadline === b.deadline && a.seq < b.seq);

/** The sleeping tasks of one runtime. */
export class Sleepers {
  /** @param {TimerHost} [host] */
  constructor(host = realTimers) {
    this.host = host;
    /** @type {Sleep[]} a binary min-heap by deadline, then seq */
    this.heap = [];
    this.seq = 0;
    // Sleeps neither woken nor cancelled; the rest of the heap is cancelled
    // entries not removed yet.
    this.live = 0;
    /** @type {unknown} the armed host timer, undefined if none */
    this.timer = undefined;
    /** The deadline the armed host timer is for: a sleep that begins with an earlier one arms it again. */
    this.armedFor = Infinity;
    this.onTimer = () => this.fire();
  }

  /**
   * The operation of snail.sleep: resolves with Status.ok after `ms`
   * milliseconds, or with Status.cancelled when the task's cancel() calls
   * `x.cancelWait`.
   * @param {{ cancelWait: (() => void) | null }} x  the task's execution record
   * @param {number} ms
   * @returns {Promise<number>}
   */
  sleep(x, ms) {
    return new Promise((resolve) => {
      const s = new Sleep(this.host.now() + ms, this.seq++, x, resolve);
      const dead = this.heap.length - this.live;
      if (dead > SWEEP_AT && dead > this.live) this.sweep();
      this.push(s);
      this.live++;
      ARMED.timers++;
      x.cancelWait = () => this.cancel(s);
      if (s.deadline < this.armedFor) this.arm(s.deadline);
    });
  }

  /** @param {Sleep} s */
  cancel(s) {
    const resolve = s.resolve;
    if (resolve === null) return;
    this.settle(s);
    if (this.live === 0) {
      // Nothing sleeps any more: no host timer, no entries.
      if (this.timer !== undefined) this.host.clear(this.timer);
      this.timer = undefined;
      this.armedFor = Infinity;
      this.heap.length = 0;
    }
    resolve(Status.cancelled);
  }

  /**
   * Drops the cancelled entries and restores the heap (bottom-up, linear).
   * Done when a sleep begins, not when one is cancelled: cancelling every
   * sleep (close()) does no more than mark each.
   */
  sweep() {
    const heap = this.heap.filter((e) => e.resolve !== null);
    this.heap = heap;
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i, heap[i]);
  }

  /**
   * The host timer fired: wakes every sleep that is due by the clock, in
   * deadline order. A host timer may fire before the clock says its time
   * came (Node's timers count from the event loop's cached time, which can
   * be milliseconds old when the timer is set); the sleeps it stood for are
   * not due yet, and the timer is armed again for what is left of them: a
   * sleep never ends before its time on the clock the program reads.
   */
  fire() {
    this.timer = undefined;
    const limit = this.host.now();
    this.armedFor = Infinity;
    const heap = this.heap;
    while (heap.length !== 0 && heap[0].deadline <= limit) {
      const s = this.pop();
      const resolve = s.resolve;
      if (resolve === null) continue;
      this.settle(s);
      resolve(Status.ok);
    }
    while (heap.length !== 0 && heap[0].resolve === null) this.pop();
    if (heap.length !== 0) this.arm(heap[0].deadline);
  }

  /** @param {Sleep} s */
  settle(s) {
    /** @type {{ cancelWait: (() => void) | null }} */ (s.x).cancelWait = null;
    s.x = null;
    s.resolve = null;
    this.live--;
    ARMED.timers--;
  }

  /** Arms the host timer for `deadline` (or as far towards it as one timer goes). @param {number} deadline */
  arm(deadline) {
    if (this.timer !== undefined) this.host.clear(this.timer);
    const now = this.host.now();
    // Whole milliseconds, rounded up: a host timer asked for less than is left fires early.
    const delay = Math.min(Math.ceil(Math.max(0, deadline - now)), MAX_TIMER_MS);
    this.armedFor = delay === MAX_TIMER_MS ? now + delay : deadline;
    this.timer = this.host.set(this.onTimer, delay);
  }

  /** @param {Sleep} s */
  push(s) {
    const heap = this.heap;
    let i = heap.length;
    heap.push(s);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(s, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = s;
  }

  /** @returns {Sleep} the earliest entry, removed */
  pop() {
    const heap = this.heap;
    const top = heap[0];
    const last = /** @type {Sleep} */ (heap.pop());
    if (heap.length !== 0) this.siftDown(0, last);
    return top;
  }

  /** Puts `s` at `i` or below, where it belongs. @param {number} i @param {Sleep} s */
  siftDown(i, s) {
    const heap = this.heap;
    const n = heap.length;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap[child + 1], heap[child])) child++;
      if (!before(heap[child], s)) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = s;
  }
}
