// snail-core: the public API (environment-neutral; the package root).
//
//   import { Runtime } from 'snail-core';
//   const rt = await Runtime.load('app.wasm');
//   const task = rt.dispatch('main', 0);
//   await rt.drain();
//   console.log(await task.result, rt.stats());
//   await rt.close();
/// <reference lib="dom" preserve="true" />
// The API speaks of WebAssembly, AbortSignal, Response and the page's elements,
// which TypeScript declares in its DOM library: the declarations bring it in,
// so that a Node project without "dom" in its lib compiles.
import { describeProgram, runtimeProvides } from './abi.mjs';
import { Bridge, SuspendingImport as SuspendingImportClass } from './bridge.mjs';
import { WaitContext } from './imports.mjs';
import { adoptEmscripten } from './emscripten.mjs';
import { engineRefusal, probeDirectWaits } from './engine-probe.mjs';
import { Task } from './tasks.mjs';
import { cancelsTree } from './task.mjs';
import {
  bestMacrotask, endsProcessQuietly, hasJspi, isSuspending, jspiAdvice, now as clockNow,
} from './capabilities.mjs';
import { checkOptionKeys, isWaitOutsideTask, SnailError } from './errors.mjs';
import { platform } from './platform.mjs';
import { loadModule } from './program.mjs';
import { nameTable, readNames } from './names.mjs';
import { checkLoadOptions, describeValue } from './options.mjs';
import { describeWasmException, instantiationError, isWasmException, programTags, taskFailureReporter } from './failures.mjs';
import { StackMeter } from './stack-use.mjs';
import { ModuleLoader } from './modules.mjs';
import { moduleResolver, sourceName } from './module-sources.mjs';
import { EventRegistry, ProgramMemory, serviceImports } from './services.mjs';
import { Wasi } from './wasi.mjs';

export { AbiError, CancelledError, InternalError, ProgramExit, SnailError, TaskFailedError } from './errors.mjs';
export { ModuleLoadError } from './modules.mjs';
export { Status, statusName } from './status.mjs';
export { Task };
export { TaskState } from './tasks.mjs';
export { hasJspi } from './capabilities.mjs';
export { adapter, armed, emitterEvent, eventOf, fetchResponse, timer } from './adapters.mjs';
export { EventRegistry, MemoryStorage, ServiceError } from './services.mjs';
export { IndexedDBStorage } from './storage-indexeddb.mjs';
export { EventQueue, eventDetail, registerPort, registerQueued, registerSelector } from './page.mjs';
export { WaitContext };
export { DEFAULT_STACK_SIZE } from './options.mjs';

/**
 * Declares a suspending import for the `imports` option of Runtime.load (the
 * suspension bridge for runtime authors). Each call from Wasm suspends the
 * calling task and runs `operation(signal, ...args)`; `signal` aborts when the
 * task's cancellation is requested (an arrow function of no parameters,
 * which cannot see its arguments, is given none, and none is made). With `{ context: true }` the operation
 * receives a WaitContext instead of the signal: `context.signal`,
 * `context.task` (the task that waits), `context.memory` and
 * `context.bytes(pointer, length)` (the program's memory, as it is now). The operation returns one Promise that
 * covers the operation *and* its cleanup. When it fulfils, the task resumes
 * with the value (converted to the import's result type) once it holds the
 * permit again.
 *
 * `discard(result, context)` is an optional synchronous disposer for a
 * successful result that is never delivered: the task was cancelled while the
 * result waited for the permit, or the operation succeeded after cancellation.
 * It runs exactly once per such result and never for delivered results or
 * failures. It may not suspend or re-enter snail-core; asynchronous cleanup it
 * starts goes to `context.track(promise)`, which close() waits for.
 *
 * @template {unknown[]} A  the arguments Wasm passes (numbers, BigInts, references)
 * @template R  what the operation fulfils with
 * @param {((signal: AbortSignal, ...args: A) => PromiseLike<R>) | ((context: WaitContext, ...args: A) => PromiseLike<R>)} operation
 * @param {(result: R, context: DisposeContext) => void} [discard]
 * With the option `shield`, each call runs in a shield of its own: it runs,
 * and delivers its result, although the task's cancellation was requested;
 * its operation gets a signal that aborts only when the shield's deadline
 * (`shield` milliseconds after the call; `true`: none) passes or close()
 * gives up at its timeout, and then the wait ends cancelled (docs/bridge.md).
 *
 * @param {SuspendOptions} [options]  what Wasm receives when the
 *   task was cancelled (`cancelled`, default Status.cancelled) or the operation
 *   rejected (`failed`, default Status.failed); 'reject' throws into Wasm instead
 * @returns {SuspendingImport}
 */
export function suspend(operation, discard, options = {}) {
  if (typeof operation !== 'function') {
    throw new SnailError(`suspend() takes an operation function, got ${typeof operation}`, { code: 'ERR_ARG' });
  }
  if (discard !== undefined && discard !== null && typeof discard !== 'function') {
    throw new SnailError(`the discard argument of suspend() must be a function, got ${typeof discard}`, { code: 'ERR_ARG' });
  }
  checkOptionKeys('suspend()', options, ['cancelled', 'failed', 'context', 'shield'], 'ERR_ARG');
  if (options.context !== undefined && typeof options.context !== 'boolean') {
    throw new SnailError(`suspend() option context must be true or false, got ${typeof options.context}`, { code: 'ERR_ARG' });
  }
  const { shield } = options;
  if (shield !== undefined && typeof shield !== 'boolean' && !(typeof shield === 'number' && shield > 0)) {
    throw new SnailError(`suspend() option shield must be true, false, or the shield's deadline in milliseconds (a number above 0, or Infinity), got ${typeof shield === 'number' ? String(shield) : describeValue(shield)}`, { code: 'ERR_ARG' });
  }
  for (const [key, value] of Object.entries(options)) {
    if (key === 'context' || key === 'shield') continue;
    // A misspelt 'reject' would reach Wasm as 0 (ok) for a numeric result.
    if (typeof value === 'string' && value !== 'reject') {
      throw new SnailError(`suspend() option ${key} is ${JSON.stringify(value)}: give the value Wasm receives (a number, a BigInt for i64) or 'reject'`, { code: 'ERR_ARG' });
    }
  }
  // The bridge hands the disposer only what this operation fulfilled with.
  const dispose = /** @type {((result: unknown, context: DisposeContext) => void) | undefined} */ (discard ?? undefined);
  return new SuspendingImportClass(operation, dispose, options);
}

/**
 * Module `env` with the imports the runtime provides that the program imports
 * (RUNTIME_ENV_IMPORTS), beside the embedder's own `env` imports, which win.
 * @param {import('./abi.mjs').ProgramShape} shape @param {Record<string, Record<string, unknown>>} prepared
 * @returns {Record<string, Record<string, unknown>>}
 */
function runtimeEnv(shape, prepared) {
  const wanted = shape.imports.filter((i) => runtimeProvides(i.module, i.name));
  if (wanted.length === 0) return {};
  /** @type {Record<string, unknown>} */
  const env = {};
  // emscripten_notify_memory_growth: the runtime reads memory.buffer anew at every access.
  for (const i of wanted) env[i.name] = () => {};
  return { env: { ...env, ...prepared.env } };
}

/**
 * The types a program of the API names, exported with the values above.
 * @typedef {import('./bridge.mjs').SuspendOptions} SuspendOptions
 * @typedef {import('./bridge.mjs').DisposeContext} DisposeContext
 * @typedef {import('./bridge.mjs').TraceEvent} TraceEvent
 * @typedef {import('./services.mjs').StorageBackend} StorageBackend
 * @typedef {import('./services.mjs').HostServices} HostServices
 * @typedef {import('./services.mjs').Permissions} Permissions
 * @typedef {import('./storage-indexeddb.mjs').IndexedDBStorageOptions} IndexedDBStorageOptions
 * @typedef {import('./tasks.mjs').TaskStateName} TaskStateName
 * @typedef {import('./task.mjs').CancelOptions} CancelOptions
 * @typedef {import('./emscripten.mjs').EmscriptenFactory} EmscriptenFactory
 * @typedef {import('./emscripten.mjs').EmscriptenOptions} EmscriptenOptions
 * @typedef {import('./page.mjs').RegisterOptions} RegisterOptions
 */
/**
 * What suspend() returns: a suspending import for the `imports` option of
 * Runtime.load. Its members belong to the runtime.
 * @typedef {object} SuspendingImport
 */

/**
 * @template [T=unknown]
 * @typedef {import('./adapters.mjs').AdapterControls<T>} AdapterControls
 */

/**
 * @typedef {import('./program.mjs').ProgramSource} ProgramSource

 * @typedef {import('./options.mjs').RuntimeOptions} RuntimeOptions
 */

/** @typedef {{ name: string, module: string, type: string }} HandlerGlobal */
/**
 * A module loaded into the running program (rt.loadModule).
 * @typedef {{ readonly handle: number, readonly name: string, readonly exports: WebAssembly.Exports, readonly handlers: readonly string[] }} LoadedModule
 */

/**
 * What close() reports.
 * @typedef {object} CloseReport
 * @property {number[]} cancelled  ids of the tasks close() cancelled
 * @property {{ id: number, entry: string, state: TaskStateName, waitingOn: string | null }[]} stuck
 *   tasks still live when close() stopped waiting (only with a timeout)
 * @property {{ id: number, entry: string, waitingOn: string | null }[]} shielded  tasks that
 *   were inside a shield when close() stopped waiting, with what each waited on: their
 *   shields expired then, so their waits ended cancelled (only with a timeout)
 * @property {number} pendingCleanups  asynchronous cleanups that had not settled
 * @property {{ task: number, operation: string, error: unknown }[]} disposerErrors
 *   disposers and drop functions that threw, over the runtime's life
 * @property {number} handlesReleased  task handles the program still held
 * @property {boolean} timedOut  close() stopped waiting at its timeout
 * @property {string[]} abandonedLoads  names of the module loads in flight when close()
 *   was called: each rejected with ERR_CLOSED, and none ran module code
 */

/**
 * The execution context of one program: its instance, its scheduler, its tasks.
 */
export class Runtime {
  /**
   * Loads, checks and instantiates a program.
   * @param {ProgramSource} source  a path (Node), URL, bytes, Response or WebAssembly.Module
   * @param {RuntimeOptions} [options]
   * @returns {Promise<Runtime>}
   */
  static async load(source, options = {}) {
    if (!hasJspi) {
      throw endsProcessQuietly(new SnailError(`snail-core needs JSPI (WebAssembly.Suspending and WebAssembly.promising): ${jspiAdvice()}`, { code: 'ERR_NO_JSPI' }));
    }
    const { stackSize, userImports, maxEntered, hardMaxEntered, maxModuleBytes } = checkLoadOptions(options);
    const loaded = await loadModule(source, { name: options.name, maxBytes: maxModuleBytes });
    const emscripten = await adoptEmscripten(loaded, options);
    const shape = describeProgram(loaded.module, loaded.bytes, {
      name: loaded.name,
      providedImports: (m, n) => (userImports[m] !== undefined && userImports[m][n] !== undefined) || emscripten?.provides(m, n) === true,
      suspendingImport: (m, n) => userImports[m]?.[n] instanceof SuspendingImportClass,
    });

    // Probed once per agent: an engine can accept the wrappers' code and still
    // fail to suspend through it (engine-probe.mjs).
    const refusal = await engineRefusal();
    if (refusal !== null) throw new SnailError(`snail-core cannot run here: ${refusal}`, { code: 'ERR_ENGINE' });
    const directWaits = options.directWaits !== false && (await probeDirectWaits()).ok;

    const macrotask = options.macrotask ?? bestMacrotask().schedule;
    const bridge = new Bridge({
      programName: loaded.name,
      stackSize,
      trace: options.trace,
      directWaits,
      ownCode: options.ownCode,
      scheduler: {
        maxSteps: options.maxSteps,
        maxTimeMs: options.maxTimeMs,
        timeCheckEvery: options.timeCheckEvery,
        maxEntered,
        hardMaxEntered,
        macrotask,
        now: options.now ?? clockNow,
        keepAlive: platform().keepAlive(),
        checkInvariants: options.checkInvariants,
      },
    });
    const wasi = new Wasi({
      args: options.args ?? [loaded.name],
      env: options.env,
      stdout: options.stdout,
      stderr: options.stderr,
    });
    const wasiNames = shape.imports.filter((i) => i.module === 'wasi_snapshot_preview1').map((i) => i.name);
    /** @type {Record<string, Record<string, unknown>>} */
    const prepared = {};
    const importType = (/** @type {string} */ m, /** @type {string} */ n) => shape.imports.find((i) => i.module === m && i.name === n && i.kind === 'function')?.type;
    for (const [moduleName, fields] of Object.entries(userImports)) {
      // The bridge refuses these by instanceof, which JavaScriptCore's Suspending functions are not.
      const foreign = Object.keys(fields).find((f) => !(fields[f] instanceof WebAssembly.Suspending) && isSuspending(fields[f]));
      if (foreign !== undefined) {
        throw new SnailError(`imports.${moduleName}.${foreign} is a WebAssembly.Suspending made outside snail-core; declare it with suspend(operation) so that the scheduler owns its suspension (its gate, the permit, cancellation)`, { code: 'ERR_ADAPTER' });
      }
      prepared[moduleName] = bridge.userImports(moduleName, fields, importType);
    }
    const memory = new ProgramMemory();
    const events = new EventRegistry();
    /** @type {ModuleLoader | null} */
    let loader = null;
    const services = serviceImports(bridge, {
      memory,
      events,
      modules: () => /** @type {ModuleLoader} */ (loader),
      services: options.services ?? {},
      permissions: options.permissions ?? {},
    });
    const importObject = emscripten ? emscripten.importObject(prepared, bridge.imports(services)) : {
      ...prepared,
      ...runtimeEnv(shape, prepared),
      snail: bridge.imports(services),
      wasi_snapshot_preview1: wasi.imports(wasiNames),
    };
    /**
     * The runtime's own Wasm for the program (its memory, its generated
     * modules) could not be made: most likely the engine's address space for
     * Wasm memories is used up by runtimes nobody closed.
     * @param {unknown} error
     */
    const ownWasmFailed = (error) => (error instanceof SnailError ? error : new SnailError(
      `${loaded.name} could not be instantiated: the runtime's own modules for it could not be made: ${message(error)} (every runtime holds Wasm memories until close())`,
      { cause: error, code: 'ERR_LINK' },
    ));
    try {
      bridge.link(/** @type {any} */ (importObject), shape);
    } catch (error) {
      throw ownWasmFailed(error);
    }

    // Failed tasks are reported (and their uncaught exceptions read) with the
    // tags of the program, known once it is instantiated.
    /** @type {Map<object, string>} */
    let tags = new Map();
    /** @type {WebAssembly.Memory | null} */
    let programMemory = null;
    const meter = options.measureStacks ? new StackMeter({ memory: () => programMemory, size: stackSize }) : null;
    bridge.measureStacks(meter);
    bridge.onFailure = taskFailureReporter({
      tags: () => tags,
      onTaskFailed: options.onTaskFailed,
      stackNote: (task, text) => {
        const used = meter?.used(task) ?? null;
        if (used !== null) return `its stack reached ${used} of its ${stackSize} bytes`;
        return /probably a stack overflow/.test(text) ? 'Runtime.load(file, { measureStacks: true }) measures how much stack each task uses' : null;
      },
    });
    let instance;
    try {
      instance = await WebAssembly.instantiate(loaded.module, /** @type {any} */ (importObject));
    } catch (error) {
      throw instantiationError(loaded.name, loaded.bytes, error, programTags({ exports: {} }, /** @type {any} */ (importObject)));
    }
    tags = programTags(instance, /** @type {any} */ (importObject));
    if (instance.exports.memory instanceof WebAssembly.Memory && shape.stack) programMemory = instance.exports.memory;
    wasi.attach(instance);
    memory.attach(instance);
    // Children are named after the functions they run, where the program has names.
    const table = instance.exports.__indirect_function_table;
    if (table instanceof WebAssembly.Table) nameTable(table, readNames(loaded.bytes));
    try {
      bridge.attach(instance, shape);
    } catch (error) {
      throw ownWasmFailed(error);
    }
    bridge.attachNativeDisposers();
    if (emscripten) await emscripten.finish(instance, loaded.module);
    const init = instance.exports._initialize;
    if (typeof init === 'function') {
      try {
        init();
      } catch (error) {
        // A wait outside any task: say what it means.
        const why = isWaitOutsideTask(error)
          ? 'it called a suspending snail import outside a task; waits are only allowed in tasks'
          : isWasmException(error) ? describeWasmException(error, tags) : message(error);
        throw new SnailError(`${loaded.name} failed during its initialisation (_initialize): ${why}`, { cause: error, code: 'ERR_INIT' });
      }
    }
    bridge.captureDefaults();
    loader = new ModuleLoader({
      bridge,
      program: instance,
      resolve: moduleResolver(options.modules, source),
      maxBytes: maxModuleBytes,
      userImports: prepared,
      wasi,
    });
    return new Runtime(bridge, instance, loaded.name, shape, events, loader, meter);
  }

  /**
   * Use Runtime.load().
   * @internal
   * @param {Bridge} bridge @param {WebAssembly.Instance} instance @param {string} name
   * @param {import('./abi.mjs').ProgramShape} shape @param {EventRegistry} events
   * @param {ModuleLoader} loader @param {StackMeter | null} [meter]
   */
  constructor(bridge, instance, name, shape, events, loader, meter = null) {
    /** @internal */ this.bridge = bridge;
    /** @internal */ this.meter = meter;
    /** The program's instance. Do not call its exports while tasks run. */
    this.instance = instance;
    /** The program's name, as used in messages. */
    this.name = name;
    /** The program's entry names. @type {readonly string[]} */
    this.entries = Object.freeze([...shape.entries]);
    /**
     * Every handler global of the program, in register order.
     * @type {readonly HandlerGlobal[]}
     */
    /** @internal */ this.loader = loader;
    /** @internal */ this.closed = false;
    /**
     * Named event sources the program waits on with snail.event_wait:
     * `rt.events.register('click #save', button, 'click')`.
     */
    this.events = events;
  }

  /**
   * Every handler global of the program and of the modules loaded into it, in
   * register order.
   * @type {readonly HandlerGlobal[]}
   */
  get handlerGlobals() {
    return Object.freeze(this.bridge.regs.layout.registers
      .filter((r) => r.role === 'handler')
      .map((r) => Object.freeze({ name: r.name, module: r.module, type: r.type })));
  }

  /**
   * Loads a module into the running program (docs/abi.md, "Dynamically loaded
   * modules"): a side module following the dynamic-linking conventions, or a
   * plain module importing what the program exports. Its handler globals join
   * the register file, null in every existing task. Loading a name that is
   * already loaded returns that module. Modules cannot be unloaded.
   * @overload
   * @param {string | URL} source  a path or URL, which names the module unless `options.name` does
   * @param {{ name?: string }} [options]
   * @returns {Promise<LoadedModule>}
   */
  /**
   * @overload
   * @param {ProgramSource} source  bytes, a Response or a WebAssembly.Module: `options.name` names it
   * @param {{ name: string }} options
   * @returns {Promise<LoadedModule>}
   */
  /**
   * @param {ProgramSource} source @param {{ name?: string }} [options]
   * @returns {Promise<LoadedModule>}
   */
  async loadModule(source, options = {}) {
    this.bridge.refuseReentry('rt.loadModule()');
    if (this.closed) throw new SnailError(`cannot load a module: the runtime of ${this.name} is closed`, { code: 'ERR_CLOSED' });
    checkOptionKeys('rt.loadModule()', options, ['name'], 'ERR_ARG');
    if (options.name !== undefined && typeof options.name !== 'string') {
      throw new SnailError(`rt.loadModule(): option name must be a string, got ${typeof options.name}`, { code: 'ERR_ARG' });
    }
    const name = options.name ?? sourceName(source);
    const record = await this.loader.load(source, name);
    return Object.freeze({ handle: record.handle, name: record.name, exports: record.instance.exports, handlers: Object.freeze([...record.handlers]) });
  }

  /** The modules loaded into the program, in load order. */
  get modules() {
    return [...this.loader.byName.values()].map((r) => Object.freeze({ handle: r.handle, name: r.name, handlers: Object.freeze([...r.handlers]) }));
  }

  /**
   * Dispatches a root task running the entry `entry` with `arg`. The task is in
   * the live set when this returns; it starts from the runtime's default
   * handler bindings.
   * @param {string} [entry]  an entry name (see `entries`); default "main"
   * @param {number} [arg]  a 32-bit integer passed to the entry
   * @returns {Task}
   */
  dispatch(entry = 'main', arg = 0) {
    if (this.bridge.broken !== null) throw this.bridge.broken;
    if (this.closed) {
      // Any value, an object without a prototype included, makes the message.
      const what = typeof entry === 'string' ? `"${entry}"` : `an entry given as ${describeValue(entry)}`;
      throw new SnailError(`cannot dispatch ${what}: the runtime of ${this.name} is closed`, { code: 'ERR_CLOSED' });
    }
    if (typeof entry !== 'string') {
      throw new SnailError(`dispatch() takes an entry name, got ${typeof entry}`, { code: 'ERR_ARG' });
    }
    if (typeof arg !== 'number' || !Number.isInteger(arg) || arg < -(2 ** 31) || arg >= 2 ** 32) {
      throw new SnailError(`the argument of dispatch("${entry}") must be a 32-bit integer, signed or unsigned (from -2147483648 to 4294967295), got ${typeof arg === 'number' ? String(arg) : describeValue(arg)}`, { code: 'ERR_ARG' });
    }
    return this.bridge.dispatchEntry(entry, arg | 0);
  }

  /**
   * Resolves when the live set is empty: at once if it already is. Work
   * dispatched after that begins a new interval, which a new drain() waits for.
   * @returns {Promise<void>}
   */
  drain() {
    return this.bridge.drain();
  }

  /**
   * Requests cancellation of a task (a Task of this runtime or its id). Sticky:
   * a queued task is discarded at once and never enters Wasm; a suspended task
   * resumes with the cancellation and unwinds before it leaves the live set; an
   * executing task sees it at its next wait or check.
   *
   * With `{ children: true }`, of the task's tree too: every task it
   * dispatched, transitively, also through tasks that finished (see
   * `task.cancel()`); true if the task or a task of its tree was live.
   *
   * The argument is a Task of this runtime or a task id, a positive integer
   * (`task.id`); an id no live task has gives false. Anything else (another
   * runtime's task, a string, 0, a negative or fractional number, NaN) is
   * refused with ERR_ARG.
   * @param {Task | number} taskOrId
   * @param {CancelOptions} [options]
   * @returns {boolean} true if the task was live
   */
  cancel(taskOrId, options) {
    this.bridge.refuseReentry('rt.cancel()');
    const tree = cancelsTree('rt.cancel()', options);
    let task;
    if (taskOrId instanceof Task) {
      if (taskOrId._owner !== this.bridge) {
        throw new SnailError(`${taskOrId} belongs to another runtime`, { code: 'ERR_ARG' });
      }
      task = taskOrId;
    } else if (Number.isSafeInteger(taskOrId) && /** @type {number} */ (taskOrId) > 0) {
      // Ids of live tasks are rare lookups: no index is kept for them.
      for (const t of this.bridge.liveTasks()) {
        if (t.id === taskOrId) task = t;
      }
      if (!task) return false;
    } else {
      throw new SnailError(`cancel() takes a Task or a task id, a positive integer (task.id), got ${describeValue(taskOrId)}`
        + (typeof taskOrId === 'string' && /^\d+$/.test(taskOrId) ? `; pass the number: cancel(${Number(taskOrId)})` : ''), { code: 'ERR_ARG' });
    }
    return tree ? this.bridge.cancelTree(task) : this.bridge.cancel(task);
  }

  /**
   * Closes the runtime: refuses new work with a clear error, cancels every live
   * task, and waits for them to unwind, for their adapters' cleanup and for
   * the asynchronous cleanup disposers handed over. Resolves with a report.
   *
   * With `timeout` (milliseconds), close() stops waiting after that long and
   * reports the tasks still live and what each waits on (`stuck`); they stay
   * cancelled and finish if their operations ever settle. Without it, an
   * operation that never settles holds close() forever.
   * @param {{ timeout?: number }} [options]
   * @returns {Promise<CloseReport>}
   */
  async close(options = {}) {
    this.bridge.refuseReentry('rt.close()');
    checkOptionKeys('close()', options, ['timeout'], 'ERR_ARG');
    const { timeout } = options;
    if (timeout !== undefined && !(typeof timeout === 'number' && timeout >= 0)) {
      throw new SnailError(`close(): timeout must be a number of milliseconds >= 0, got ${String(timeout)}`, { code: 'ERR_ARG' });
    }
    this.closed = true;
    this.bridge.beginClose();
    // No module code runs in a closing runtime: loads in flight stop here.
    const abandonedLoads = this.loader.close(this.name);
    this.events.refuse(`the runtime of ${this.name} is closed`);
    const cancelled = [];
    for (const task of this.tasks()) {
      if (!task._cancelRequested) cancelled.push(task.id);
      this.bridge.cancel(task);
    }
    const everything = (async () => {
      await this.drain();
      // Nothing can wait on an event source any more: queues stop listening.
      this.events.clear();
      await this.bridge.settleAfterDrain();
    })();
    let timedOut = false;
    if (timeout === undefined) {
      await everything;
    } else {
      /** @type {any} */
      let timerId;
      const expired = new Promise((resolve) => { timerId = setTimeout(resolve, timeout, 'timeout'); });
      timedOut = (await Promise.race([everything.then(() => 'done'), expired])) === 'timeout';
      clearTimeout(timerId);
    }
    // The timeout bounds shields too: their waits end cancelled now.
    const shielded = timedOut ? this.bridge.cutShields() : [];
    const stuck = this.tasks().map((t) => ({ id: t.id, entry: t.entry, state: t.state, waitingOn: t.waitingOn }));
    let handlesReleased = 0;
    if (!timedOut) handlesReleased = this.bridge.finishClose();
    return {
      cancelled,
      stuck,
      shielded,
      pendingCleanups: this.bridge.pendingCleanups,
      disposerErrors: this.bridge.disposerErrors,
      handlesReleased,
      timedOut,
      abandonedLoads,
    };
  }

  /** The live tasks, oldest first (the live set keeps dispatch order). @returns {Task[]} */
  tasks() {
    return this.bridge.liveTasks();
  }

  /**
   * The scheduler's counters, each a number: the live tasks by state, totals
   * since load, peaks, and what the runtime holds (docs/api.md lists them all).
   */
  stats() {
    return { ...this.bridge.stats(), stackPeak: this.meter === null ? 0 : this.meter.peak };
  }

  /**
   * How many bytes of its stack segment a task has used: the high-water mark
   * of a finished task, or what a live one has used so far. Null unless the
   * runtime measures stacks (the measureStacks option) and the task ran on a
   * segment. Choose stackSize above the largest, with room to spare
   * (docs/api.md, "Choosing stackSize").
   * @param {Task} task
   * @returns {number | null}
   */
  stackUse(task) {
    if (!(task instanceof Task) || task._owner !== this.bridge) {
      throw new SnailError('stackUse() takes a task of this runtime', { code: 'ERR_ARG' });
    }
    return this.meter === null ? null : this.meter.used(task);
  }

  /** Checks the scheduler's invariants; throws an InternalError if one is broken. */
  assertInvariants() {
    this.bridge.assertInvariants();
  }

  /**
   * The bounds the scheduler applies: admission control's maxEntered and
   * hardMaxEntered, and each turn's budget, maxSteps and maxTimeMs.
   */
  get limits() {
    return this.bridge.limits;
  }
}

/** @param {unknown} e */
function message(e) {
  return e instanceof Error ? e.message : String(e);
}
