// The JSPI suspension bridge (internal): every suspending import of a program
// goes through it, and it is the scheduler's engine.
//
// At a wait the bridge saves the task's registers and installs the defaults
// (one call into the register file), gives the permit back and starts the
// operation. Completion only makes a resumption ready. When the scheduler grants
// the resumption the permit, the bridge installs the task's registers and settles
// its gate, the Promise JSPI parked the task's stack on; the task keeps the
// permit until its Wasm suspends again or returns: settling the gate does not
// mean Wasm has run.
import { InternalError, ProgramExit, SnailError, TaskFailedError } from './errors.mjs';
import { createRegisterFile } from './registers.mjs';
import { Status } from './status.mjs';
import { Scheduler, Task, TaskState } from './tasks.mjs';

/**
 * A suspending import declared by a runtime author with suspend(): the bridge
 * turns it into a WebAssembly.Suspending import that runs `operation` at each
 * call, with the task's AbortSignal first.
 */
export class SuspendingImport {
  /**
   * @param {(signal: AbortSignal, ...args: any[]) => PromiseLike<unknown>} operation
   * @param {((result: unknown) => void) | undefined} discard
   */
  constructor(operation, discard) {
    this.operation = operation;
    this.discard = discard;
  }
}

/** A delivery that rejects the gate: the error is thrown into the task's Wasm. */
class Rejection {
  /** @param {unknown} error */
  constructor(error) {
    this.error = error;
  }
}

const RESOLVED = /** @type {Promise<unknown>[]} */ ([]);
/** A settled promise per status value, reused by waits that complete at once. */
function resolvedStatus(/** @type {number} */ s) {
  return (RESOLVED[s] ??= Promise.resolve(s));
}

/**
 * @typedef {import('./tasks.mjs').SchedulerOptions} SchedulerOptions
 * @typedef {import('./abi.mjs').ProgramShape} ProgramShape
 *
 * @typedef {object} WaitSpec
 * @property {string} name  the import's name, for messages
 * @property {(task: Task, ...args: any[]) => string} describe  what the task waits on
 * @property {(task: Task, ...args: any[]) => unknown} [now]  a delivery to return at
 *   once without suspending, or undefined to suspend
 * @property {(task: Task, ...args: any[]) => unknown} operation  the wait itself: a
 *   promise whose fulfilment value is delivered to Wasm, or a value that is ready now
 * @property {(error: unknown, task: Task) => unknown} onError  the delivery when the
 *   operation rejects
 */

export class Bridge {
  /**
   * @param {{ scheduler: SchedulerOptions, stackSize: number, programName: string }} options
   */
  constructor(options) {
    this.scheduler = new Scheduler(this, options.scheduler);
    this.stackSize = options.stackSize;
    this.programName = options.programName;
    /** @type {Map<number, Task>} tasks Wasm holds a handle on */
    this.handles = new Map();
    /** @type {(Task | undefined)[]} the task owning each register-file slot */
    this.slotTasks = [];
    this.nextId = 1;
    this.carriers = 0;
    /** @type {(() => void)[]} */
    this.carrierWaiters = [];
    this.peakCarriers = 0;
    this.carrierReuses = 0;
    this.closing = false;
    this.pumpQueued = false;
    /** @type {import('./registers.mjs').RegisterFile | null} */
    this.registers = null;
    /** @type {any} */
    this.program = null;
    /** @type {((slot: number) => Promise<number>) | null} */
    this.runCarrier = null;
    /** @type {string[]} */
    this.entryNames = [];
    /** @type {WebAssembly.Table | null} */
    this.table = null;
    this.runQueuedPump = () => {
      this.pumpQueued = false;
      this.guard(() => this.scheduler.pump(true));
    };
  }

  // ---------------------------------------------------------------------------
  // Imports of module "snail"

  /** The import object of module "snail", built before the program is instantiated. */
  imports() {
    const sched = this.scheduler;
    return {
      sleep: this.suspending({
        name: 'sleep',
        describe: (_t, ms) => `sleep ${ms} ms`,
        now: (_t, ms) => (typeof ms === 'number' && ms >= 0 ? undefined : Status.invalid),
        operation: (_t, ms) => new Promise((resolve) => { setTimeout(resolve, ms, Status.ok); }),
        onError: () => Status.failed,
      }),
      yield: this.suspending({
        name: 'yield',
        describe: () => 'yield',
        // Nothing else is ready and the turn has budget left: the permit comes
        // straight back, so keep it and skip the register save and install.
        now: () => (sched.pickNext() === null && sched.takeStep() ? Status.ok : undefined),
        operation: () => Status.ok,
        onError: () => Status.failed,
      }),
      join: this.suspending({
        name: 'join',
        describe: (_t, h) => `join #${h}`,
        now: (_t, h) => {
          const child = this.handles.get(h);
          if (!child) return Status.invalid;
          return child.finished ? endStatus(child) : undefined;
        },
        operation: (_t, h) => {
          const child = /** @type {Task} */ (this.handles.get(h));
          sched.boost(child);
          return child.done.then(endStatus);
        },
        onError: () => Status.failed,
      }),
      dispatch: (entry, arg, drop) => this.dispatchFromWasm(entry, arg, drop),
      result: (h) => {
        const t = this.handles.get(h);
        return t && t.state === TaskState.returned ? /** @type {number} */ (t.value) : 0;
      },
      release: (h) => {
        const t = this.handles.get(h);
        if (t && --t._handles === 0) this.handles.delete(h);
      },
      cancel_requested: () => 0,
    };
  }

  /**
   * Makes a suspending import from a wait specification.
   * @param {WaitSpec} spec
   */
  suspending(spec) {
    const bridge = this;
    const sched = this.scheduler;
    return new WebAssembly.Suspending(function wait(/** @type {any[]} */ ...args) {
      const task = sched.holder;
      if (task === null) {
        throw new SnailError(`snail.${spec.name} was called outside a task (from the program's initialisation, or an export called directly); waits are only allowed in tasks`, { code: 'ERR_NOT_IN_TASK' });
      }
      if (spec.now) {
        const delivery = spec.now(task, ...args);
        if (delivery !== undefined) return resolvedStatus(/** @type {number} */ (delivery));
      }
      const registers = /** @type {import('./registers.mjs').RegisterFile} */ (bridge.registers);
      registers.suspend(task._slot);
      sched.suspend(task, spec.describe(task, ...args));
      /** @type {Promise<unknown>} */
      const gate = new Promise((resolve, reject) => {
        task._gate = resolve;
        task._gateReject = reject;
      });
      let operation;
      try {
        operation = spec.operation(task, ...args);
      } catch (error) {
        operation = Promise.reject(error);
      }
      if (operation !== null && typeof operation === 'object' && typeof operation.then === 'function') {
        operation.then(
          (value) => bridge.guard(() => bridge.completeWait(task, value)),
          (error) => bridge.guard(() => bridge.completeWait(task, spec.onError(error, task))),
        );
      } else {
        // Completed already (yield): the resumption queues behind the work that is ready now.
        sched.ready(task, operation);
      }
      sched.pump(false);
      return gate;
    });
  }

  /**
   * The import object for a module of suspending imports declared with suspend().
   * @param {string} moduleName @param {Record<string, unknown>} fields
   */
  userImports(moduleName, fields) {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const [name, value] of Object.entries(fields)) {
      if (!(value instanceof SuspendingImport)) {
        out[name] = value;
        continue;
      }
      const { operation } = value;
      const label = `${moduleName}.${name}`;
      out[name] = this.suspending({
        name: label,
        describe: () => label,
        operation: (task, ...args) => {
          const p = operation(this.signalOf(task), ...args);
          if (!p || typeof (/** @type {any} */ (p).then) !== 'function') {
            throw new SnailError(`the operation of suspending import ${label} returned ${typeof p}, not a Promise; an operation must return one Promise covering its work and cleanup`, { code: 'ERR_ADAPTER' });
          }
          return p;
        },
        onError: (error) => new Rejection(error),
      });
    }
    return out;
  }

  /**
   * The AbortSignal a task's waits receive; it aborts when the task's
   * cancellation is requested.
   * @param {Task} task
   */
  signalOf(task) {
    task._abort ??= new AbortController();
    return task._abort.signal;
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
      this.scheduler.breakDown(internal);
      console.error(internal);
    }
  }

  /** @param {Task} task @param {unknown} delivery */
  completeWait(task, delivery) {
    this.scheduler.ready(task, delivery);
    this.scheduler.pump(true);
  }

  // ---------------------------------------------------------------------------
  // Program attachment

  /**
   * Connects the instantiated program: its registers, entries, table and stack.
   * @param {WebAssembly.Instance} instance @param {ProgramShape} shape
   */
  attach(instance, shape) {
    const x = /** @type {Record<string, any>} */ (instance.exports);
    /** @type {import('./registers.mjs').Register[]} */
    const registers = shape.handlers.map((h) => ({
      name: h.name, module: this.programName, type: h.type, role: 'handler', global: x[h.exportName],
    }));
    if (shape.stack) {
      registers.push({ name: '__stack_pointer', module: this.programName, type: 'i32', role: 'stack_pointer', global: x.__stack_pointer });
      if (shape.stack.base) registers.push({ name: 'snail.stack.base', module: this.programName, type: 'i32', role: 'stack_base', global: x['snail.stack.base'] });
      if (shape.stack.limit) registers.push({ name: 'snail.stack.limit', module: this.programName, type: 'i32', role: 'stack_limit', global: x['snail.stack.limit'] });
    }
    this.entryNames = shape.entries;
    this.table = shape.table ? x.__indirect_function_table : null;
    const limitRegister = registers.find((r) => r.role === 'stack_limit');
    this.program = {
      handlers: registers.filter((r) => r.role === 'handler'),
      stackRegisters: limitRegister ? { pointer: x.__stack_pointer, limit: limitRegister.global } : null,
      stackAcquire: shape.stack ? x['snail.stack.acquire'] : null,
      stackRelease: shape.stack ? x['snail.stack.release'] : null,
    };
    this.registers = createRegisterFile({
      registers,
      entries: shape.entries.map((name) => ({ name, fn: x[`snail.entry.${name}`] })),
      table: this.table,
      next: (slot, result) => this.next(slot, result),
    });
    this.runCarrier = WebAssembly.promising(this.registers.carrier);
  }

  /** Records the current register values as the defaults (after initialisation). */
  captureDefaults() {
    /** @type {import('./registers.mjs').RegisterFile} */ (this.registers).save(0);
  }

  // ---------------------------------------------------------------------------
  // Dispatch

  /**
   * Creates a task for an entry and puts it in the live set.
   * @param {string} label @param {number} entry @param {number} arg @param {number} fromSlot
   */
  createTask(label, entry, arg, fromSlot) {
    const registers = /** @type {import('./registers.mjs').RegisterFile} */ (this.registers);
    const task = new Task(this.nextId++, label);
    const slot = registers.allocate();
    task._slot = slot;
    task._arg = arg;
    this.slotTasks[slot] = task;
    registers.setEntry(slot, entry, arg);
    if (fromSlot < 0) registers.capture(slot);
    else registers.inherit(fromSlot, slot);
    this.scheduler.add(task);
    return task;
  }

  /**
   * snail.dispatch: the child is live before this returns, with a copy of the
   * parent's current handler bindings.
   * @param {number} entry @param {number} arg @param {number} drop
   */
  dispatchFromWasm(entry, arg, drop) {
    if (this.scheduler.holder === null) {
      throw new SnailError('snail.dispatch was called outside a task; dispatch from JavaScript with rt.dispatch()', { code: 'ERR_NOT_IN_TASK' });
    }
    if (this.closing) return -Status.closed;
    const table = /** @type {WebAssembly.Table} */ (this.table);
    if (entry < 0 || entry >= table.length || table.get(entry) === null) return -Status.invalid;
    if (drop !== 0 && (drop < 0 || drop >= table.length || table.get(drop) === null)) return -Status.invalid;
    const task = this.createTask(`table[${entry}]`, entry, arg, -1);
    task._drop = drop;
    task._handles = 1;
    this.handles.set(task.id, task);
    return task.id;
  }

  /**
   * rt.dispatch: a root task that starts from the defaults.
   * @param {string} name @param {number} arg
   */
  dispatchEntry(name, arg) {
    const index = this.entryNames.indexOf(name);
    if (index < 0) {
      throw new SnailError(`${this.programName} has no entry "${name}"; its entries are: ${this.entryNames.join(', ')}`, { code: 'ERR_NO_ENTRY' });
    }
    const task = this.createTask(name, -index - 1, arg, 0);
    this.queuePump();
    return task;
  }

  /** Pumps from a microtask: for callers that may have Wasm frames below them. */
  queuePump() {
    if (!this.pumpQueued) {
      this.pumpQueued = true;
      queueMicrotask(this.runQueuedPump);
    }
  }

  // ---------------------------------------------------------------------------
  // The scheduler's engine

  /**
   * Enters a granted start. Its Wasm runs on a new carrier, synchronously when
   * there are no Wasm frames below us, else from a microtask.
   * @param {Task} task @param {boolean} fromTopLevel
   */
  enter(task, fromTopLevel) {
    if (!this.prepareStart(task)) return;
    if (fromTopLevel) this.startCarrier(task);
    else queueMicrotask(() => this.startCarrier(task));
  }

  /**
   * Gives a granted start its stack segment and installs its registers.
   * @param {Task} task
   * @returns {boolean} false if the task could not start (and has failed)
   */
  prepareStart(task) {
    const registers = /** @type {import('./registers.mjs').RegisterFile} */ (this.registers);
    let low = 0;
    if (this.program.stackAcquire) {
      low = this.program.stackAcquire(this.stackSize) >>> 0;
      if (low === 0) {
        this.failBeforeEntry(task, new TaskFailedError(`${task} could not start: no memory for its ${this.stackSize}-byte stack segment`, { task }));
        return false;
      }
    }
    task._stackLow = low;
    registers.start(task._slot, low, this.stackSize);
    return true;
  }

  /** @param {Task} task */
  startCarrier(task) {
    const carrier = { task };
    task._carrier = carrier;
    this.carriers++;
    if (this.carriers > this.peakCarriers) this.peakCarriers = this.carriers;
    const run = /** @type {(slot: number) => Promise<number>} */ (this.runCarrier);
    run(task._slot).then(
      () => { this.carrierEnded(); },
      (error) => {
        this.carrierEnded();
        this.guard(() => this.carrierFailed(carrier, error));
      },
    );
  }

  carrierEnded() {
    this.carriers--;
    if (this.carriers === 0) {
      const waiters = this.carrierWaiters;
      this.carrierWaiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * Resolves when no carrier is running: the last one settles a microtask or
   * two after its task left the live set.
   * @returns {Promise<void>}
   */
  carriersSettled() {
    if (this.carriers === 0) return Promise.resolve();
    return new Promise((resolve) => this.carrierWaiters.push(() => resolve(undefined)));
  }

  /**
   * Called by a carrier when its task returned: finishes the task and hands the
   * carrier the next start, if that start is next in line.
   * @param {number} slot @param {number} result
   */
  next(slot, result) {
    const task = this.slotTasks[slot];
    if (!task || task !== this.scheduler.holder) {
      throw new InternalError(`a carrier finished slot ${slot}, which does not belong to the permit holder`);
    }
    const carrier = task._carrier;
    this.finishTask(task, TaskState.returned, result, undefined);
    const following = this.scheduler.takeStartForCarrier();
    if (following !== null && this.prepareStart(following)) {
      following._carrier = carrier;
      carrier.task = following;
      this.carrierReuses++;
      return following._slot;
    }
    this.scheduler.pump(false);
    return 0;
  }

  /**
   * A carrier's promise rejected: the task on it trapped or threw.
   * @param {{ task: Task }} carrier @param {unknown} error
   */
  carrierFailed(carrier, error) {
    const task = carrier.task;
    if (task !== this.scheduler.holder) {
      // Only the permit holder can be running Wasm, so only it can trap.
      throw new InternalError(`${task} failed on its carrier without holding the permit: ${String(error)}`);
    }
    if (error instanceof ProgramExit) {
      this.finishTask(task, TaskState.returned, error.code, undefined);
    } else {
      let message = error instanceof Error ? error.message : String(error);
      const overflow = this.stackOverflowHint(task, error);
      if (overflow) message += ` (${overflow})`;
      const failure = new TaskFailedError(`${task.toString().replace(/, executing\)$/, ')')} failed: ${message}`, { cause: error, task });
      this.finishTask(task, TaskState.failed, undefined, failure);
    }
    this.scheduler.pump(true);
  }

  /**
   * Binaryen's stack-check traps with `unreachable` before a frame would cross
   * the segment's limit. The registers still hold the task's values here, so a
   * stack pointer close to the limit makes an overflow the likely cause.
   * @param {Task} task @param {unknown} error
   */
  stackOverflowHint(task, error) {
    if (!(error instanceof WebAssembly.RuntimeError) || !/unreachable/.test(error.message)) return '';
    const regs = this.program.stackRegisters;
    if (!regs || task._stackLow === 0) return '';
    const room = (regs.pointer.value >>> 0) - (regs.limit.value >>> 0);
    if (room < 0 || room > this.stackSize / 4) return '';
    return `probably a stack overflow: ${room} of its ${this.stackSize} stack bytes were left; raise the stackSize option`;
  }

  /**
   * A task that held the permit is done: registers back to the defaults, its
   * stack segment and slot returned, and it leaves the live set.
   * @param {Task} task @param {'returned'|'failed'|'cancelled'} how
   * @param {number | undefined} value @param {unknown} error
   */
  finishTask(task, how, value, error) {
    const registers = /** @type {import('./registers.mjs').RegisterFile} */ (this.registers);
    registers.install(0);
    if (task._stackLow !== 0) {
      this.program.stackRelease(task._stackLow);
      task._stackLow = 0;
    }
    this.releaseSlot(task);
    task.value = value;
    task.error = error;
    task._carrier = null;
    this.scheduler.finish(task, how);
    if (task._handles === 0) this.handles.delete(task.id);
  }

  /** @param {Task} task @param {unknown} error */
  failBeforeEntry(task, error) {
    const registers = /** @type {import('./registers.mjs').RegisterFile} */ (this.registers);
    registers.install(0);
    this.releaseSlot(task);
    task.error = error;
    this.scheduler.finish(task, TaskState.failed);
    if (task._handles === 0) this.handles.delete(task.id);
    this.queuePump();
  }

  /** @param {Task} task */
  releaseSlot(task) {
    const registers = /** @type {import('./registers.mjs').RegisterFile} */ (this.registers);
    if (task._slot !== 0) {
      this.slotTasks[task._slot] = undefined;
      registers.release(task._slot);
      task._slot = 0;
    }
  }

  /** Installs a granted resumption's registers and settles its gate. @param {Task} task */
  resume(task) {
    const registers = /** @type {import('./registers.mjs').RegisterFile} */ (this.registers);
    const gate = task._gate;
    if (gate === null) throw new InternalError(`${task} was resumed without a gate`);
    const reject = /** @type {(e: unknown) => void} */ (task._gateReject);
    task._gate = null;
    task._gateReject = null;
    registers.install(task._slot);
    const delivery = task._delivery;
    task._delivery = undefined;
    if (delivery instanceof Rejection) reject(delivery.error);
    else gate(delivery);
  }

  stats() {
    return {
      ...this.scheduler.stats(),
      carriers: this.carriers,
      peakCarriers: this.peakCarriers,
      carrierReuses: this.carrierReuses,
      stacksInUse: this.scheduler.counts.entered,
      slotsInUse: this.registers ? this.registers.inUse : 0,
      handles: this.handles.size,
      pendingGates: this.scheduler.counts.suspended,
    };
  }
}

/** The status a join delivers for a finished task. @param {Task} t */
function endStatus(t) {
  if (t.state === TaskState.returned) return Status.ok;
  if (t.state === TaskState.cancelled) return Status.cancelled;
  return Status.failed;
}
