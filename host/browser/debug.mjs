// The runtime's debug surface (internal, not exported by the package): what
// the tests and the benchmarks may look at and drive inside a runtime beyond
// its public API. Everything else of a runtime's insides stays out of their
// reach, so that the insides can change without the tests noticing.
import { GENERATION } from './wasm/gates.mjs';

export class RuntimeInternals {
  /** @param {{ bridge: import('./bridge.mjs').Bridge }} rt  a Runtime */
  constructor(rt) {
    this.bridge = rt.bridge;
  }

  /** The runtime's scheduler (tasks.mjs), which runs its tasks. */
  get scheduler() {
    return this.bridge.scheduler;
  }

  /** Entries in the start queues, stale ones included (cancelled starts wait there until compacted). */
  get startQueueEntries() {
    const s = this.bridge.scheduler;
    return s.starts.length + s.boostedStarts.length;
  }

  /** The promise drain() hands out in this interval, or null when no drain() waits. */
  get drainPromise() {
    return this.bridge.scheduler.intervals.drainWaiter?.promise ?? null;
  }

  /** The live set emptied within a turn still in progress: the keep-alive goes at the turn's end. */
  get keepAliveReleasePending() {
    return this.bridge.scheduler.intervals.releasePending;
  }

  /**
   * Sets the turn's budget (steps and time per event-loop turn) and returns
   * the one it replaces, for a benchmark that measures without it.
   * @param {{ maxSteps: number, maxTimeMs: number }} budget
   */
  setTurnBudget(budget) {
    const turn = this.bridge.scheduler.turn;
    const before = { maxSteps: turn.maxSteps, maxTimeMs: turn.maxTimeMs };
    turn.maxSteps = budget.maxSteps;
    turn.maxTimeMs = budget.maxTimeMs;
    return before;
  }

  /** The process keep-alive token the scheduler holds while tasks are live. */
  get keepAlive() {
    return this.bridge.scheduler.intervals.keepAlive;
  }

  /** Replaces the keep-alive token (a control: a token that holds nothing). @param {{ hold: () => void, release: () => void, dispose?: () => void }} token */
  set keepAlive(token) {
    this.bridge.scheduler.intervals.keepAlive = token;
  }

  /**
   * Turns the take of the permit in Wasm on or off (a benchmark's anatomy:
   * off, every task whose wait ends takes it from JavaScript).
   * @param {boolean} allowed
   */
  allowTakes(allowed) {
    this.bridge.waits.lending.takesAllowed = allowed;
    if (!allowed) this.bridge.words.close();
  }

  /**
   * Turns the release of ready resumptions off or on (a benchmark's
   * anatomy, a test's control: off, a ready task waits in the ready queue
   * for its grant).
   * @param {boolean} allowed
   */
  allowReleases(allowed) {
    this.bridge.waits.releasesAllowed = allowed;
  }

  /**
   * Calls `fn` with every ready task the runtime releases from now on to wake
   * again by itself, as it releases it (it has not woken yet).
   * @param {(task: import('./tasks.mjs').Task) => void} fn
   */
  watchReleases(fn) {
    const waits = this.bridge.waits;
    const release = waits.release.bind(waits);
    waits.release = (task) => {
      release(task);
      fn(task);
    };
  }

  /** Whether the timer that lets idle carriers go is armed. */
  get idleTimerArmed() {
    return this.bridge.pool.idleTimer !== null;
  }

  /** Runs what the idle timer runs when it fires, now. */
  fireIdleTimer() {
    this.bridge.pool.onIdle();
  }

  /** The carrier module: the words of each slot (its entry, argument, drop function, stack segment). */
  get carriers() {
    return this.bridge.pool.carriers;
  }

  /** The current register file. */
  get registerFile() {
    return this.bridge.linker.regs;
  }

  /** The memory of the shared words and the register slots. */
  get registerMemory() {
    return this.bridge.linker.registerMemory;
  }

  /** The generation of the suspension wrappers in use (each build of them is a new one). */
  get wrapperGeneration() {
    const words = this.bridge.words.i32;
    return words === null ? 0 : words[GENERATION >> 2];
  }

  /**
   * Whether a wait import goes through a suspension wrapper.
   * @param {string} key  "module.field:params->results", as in "test.fsleep:f64->f64"
   */
  hasWrapper(key) {
    return this.bridge.linker.wrappers.has(key);
  }
}

/**
 * The debug surface of a runtime.
 * @param {object} rt  a Runtime
 */
export function internals(rt) {
  return new RuntimeInternals(/** @type {{ bridge: import('./bridge.mjs').Bridge }} */ (rt));
}
