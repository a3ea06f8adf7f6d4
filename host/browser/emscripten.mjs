// Programs built with Emscripten's generated JavaScript (docs/emscripten.md).
//
// emcc -sMODULARIZE writes a factory function next to the Wasm module: called
// with a Module object, it sets up Emscripten's runtime (its heap views, file
// system, printing, the JavaScript library functions the module imports from
// `env` and `wasi_snapshot_preview1`), asks for the Wasm instance through the
// documented hook `Module.instantiateWasm(imports, receiveInstance)`, and,
// once it has it, runs the C++ constructors and resolves. Runtime.load adopts
// such a program at that hook: the factory's imports are merged with module
// `snail` and the embedder's imports, the bridge links the suspending imports
// (the same as for a WASI program), the runtime instantiates the module
// itself, attaches the scheduler, and only then hands the instance back to
// Emscripten to finish its start-up. From then on the program's tasks are
// ordinary snail-core tasks; Emscripten's JavaScript is only what its imports
// call.
import { InternalError, isWaitOutsideTask, ProgramExit, SnailError } from './errors.mjs';
import { isThenable } from './promises.mjs';
import { defaultSink } from './wasi.mjs';

/** The custom section tools/wasm/postlink-emscripten.mjs adds. */
export const EMSCRIPTEN_SECTION = 'snail.emscripten';

/**
 * The factory emcc generates with -sMODULARIZE (its -sEXPORT_NAME, by default
 * `Module`): called with a Module object, it returns a Promise of it.
 * @typedef {(moduleArg?: Record<string, unknown>) => PromiseLike<unknown>} EmscriptenFactory
 *
 * @typedef {object} EmscriptenOptions
 * @property {EmscriptenFactory} factory
 * @property {Record<string, unknown>} [module]  properties for Emscripten's Module object
 *   (`print`, `preRun`, `locateFile`, ...). This object *becomes* the Module object, so the
 *   embedder can keep it to reach `HEAPU8`, `ccall` and the other exported runtime methods
 *   after loading. `instantiateWasm`, `noInitialRun` and `quit` are the runtime's.
 */

/**
 * Emscripten's start-up, paused at `instantiateWasm`.
 * @typedef {object} EmscriptenStart
 * @property {Record<string, any>} module  Emscripten's Module object
 * @property {(moduleName: string, field: string) => boolean} provides  whether Emscripten's
 *   JavaScript provides an import
 * @property {(user: Record<string, Record<string, unknown>>, snail: Record<string, unknown>) =>
 *   Record<string, Record<string, unknown>>} importObject  the program's import object: Emscripten's
 *   modules, the embedder's fields over them, and module `snail`
 * @property {(instance: WebAssembly.Instance, module: WebAssembly.Module) => Promise<void>} finish
 *   hands the instance to Emscripten, which runs the constructors; resolves when its runtime is ready
 */

/**
 * Starts the Emscripten factory of the `emscripten` option up to its
 * `instantiateWasm` hook, or returns null for a program without one. Checks
 * that the option and the module belong together.
 * @param {{ module: WebAssembly.Module, name: string }} loaded
 * @param {{ emscripten?: EmscriptenFactory | EmscriptenOptions, stdout?: (text: string) => void,
 *           stderr?: (text: string) => void, args?: string[], env?: Record<string, string> }} options
 * @returns {Promise<EmscriptenStart | null>}
 */
export async function adoptEmscripten(loaded, options) {
  const { name } = loaded;
  const marked = WebAssembly.Module.customSections(loaded.module, EMSCRIPTEN_SECTION).length > 0;
  if (options.emscripten === undefined) {
    if (marked) {
      throw new SnailError(`${name} was linked with the JavaScript emcc generated: pass that JavaScript's factory, Runtime.load(program, { emscripten: createModule }) (docs/emscripten.md)`, { code: 'ERR_OPTION' });
    }
    return null;
  }
  const { factory, moduleArg } = factoryOf(options.emscripten);
  for (const key of /** @type {const} */ (['args', 'env'])) {
    if (options[key] !== undefined) {
      throw new SnailError(`option ${key} is for WASI programs; ${name} uses Emscripten's runtime: give ${key === 'args' ? '`arguments`' : 'the variables (its `ENV`, in `preRun`)'} to it through emscripten.module (docs/emscripten.md)`, { code: 'ERR_OPTION' });
    }
  }
  if (!marked) {
    const exports = WebAssembly.Module.exports(loaded.module).map((e) => e.name);
    const standalone = exports.some((n) => n.startsWith('snail.entry.')) && !exports.some((n) => n.startsWith('snail__entry__'));
    throw new SnailError(standalone
      ? `${name} is a program without Emscripten's JavaScript (wasm32-wasi or standalone): load it without the emscripten option`
      : `${name} was not post-linked for Emscripten's JavaScript: run node tools/wasm/postlink-emscripten.mjs on the .wasm emcc wrote (snail_add_emscripten_program does; docs/emscripten.md)`, { code: 'ERR_LINK' });
  }
  return start(factory, moduleArg, name, options);
}

/** @param {unknown} option @returns {{ factory: EmscriptenFactory, moduleArg: Record<string, any> }} */
function factoryOf(option) {
  /** @type {unknown} */
  let factory = option;
  /** @type {unknown} */
  let moduleArg = {};
  if (option !== null && typeof option === 'object' && !Array.isArray(option)) {
    const o = /** @type {Record<string, unknown>} */ (option);
    for (const key of Object.keys(o)) {
      if (key !== 'factory' && key !== 'module') {
        throw new SnailError(`option emscripten has no property "${key}"; it is the factory emcc generated, or { factory, module }`, { code: 'ERR_OPTION' });
      }
    }
    factory = o.factory;
    moduleArg = o.module ?? {};
  }
  if (typeof factory !== 'function') {
    const what = factory === null ? 'null' : typeof factory === 'object' ? `a ${/** @type {object} */ (factory).constructor?.name ?? 'object'}` : typeof factory;
    throw new SnailError(`option emscripten takes the factory function emcc generates with -sMODULARIZE (for example the default export of app.mjs built with -sEXPORT_ES6), or { factory, module }; got ${what}`, { code: 'ERR_OPTION' });
  }
  if (moduleArg === null || typeof moduleArg !== 'object') {
    throw new SnailError('emscripten.module must be an object (the properties of Emscripten\'s Module object)', { code: 'ERR_OPTION' });
  }
  const m = /** @type {Record<string, any>} */ (moduleArg);
  for (const key of ['instantiateWasm', 'noInitialRun', 'quit']) {
    if (key in m) throw new SnailError(`emscripten.module.${key} is set by snail-core, which instantiates the program and runs its tasks`, { code: 'ERR_OPTION' });
  }
  return { factory: /** @type {EmscriptenFactory} */ (factory), moduleArg: m };
}

/**
 * @param {EmscriptenFactory} factory @param {Record<string, any>} moduleArg @param {string} name
 * @param {{ stdout?: (text: string) => void, stderr?: (text: string) => void }} options
 * @returns {Promise<EmscriptenStart>}
 */
async function start(factory, moduleArg, name, options) {
  /** @type {string | null} */
  let abortReason = null;
  /** @type {(value: { info: Record<string, any>, receive: Function }) => void} */
  let asked = () => {};
  /** @type {Promise<{ info: Record<string, any>, receive: Function }>} */
  const hook = new Promise((resolve) => { asked = resolve; });
  const stdout = options.stdout ?? defaultSink('stdout');
  const stderr = options.stderr ?? defaultSink('stderr');
  const userAbort = moduleArg.onAbort;
  Object.assign(moduleArg, {
    // Emscripten prints whole lines without their end of line.
    print: moduleArg.print ?? ((/** @type {string} */ text) => stdout(`${text}\n`)),
    printErr: moduleArg.printErr ?? ((/** @type {string} */ text) => stderr(`${text}\n`)),
    // Entries are the program's tasks; main() is never run.
    noInitialRun: true,
    noExitRuntime: true,
    // Emscripten's exit path would end the Node process: end the calling
    // task instead (wasi proc_exit below), or throw.
    quit: (/** @type {number} */ _status, /** @type {unknown} */ toThrow) => { throw toThrow; },
    onAbort: (/** @type {unknown} */ what) => {
      abortReason = String(what);
      if (typeof userAbort === 'function') userAbort(what);
    },
    instantiateWasm: (/** @type {Record<string, any>} */ info, /** @type {Function} */ receive) => {
      asked({ info, receive });
      // The instance arrives later (asynchronous instantiation).
      return {};
    },
  });

  let returned;
  try {
    returned = factory(moduleArg);
  } catch (error) {
    throw new SnailError(`the Emscripten factory of ${name} threw before it asked for the Wasm module: ${message(error)}`, { cause: error, code: 'ERR_INIT' });
  }
  if (!isThenable(returned)) {
    throw new SnailError(`the emscripten option of ${name} returned ${returned === null ? 'null' : typeof returned}, not a Promise: it must be the factory emcc generates with -sMODULARIZE`, { code: 'ERR_OPTION' });
  }
  const ready = Promise.resolve(returned);
  const failed = ready.then(
    () => { throw new SnailError(`the Emscripten factory of ${name} finished without asking for the Wasm module (Module.instantiateWasm): -sMINIMAL_RUNTIME and -sWASM=0 are not supported`, { code: 'ERR_OPTION' }); },
    (error) => { throw new SnailError(`Emscripten's JavaScript of ${name} failed before it asked for the Wasm module: ${abortReason ?? message(error)}`, { cause: error, code: 'ERR_INIT' }); },
  );
  const { info, receive } = await Promise.race([hook, failed]);
  failed.catch(() => {});

  /** @type {Record<string, Record<string, unknown>>} */
  const imports = {};
  for (const [moduleName, fields] of Object.entries(info)) {
    if (fields !== null && typeof fields === 'object') imports[moduleName] = /** @type {Record<string, unknown>} */ (fields);
  }
  return {
    module: moduleArg,
    provides: (m, n) => imports[m] !== undefined && imports[m][n] !== undefined,
    importObject(user, snail) {
      /** @type {Record<string, Record<string, unknown>>} */
      const object = {};
      for (const [m, fields] of Object.entries(imports)) object[m] = { ...fields };
      for (const [m, fields] of Object.entries(user)) object[m] = { ...object[m], ...fields };
      // exit() ends the calling task, as WASI proc_exit does for other programs
      // (Emscripten's own would end the runtime, or the Node process).
      const exit = (/** @type {number} */ code) => { throw new ProgramExit(code); };
      if (object.wasi_snapshot_preview1?.proc_exit !== undefined) object.wasi_snapshot_preview1.proc_exit = exit;
      if (object.env?.exit !== undefined && user.env?.exit === undefined) object.env.exit = exit;
      if ('snail' in object) throw new InternalError('Emscripten\'s JavaScript provides module "snail"');
      object.snail = snail;
      return object;
    },
    async finish(instance, module) {
      try {
        // Runs Emscripten's start-up: the constructors, then `ready`.
        receive(instance, module);
        await ready;
      } catch (error) {
        // A wait outside any task: say what it means.
        const why = isWaitOutsideTask(error)
          ? 'it called a suspending snail import outside a task; waits are only allowed in tasks'
          : abortReason !== null ? `Emscripten aborted: ${abortReason}` : message(error);
        throw new SnailError(`${name} failed during Emscripten's start-up (its constructors): ${why}`, { cause: error, code: 'ERR_INIT' });
      }
    },
  };
}

/** @param {unknown} e */
function message(e) {
  return e instanceof Error ? e.message : String(e);
}
