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
import { DEFAULT_MAX_MODULE_BYTES, loadModule } from './program.mjs';
import { nameTable, readNames } from './names.mjs';
import { describeWasmException, instantiationError, isWasmException, programTags, taskFailureReporter } from './failures.mjs';
import { StackMeter } from './stack-use.mjs';
import { ModuleLoader } from './modules.mjs';
import { checkNetGrants, EventRegistry, ProgramMemory, serviceImports } from './services.mjs';
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

/**
 * Declares a suspending import for the `imports` option of Runtime.load (the
 * suspension bridge for runtime authors). Each call from Wasm suspends the
 * calling task and runs `operation(signal, ...args)`; `signal` aborts when the
 * task's cancellation is requested. With `{ context: true }` the operation
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

/** Default size of each task's shadow-stack segment, in bytes. */
export const DEFAULT_STACK_SIZE = 32 * 1024;

/** The names of the options Runtime.load() takes (RuntimeOptions). */
const RUNTIME_OPTIONS = Object.freeze([
  'name', 'args', 'env', 'stdout', 'stderr', 'imports', 'stackSize', 'maxSteps', 'maxTimeMs',
  'timeCheckEvery', 'maxEntered', 'hardMaxEntered', 'macrotask', 'now', 'checkInvariants',
  'services', 'permissions', 'modules', 'maxModuleBytes', 'emscripten', 'directWaits', 'measureStacks', 'onTaskFailed', 'trace',
]);

/** What each option of Runtime.load() must be, where its type alone decides. */
const OPTION_KINDS = Object.freeze({
  name: 'a string',
  args: 'an array of strings',
  env: 'an object of strings',
  stdout: 'a function',
  stderr: 'a function',
  imports: 'an object of objects',
  macrotask: 'a function',
  now: 'a function',
  trace: 'a function',
  onTaskFailed: 'a function',
  checkInvariants: 'a boolean',
  measureStacks: 'a boolean',
  directWaits: 'a boolean',
  services: 'an object',
  permissions: 'an object',
  modules: 'a function or an object',
  // emscripten is checked where it is adopted, with what emcc makes in mind.
});

/** @param {unknown} v */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A value as a refusal names it ("an array", "\"yes\"", "number 5"). @param {unknown} value */
function describeValue(value) {
  return value === null || value === undefined ? String(value) : Array.isArray(value) ? 'an array' : typeof value === 'string' ? JSON.stringify(value)
    : typeof value === 'object' ? 'an object' : typeof value === 'function' ? 'a function' : `${typeof value} ${String(value)}`;
}

/** Whether `v` is one of the kinds of ProgramSource. @param {unknown} v */
function isProgramSource(v) {
  return typeof v === 'string' || v instanceof URL || v instanceof ArrayBuffer || ArrayBuffer.isView(v)
    || v instanceof WebAssembly.Module || (typeof Response === 'function' && v instanceof Response);
}

/** The methods each service must have, and those it may have. @type {Readonly<Record<string, { needs: string[], may: string[] }>>} */
const SERVICE_METHODS = Object.freeze({
  storage: { needs: ['get', 'put', 'delete', 'list'], may: [] },
  files: { needs: ['read', 'write'], may: [] },
  stdin: { needs: ['line'], may: ['unread'] },
});

/**
 * Refuses a `services` option with a service the runtime does not know, or a
 * service without the methods it is called through (a storage object of the
 * wrong shape would otherwise fail only when a task first uses it).
 * @param {unknown} services
 */
function checkServices(services) {
  checkOptionKeys('option services', services, Object.keys(SERVICE_METHODS), 'ERR_OPTION');
  for (const [name, { needs, may }] of Object.entries(SERVICE_METHODS)) {
    const service = services[name];
    if (service === undefined) continue;
    if (service === null || (typeof service !== 'object' && typeof service !== 'function')) {
      throw new SnailError(`option services.${name} must be an object with the methods ${needs.join(', ')}, got ${describeValue(service)}`, { code: 'ERR_OPTION' });
    }
    for (const method of [...needs, ...may]) {
      const fn = /** @type {Record<string, unknown>} */ (service)[method];
      if (typeof fn === 'function' || (fn === undefined && may.includes(method))) continue;
      throw new SnailError(`option services.${name} has no method ${method}, or it is not a function (a ${name} service needs ${needs.join(', ')}; see docs/api.md)`, { code: 'ERR_OPTION' });
    }
  }
}

/** @type {Record<string, (v: unknown) => boolean>} */
const IS_KIND = {
  'a string': (v) => typeof v === 'string',
  'an array of strings': (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
  'an object of strings': (v) => isObject(v) && Object.values(/** @type {object} */ (v)).every((x) => typeof x === 'string'),
  'a function': (v) => typeof v === 'function',
  'an object of objects': (v) => isObject(v) && Object.values(/** @type {object} */ (v)).every(isObject),
  'a boolean': (v) => typeof v === 'boolean',
  'an object': isObject,
  'a function or an object': (v) => typeof v === 'function' || isObject(v),
};

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
 * Refuses an option of the wrong type at load time, before it could fail
 * later, far from its cause. Numeric options are checked where they are used.
 * @param {Record<string, unknown>} options
 */
function checkOptionTypes(options) {
  for (const [key, kind] of Object.entries(OPTION_KINDS)) {
    const value = options[key];
    if (value === undefined || IS_KIND[kind](value)) continue;
    throw new SnailError(`option ${key} must be ${kind}, got ${describeValue(value)}`, { code: 'ERR_OPTION' });
  }
  if (options.permissions !== undefined) {
    checkOptionKeys('option permissions', options.permissions, ['net'], 'ERR_OPTION');
    if (options.permissions.net !== undefined) checkNetGrants(options.permissions.net, 'option permissions.net');
  }
  if (options.services !== undefined) checkServices(options.services);
  if (isObject(options.modules)) {
    for (const [name, source] of Object.entries(/** @type {object} */ (options.modules))) {
      if (!isProgramSource(source)) {
        throw new SnailError(`option modules.${name} must be where the module is (a path, URL, bytes, Response or WebAssembly.Module), got ${describeValue(source)}`, { code: 'ERR_OPTION' });
      }
    }
  }
  for (const key of ['maxEntered', 'hardMaxEntered', 'maxModuleBytes']) {
    const value = options[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && /** @type {number} */ (value) > 0)) {
      throw new SnailError(`option ${key} must be a positive integer, got ${describeValue(value)}`, { code: 'ERR_OPTION' });
    }
  }
  const { maxEntered, hardMaxEntered } = /** @type {{ maxEntered?: number, hardMaxEntered?: number }} */ (options);
  if (maxEntered !== undefined && hardMaxEntered !== undefined && maxEntered > hardMaxEntered) {
    throw new SnailError(`option maxEntered (${maxEntered}) is above hardMaxEntered (${hardMaxEntered}); the soft bound must not exceed the hard one`, { code: 'ERR_OPTION' });
  }
}

/**
 * The bounds on entered tasks a runtime applies: the options, else the
 * platform's defaults. An explicit bound above what the platform survives is
 * refused: beyond it V8 aborts the whole process, which no error can report.
 * @param {{ maxEntered?: number, hardMaxEntered?: number }} options  checked by checkOptionTypes
 */
function enteredBounds(options) {
  const limits = platform().stackLimits();
  for (const key of /** @type {const} */ (['maxEntered', 'hardMaxEntered'])) {
    const value = options[key];
    if (value !== undefined && limits.ceiling !== null && value > limits.ceiling) {
      throw new SnailError(`option ${key} (${value}) is above ${limits.ceiling}, the most this platform allows${limits.advice ? `: ${limits.advice}` : ''}`, { code: 'ERR_OPTION' });
    }
  }
  const maxEntered = options.maxEntered ?? limits.soft;
  // A soft bound above the default hard bound raises the hard bound to it.
  return { maxEntered, hardMaxEntered: options.hardMaxEntered ?? Math.max(limits.hard, maxEntered) };
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
 *
 * @typedef {object} RuntimeOptions
 * @property {string} [name]  the program's name in messages (default: its path or URL)
 * @property {string[]} [args]  the program's argv (WASI), program name first
 * @property {Record<string, string>} [env]  environment variables the program sees (WASI)
 * @property {(text: string) => void} [stdout]  sink for the program's standard output
 * @property {(text: string) => void} [stderr]  sink for the program's standard error
 * @property {Record<string, Record<string, unknown>>} [imports]  further imports the program needs
 * @property {number} [stackSize]  bytes of shadow stack per task (default 32 KiB)
 * @property {number} [maxSteps]  permit grants per event-loop turn (default 4096)
 * @property {number} [maxTimeMs]  milliseconds of stepping per event-loop turn (default 0.5)
 * @property {number} [timeCheckEvery]  read the clock at most this many steps apart
 *   (default 1024); it is read about every sixteenth of maxTimeMs at the pace of the
 *   turn's steps so far: reading the clock costs more than a step, and a turn may run
 *   past maxTimeMs by the steps between readings
 * @property {number} [maxEntered]  tasks that may have entered Wasm at once before new
 *   starts wait (default: derived from the platform, at most 10,000); refused above
 *   what the platform survives (under Linux a third of vm.max_map_count)
 * @property {number} [hardMaxEntered]  absolute bound, joined children included
 * @property {number} [maxModuleBytes]  the largest module file read from a path, the
 *   program's and those loaded later (default 1 GiB, V8's limit for a module)
 * @property {(callback: () => void) => void} [macrotask]  how to yield one event-loop turn
 * @property {() => number} [now]  monotonic clock in milliseconds
 * @property {boolean} [checkInvariants]  check the scheduler's invariants after every step
 * @property {import('./services.mjs').HostServices} [services]  storage, files and standard
 *   input for the host services (default: storage in memory, no files, no input)
 * @property {import('./services.mjs').Permissions} [permissions]  what the program may reach
 *   (default: nothing)
 * @property {((name: string) => unknown) | Record<string, unknown>} [modules]  where a task's
 *   snail.module_load(name) finds a module (default: `name.wasm` beside the program)
 * @property {import('./emscripten.mjs').EmscriptenFactory | import('./emscripten.mjs').EmscriptenOptions} [emscripten]
 *   the factory emcc generated with -sMODULARIZE for a program linked with Emscripten's
 *   JavaScript, or { factory, module } (docs/emscripten.md)
 * @property {boolean} [directWaits]  wrap waits in the suspension module, one promise hop
 *   each (default: true where the engine can suspend through it, which a probe at the
 *   first load finds out; false, or an engine that cannot, makes every wait take one
 *   more promise hop)
 * @property {(event: import('./bridge.mjs').TraceEvent) => void} [trace]  receives every task
 *   event (dispatch, start, suspend with what it waits on, resume, finish with how, cancel,
 *   discard, dispose), synchronously, for tracing tools
 * @property {boolean} [measureStacks]  measure how much of its stack segment each task
 *   uses (rt.stackUse(task), stats().stackPeak); off by default: each finish then scans
 *   the part of the segment its task left untouched, and tasks start and finish
 *   through wrappers of the bridge's methods
 * @property {(task: Task) => void} [onTaskFailed]  receives every task that fails (traps,
 *   throws, or cannot start), once, right after it failed and outside the scheduler's
 *   work; `task.error` says why. It must not throw
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
    checkOptionKeys('Runtime.load()', options, RUNTIME_OPTIONS, 'ERR_OPTION');
    checkOptionTypes(options);
    const stackSize = options.stackSize ?? DEFAULT_STACK_SIZE;
    if (!Number.isInteger(stackSize) || stackSize < 1024 || stackSize > 64 * 1024 * 1024) {
      throw new SnailError(`option stackSize must be an integer between 1024 and 67108864 bytes, got ${String(options.stackSize)}`, { code: 'ERR_OPTION' });
    }
    const userImports = options.imports ?? {};
    for (const reserved of ['snail', 'wasi_snapshot_preview1']) {
      if (reserved in userImports) {
        throw new SnailError(`the imports option may not provide module "${reserved}": the runtime provides it`, { code: 'ERR_OPTION' });
      }
    }

    const bounds = enteredBounds(options);
    const maxModuleBytes = options.maxModuleBytes ?? DEFAULT_MAX_MODULE_BYTES;
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
      scheduler: {
        maxSteps: options.maxSteps,
        maxTimeMs: options.maxTimeMs,
        timeCheckEvery: options.timeCheckEvery,
        maxEntered: bounds.maxEntered,
        hardMaxEntered: bounds.hardMaxEntered,
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

/**
 * The name a module source is loaded under by default.
 * @param {unknown} source
 */
function sourceName(source) {
  if (typeof source === 'string') return source;
  if (source instanceof URL) return source.href;
  const g = /** @type {any} */ (globalThis);
  if (typeof g.Response === 'function' && source instanceof g.Response && /** @type {any} */ (source).url) return /** @type {any} */ (source).url;
  throw new SnailError('loadModule(): give a name ({ name }) to a module loaded from bytes, a Response or a WebAssembly.Module', { code: 'ERR_ARG' });
}

/**
 * How a task's snail.module_load(name) finds a module: the `modules` option (a
 * function, or a record of name to source), else a file or URL beside the
 * program, with ".wasm" added to a name without an extension.
 * @param {RuntimeOptions['modules']} option @param {unknown} programSource
 */
function moduleResolver(option, programSource) {
  if (typeof option === 'function') return option;
  if (option && typeof option === 'object') return (/** @type {string} */ name) => /** @type {any} */ (option)[name];
  return (/** @type {string} */ name) => {
    if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) {
      throw new Error(`"${name}" is not a plain module name (letters, digits, '.', '_' and '-'); pass the modules option to load others`);
    }
    const file = /\.\w+$/.test(name) ? name : `${name}.wasm`;
    if (typeof programSource === 'string' || programSource instanceof URL) {
      const base = programSource instanceof URL ? programSource.href : programSource;
      if (/^[a-z][\w+.-]*:/i.test(base)) return new URL(file, base);
      const slash = base.lastIndexOf('/');
      return `${slash >= 0 ? base.slice(0, slash + 1) : ''}${file}`;
    }
    throw new Error('the program was not loaded from a path or URL, so modules have no place beside it; pass the modules option');
  };
}

/** @param {unknown} e */
function message(e) {
  return e instanceof Error ? e.message : String(e);
}
