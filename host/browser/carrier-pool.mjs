// Carriers and stack segments (internal).
//
// A carrier is the `promising` entry point a task's Wasm runs on (the
// generated carrier module, wasm/carriers.mjs). When its task returns, the carrier
// asks for the next start and runs it on the same engine stack; with nothing
// to start it parks, and a later start or pump resumes it. Each start also
// gets its stack segment here: segments of finished tasks are kept for reuse,
// newest first, and only a miss calls into the program's pool.
import { InternalError, TaskFailedError } from './errors.mjs';
import { microtask } from './promises.mjs';

/** @typedef {import('./tasks.mjs').Task} Task */

/** What a parked carrier is resumed with to pump (ask()): any negative slot. */
const ASK = -1;

/**
 * How long a runtime with no live task keeps its parked carriers, in
 * milliseconds: a start soon after reuses one, and a runtime left without
 * close() can still be collected afterwards.
 */
const IDLE_RELEASE_MS = 1000;

/** The idle carriers parkExecutor() adds a parked carrier's resume to. @type {((slot: number) => void)[] | null} */
let carriersFor = null;
/** @param {(slot: number) => void} resume */
function parkExecutor(resume) {
  /** @type {((slot: number) => void)[]} */ (carriersFor).push(resume);
}

/**
 * What the program gives the pool once it is instantiated.
 * @typedef {object} CarrierProgram
 * @property {import('./wasm/carriers.mjs').Carriers} carriers  the carrier module of the program
 * @property {(slot: number) => Promise<number>} run  its carrier, wrapped with WebAssembly.promising
 * @property {((size: number) => number) | null} acquire  snail.stack.acquire, if the program has stack segments
 * @property {((low: number) => void) | null} release  snail.stack.release
 * @property {boolean} setsCurrent  the carriers record the task they enter in the CURRENT word
 *   (the suspension module existed when they were made)
 */

/**
 * @typedef {object} CarrierHooks
 * @property {import('./tasks.mjs').Scheduler} scheduler
 * @property {import('./words.mjs').SharedWords} words
 * @property {number} stackSize  bytes of each task's stack segment
 * @property {number} maxIdleCarriers  parked carriers kept at most
 * @property {(Task | undefined)[]} slotTasks  the task owning each register-file slot
 * @property {(task: Task, result: number) => void} returned  a task's entry returned on its carrier
 * @property {(task: Task, error: unknown) => void} failedBeforeEntry  a start could not enter
 * @property {(task: Task | null, error: unknown) => void} carrierFailed  a carrier's promise rejected
 *   while `task` held the permit
 * @property {((task: Task) => void) | null} traceStart  reports a start to the trace, when tracing
 * @property {() => void} sync  takes note of a take of the permit in Wasm (the wait path's sync())
 * @property {(fn: () => void) => void} guard  runs a callback from the event loop
 */

export class CarrierPool {
  /** @param {CarrierHooks} hooks */
  constructor(hooks) {
    this.sched = hooks.scheduler;
    this.words = hooks.words;
    this.stackSize = hooks.stackSize;
    this.maxIdleCarriers = hooks.maxIdleCarriers;
    this.slotTasks = hooks.slotTasks;
    this.hooks = hooks;
    /** @type {CarrierProgram | null} set by attach() */
    this.attached = null;
    /** @type {((task: Task, low: number) => void) | null} told of each start's stack segment (the stack meter) */
    this.onStarted = null;
    /** Carriers running or parked. */
    this.running = 0;
    this.peak = 0;
    this.reuses = 0;
    /** @type {(() => void)[]} waiting for no carrier to run */
    this.settledWaiters = [];
    /** @type {((slot: number) => void)[]} parked carriers (what resumes each), newest last */
    this.idle = [];
    /** A carrier is between next() and its idle() call. */
    this.parking = false;
    this.closing = false;
    this.pumpQueued = false;
    /** @type {number[]} stack segments of finished tasks, for reuse */
    this.freeStacks = [];
    this.maxFreeStacks = 1024;
    /** @type {unknown} the timer that lets idle carriers go once no task is live */
    this.idleTimer = null;
    // A carrier's end, shared by every carrier: no closure per carrier. Only the
    // permit holder runs Wasm, so a carrier that fails carries the holder.
    this.onCarrierEnd = () => { this.ended(); };
    this.onCarrierFail = (/** @type {unknown} */ error) => {
      hooks.sync();
      const task = this.sched.holder;
      this.ended();
      hooks.guard(() => hooks.carrierFailed(task, error));
    };
    this.onIdle = () => {
      this.idleTimer = null;
      // With tasks live, the next carrier to park looks again. Without, the
      // process keep-alive's timer goes too (the next task makes another):
      // a runtime dropped without close() leaves nothing in Node's timers.
      if (this.sched.live.size !== 0) return;
      this.releaseIdle();
      this.sched.intervals.disposeKeepAliveIfIdle();
    };
    this.runQueuedPump = () => {
      hooks.sync();
      this.pumpQueued = false;
      hooks.guard(() => this.sched.pump(true));
    };
  }

  /** The program's carriers, once attached. @param {CarrierProgram} program */
  attach(program) {
    this.attached = program;
  }

  /** @returns {CarrierProgram} */
  get program() {
    if (this.attached === null) throw new InternalError('the carriers were used before the program was attached');
    return this.attached;
  }

  /** The generated carrier module's words of each slot (entry, argument, drop function, segment). */
  get carriers() {
    return this.program.carriers;
  }

  /**
   * Pumps from a microtask: for callers that may have Wasm frames below them.
   * When a carrier is parked, the pump runs on it instead: resuming it is the
   * microtask, and the start it picks runs there without one more hop.
   */
  queuePump() {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    const resume = this.idle.pop();
    if (resume !== undefined) resume(ASK);
    else microtask(this.runQueuedPump);
  }

  /**
   * The carrier module's `ask`: a carrier that queuePump() woke pumps with
   * itself at hand, and takes the first start if that start is next in line.
   * Answers as next() does.
   */
  ask() {
    this.hooks.sync();
    this.pumpQueued = false;
    return this.handOver();
  }

  /**
   * The engine's enter: a granted start's Wasm runs on a parked carrier, or
   * on a new one, synchronously when there are no Wasm frames below us, else
   * from a microtask.
   * @param {Task} task @param {boolean} fromTopLevel
   */
  enter(task, fromTopLevel) {
    if (!this.prepareStart(task)) return;
    const resume = this.idle.pop();
    if (resume !== undefined) {
      // A parked carrier takes the start: its engine stack already exists.
      this.reuses++;
      resume(task._slot);
    } else if (fromTopLevel) {
      this.startCarrier(task);
    } else {
      microtask(() => this.startCarrier(task));
    }
  }

  /**
   * The carrier module's `idle`: a carrier whose task finished, with no start
   * waiting, parks here until the next start needs a stack: starting a task
   * on a parked carrier costs a resumption instead of a new engine stack.
   * @returns {Promise<number>} the slot of the next start, or 0 to end
   */
  park() {
    if (!this.parking) throw new InternalError('a carrier parked without next() asking it to');
    this.parking = false;
    carriersFor = this.idle;
    const parked = new Promise(parkExecutor);
    carriersFor = null;
    if (this.idleTimer === null) {
      this.idleTimer = setTimeout(this.onIdle, IDLE_RELEASE_MS);
      /** @type {any} */ (this.idleTimer).unref?.();
    }
    return parked;
  }

  /**
   * Lets every parked carrier go (close(), or a runtime idle for a while). A
   * parked carrier is a suspended engine stack, which the engine treats as a
   * root: while one is parked, the runtime, its instance and its memory can
   * never be collected, even when nothing refers to the runtime any more.
   */
  releaseIdle() {
    if (this.idleTimer !== null) {
      clearTimeout(/** @type {any} */ (this.idleTimer));
      this.idleTimer = null;
    }
    for (const resume of this.idle.splice(0)) resume(0);
  }

  /**
   * Gives the program back the stack segments kept for reuse (close(), once no
   * task is live): every segment acquire gave out is then released.
   */
  releaseKeptStacks() {
    const release = this.program.release;
    if (release === null) return;
    for (const low of this.freeStacks.splice(0)) release(low);
  }

  /**
   * The stack segment of a task that left Wasm goes back: kept for reuse, or
   * to the program's pool.
   * @param {Task} task
   */
  releaseStackOf(task) {
    const low = this.carriers.lowOf(task._slot);
    if (low === 0) return;
    if (this.freeStacks.length < this.maxFreeStacks) this.freeStacks.push(low);
    else /** @type {(low: number) => void} */ (this.program.release)(low);
  }

  /**
   * Gives a granted start its stack segment; its carrier installs its registers.
   * @param {Task} task
   * @returns {boolean} false if the task could not start (and has failed)
   */
  prepareStart(task) {
    const { acquire, carriers, setsCurrent } = this.program;
    let low = 0;
    if (acquire !== null) {
      if (this.freeStacks.length) {
        low = /** @type {number} */ (this.freeStacks.pop());
      } else {
        try {
          low = acquire(this.stackSize) >>> 0;
        } catch (error) {
          // The program's allocator trapped or aborted (Emscripten's aborting
          // malloc): this start fails, the scheduler goes on.
          this.hooks.failedBeforeEntry(task, new TaskFailedError(`${task} could not start: getting its ${this.stackSize}-byte stack segment failed: ${error instanceof Error ? error.message : String(error)}`, { task, cause: error }));
          return false;
        }
      }
      if (low === 0) {
        this.hooks.failedBeforeEntry(task, new TaskFailedError(`${task} could not start: no memory for its ${this.stackSize}-byte stack segment`, { task }));
        return false;
      }
    }
    // The carrier installs the bindings and the segment when it runs the
    // start, and then records the task as the one whose Wasm runs (CURRENT):
    // a wait begun before that is not the task's.
    carriers.setStart(task._slot, low);
    if (this.onStarted !== null) this.onStarted(task, low);
    // A suspension module made after the carriers (the first one a loaded
    // module brought): the carriers cannot record it.
    if (!setsCurrent) this.words.setCurrent(task._slot);
    this.hooks.traceStart?.(task);
    return true;
  }

  /** @param {Task} task */
  startCarrier(task) {
    this.running++;
    if (this.running > this.peak) this.peak = this.running;
    this.program.run(task._slot).then(this.onCarrierEnd, this.onCarrierFail);
  }

  ended() {
    this.running--;
    if (this.running === 0) {
      const waiters = this.settledWaiters;
      this.settledWaiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * Resolves when no carrier is running: the last one settles a microtask or
   * two after its task left the live set.
   * @returns {Promise<void>}
   */
  settled() {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(() => resolve(undefined)));
  }

  /**
   * The carrier module's `next`: its task returned. Finishes the task and
   * hands the carrier the next start, if that start is next in line.
   * @param {number} slot @param {number} result
   */
  next(slot, result) {
    this.hooks.sync();
    const task = this.slotTasks[slot];
    if (!task || task !== this.sched.holder) {
      throw new InternalError(`a carrier finished slot ${slot}, which does not belong to the permit holder`);
    }
    this.hooks.returned(task, result);
    return this.handOver();
  }

  /**
   * What a free carrier does next: the next start, if that start is next in
   * line (its slot); otherwise the scheduler grants what is, and the carrier
   * ends (0) or parks (-1).
   */
  handOver() {
    const following = this.sched.takeStartForCarrier();
    if (following !== null) {
      if (this.prepareStart(following)) {
        this.reuses++;
        return following._slot;
      }
      this.sched.pump(false);
    }
    if (this.closing || this.idle.length >= this.maxIdleCarriers) return 0;
    this.parking = true;
    return -1;
  }
}
