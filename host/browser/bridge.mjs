// The JSPI suspension bridge (internal): every suspending import of a program
// goes through it, and it is the scheduler's engine.
//
// At a wait the bridge saves the task's registers and installs the defaults
// (one call into the register file), gives the permit back and starts the
// operation with the task's AbortSignal. The operation's one Promise covers the
// operation and its cleanup; its settlement only makes a resumption ready. When
// the scheduler grants the resumption the permit, the bridge decides what Wasm
// receives (the result, or the cancellation when it was requested: then an
// undelivered result is disposed, exactly once), installs the task's registers
// and settles its gate. The task keeps the permit until its Wasm suspends again
// or returns: settling the gate does not mean Wasm has run.
import { adapter, armed } from './adapters.mjs';
import { CancelledError, InternalError, isWaitOutsideTask, ProgramExit, SnailError, TaskFailedError } from './errors.mjs';
import { SNAIL_IMPORTS } from './abi.mjs';
import { childLabel } from './names.mjs';
import { canWrap, createGates, createWrappers, CURRENT, INSTALL, LENT, PARK, WORDS_END, wrappable } from './gates.mjs';
import { isThenable, microtask } from './promises.mjs';
import { createCarriers, createRegisterFile } from './registers.mjs';
import { Sleepers } from './sleepers.mjs';
import { Status } from './status.mjs';
import { CANCELLED_LATER, Execution, S, Scheduler, Task, TaskState } from './tasks.mjs';

/** A delivery that throws into the task's Wasm instead of returning a value. */
export const REJECT = 'reject';

/**
 * @typedef {object} SuspendOptions
 * @property {number | bigint | 'reject'} [cancelled]  what Wasm receives when the wait ends because the
 *   task was cancelled (default: Status.cancelled), or 'reject' to throw a CancelledError
 * @property {number | bigint | 'reject'} [failed]  what Wasm receives when the operation rejects
 *   (default: Status.failed), or 'reject' to throw the operation's error
 */

/**
 * A suspending import declared by a runtime author with suspend(): the bridge
 * turns it into a WebAssembly.Suspending import that runs `operation` at each
 * call, with the task's AbortSignal first.
 */
export class SuspendingImport {
  /**
   * @param {(signal: AbortSignal, ...args: any[]) => PromiseLike<unknown>} operation
   * @param {((result: unknown, context: DisposeContext) => void) | undefined} discard
   * @param {SuspendOptions} options
   */
  constructor(operation, discard, options) {
    this.operation = operation;
    this.discard = discard;
    this.options = options;
  }
}

/**
 * @typedef {object} DisposeContext
 * @property {string} importName  the suspending import whose result is disposed
 * @property {Task} task  the task that will not receive it
 * @property {(cleanup: PromiseLike<unknown>) => void} track  hands asynchronous
 *   cleanup (closing a descriptor) to the runtime; close() waits for it
 */

/** @param {unknown} v */
const identity = (v) => v;

/** The execution record gateExecutor() hands its functions to. @type {import('./tasks.mjs').Execution | null} */
let gateFor = null;
/** @param {(v: unknown) => void} resolve @param {(e: unknown) => void} reject */
function gateExecutor(resolve, reject) {
  const x = /** @type {import('./tasks.mjs').Execution} */ (gateFor);
  x.gate = resolve;
  x.gateReject = reject;
}

/**
 * A new gate for a task: the promise JSPI parks it on until resume() settles
 * it. One executor for every gate, so that a gate costs no closure of its own
 * (with 10,000 tasks taking turns, gates are most of what survives a scavenge).
 * @param {import('./tasks.mjs').Execution} x
 * @returns {Promise<unknown>}
 */
function gateOf(x) {
  gateFor = x;
  const gate = new Promise(gateExecutor);
  gateFor = null;
  return gate;
}

/** The arguments of an import that takes none: shared, never changed. */
const NO_ARGS = /** @type {any[]} */ (/** @type {unknown} */ (Object.freeze([])));

/** What a parked carrier is resumed with to pump (bridge.ask()): any negative slot. */
const ASK = -1;

/** The idle carriers parkExecutor() adds a parked carrier's resume to. @type {((slot: number) => void)[] | null} */
let carriersFor = null;
/** @param {(slot: number) => void} resume */
function parkExecutor(resume) {
  /** @type {((slot: number) => void)[]} */ (carriersFor).push(resume);
}

/** A wait import before link() decides how the program reaches it. */
class WaitImport {
  /** @param {WaitSpec} spec */
  constructor(spec) {
    this.spec = spec;
  }
}

// What the value a waking task's wrapper hands to `after` is: final (the
// delivery) or the raw value of an operation it awaited directly.
const FINAL = 1;
const DIRECT = 2;
// The task waits with its permit lent: its wrapper goes on without `after`
// when the operation fulfils, and calls `fail` when it rejects.
const LENT_WAIT = 3;

/**
 * How long a runtime with no live task keeps its parked carriers, in
 * milliseconds: a start soon after reuses one, and a runtime left without
 * close() can still be collected afterwards.
 */
const IDLE_RELEASE_MS = 1000;

/** The refusal of a wait begun outside any task. @param {string} name  the import */
const outsideTask = (name) => new SnailError(`${name} was called outside a task (from the program's initialisation, or an export called directly); waits are only allowed in tasks`, { code: 'ERR_NOT_IN_TASK' });

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

const OK = 1;
const FAILED = 2;

/**
 * How one suspending import behaves.
 * @typedef {object} WaitSpec
 * @property {string} name  the import's name, for messages ("snail.sleep", "env.read")
 * @property {((args: any[]) => any[]) | null} prepare  decodes the Wasm arguments once, at
 *   the call (what they point to may change while the task waits); a throw ends
 *   the wait at once with the `failed` delivery of the error
 * @property {(args: any[]) => string} describe  what the task waits on
 * @property {((task: Task, args: any[]) => unknown) | null} now  a delivery to return at once,
 *   keeping the permit, or undefined to suspend
 * @property {(signal: AbortSignal, task: Task, args: any[]) => unknown} operation  the
 *   adapter: a promise covering the operation and its cleanup, or a value ready now
 * @property {boolean} ownCancel  the operation takes no signal (it gets null): it completes
 *   at once (the built-in yield), or it sets `task._exec.cancelWait`, which cancel() calls
 *   instead (the built-in sleep: aborting a signal costs an event dispatch)
 * @property {(value: unknown, task: Task, args: any[]) => unknown} accept  the delivery of
 *   a result; runs with the task holding the permit and its registers installed
 * @property {unknown} cancelled  the delivery when the task was cancelled (or REJECT)
 * @property {(error: unknown, task: Task, args: any[] | null) => unknown} failed  the delivery
 *   of a failure (a Rejection to throw it)
 * @property {((result: unknown, context: DisposeContext) => void) | null} discard
 * @property {((result: unknown) => void) | null} nativeDiscard  the program's own disposer
 * @property {boolean} keepsResults  the operation's own value must be kept for delivery or
 *   disposal (not the one JSPI converts to the import's type); derived, not set by callers
 * @property {((signal: AbortSignal, arg: unknown) => unknown) | null} operation1  the
 *   operation of a one-argument import whose arguments only the operation sees, called
 *   without an argument list (suspend() imports)
 * @property {boolean} keepsArgs  describe, accept and failed read the arguments, so a
 *   suspended task keeps them (false for suspend() imports, whose operation alone sees them)
 * @property {boolean} lendable  a task may wait here with its permit lent: what JSPI
 *   converts is the delivery, and the operation always returns a promise; derived from
 *   keepsResults, and false when the spec says so (yield, whose operation returns a value)
 */

/**
 * A task event, for tracing. `time` is the runtime's clock in milliseconds.
 * @typedef {{ type: 'dispatch' | 'start' | 'suspend' | 'resume' | 'finish' | 'cancel' | 'discard' | 'dispose',
 *             time: number, task: number, entry: string, [key: string]: unknown }} TraceEvent
 */

/**
 * @typedef {import('./tasks.mjs').SchedulerOptions} SchedulerOptions
 * @typedef {import('./abi.mjs').ProgramShape} ProgramShape
 * @typedef {import('./registers.mjs').RegisterFile} RegisterFile
 * @typedef {import('./registers.mjs').Carriers} Carriers
 */

export class Bridge {
  /**
   * @param {{ scheduler: SchedulerOptions, stackSize: number, programName: string,
   *           trace?: ((event: TraceEvent) => void) | null, maxIdleCarriers?: number,
   *           directWaits?: boolean }} options
   */
  constructor(options) {
    /** Receives every task event when set (tracing); null keeps the switch path free of it. */
    this.trace = options.trace ?? null;
    this.now = options.scheduler.now ?? (() => Date.now());
    this.scheduler = new Scheduler(this, options.scheduler);
    this.scheduler.lendParked = (task) => this.lendParked(task);
    // Resumptions made ready while work ran between tasks (a module load)
    // waited for its end: grant them.
    this.scheduler.onExclusiveEnd = () => this.queuePump();
    this.scheduler.registersOffDefaults = () => this.registersOffDefaults();
    this.scheduler.onReclaim = (task) => {
      // Its wrapper saved the task's registers as the wait began.
      /** @type {Int32Array} */ (this.gateWords)[LENT >> 2] = 0;
      task._exec.mode = DIRECT;
      task._settled = false;
      this.permitFree();
    };
    this.stackSize = options.stackSize;
    this.programName = options.programName;
    /** @type {Map<number, Task>} tasks Wasm holds a handle on */
    this.handles = new Map();
    /** The tasks in snail.sleep, behind one host timer. */
    this.sleepers = new Sleepers();
    /** @type {(Task | undefined)[]} the task owning each register-file slot */
    this.slotTasks = [];
    this.nextId = 1;
    this.carriers = 0;
    /** @type {(() => void)[]} */
    this.carrierWaiters = [];
    /** @type {((slot: number) => void)[]} parked carriers (what resumes each), newest last */
    this.idleCarriers = [];
    /** A carrier is between next() and its idle() call. */
    this.parking = false;
    // A carrier's end, shared by every carrier: no closure per carrier. Only the
    // permit holder runs Wasm, so a carrier that fails carries the holder.
    this.onCarrierEnd = () => { this.carrierEnded(); };
    this.onCarrierFail = (/** @type {unknown} */ error) => {
      const task = this.scheduler.holder;
      this.carrierEnded();
      this.guard(() => this.carrierFailed(task, error));
    };
    this.maxIdleCarriers = options.maxIdleCarriers ?? 1024;
    /** @type {unknown} the timer that lets idle carriers go once no task is live */
    this.idleTimer = null;
    this.onIdle = () => {
      this.idleTimer = null;
      // With tasks live, the next carrier to park looks again. Without, the
      // process keep-alive's timer goes too (the next task makes another):
      // a runtime dropped without close() leaves nothing in Node's timers.
      if (this.scheduler.live.size !== 0) return;
      this.releaseIdleCarriers();
      // A turn in progress still holds it until its end (work dispatched
      // before then keeps it held, and takes no new one).
      if (!this.scheduler.releasePending) this.scheduler.keepAlive.dispose?.();
    };
    /** @type {number[]} stack segments of finished tasks, for reuse */
    this.freeStacks = [];
    this.maxFreeStacks = 1024;
    this.peakCarriers = 0;
    this.carrierReuses = 0;
    this.closing = false;
    this.pumpQueued = false;
    /** Set while a disposer or a drop function runs: the runtime may not be re-entered. */
    this.disposing = '';
    /** @type {Set<PromiseLike<unknown>>} asynchronous cleanup disposers handed over */
    this.cleanups = new Set();
    /** @type {{ task: number, operation: string, error: unknown }[]} disposer and drop failures */
    this.disposerErrors = [];
    this.counters = { cancellationsRequested: 0, discarded: 0, disposed: 0, disposerFailures: 0 };
    /** @type {RegisterFile | null} */
    this.registers = null;
    /** @type {Carriers | null} */
    this.carrierModule = null;
    /** Whether the carriers record the task they enter (CURRENT): the suspension module existed when they were made. */
    this.carriersSetCurrent = false;
    /** @type {any} */
    this.program = null;
    /** @type {((slot: number) => Promise<number>) | null} */
    this.runCarrier = null;
    /** @type {string[]} */
    this.entryNames = [];
    /** @type {Map<string, number>} each entry name's index in entryNames */
    this.entryIndex = new Map();
    /** @type {WebAssembly.Table | null} */
    this.table = null;
    /** @type {Record<string, Function>} the program's native disposers by import */
    this.nativeDisposers = {};
    /** @type {Map<string, WaitSpec>} the spec behind each suspending import, by "module.field" */
    this.specsByImport = new Map();
    /** Waits go through the suspension module (one promise hop) where the engine allows. */
    this.directWaits = canWrap && options.directWaits !== false;
    /** @type {WebAssembly.Memory | null} see registerMemory */
    this.sharedMemory = null;
    /** @type {Int32Array | null} the suspension module's shared words (CURRENT, PARK, LENT, GENERATION), once it exists */
    this.gateWords = null;
    /** @type {import('./gates.mjs').Gates | null} the first stubs of the suspension module: their memory and tables are shared by the others */
    this.gates = null;
    /** @type {Map<string, Function>} wrappers made so far, by "module.field:type" */
    this.wrappers = new Map();
    /** @type {Map<string, { params: string[], spec: WaitSpec }>} the wrapped imports, by the same key */
    this.wrappedByKey = new Map();
    /** @type {Record<string, Record<string, unknown>> | null} the program's imports before link() */
    this.baseImports = null;
    this.runQueuedPump = () => {
      this.pumpQueued = false;
      this.guard(() => this.scheduler.pump(true));
    };
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

  /** @returns {RegisterFile} */
  get regs() {
    return /** @type {RegisterFile} */ (this.registers);
  }

  /**
   * The memory of the suspension module's words and of the register file's
   * slots, made when the program is linked (where a failure to allocate it
   * is reported as the program's).
   */
  get registerMemory() {
    return (this.sharedMemory ??= new WebAssembly.Memory({ initial: 1 }));
  }

  // ---------------------------------------------------------------------------
  // Imports of module "snail"

  /**
   * The import object of module "snail", built before the program is instantiated.
   * @param {Record<string, unknown>} [extra]  further imports of module "snail" (the host services)
   */
  imports(extra = {}) {
    const sched = this.scheduler;
    const statusOf = { accept: identity, cancelled: Status.cancelled, failed: () => Status.failed };
    return {
      // The built-in waits are adapters on the same path as every other
      // suspending import; `now` only answers calls that need no waiting.
      sleep: this.suspending({
        ...statusOf,
        name: 'snail.sleep',
        describe: ([ms]) => `snail.sleep(${ms} ms)`,
        now: (_t, [ms]) => (typeof ms === 'number' && ms >= 0 ? undefined : Status.invalid),
        ownCancel: true,
        operation: (_signal, task, [ms]) => this.sleepers.sleep(task._exec, ms),
      }),
      yield: this.suspending({
        ...statusOf,
        name: 'snail.yield',
        describe: () => 'snail.yield()',
        lendable: false,
        // Its operation completes at once: no signal to make for it.
        ownCancel: true,
        // Nothing else is ready and the turn has budget left: the permit comes
        // straight back, so the task keeps it (lent) across the resumption.
        now: () => (sched.pickNext() === null && sched.takeStep() ? Status.ok : undefined),
        operation: () => Status.ok,
      }),
      join: this.suspending({
        ...statusOf,
        name: 'snail.join',
        describe: ([h]) => `snail.join(#${h})`,
        now: (_t, [h]) => {
          const child = this.handles.get(h);
          if (!child) return Status.invalid;
          return child.finished ? endStatus(child) : undefined;
        },
        operation: (signal, _t, [h]) => {
          const child = /** @type {Task} */ (this.handles.get(h));
          // The joining task may keep its permit lent across this wait: a pump
          // takes it back for the start, which may now enter.
          if (sched.boost(child)) this.queuePump();
          return adapter(signal, ({ resolve }) => {
            child.done.then((c) => resolve(endStatus(c)));
          });
        },
      }),
      dispatch: (/** @type {number} */ entry, /** @type {number} */ arg, /** @type {number} */ drop) => this.dispatchFromWasm(entry, arg, drop),
      result: (/** @type {number} */ h) => {
        const t = this.handles.get(h);
        return t && t._s === S.returned ? /** @type {number} */ (t.value) : 0;
      },
      release: (/** @type {number} */ h) => {
        const t = this.handles.get(h);
        if (t && --t._handles === 0) this.handles.delete(h);
      },
      cancel_requested: () => {
        const t = sched.holder;
        return t !== null && t._cancelRequested ? 1 : 0;
      },
      cancel: (/** @type {number} */ h) => {
        this.refuseReentry('snail.cancel');
        const t = this.handles.get(h);
        if (!t) return Status.invalid;
        this.cancel(t);
        return Status.ok;
      },
      ...extra,
    };
  }

  /**
   * The import object for a module the embedder provides; fields declared with
   * suspend() become suspending imports.
   * @param {string} moduleName @param {Record<string, unknown>} fields
   * @param {(module: string, name: string) => import('./wasm-binary.mjs').FuncType | undefined} [typeOf]  the type the
   *   program imports a field with, where known: its `cancelled` and `failed` values must fit it
   */
  userImports(moduleName, fields, typeOf = () => undefined) {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const [name, value] of Object.entries(fields)) {
      const label = `${moduleName}.${name}`;
      if (value instanceof WebAssembly.Suspending) {
        throw new SnailError(`imports.${label} is a WebAssembly.Suspending made outside snail-core; declare it with suspend(operation) so that the scheduler owns its suspension (its gate, the permit, cancellation)`, { code: 'ERR_ADAPTER' });
      }
      if (!(value instanceof SuspendingImport)) {
        out[name] = value;
        continue;
      }
      const { operation, discard, options } = value;
      const result = typeOf(moduleName, name)?.results[0];
      // The default statuses as the import's result type has them.
      const status = (/** @type {number} */ s) => (result === 'i64' ? BigInt(s) : s);
      const cancelled = options.cancelled ?? status(Status.cancelled);
      const failed = options.failed ?? status(Status.failed);
      for (const [option, v] of /** @type {const} */ ([['cancelled', cancelled], ['failed', failed]])) {
        const fits = v === REJECT || result === undefined || result === 'externref' || result === 'funcref'
          || (result === 'i64' ? typeof v === 'bigint' : typeof v === 'number');
        if (!fits) {
          const want = result === 'i64' ? 'a BigInt' : 'a number';
          throw new SnailError(`suspend() option ${option} of ${label} is ${typeof v === 'string' ? JSON.stringify(v) : `${typeof v} ${String(v)}`}, but ${label} returns ${result}: give ${want}, or 'reject' to throw into the task`, { code: 'ERR_OPTION' });
        }
      }
      /** @param {unknown} p */
      const promised = (p) => {
        if (!isThenable(p)) {
          throw new SnailError(`the operation of suspending import ${label} returned ${p === null ? 'null' : typeof p}, not a Promise; an operation returns one Promise covering its work and its cleanup`, { code: 'ERR_ADAPTER' });
        }
        return p;
      };
      out[name] = this.suspending({
        name: label,
        describe: () => label,
        keepsArgs: false,
        operation: (signal, _task, args) => promised(args.length === 1 ? operation(signal, args[0]) : operation(signal, ...args)),
        operation1: (signal, arg) => promised(operation(signal, arg)),
        accept: identity,
        cancelled,
        failed: (error) => (failed === REJECT ? new Rejection(error) : failed),
        discard: discard ?? null,
        nativeDiscard: null,
      });
    }
    return out;
  }

  /**
   * Makes a suspending import from a wait specification. What the program is
   * finally given is decided by link(): a wrapper of the suspension module when
   * the import's type is known, else a plain WebAssembly.Suspending.
   * @param {Partial<WaitSpec> & { name: string, describe: WaitSpec['describe'], operation: WaitSpec['operation'] }} partial
   */
  suspending(partial) {
    // Every field in one order, whatever the caller gave: all specs share one
    // shape, so the wait path's reads of them stay monomorphic.
    const accept = partial.accept ?? identity;
    const discard = partial.discard ?? null;
    // A wait whose result is delivered as it is and never disposed can take
    // the value JSPI converts; any other keeps the operation's own value.
    const keepsResults = accept !== identity || discard !== null;
    /** @type {WaitSpec} */
    const spec = {
      name: partial.name,
      describe: partial.describe,
      prepare: partial.prepare ?? null,
      now: partial.now ?? null,
      operation: partial.operation,
      operation1: partial.operation1 ?? null,
      ownCancel: partial.ownCancel ?? false,
      accept,
      cancelled: partial.cancelled ?? Status.cancelled,
      failed: partial.failed ?? (() => Status.failed),
      discard,
      nativeDiscard: partial.nativeDiscard ?? null,
      keepsResults,
      lendable: (partial.lendable ?? true) && !keepsResults,
      keepsArgs: partial.keepsArgs ?? true,
    };
    return new WaitImport(spec);
  }

  /**
   * Replaces the wait imports of an import object with what the program calls:
   * one suspension module (gates.mjs) with a wrapper per wait whose type is
   * known, plain Suspending functions for the others.
   * @param {Record<string, Record<string, unknown>>} importObject
   * @param {ProgramShape} shape
   */
  link(importObject, shape) {
    // The program's import object, as given: modules loaded later resolve their
    // imports from it.
    this.baseImports ??= Object.fromEntries(Object.entries(importObject).map(([m, f]) => [m, { ...f }]));
    /** @type {(import('./gates.mjs').WrappedImport & { module: string, field: string, spec: WaitSpec })[]} */
    const wrapped = [];
    for (const [module, fields] of Object.entries(importObject)) {
      for (const [field, value] of Object.entries(fields)) {
        if (!(value instanceof WaitImport)) continue;
        const spec = value.spec;
        const key = `${module}.${field}`;
        this.specsByImport.set(key, spec);
        const imp = shape.imports.find((i) => i.module === module && i.name === field && i.kind === 'function');
        const type = imp?.type ?? (module === 'snail' ? SNAIL_IMPORTS[field] : undefined);
        const typeKey = type ? `${key}:${type.params.join()}->${type.results.join()}` : '';
        const made = this.wrappers.get(typeKey);
        if (made && this.specsByImport.get(key) === spec) {
          // A module loaded later that imports the same wait with the same type.
          fields[field] = made;
        } else if (this.directWaits && imp && type && wrappable(type.results)) {
          wrapped.push({ key: typeKey, params: type.params, results: type.results, module, field, spec });
        } else {
          fields[field] = new WebAssembly.Suspending(this.waitFunction(spec, false));
        }
      }
    }
    if (wrapped.length === 0) return;
    for (const w of wrapped) this.wrappedByKey.set(w.key, w);
    const byKey = this.wrappedByKey;
    const gates = createGates(wrapped, {
      begin: (key) => {
        const w = /** @type {(typeof wrapped)[number]} */ (byKey.get(key));
        return this.waitFunction(w.spec, true, w.params.length);
      },
      after: (slot, value, zero) => this.land(slot, OK, value, zero),
      fail: (slot, error, zero) => this.land(slot, FAILED, error, zero),
      park: (slot) => this.park(slot),
      foreign: (slot, key) => {
        const name = /** @type {(typeof wrapped)[number]} */ (byKey.get(key)).spec.name;
        // Whatever the caller's Wasm bound before its wait goes: a waiting
        // task's registers are saved, and the defaults go back in (none are
        // recorded yet during the program's start function).
        this.registers?.install(0);
        const holder = this.slotTasks[slot];
        if (slot === 0 || holder === undefined) throw outsideTask(name);
        throw new SnailError(`${name} was called while ${holder} waits with the permit, so outside any task (an export called directly from JavaScript?); waits are only allowed in tasks: dispatch the entry instead`, { code: 'ERR_NOT_IN_TASK' });
      },
    }, this.registerMemory, this.gates ?? undefined);
    this.gates ??= gates;
    this.viewWords();
    this.connectRegisters();
    for (const w of wrapped) {
      importObject[w.module][w.field] = gates.wrappers[w.key];
      this.wrappers.set(w.key, gates.wrappers[w.key]);
    }
  }

  /** (Again) a view of the suspension words: growing the memory for more register slots detaches the last. */
  viewWords() {
    if (this.gates !== null) this.gateWords = new Int32Array(this.registerMemory.buffer);
  }

  /**
   * No task holds the permit: a wrapper called now (a wait outside any task,
   * which fails) saves into the defaults' slot, never into a parked task's.
   */
  permitFree() {
    if (this.gateWords !== null) this.gateWords[CURRENT >> 2] = 0;
  }

  /**
   * Points the carriers and the register table at the current register file,
   * and builds the suspension wrappers for it (after it is made, again when a
   * loaded module brings new registers or new waits).
   */
  connectRegisters() {
    if (this.registers === null) return;
    if (this.carrierModule !== null) this.carrierModule.connect(this.registers);
    if (this.gates === null) return;
    this.gates.registers.set(INSTALL, this.registers.install);
    createWrappers(this.gates, this.registers);
  }

  /**
   * The JavaScript side of a wait. `direct`: it runs under a wrapper of the
   * suspension module, and returns the operation's own promise to JSPI; the
   * wrapper's `after` claims the permit when the task wakes. Otherwise it
   * returns the operation continued by arrive(), which claims it first.
   * @param {WaitSpec} spec @param {boolean} direct
   * @param {number} [arity]  how many arguments the import takes, if known
   */
  waitFunction(spec, direct, arity = -1) {
    const bridge = this;
    const sched = this.scheduler;
    const operation1 = spec.operation1;
    if (direct && arity === 1 && operation1 !== null && spec.lendable && !spec.keepsArgs && !spec.prepare && !spec.now) {
      // The common wait in one piece: a suspend() import of one argument,
      // while nothing else wants the permit, takes it lent without building
      // an argument list; anything else goes the general way.
      return function lentWait(/** @type {unknown} */ arg) {
        let task = sched.lease;
        let signal;
        const leased = task !== null && sched.leaseWait === spec && sched.turnSteps < sched.leaseEnd;
        if (leased) {
          // The task waited here lent last time, and nothing that mayLend()
          // checks changed since (the lease is revoked when anything does):
          // its wait record stands, the step is counted by the turn, and the
          // wrapper put the task's slot in the LENT word as it called here.
          sched.turnSteps++;
          if (sched.checkInvariants) bridge.assertLease(/** @type {Task} */ (task), spec);
          signal = sched.leaseSignal;
        } else {
          task = sched.holder;
          if (task === null || bridge.disposing || bridge.trace !== null || task._cancelRequested || !sched.mayLend()) return wait(arg);
          const x = bridge.lendAcross(task, spec, null);
          signal = x.signal ?? bridge.signalOf(task);
        }
        let operation;
        try {
          operation = operation1(/** @type {AbortSignal} */ (signal), arg);
        } catch (error) {
          // Rejected, not thrown on: the task suspends as for any wait, so
          // work the operation made ready before it threw goes first.
          operation = Promise.reject(error);
        }
        if (sched.lent === task) {
          if (!leased) sched.grantLease(/** @type {Task} */ (task), spec, signal);
          return operation;
        }
        // The operation itself wanted the permit back (it dispatched).
        return bridge.waitOn(/** @type {Task} */ (task), spec, true, operation);
      };
    }
    // An import of no arguments (snail.yield) needs no argument list of its own.
    if (arity === 0) return () => waitWith(NO_ARGS);
    return wait;
    /** @param {any[]} raw */
    function wait(...raw) {
      return waitWith(raw);
    }
    /** @param {any[]} raw */
    function waitWith(raw) {
      const task = sched.holder;
      if (task === null) throw outsideTask(spec.name);
      sched.revokeLease();
      // From here on the value the wrapper's `after` receives is final, unless
      // the operation's own promise goes to JSPI below.
      task._exec.mode = FINAL;
      // Under a wrapper, the LENT word says the task keeps the permit (its
      // wrapper goes on without `after`) unless it gives it up below: the
      // wrapper put the task's slot there as it called here, after it saved
      // the task's registers and installed the defaults. It installs the
      // registers again when the task goes on.
      bridge.refuseReentry(spec.name);
      // A cancelled task's later waits end at once; it keeps the permit. Each
      // counts as a step of the turn: once the budget is used up, the wait
      // gives the permit up and its resumption (cancelled) comes after the
      // event loop's turn, or a program that loops on waits without looking
      // at their status would starve the event loop.
      if (task._cancelRequested) {
        if (sched.takeStep()) return bridge.deliverNow(bridge.cancelDelivery(spec, task));
        bridge.giveUpPermit(task, spec, raw, direct);
        // No operation ran, so nothing is disposed: the resumption delivers the cancellation.
        task._exec.outcome = FAILED;
        task._exec.result = undefined;
        sched.readyTask(task);
        sched.pump(false);
        return bridge.delivered(task);
      }
      let args = raw;
      if (spec.prepare) {
        try {
          args = spec.prepare(raw);
        } catch (error) {
          return bridge.deliverNow(spec.failed(error, task, null));
        }
      }
      if (spec.now) {
        const delivery = spec.now(task, args);
        if (delivery !== undefined) {
          // The task keeps the permit across the resumption JSPI makes of a
          // settled promise; under a wrapper it keeps it lent, so the wrapper
          // goes on without calling back.
          if (direct && bridge.trace === null) bridge.lendAcross(task, spec, args);
          return resolvedStatus(/** @type {number} */ (delivery));
        }
      }
      // Nothing else wants the permit: the task keeps it for this wait, and
      // its wrapper goes on without calling back (unless something reclaims
      // it meanwhile, the operation itself included).
      const lend = direct && spec.lendable && bridge.trace === null && sched.mayLend();
      if (lend) {
        bridge.lendAcross(task, spec, args);
      } else {
        bridge.giveUpPermit(task, spec, args, direct);
      }
      let operation;
      try {
        operation = spec.operation(spec.ownCancel ? /** @type {any} */ (null) : bridge.signalOf(task), task, args);
      } catch (error) {
        operation = Promise.reject(error);
      }
      if (lend && sched.lent === task) {
        if (isThenable(operation)) return operation;
        // A value ready now: the task becomes an ordinary suspended one and
        // its resumption queues behind the work that is ready.
        sched.reclaim();
      }
      return bridge.waitOn(task, spec, direct, operation);
    }
  }

  /**
   * The task that begins a wait gives the permit up: its registers saved
   * (under a wrapper, the wrapper saved them already), the wait recorded for
   * observers and for its resumption, the permit free.
   * @param {Task} task @param {WaitSpec} spec @param {any[]} args @param {boolean} direct
   */
  giveUpPermit(task, spec, args, direct) {
    if (direct) /** @type {Int32Array} */ (this.gateWords)[LENT >> 2] = 0;
    else this.regs.suspend(task._slot);
    task._exec.wait = spec;
    task._exec.waitArgs = spec.keepsArgs ? args : null;
    this.scheduler.suspend(task);
    this.permitFree();
    if (this.trace) this.emit('suspend', task, { waitingOn: task.waitingOn });
  }

  /**
   * The executing task keeps its permit, lent, across the wait it begins: its
   * wrapper takes it back in Wasm. The wait is recorded as for a suspension,
   * in case the permit is reclaimed and the task resumes the ordinary way.
   * @param {Task} task @param {WaitSpec} spec @param {any[] | null} args
   * @returns {import('./tasks.mjs').Execution} the task's execution record
   */
  lendAcross(task, spec, args) {
    const x = task._exec;
    x.wait = spec;
    x.waitArgs = spec.keepsArgs ? args : null;
    x.mode = LENT_WAIT;
    // The wrapper put the task's slot in the LENT word as it called the wait.
    this.scheduler.lend(task);
    return x;
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
      this.scheduler.assertInvariants();
      const x = task._exec;
      if (x.mode !== LENT_WAIT || x.wait !== spec || x.waitArgs !== null) {
        throw new InternalError(`invariant broken: ${task} waits under the lease with mode ${x.mode} in ${x.wait?.name ?? 'no wait'}, not lent in ${spec.name}`);
      }
    });
  }

  /**
   * What a suspended task's wait hands JSPI once its operation started,
   * unless the task kept the permit lent.
   * @param {Task} task @param {WaitSpec} spec @param {boolean} direct @param {unknown} operation
   */
  waitOn(task, spec, direct, operation) {
    const sched = this.scheduler;
    if (isThenable(operation)) {
      sched.pump(false);
      if (direct) {
        // JSPI parks the task on the operation's own promise: one hop. The
        // value JSPI hands the wrapper is converted to the import's type;
        // these reactions, registered first, keep the original and run
        // just before JSPI's.
        task._exec.mode = DIRECT;
        task._settled = false;
        if (spec.keepsResults) {
          /** @type {PromiseLike<unknown>} */ (operation).then(task._exec.onOk ??= this.onOk(task), task._exec.onErr ??= this.onErr(task));
        }
        return operation;
      }
      // The continuation claims the permit before Wasm resumes: two hops.
      return /** @type {PromiseLike<unknown>} */ (operation).then(task._exec.onOk ??= this.onOk(task), task._exec.onErr ??= this.onErr(task));
    }
    // Completed already (yield): the resumption queues behind the work that is ready now.
    task._exec.outcome = OK;
    task._exec.result = operation;
    sched.readyTask(task);
    sched.pump(false);
    return this.delivered(task);
  }

  /**
   * The wrapper's `after`/`fail`: the task's Wasm is running again. A final
   * value passes through. A directly awaited operation has settled: the task
   * becomes ready and, when nothing is ahead of it and the turn has budget
   * left, the scheduler grants it the permit here and now; otherwise the
   * wrapper is told to park it.
   * @param {number} slot @param {number} outcome @param {unknown} value @param {unknown} zero
   */
  land(slot, outcome, value, zero) {
    const task = this.slotTasks[slot];
    if (task !== undefined && task._exec.mode === LENT_WAIT) return this.endLend(task, outcome, value);
    if (task === undefined || task._exec.mode !== DIRECT) {
      // A final value, or an exception that did not come from an operation
      // (a misuse error thrown by the wait itself): pass it on.
      if (task !== undefined) task._exec.mode = 0;
      if (outcome === FAILED) throw value;
      return value;
    }
    task._exec.mode = 0;
    if (!task._settled) {
      // Only if the store reactions did not run first (an operation that is a
      // foreign thenable): take what JSPI delivered.
      task._exec.outcome = outcome;
      task._exec.result = value;
    }
    task._settled = false;
    const sched = this.scheduler;
    if (sched.holder === null && !task._cancelRequested && sched.claim(task)) {
      // Nothing is ahead and the turn has budget: the task takes the permit
      // here, without the ready queue.
      const spec = /** @type {WaitSpec} */ (task._exec.wait);
      const args = task._exec.waitArgs;
      const result = task._exec.result;
      task._exec.wait = null;
      task._exec.waitArgs = null;
      task._exec.result = undefined;
      // The wrapper installs the registers when it goes on; a delivery that
      // calls into the program needs them now.
      if (spec.accept !== identity) this.regs.install(task._slot);
      /** @type {Int32Array} */ (this.gateWords)[CURRENT >> 2] = task._slot;
      if (this.trace) this.emit('resume', task, { cancelled: false });
      const delivery = task._exec.outcome === OK ? spec.accept(result, task, /** @type {any[]} */ (args))
        : result instanceof SnailError && result.code === 'ERR_ADAPTER' ? new Rejection(result) : spec.failed(result, task, /** @type {any[]} */ (args));
      if (delivery instanceof Rejection) throw delivery.error;
      return delivery;
    }
    try {
      sched.readyTask(task);
      sched.pump(false);
    } catch (error) {
      this.guard(() => { throw error; });
    }
    if (task._hasDelivery) return this.delivered(task);
    /** @type {Int32Array} */ (this.gateWords)[PARK >> 2] = 1;
    return zero;
  }

  /**
   * A task whose permit was lent for its wait calls back: its operation
   * rejected (a fulfilled one goes on in Wasm). It still holds the permit.
   * @param {Task} task @param {number} outcome @param {unknown} value
   */
  endLend(task, outcome, value) {
    this.scheduler.revokeLease();
    const x = task._exec;
    x.mode = 0;
    /** @type {Int32Array} */ (this.gateWords)[LENT >> 2] = 0;
    if (this.scheduler.lent === task) this.scheduler.lent = null;
    const spec = /** @type {WaitSpec} */ (x.wait);
    const args = /** @type {any[]} */ (x.waitArgs);
    x.wait = null;
    x.waitArgs = null;
    const delivery = outcome === OK ? spec.accept(value, task, args)
      : value instanceof SnailError && value.code === 'ERR_ADAPTER' ? new Rejection(value) : spec.failed(value, task, args);
    if (delivery instanceof Rejection) throw delivery.error;
    return delivery;
  }

  /**
   * Whether a task whose permit was lent still waits: its wrapper has not
   * taken the permit back.
   * @param {Task} task
   */
  lendParked(task) {
    const x = task._x;
    return x instanceof Execution && x.mode === LENT_WAIT && /** @type {Int32Array} */ (this.gateWords)[LENT >> 2] === task._slot;
  }

  /**
   * The wrapper's `park`: a gate the scheduler settles with the delivery when
   * the task's turn comes.
   * @param {number} slot
   */
  park(slot) {
    const task = /** @type {Task} */ (this.slotTasks[slot]);
    return gateOf(task._exec);
  }

  /**
   * The reactions to a task's operations, made once per task. A directly
   * awaited operation's outcome is kept for land(); any other continues the
   * operation (two hops) and arrives.
   * @param {Task} task
   */
  onOk(task) {
    return (/** @type {unknown} */ value) => (task._exec.mode === DIRECT ? this.store(task, OK, value) : this.arrive(task, OK, value));
  }

  /** @param {Task} task */
  onErr(task) {
    return (/** @type {unknown} */ error) => (task._exec.mode === DIRECT ? this.store(task, FAILED, error) : this.arrive(task, FAILED, error));
  }

  /**
   * Keeps a directly awaited operation's outcome for land().
   * @param {Task} task @param {number} outcome @param {unknown} value
   */
  store(task, outcome, value) {
    task._exec.outcome = outcome;
    task._exec.result = value;
    task._settled = true;
  }

  /**
   * The operation of a suspended task settled: it becomes ready. Nothing is
   * delivered yet; the suspension owns a successful result until resume().
   * If the scheduler grants the task at once, the delivery is returned (and
   * JSPI resumes the task one hop later); otherwise a gate that resume()
   * settles when the task's turn comes.
   * @param {Task} task @param {number} outcome @param {unknown} value
   */
  arrive(task, outcome, value) {
    try {
      task._exec.outcome = outcome;
      task._exec.result = value;
      this.scheduler.readyTask(task);
      this.scheduler.pump(true);
    } catch (error) {
      this.guard(() => { throw error; });
    }
    return this.delivered(task);
  }

  /**
   * What a parked task's continuation hands to JSPI: the delivery, if resume()
   * already produced it, else a gate for resume() to settle.
   * @param {Task} task
   */
  delivered(task) {
    if (task._hasDelivery) {
      const delivery = task._exec.result;
      task._hasDelivery = false;
      task._exec.result = undefined;
      if (delivery instanceof Rejection) throw delivery.error;
      return delivery;
    }
    return gateOf(task._exec);
  }

  /** @param {unknown} delivery */
  deliverNow(delivery) {
    if (delivery instanceof Rejection) return Promise.reject(delivery.error);
    return typeof delivery === 'number' ? resolvedStatus(delivery) : Promise.resolve(delivery);
  }

  /** @param {WaitSpec} spec @param {Task} task */
  cancelDelivery(spec, task) {
    if (spec.cancelled === REJECT) return new Rejection(CancelledError.quick(`${task} was cancelled while waiting on ${spec.name}`, { task }));
    return spec.cancelled;
  }

  /**
   * Throws if a disposer or drop function tries to re-enter the runtime.
   * @param {string} what
   */
  refuseReentry(what) {
    if (this.disposing) {
      throw new SnailError(`${this.disposing} tried to use ${what}: disposers and drop functions are synchronous and may not suspend or re-enter snail-core`, { code: 'ERR_REENTRANT' });
    }
  }

  /**
   * The AbortSignal a task's waits receive; it aborts when the task's
   * cancellation is requested.
   * @param {Task} task
   */
  signalOf(task) {
    const x = task._exec;
    if (x.signal === null) {
      x.abort = new AbortController();
      // Kept: in browsers the `signal` accessor is a call into the embedder.
      x.signal = x.abort.signal;
    }
    return x.signal;
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
    const x = task._exec;
    if (x.cancelWait !== null) x.cancelWait();
    if (x.abort) x.abort.abort(CancelledError.quick(`task #${task.id} (${task.entry}) was cancelled`, { task }));
    return true;
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
    const carriers = /** @type {Carriers} */ (this.carrierModule);
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
      this.regs.suspend(task._slot);
      this.runDisposer(`the drop function of ${task}`, task, () => carriers.drop(drop, arg));
      this.regs.install(task._slot);
    }
    this.releaseSlot(task);
  }

  /**
   * Runs a disposer or drop function: synchronously, with re-entry refused. A
   * failure is recorded and counted; it never stops the task from unwinding.
   * @param {string} what @param {Task} task @param {() => unknown} fn
   */
  runDisposer(what, task, fn) {
    const outer = this.disposing;
    this.scheduler.revokeLease();
    this.disposing = what;
    // Outside any task: a wait the disposer tries is refused before the
    // suspension module saves anything into a task's slot.
    const current = this.gateWords === null ? 0 : this.gateWords[CURRENT >> 2];
    this.permitFree();
    try {
      const r = fn();
      if (isThenable(r)) {
        r.then(undefined, () => {});
        throw new SnailError(`${what} returned a Promise: disposers are synchronous; hand asynchronous cleanup to context.track()`, { code: 'ERR_REENTRANT' });
      }
    } catch (error) {
      this.counters.disposerFailures++;
      let reported = error;
      if (isWaitOutsideTask(error)) {
        reported = new SnailError(`${what} tried to suspend: disposers and drop functions are synchronous and may not wait`, { code: 'ERR_REENTRANT', cause: error });
      }
      this.disposerErrors.push({ task: task.id, operation: what, error: reported });
    } finally {
      this.disposing = outer;
      if (this.gateWords !== null) this.gateWords[CURRENT >> 2] = current;
    }
  }

  /**
   * A successful result that will never be delivered: its disposers run,
   * exactly once (only resume() calls this, once per wait).
   * @param {WaitSpec} spec @param {Task} task @param {unknown} result
   */
  dispose(spec, task, result) {
    if (!spec.discard && !spec.nativeDiscard) return;
    this.counters.disposed++;
    if (this.trace) this.emit('dispose', task, { operation: spec.name });
    /** @type {DisposeContext} */
    const context = {
      importName: spec.name,
      task,
      track: (cleanup) => this.track(cleanup),
    };
    if (spec.discard) {
      const discard = spec.discard;
      this.runDisposer(`the disposer of ${spec.name}`, task, () => discard(result, context));
    }
    if (spec.nativeDiscard) {
      const native = spec.nativeDiscard;
      this.runDisposer(`the native disposer of ${spec.name}`, task, () => native(result));
    }
  }

  /**
   * Asynchronous cleanup a disposer started; close() waits for it.
   * @param {PromiseLike<unknown>} cleanup
   */
  track(cleanup) {
    if (!cleanup || typeof cleanup.then !== 'function') {
      throw new SnailError('track() takes the Promise of the cleanup', { code: 'ERR_ARG' });
    }
    this.cleanups.add(cleanup);
    const done = () => { this.cleanups.delete(cleanup); };
    cleanup.then(done, done);
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
    this.entryIndex = new Map(shape.entries.map((name, i) => [name, i]));
    this.table = shape.table ? x.__indirect_function_table : null;
    const limitRegister = registers.find((r) => r.role === 'stack_limit');
    this.program = {
      stackRegisters: limitRegister ? { pointer: x.__stack_pointer, limit: limitRegister.global } : null,
      stackAcquire: shape.stack ? x['snail.stack.acquire'] : null,
      stackRelease: shape.stack ? x['snail.stack.release'] : null,
    };
    for (const name of shape.disposers) this.nativeDisposers[name] = x[`snail.dispose.${name}`];
    this.carriersSetCurrent = this.gates !== null;
    this.carrierModule = createCarriers({
      entries: shape.entries.map((name) => ({ name, fn: x[`snail.entry.${name}`] })),
      table: this.table,
      stackSize: this.stackSize,
      setCurrent: this.gates?.setCurrent,
      next: (slot, result) => this.next(slot, result),
      idle: () => this.parkCarrier(),
      ask: () => this.ask(),
    });
    this.registers = createRegisterFile({ registers, memory: this.registerMemory, base: WORDS_END });
    this.viewWords();
    this.connectRegisters();
    this.carrierModule.ensure(this.registers.capacity);
    this.registers.onGrow = (slots) => {
      this.viewWords();
      /** @type {Carriers} */ (this.carrierModule).ensure(slots);
    };
    this.runCarrier = WebAssembly.promising(this.carrierModule.carrier);
  }

  /**
   * Connects the program's native disposers (exports `snail.dispose.MODULE.NAME`)
   * to the suspending imports they belong to.
   */
  attachNativeDisposers() {
    for (const [name, fn] of Object.entries(this.nativeDisposers)) {
      const spec = this.specsByImport.get(name);
      if (spec) spec.nativeDiscard = /** @type {(r: unknown) => void} */ (fn);
    }
  }

  /**
   * Adds registers to the register file: a loaded module's handler globals.
   * Runs between tasks (scheduler.exclusive()), when every task's registers
   * are saved and the globals hold the defaults. The new register file takes
   * over every saved value; the new registers start at their defaults (null)
   * in every task.
   * @param {{ name: string, module: string, type: string, global: WebAssembly.Global }[]} added
   */
  addRegisters(added) {
    const old = this.regs;
    const registers = [
      ...old.layout.registers,
      ...added.map((a) => /** @type {import('./registers.mjs').Register} */ ({ ...a, role: 'handler' })),
    ];
    const live = [0];
    for (const t of this.scheduler.live) if (t._slot !== 0) live.push(t._slot);
    // The new file's slots take the old one's bytes: what they hold is read
    // first. Nothing is written until the memory has grown for all of them,
    // so that a failure leaves the old file as it was.
    const snapshot = old.snapshot(live);
    const next = createRegisterFile({ registers, memory: this.registerMemory, base: WORDS_END });
    next.ensure(old.capacity);
    this.viewWords();
    next.onGrow = old.onGrow;
    next.save(0);
    next.takeOver(old, snapshot);
    this.registers = next;
    this.connectRegisters();
  }

  /**
   * For the invariant check: which register holds something other than its
   * default (slot 0), or null when all hold their defaults.
   * @returns {string | null}
   */
  registersOffDefaults() {
    const regs = this.registers;
    if (regs === null || this.program === null) return null;
    for (const r of regs.layout.registers) {
      const value = r.global.value;
      const fallback = regs.read(0, r);
      if (!Object.is(value, fallback)) return `register ${r.name} holds ${String(value)}, not its default ${String(fallback)}`;
    }
    return null;
  }

  /** Records the current register values as the defaults (after initialisation). */
  captureDefaults() {
    this.regs.save(0);
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
    const registers = this.regs;
    const task = new Task(this.nextId++, label, this);
    const slot = registers.allocate();
    task._slot = slot;
    this.slotTasks[slot] = task;
    // A child's binding vector is copied into its slot now; a root task's
    // carrier installs the defaults' (slot 0) when it starts.
    /** @type {Carriers} */ (this.carrierModule).setEntry(slot, entry, arg, drop, inherits ? slot : 0);
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
    this.refuseReentry('snail.dispatch');
    if (this.scheduler.holder === null) {
      throw new SnailError('snail.dispatch was called outside a task; dispatch from JavaScript with rt.dispatch()', { code: 'ERR_NOT_IN_TASK' });
    }
    if (this.closing) return -Status.closed;
    const table = /** @type {WebAssembly.Table} */ (this.table);
    if (entry < 0 || entry >= table.length || table.get(entry) === null) return -Status.invalid;
    if (drop !== 0 && (drop < 0 || drop >= table.length || table.get(drop) === null)) return -Status.invalid;
    const task = this.createTask(childLabel(table, entry), entry, arg, true, drop);
    task._handles = 1;
    this.handles.set(task.id, task);
    return task.id;
  }

  /**
   * rt.dispatch: a root task that starts from the defaults.
   * @param {string} name @param {number} arg
   */
  dispatchEntry(name, arg) {
    this.refuseReentry('rt.dispatch()');
    const index = this.entryIndex.get(name);
    if (index === undefined) {
      throw new SnailError(`${this.programName} has no entry "${name}"; its entries are: ${this.entryNames.join(', ')}`, { code: 'ERR_NO_ENTRY' });
    }
    const task = this.createTask(name, -index - 1, arg, false);
    this.queuePump();
    return task;
  }

  /**
   * Pumps from a microtask: for callers that may have Wasm frames below them.
   * When a carrier is parked, the pump runs on it instead: resuming it is the
   * microtask, and the start it picks runs there without one more hop.
   */
  queuePump() {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    const resume = this.idleCarriers.pop();
    if (resume !== undefined) resume(ASK);
    else microtask(this.runQueuedPump);
  }

  /**
   * Called by a carrier that queuePump() woke: pumps with the carrier at hand,
   * which takes the first start if that start is next in line. Answers as
   * next() does.
   */
  ask() {
    this.pumpQueued = false;
    return this.handOver();
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
    const resume = this.idleCarriers.pop();
    if (resume !== undefined) {
      // A parked carrier takes the start: its engine stack already exists.
      this.carrierReuses++;
      resume(task._slot);
    } else if (fromTopLevel) {
      this.startCarrier(task);
    } else {
      microtask(() => this.startCarrier(task));
    }
  }

  /**
   * A carrier whose task finished, with no start waiting, parks here until the
   * next start needs a stack: starting a task on a parked carrier costs a
   * resumption instead of a new engine stack.
   * @returns {Promise<number>} the slot of the next start, or 0 to end
   */
  parkCarrier() {
    if (!this.parking) throw new InternalError('a carrier parked without next() asking it to');
    this.parking = false;
    carriersFor = this.idleCarriers;
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
  releaseIdleCarriers() {
    if (this.idleTimer !== null) {
      clearTimeout(/** @type {any} */ (this.idleTimer));
      this.idleTimer = null;
    }
    const idle = this.idleCarriers.splice(0);
    for (const resume of idle) resume(0);
  }

  /**
   * Gives the program back the stack segments kept for reuse (close(), once no
   * task is live): every segment acquire gave out is then released.
   */
  releaseKeptStacks() {
    const release = this.program.stackRelease;
    if (!release) return;
    for (const low of this.freeStacks.splice(0)) release(low);
  }

  /**
   * Gives a granted start its stack segment; its carrier installs its registers.
   * @param {Task} task
   * @returns {boolean} false if the task could not start (and has failed)
   */
  prepareStart(task) {
    let low = 0;
    if (this.program.stackAcquire) {
      // Segments of finished tasks are kept here and reused newest first (their
      // pages are resident); only a miss calls into the program's pool.
      if (this.freeStacks.length) {
        low = /** @type {number} */ (this.freeStacks.pop());
      } else {
        try {
          low = this.program.stackAcquire(this.stackSize) >>> 0;
        } catch (error) {
          // The program's allocator trapped or aborted (Emscripten's aborting
          // malloc): this start fails, the scheduler goes on.
          this.failBeforeEntry(task, new TaskFailedError(`${task} could not start: getting its ${this.stackSize}-byte stack segment failed: ${error instanceof Error ? error.message : String(error)}`, { task, cause: error }));
          return false;
        }
      }
      if (low === 0) {
        this.failBeforeEntry(task, new TaskFailedError(`${task} could not start: no memory for its ${this.stackSize}-byte stack segment`, { task }));
        return false;
      }
    }
    // The carrier installs the bindings and the segment when it runs the
    // start, and then records the task as the one whose Wasm runs (CURRENT):
    // a wait begun before that is not the task's.
    /** @type {Carriers} */ (this.carrierModule).setStart(task._slot, low);
    // A suspension module made after the carriers (the first one a loaded
    // module brought): the carriers cannot record it.
    if (this.gateWords !== null && !this.carriersSetCurrent) this.gateWords[CURRENT >> 2] = task._slot;
    if (this.trace) this.emit('start', task);
    return true;
  }

  /** @param {Task} task */
  startCarrier(task) {
    this.carriers++;
    if (this.carriers > this.peakCarriers) this.peakCarriers = this.carriers;
    const run = /** @type {(slot: number) => Promise<number>} */ (this.runCarrier);
    run(task._slot).then(this.onCarrierEnd, this.onCarrierFail);
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
    if (task._cancelRequested) {
      this.finishTask(task, TaskState.cancelled, result, CANCELLED_LATER);
    } else {
      this.finishTask(task, TaskState.returned, result, undefined);
    }
    return this.handOver();
  }

  /**
   * What a free carrier does next: the next start, if that start is next in
   * line (its slot); otherwise the scheduler grants what is, and the carrier
   * ends (0) or parks (-1).
   */
  handOver() {
    const following = this.scheduler.takeStartForCarrier();
    if (following !== null) {
      if (this.prepareStart(following)) {
        this.carrierReuses++;
        return following._slot;
      }
      this.scheduler.pump(false);
    }
    if (this.closing || this.idleCarriers.length >= this.maxIdleCarriers) return 0;
    this.parking = true;
    return -1;
  }

  /**
   * A carrier's promise rejected: the task on it, the permit holder, trapped
   * or threw.
   * @param {Task | null} task @param {unknown} error
   */
  carrierFailed(task, error) {
    if (task === null) {
      // Only the permit holder can be running Wasm, so only it can trap.
      throw new InternalError(`a carrier failed while no task held the permit: ${String(error)}`);
    }
    // The overflow hint reads the task's registers; then the defaults go back.
    const overflow = this.stackOverflowHint(task, error);
    this.regs.install(0);
    if (error instanceof ProgramExit) {
      this.finishTask(task, task._cancelRequested ? TaskState.cancelled : TaskState.returned, error.code, undefined);
    } else if (error instanceof CancelledError && task._cancelRequested) {
      // The program chose rejection ('reject'): the cancellation unwound its Wasm.
      this.finishTask(task, TaskState.cancelled, undefined, error);
    } else {
      let message = error instanceof Error ? error.message : String(error);
      if (overflow) message += ` (${overflow})`;
      const failure = new TaskFailedError(`${task.toString().replace(/, \w+\)$/, ')')} failed: ${message}`, { cause: error, task });
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
    if (!regs || /** @type {Carriers} */ (this.carrierModule).lowOf(task._slot) === 0) return '';
    const room = (regs.pointer.value >>> 0) - (regs.limit.value >>> 0);
    if (room < 0 || room > this.stackSize / 4) return '';
    return `probably a stack overflow: ${room} of its ${this.stackSize} stack bytes were left; raise the stackSize option`;
  }

  /**
   * A task that held the permit is done: its stack segment and slot returned,
   * and it leaves the live set. The registers hold the defaults already (its
   * carrier installed them, or carrierFailed() did).
   * @param {Task} task @param {'returned'|'failed'|'cancelled'} how
   * @param {number | undefined} value @param {unknown} error
   */
  finishTask(task, how, value, error) {
    const low = /** @type {Carriers} */ (this.carrierModule).lowOf(task._slot);
    if (low !== 0) {
      if (this.freeStacks.length < this.maxFreeStacks) this.freeStacks.push(low);
      else this.program.stackRelease(low);
    }
    this.releaseSlot(task);
    task.value = value;
    task.error = error;
    const x = task._x;
    if (x instanceof Execution) {
      x.abort = null;
      x.signal = null;
    }
    this.scheduler.finish(task, how);
    this.permitFree();
    if (this.trace) this.emit('finish', task, { how });
  }

  /** @param {Task} task @param {unknown} error */
  failBeforeEntry(task, error) {
    this.releaseSlot(task);
    task.error = error;
    this.scheduler.finish(task, TaskState.failed);
    this.permitFree();
    this.queuePump();
  }

  /** @param {Task} task */
  releaseSlot(task) {
    if (task._slot !== 0) {
      this.slotTasks[task._slot] = undefined;
      this.regs.release(task._slot);
      task._slot = 0;
    }
  }

  /**
   * The resumption was granted the permit: decide what Wasm receives, install
   * the task's registers, settle its gate. This is where the suspension hands
   * a successful result over, or, when cancellation was requested, disposes it.
   * @param {Task} task
   */
  resume(task) {
    const gate = task._exec.gate;
    const reject = task._exec.gateReject;
    const spec = task._exec.wait;
    if (spec === null) throw new InternalError(`${task} was resumed without a wait`);
    const args = task._exec.waitArgs;
    task._exec.gate = null;
    task._exec.gateReject = null;
    task._exec.wait = null;
    task._exec.waitArgs = null;
    const outcome = task._exec.outcome;
    const result = task._exec.result;
    task._exec.result = undefined;
    let delivery;
    if (task._cancelRequested) {
      // Sticky: even a result that was already queued resumes as cancelled.
      // Disposers run outside any task, on the defaults.
      if (outcome === OK) this.dispose(spec, task, result);
      delivery = this.cancelDelivery(spec, task);
      this.regs.install(task._slot);
      if (this.gateWords !== null) this.gateWords[CURRENT >> 2] = task._slot;
    } else {
      // The task's registers first: accepting a result may call into the
      // program (to allocate the memory it is delivered in), on its stack.
      this.regs.install(task._slot);
      if (this.gateWords !== null) this.gateWords[CURRENT >> 2] = task._slot;
      try {
        if (outcome === OK) {
          delivery = spec.accept(result, task, args);
        } else if (result instanceof SnailError && result.code === 'ERR_ADAPTER') {
          // A broken adapter is a bug to fix, not a status to handle: the task fails with it.
          delivery = new Rejection(result);
        } else {
          delivery = spec.failed(result, task, /** @type {any[]} */ (args));
        }
      } catch (error) {
        // Delivering threw (a backend that returned the wrong kind of value):
        // the task fails with the error, as on the direct path; the scheduler
        // goes on.
        delivery = new Rejection(error);
      }
    }
    if (this.trace) this.emit('resume', task, { cancelled: task._cancelRequested });
    if (gate === null || reject === null) {
      // Granted inside its own arrival: the continuation returns the delivery,
      // kept where the operation's result was.
      task._exec.result = delivery;
      task._hasDelivery = true;
    } else if (delivery instanceof Rejection) {
      reject(delivery.error);
    } else {
      gate(delivery);
    }
  }

  stats() {
    const scheduler = this.scheduler.stats();
    return {
      ...scheduler,
      ...this.counters,
      carriers: this.carriers,
      idleCarriers: this.idleCarriers.length,
      peakCarriers: this.peakCarriers,
      carrierReuses: this.carrierReuses,
      stacksInUse: this.scheduler.entered,
      slotsInUse: this.registers ? this.registers.inUse : 0,
      handles: this.handles.size,
      pendingGates: scheduler.suspended,
      pendingCleanups: this.cleanups.size,
      armedListeners: armed.listeners,
      armedTimers: armed.timers,
    };
  }
}

/** The status a join delivers for a finished task. @param {Task} t */
function endStatus(t) {
  if (t._s === S.returned) return Status.ok;
  if (t._s === S.cancelled) return Status.cancelled;
  return Status.failed;
}
