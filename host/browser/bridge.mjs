// The JSPI suspension bridge (internal): the scheduler's engine, and what
// connects a program's tasks to it. It wires collaborators that each do one
// job, with callbacks, as the scheduler receives its engine:
//
//   wait-functions.mjs  the wait path's entry: the functions suspending imports call
//   waits.mjs         the rest of the wait path: until the task's Wasm goes on
//   lending.mjs       the lent permit and its take in Wasm (the wait path's)
//   carrier-pool.mjs  carriers (the promising stacks tasks run on) and stack segments
//   disposal.mjs      disposers of undelivered results, drop functions, tracked cleanup
//   imports.mjs       the program's import objects: module "snail", suspend() imports
//   linking.mjs       the suspension module, the register file, the program's entries
//   shields.mjs       shields: scopes in which a cancelled task's waits still run
//   endings.mjs       how a task ends: returned, failed on its carrier, or never entered
//
// What stays here is the life of a task outside its waits: dispatch,
// cancellation (of one task, or of a tree), and what the runtime reports
// about all of it.
import { CancelledError, InternalError, SnailError, TaskFailedError } from './errors.mjs';
import { armed } from './adapters.mjs';
import { CarrierPool } from './carrier-pool.mjs';
import { Disposal } from './disposal.mjs';
import { Endings } from './endings.mjs';
import { Execution } from './execution.mjs';
import { snailImports, suspending, userImports } from './imports.mjs';
import { ProgramLink } from './linking.mjs';
import { childLabel } from './names.mjs';
import { Shields } from './shields.mjs';
import { Sleepers } from './sleepers.mjs';
import { Status } from './status.mjs';
import { nameable, treeOf } from './task.mjs';
import { S, Scheduler, Task } from './tasks.mjs';
import { Waits } from './waits.mjs';
import { SharedWords } from './words.mjs';

export { REJECT, SuspendingImport } from './imports.mjs';

/**
 * @typedef {import('./imports.mjs').SuspendOptions} SuspendOptions
 * @typedef {import('./imports.mjs').WaitSpec} WaitSpec
 * @typedef {import('./disposal.mjs').DisposeContext} DisposeContext
 * @typedef {import('./tasks.mjs').SchedulerOptions} SchedulerOptions
 * @typedef {import('./abi.mjs').ProgramShape} ProgramShape
 */

/**
 * A task event, for tracing. `time` is the runtime's clock in milliseconds.
 * @typedef {{ type: 'dispatch' | 'start' | 'suspend' | 'resume' | 'finish' | 'cancel' | 'discard' | 'dispose',
 *             time: number, task: number, entry: string, [key: string]: unknown }} TraceEvent
 */

export class Bridge {
  /**
   * @param {{ scheduler: SchedulerOptions, stackSize: number, programName: string,
   *           trace?: ((event: TraceEvent) => void) | null, maxIdleCarriers?: number,
   *           directWaits?: boolean, ownCode?: boolean }} options
   */
  constructor(options) {
    /** Receives every task event when set (tracing); null keeps the switch path free of it. */
    this.trace = options.trace ?? null;
    this.now = options.scheduler.now ?? (() => Date.now());
    /** The waits of each import get code of their own (own-code.mjs). */
    this.ownCode = options.ownCode !== false;
    this.stackSize = options.stackSize;
    this.programName = options.programName;
    /** @type {(Task | undefined)[]} the task owning each register-file slot */
    this.slotTasks = [];
    /** @type {Map<number, Task>} tasks Wasm holds a handle on */
    this.handles = new Map();
    /** The tasks in snail.sleep, behind one host timer. */
    this.sleepers = new Sleepers();
    this.nextId = 1;
    /** The entry rt.dispatch() named last, its index, and the program's entry map it was found in. */
    this.lastEntry = '';
    this.lastEntryIndex = -1;
    /** @type {Map<string, number> | null} */
    this.lastEntries = null;
    this.closing = false;
    this.counters = { cancellationsRequested: 0, discarded: 0 };
    this.words = new SharedWords();
    const tracing = this.trace !== null;
    this.scheduler = new Scheduler({
      enter: (task, fromTopLevel) => this.pool.enter(task, fromTopLevel),
      resume: (task) => this.waits.resume(task),
      lendParked: (task) => this.waits.lending.lendParked(task),
      reclaimed: (task) => this.waits.lending.reclaimed(task),
      // Resumptions made ready while work ran between tasks (a module load)
      // waited for its end: grant them.
      exclusiveEnded: () => this.pool.queuePump(),
      registersOffDefaults: () => this.linker.registersOffDefaults(),
      engineProblem: () => this.waits.lending.unseenTake(),
      leaseEnded: () => this.waits.lending.leaseEnded(),
      releasable: (task) => this.waits.releasable(task),
      release: (task) => this.waits.release(task),
      admissionBlocked: (start) => this.admissionBlocked(start),
    }, options.scheduler);
    const guard = (/** @type {() => void} */ fn) => this.guard(fn);
    this.disposal = new Disposal({
      words: this.words,
      revokeLease: () => this.scheduler.revokeLease(),
      traceDispose: tracing ? (task, operation) => this.emit('dispose', task, { operation }) : null,
    });
    const bridge = this;
    this.shields = new Shields({
      timers: this.sleepers.host,
      fromEventLoop: (fn) => this.guard(() => {
        this.waits.sync();
        fn();
      }),
      // A lent wait comes back first: it must end through the wait path,
      // which delivers the cancellation.
      expired: (task, reason) => {
        this.scheduler.reclaim();
        this.cancelWait(task, reason);
      },
      cancelledAgain: (task) => this.waits.cancelled(task),
      revokeLease: () => this.scheduler.revokeLease(),
    });
    this.waits = new Waits({
      scheduler: this.scheduler,
      words: this.words,
      slotTasks: this.slotTasks,
      files: { get regs() { return bridge.linker.regs; } },
      disposal: this.disposal,
      shields: this.shields,
      emit: tracing ? (type, task, extra) => this.emit(type, task, extra) : null,
      guard,
    });
    this.linker = new ProgramLink({
      words: this.words,
      slotTasks: this.slotTasks,
      waits: this.waits,
      directWaits: options.directWaits !== false,
      ownCode: this.ownCode,
      programName: this.programName,
      stackSize: this.stackSize,
    });
    this.pool = new CarrierPool({
      scheduler: this.scheduler,
      words: this.words,
      stackSize: this.stackSize,
      maxIdleCarriers: options.maxIdleCarriers ?? 1024,
      slotTasks: this.slotTasks,
      returned: (task, result) => this.ends.returned(task, result),
      failedBeforeEntry: (task, error) => this.ends.failBeforeEntry(task, error),
      carrierFailed: (task, error) => this.ends.carrierFailed(task, error),
      sync: () => this.waits.sync(),
      traceStart: tracing ? (task) => this.emit('start', task) : null,
      guard,
    });
    this.ends = new Endings({
      scheduler: this.scheduler,
      pool: this.pool,
      linker: this.linker,
      words: this.words,
      slotTasks: this.slotTasks,
      shields: this.shields,
      stackSize: this.stackSize,
      emit: tracing ? (type, task, extra) => this.emit(type, task, extra) : null,
    });
  }

  /** Receives every task that failed, once it is finished (Runtime.load's onTaskFailed). */
  get onFailure() {
    return this.ends.onFailure;
  }

  set onFailure(report) {
    this.ends.onFailure = report;
  }

  /**
   * Reports a task event to the trace callback.
   * @param {TraceEvent['type']} type @param {Task} task @param {Record<string, unknown>} [extra]
   */
  emit(type, task, extra) {
    /** @type {TraceEvent} */
    const event = { type, time: this.now(), task: task.id, entry: task.entry, ...extra };
    /** @type {(e: TraceEvent) => void} */ (this.trace)(event);
  }

  /**
   * Runs a callback the event loop calls into the bridge with. An exception
   * there is a bug in snail-core: rather than leave drain() waiting forever,
   * the runtime breaks down loudly.
   * @param {() => void} fn
   */
  guard(fn) {
    try {
      fn();
    } catch (error) {
      const internal = error instanceof InternalError ? error : new InternalError(`unexpected exception in the scheduler: ${error instanceof Error ? error.stack : String(error)}`);
      this.scheduler.intervals.breakDown(internal);
      console.error(internal);
    }
  }

  // ---------------------------------------------------------------------------
  // The program's imports and its attachment

  /**
   * The import object of module "snail", built before the program is instantiated.
   * @param {Record<string, unknown>} [extra]  further imports of module "snail" (the host services)
   */
  imports(extra = {}) {
    return snailImports({
      scheduler: this.scheduler,
      handles: this.handles,
      sleepers: this.sleepers,
      dispatch: (entry, arg, drop) => this.dispatchFromWasm(entry, arg, drop),
      cancel: (task) => this.cancel(task),
      cancelTree: (task) => this.cancelTree(task),
      shieldBegin: (ms) => this.shieldBegin(ms),
      shieldEnd: () => this.shieldEnd(),
      refuseReentry: (what) => this.refuseReentry(what),
      sync: () => this.waits.sync(),
      queuePump: () => this.pool.queuePump(),
    }, extra);
  }

  /**
   * The import object for a module the embedder provides; fields declared with
   * suspend() become suspending imports.
   * @param {string} moduleName @param {Record<string, unknown>} fields
   * @param {(module: string, name: string) => import('./wasm/binary.mjs').FuncType | undefined} [typeOf]
   */
  userImports(moduleName, fields, typeOf) {
    return userImports(moduleName, fields, typeOf, () => this.linker.memory, this.ownCode);
  }

  /** Makes a suspending import from a wait specification (the host services' waits). @param {Parameters<typeof suspending>[0]} partial */
  suspending(partial) {
    return suspending(partial);
  }

  /**
   * Links the wait imports of an import object (the program's, or a loaded module's).
   * @param {Record<string, Record<string, unknown>>} importObject @param {ProgramShape} shape
   */
  link(importObject, shape) {
    this.linker.link(importObject, shape);
  }

  /** @param {WebAssembly.Instance} instance @param {ProgramShape} shape */
  attach(instance, shape) {
    this.pool.attach(this.linker.attach(instance, shape, {
      next: (slot, result) => this.pool.next(slot, result),
      idle: () => this.pool.park(),
      ask: () => this.pool.ask(),
    }));
  }

  attachNativeDisposers() {
    this.linker.attachNativeDisposers();
  }

  /** Records the current register values as the defaults (after initialisation). */
  captureDefaults() {
    this.linker.captureDefaults();
  }

  /** The register file. */
  get regs() {
    return this.linker.regs;
  }

  /** The program's imports as given, which loaded modules resolve theirs from. */
  get baseImports() {
    return this.linker.baseImports;
  }

  /**
   * Adds a loaded module's handler globals to the register file (between tasks).
   * @param {{ name: string, module: string, type: string, global: WebAssembly.Global }[]} added
   */
  addRegisters(added) {
    const live = [];
    for (const t of this.scheduler.live) if (t._slot !== 0) live.push(t._slot);
    this.linker.addRegisters(added, live);
  }

  /**
   * Waits until no task holds the permit and keeps it that way until the
   * returned release function is called (loading a module into the program).
   */
  exclusive() {
    this.waits.sync();
    return this.scheduler.exclusive();
  }

  /** @param {string} what */
  refuseReentry(what) {
    this.disposal.refuseReentry(what);
  }

  /**
   * Measures each task's stack use with `meter` (or not, with null): its
   * segment once its start is prepared, its high-water mark when it finishes.
   * @param {import('./stack-use.mjs').StackMeter | null} meter
   */
  measureStacks(meter) {
    this.ends.meter = meter;
    this.pool.onStarted = meter === null ? null : (task, low) => meter.started(task, low);
  }

  // ---------------------------------------------------------------------------
  // Dispatch

  /**
   * Creates a task for an entry and puts it in the live set.
   * @param {string} label @param {number} entry @param {number} arg
   * @param {boolean} inherits  it starts with the current bindings (a child
   *   dispatched from Wasm); otherwise with the defaults (a root task)
   * @param {number} [drop]  the table index of the program's drop function, 0 if none
   */
  createTask(label, entry, arg, inherits, drop = 0) {
    this.waits.sync();
    const registers = this.linker.regs;
    // A child keeps its parent where a root task keeps the runtime (Task._x).
    const task = new Task(this.nextId++, label, inherits ? /** @type {Task} */ (this.scheduler.holder) : this);
    const slot = registers.allocate();
    task._slot = slot;
    this.slotTasks[slot] = task;
    this.words.mayTake(slot, false);
    // A child's binding vector is copied into its slot now; a root task's
    // carrier installs the defaults' (slot 0) when it starts.
    this.pool.carriers.setEntry(slot, entry, arg, drop, inherits ? slot : 0);
    if (inherits) registers.capture(slot);
    this.scheduler.add(task);
    if (this.trace) this.emit('dispatch', task, { parent: this.scheduler.holder?.id ?? 0 });
    return task;
  }

  /**
   * snail.dispatch: the child is live before this returns, with a copy of the
   * parent's current handler bindings.
   * @param {number} entry @param {number} arg @param {number} drop
   */
  dispatchFromWasm(entry, arg, drop) {
    this.waits.sync();
    this.refuseReentry('snail.dispatch');
    if (this.scheduler.holder === null) {
      throw new SnailError('snail.dispatch was called outside a task; dispatch from JavaScript with rt.dispatch()', { code: 'ERR_NOT_IN_TASK' });
    }
    if (this.closing) return -Status.closed;
    const table = /** @type {WebAssembly.Table} */ (this.linker.table);
    if (entry < 0 || entry >= table.length || table.get(entry) === null) return -Status.invalid;
    if (drop !== 0 && (drop < 0 || drop >= table.length || table.get(drop) === null)) return -Status.invalid;
    const task = this.createTask(childLabel(table, entry), entry, arg, true, drop);
    task._handles = 1;
    this.handles.set(task.id, task);
    // A task whose tree was cancelled dispatches its children cancelled,
    // unless it does so inside a shield (its cleanup's helpers).
    const parent = /** @type {Task} */ (this.scheduler.holder);
    if (parent._treeCancelled && !parent._shielded) {
      task._treeCancelled = true;
      this.cancel(task);
    }
    return task.id;
  }

  /**
   * rt.dispatch: a root task that starts from the defaults.
   * @param {string} name @param {number} arg
   */
  dispatchEntry(name, arg) {
    this.refuseReentry('rt.dispatch()');
    // Programs dispatch the same entry many times in a row: the last one's
    // index is kept (a lookup in the entry map costs a start some 2%).
    const entries = this.linker.entryIndex;
    let index = this.lastEntryIndex;
    if (name !== this.lastEntry || entries !== this.lastEntries) {
      const found = entries.get(name);
      if (found === undefined) {
        throw new SnailError(`${this.programName} has no entry "${name}"; its entries are: ${this.linker.entryNames.join(', ')}`, { code: 'ERR_NO_ENTRY' });
      }
      index = found;
      this.lastEntry = name;
      this.lastEntryIndex = found;
      this.lastEntries = entries;
    }
    const task = this.createTask(name, -index - 1, arg, false);
    this.pool.queuePump();
    return task;
  }

  // ---------------------------------------------------------------------------
  // Cancellation

  /**
   * Requests cancellation of a task. Sticky: the request stays until the task
   * ends. A queued task is discarded at once and never enters Wasm; a suspended
   * task's signal aborts, and it resumes with the cancellation once its
   * operation has settled; an executing task sees it at its next wait or check.
   * @param {Task} task
   * @returns {boolean} true if the task was live
   */
  cancel(task) {
    this.waits.sync();
    if (task.finished) return false;
    if (task._cancelRequested) return true;
    // A lent permit comes back first: the cancelled task may be the one that
    // waits with it, and a drop function must run with no task holding it.
    this.scheduler.reclaim();
    task._cancelRequested = true;
    this.counters.cancellationsRequested++;
    if (this.trace) this.emit('cancel', task, { state: task.state });
    if (task._s === S.queued) {
      this.discardQueued(task);
      return true;
    }
    // A shield holds the request off its waits until it ends.
    if (task._shielded) this.shields.requested(task);
    else this.cancelWait(task, null);
    return true;
  }

  /**
   * The task's wait in progress, if it waits, ends with the cancellation
   * (the task's cancellation, or its shield's expiry): it may not end in
   * Wasm, its own cancel runs (sleep), and its signal aborts.
   * @param {Task} task @param {CancelledError | null} reason  the signal's reason (null: the task was cancelled)
   */
  cancelWait(task, reason) {
    this.waits.cancelled(task);
    const x = task._exec;
    if (x.cancelWait !== null) x.cancelWait();
    if (x.abort) x.abort.abort(reason ?? CancelledError.quick(`task #${task.id} (${task.entry}) was cancelled`, { task }));
  }

  /**
   * Cancels a task and its tree: every task it dispatched, the tasks those
   * dispatched, and so on, live ones only, whether the tasks between them
   * finished or not. Each is cancelled as cancel() cancels one, parents
   * before children, and dispatches its later children cancelled (outside a
   * shield). A finished task's tree is reached while the task can be named:
   * a root task, or a child whose handle the program holds (task.mjs, nameable()).
   * @param {Task} task
   * @returns {boolean} true if the task or a task of its tree was live
   */
  cancelTree(task) {
    this.waits.sync();
    if (task.finished && !nameable(task)) return false;
    const members = treeOf(task, this.scheduler.live);
    let live = false;
    if (!task.finished) {
      task._treeCancelled = true;
      live = this.cancel(task);
    }
    for (const t of members) {
      t._treeCancelled = true;
      if (this.cancel(t)) live = true;
    }
    return live;
  }

  // ---------------------------------------------------------------------------
  // Shields

  /**
   * The task whose Wasm calls an import of module "snail" that acts on the
   * calling task and is no wait (a shield's).
   * @param {string} what  the import
   */
  callingTask(what) {
    this.waits.sync();
    this.refuseReentry(what);
    const task = this.scheduler.holder;
    if (task === null || this.waits.lending.lendParked(task)) {
      throw new SnailError(`${what} was called outside a task (from the program's initialisation, or an export called directly); shields are only for tasks`, { code: 'ERR_NOT_IN_TASK' });
    }
    return task;
  }

  /** snail.shield_begin(ms). @param {number} ms */
  shieldBegin(ms) {
    const task = this.callingTask('snail.shield_begin');
    if (!(typeof ms === 'number' && ms >= 0)) return Status.invalid;
    this.shields.begin(task, ms);
    return Status.ok;
  }

  /** snail.shield_end(). */
  shieldEnd() {
    return this.shields.end(this.callingTask('snail.shield_end')) ? Status.ok : Status.invalid;
  }

  /**
   * close() gave up at its timeout: every shield expires (their waits end
   * cancelled), and so does every one that begins later.
   */
  cutShields() {
    this.waits.sync();
    return this.shields.cutAll();
  }

  /**
   * A queued task leaves the live set without running. A task dispatched from
   * Wasm with a drop function gets it called with its argument instead.
   * @param {Task} task
   */
  discardQueued(task) {
    this.scheduler.discard(task);
    this.counters.discarded++;
    if (this.trace) this.emit('discard', task);
    task.error = CancelledError.quick(`task #${task.id} (${task.entry}) was cancelled before it started`, { task });
    // It never ran, so it has no children: its place in a tree is no one's.
    task._parent = null;
    const carriers = this.pool.carriers;
    const drop = carriers.dropOf(task._slot);
    if (drop !== 0) {
      // The drop function runs outside any task: on the defaults and the
      // program's own stack, even when the cancel came from a running task.
      // Whatever the registers hold is kept in the discarded task's slot,
      // which it no longer needs, and put back afterwards. Not in the permit
      // holder's slot: a start granted but not yet entered keeps its inherited
      // bindings there (its carrier installs them), which saving the registers
      // over them would lose.
      const arg = carriers.argOf(task._slot);
      const regs = this.linker.regs;
      regs.suspend(task._slot);
      this.disposal.run(`the drop function of ${task}`, task, () => carriers.drop(drop, arg));
      regs.install(task._slot);
    }
    this.ends.releaseSlot(task);
  }

  /**
   * The scheduler's admissionBlocked: the hard bound keeps `start` out, and
   * nothing can be granted. When every entered task waits in snail.join,
   * none can go on until a child finishes, and none can finish: the joins
   * nest deeper than the bound lets tasks enter. The start fails, so that
   * the task joining it goes on (and the chain above it unwinds).
   * @param {Task} start
   */
  admissionBlocked(start) {
    for (let t = this.scheduler.live.head; t !== null; t = t._lnext) {
      // Queued tasks cannot start either; a task the permit is lent to waits.
      if (t._s === S.queued) continue;
      if (t._s === S.executing && !this.waits.lending.lendParked(t)) return;
      if (/** @type {Execution} */ (t._x).wait?.name !== 'snail.join') return;
    }
    const { entered, hardMaxEntered } = this.scheduler;
    start.error = new TaskFailedError(`${start.toString().replace(/, \w+\)$/, ')')} could not start: ${entered} tasks have entered Wasm, the hard bound (hardMaxEntered), and each of them waits in a join for a task that cannot start: these joins nest deeper than ${hardMaxEntered} (raise hardMaxEntered where the platform allows, or join fewer levels at once)`, { task: start });
    this.scheduler.failQueued(start);
    this.ends.releaseSlot(start);
    const report = this.onFailure;
    if (report !== null) queueMicrotask(() => report(start));
  }

  // ---------------------------------------------------------------------------
  // How a task ends

  /**
   * Whether a task whose permit was lent still waits (the task's owner side
   * of Task.state).
   * @param {Task} task
   */
  lendParked(task) {
    this.waits.sync();
    return this.waits.lending.lendParked(task);
  }

  // ---------------------------------------------------------------------------
  // What the runtime reports, and how it closes

  /** Resolves when the live set is empty. */
  drain() {
    return this.scheduler.intervals.drain();
  }

  /** The internal error that broke the runtime down, or null. */
  get broken() {
    return this.scheduler.intervals.broken;
  }

  /** The live tasks, oldest first. */
  liveTasks() {
    this.waits.sync();
    return this.scheduler.live.toArray();
  }

  /** Checks the scheduler's invariants; throws an InternalError if one is broken. */
  assertInvariants() {
    this.waits.sync();
    this.scheduler.assertInvariants();
  }

  /** The bounds the scheduler applies. */
  get limits() {
    const s = this.scheduler;
    return { maxEntered: s.maxEntered, hardMaxEntered: s.hardMaxEntered, maxSteps: s.turn.maxSteps, maxTimeMs: s.turn.maxTimeMs };
  }

  /** close() begins: no new work from Wasm; carriers end rather than park. */
  beginClose() {
    this.closing = true;
    this.pool.closing = true;
  }

  /**
   * Once no task is live: carriers and kept stack segments go back, every
   * carrier settles, and the cleanup disposers handed over settle.
   */
  async settleAfterDrain() {
    this.pool.releaseKeptStacks();
    this.pool.releaseIdle();
    await this.pool.settled();
    while (this.disposal.cleanups.size) await Promise.allSettled([...this.disposal.cleanups]);
  }

  /**
   * The end of a close() that did not time out: handles are released and the
   * keep-alive token goes. Returns how many handles were released.
   */
  finishClose() {
    const released = this.handles.size;
    this.handles.clear();
    this.scheduler.intervals.disposeKeepAlive();
    return released;
  }

  /** Cleanup disposers handed over that have not settled. */
  get pendingCleanups() {
    return this.disposal.cleanups.size;
  }

  /** Disposer and drop failures so far. */
  get disposerErrors() {
    return [...this.disposal.errors];
  }

  stats() {
    this.waits.sync();
    const scheduler = this.scheduler.stats();
    const pool = this.pool;
    return {
      ...scheduler,
      ...this.counters,
      disposed: this.disposal.disposed,
      disposerFailures: this.disposal.failures,
      parks: this.waits.parks,
      carriers: pool.running,
      idleCarriers: pool.idle.length,
      peakCarriers: pool.peak,
      carrierReuses: pool.reuses,
      stacksInUse: this.scheduler.entered,
      slotsInUse: this.linker.registers ? this.linker.registers.inUse : 0,
      handles: this.handles.size,
      pendingGates: scheduler.suspended,
      shielded: this.shields.size,
      pendingCleanups: this.disposal.cleanups.size,
      armedListeners: armed.listeners,
      armedTimers: armed.timers,
    };
  }
}
