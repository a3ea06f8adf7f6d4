// The options of Runtime.load() (internal): their names, what each must be,
// and the checks that refuse a bad one at load time, before it could fail
// later, far from its cause, with the defaults the checked options come to.
import { checkOptionKeys, SnailError } from './errors.mjs';
import { platform } from './platform.mjs';
import { DEFAULT_MAX_MODULE_BYTES } from './program.mjs';
import { checkNetGrants } from './services.mjs';

/** Default size of each task's shadow-stack segment, in bytes. */
export const DEFAULT_STACK_SIZE = 32 * 1024;

/**
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
 * @property {boolean} [ownCode]  give the waits of each import code of its own, made with
 *   `new Function` from the runtime's source, so that the engine compiles them for this
 *   runtime alone (default: true; where the page's Content-Security-Policy forbids
 *   evaluating strings, the first copy is refused and every runtime shares the code).
 *   false shares it from the start, and evaluates nothing a report-only policy would report
 * @property {(event: import('./bridge.mjs').TraceEvent) => void} [trace]  receives every task
 *   event (dispatch, start, suspend with what it waits on, resume, finish with how, cancel,
 *   discard, dispose), synchronously, for tracing tools
 * @property {boolean} [measureStacks]  measure how much of its stack segment each task
 *   uses (rt.stackUse(task), stats().stackPeak); off by default: each finish then scans
 *   the part of the segment its task left untouched, and tasks start and finish
 *   through wrappers of the bridge's methods
 * @property {(task: import('./task.mjs').Task) => void} [onTaskFailed]  receives every task that fails (traps,
 *   throws, or cannot start), once, right after it failed and outside the scheduler's
 *   work; `task.error` says why. It must not throw
 */

/** The names of the options Runtime.load() takes (RuntimeOptions). */
export const RUNTIME_OPTIONS = Object.freeze([
  'name', 'args', 'env', 'stdout', 'stderr', 'imports', 'stackSize', 'maxSteps', 'maxTimeMs',
  'timeCheckEvery', 'maxEntered', 'hardMaxEntered', 'macrotask', 'now', 'checkInvariants',
  'services', 'permissions', 'modules', 'maxModuleBytes', 'emscripten', 'directWaits', 'ownCode', 'measureStacks', 'onTaskFailed', 'trace',
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
  ownCode: 'a boolean',
  services: 'an object',
  permissions: 'an object',
  modules: 'a function or an object',
  // emscripten is checked where it is adopted, with what emcc makes in mind.
});

/** @param {unknown} v */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A value as a refusal names it ("an array", "\"yes\"", "number 5"). @param {unknown} value */
export function describeValue(value) {
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
 * Checks the options of Runtime.load() and gives what the runtime is made
 * with: the options, else their defaults.
 * @param {RuntimeOptions} options
 */
export function checkLoadOptions(options) {
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
  const { maxEntered, hardMaxEntered } = enteredBounds(options);
  return { stackSize, userImports, maxEntered, hardMaxEntered, maxModuleBytes: options.maxModuleBytes ?? DEFAULT_MAX_MODULE_BYTES };
}
