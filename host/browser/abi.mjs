// The program ABI (docs/abi.md) as data, and the check that a module follows it.
import { AbiError } from './errors.mjs';
import { formatFuncType, readModuleInfo } from './wasm/binary.mjs';

export const ABI_VERSION = '1';
export const ENTRY_PREFIX = 'snail.entry.';
export const HANDLER_PREFIX = 'snail.handler.';
export const DISPOSER_PREFIX = 'snail.dispose.';
export const HANDLER_TYPES = Object.freeze(['i32', 'i64', 'f32', 'f64', 'externref', 'funcref']);
export const ENTRY_TYPE = Object.freeze({ params: ['i32'], results: ['i32'] });

/** The service imports of module "snail", with their types (all suspend; services.mjs implements them). */
export const SERVICE_IMPORTS = Object.freeze({
  event_wait: { params: ['i32', 'i32', 'i32'], results: ['i32'], suspends: true },
  storage_get: { params: ['i32', 'i32', 'i32', 'i32', 'i32'], results: ['i32'], suspends: true },
  storage_put: { params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32'], results: ['i32'], suspends: true },
  storage_delete: { params: ['i32', 'i32', 'i32', 'i32'], results: ['i32'], suspends: true },
  storage_list: { params: ['i32', 'i32', 'i32', 'i32', 'i32'], results: ['i32'], suspends: true },
  fetch: { params: ['i32', 'i32', 'i32', 'i32'], results: ['i32'], suspends: true },
  frame_wait: { params: [], results: ['i32'], suspends: true },
  idle_wait: { params: ['f64'], results: ['i32'], suspends: true },
  file_read: { params: ['i32', 'i32', 'i32'], results: ['i32'], suspends: true },
  file_write: { params: ['i32', 'i32', 'i32', 'i32'], results: ['i32'], suspends: true },
  stdin_line: { params: ['i32'], results: ['i32'], suspends: true },
  module_load: { params: ['i32', 'i32', 'i32', 'i32'], results: ['i32'], suspends: true },
});

/** Imports that deliver a value through an out cell, and so need `snail.alloc`. */
export const ALLOCATING_IMPORTS = Object.freeze(['event_wait', 'storage_get', 'storage_list', 'fetch', 'file_read', 'stdin_line', 'module_load']);

/**
 * The imports of module "snail": their types and whether they suspend.
 * @type {Readonly<Record<string, { params: string[], results: string[], suspends: boolean }>>}
 */
export const SNAIL_IMPORTS = Object.freeze({
  sleep: { params: ['f64'], results: ['i32'], suspends: true },
  yield: { params: [], results: ['i32'], suspends: true },
  join: { params: ['i32'], results: ['i32'], suspends: true },
  dispatch: { params: ['i32', 'i32', 'i32'], results: ['i32'], suspends: false },
  result: { params: ['i32'], results: ['i32'], suspends: false },
  release: { params: ['i32'], results: [], suspends: false },
  cancel_requested: { params: [], results: ['i32'], suspends: false },
  cancel: { params: ['i32'], results: ['i32'], suspends: false },
  cancel_tree: { params: ['i32'], results: ['i32'], suspends: false },
  shield_begin: { params: ['f64'], results: ['i32'], suspends: false },
  shield_end: { params: [], results: ['i32'], suspends: false },
  module_function: { params: ['i32', 'i32', 'i32'], results: ['i32'], suspends: false },
  ...SERVICE_IMPORTS,
});

/**
 * Imports of module "env" that the runtime itself provides: a standalone
 * Emscripten module whose memory may grow (-sALLOW_MEMORY_GROWTH) tells its
 * embedder through emscripten_notify_memory_growth, which needs no answer (the
 * runtime reads the memory's buffer anew at every access).
 * @type {Readonly<Record<string, { params: string[], results: string[] }>>}
 */
export const RUNTIME_ENV_IMPORTS = Object.freeze({
  emscripten_notify_memory_growth: { params: ['i32'], results: [] },
});

/** Whether module `env`'s import `name` is one the runtime provides. @param {string} module @param {string} name */
export function runtimeProvides(module, name) {
  return module === 'env' && Object.hasOwn(RUNTIME_ENV_IMPORTS, name);
}

/** Exports that make up the stack registers. */
export const STACK = Object.freeze({
  pointer: '__stack_pointer',
  base: 'snail.stack.base',
  limit: 'snail.stack.limit',
  acquire: 'snail.stack.acquire',
  release: 'snail.stack.release',
});

/**
 * @typedef {import('./wasm/binary.mjs').FuncType} FuncType
 * @typedef {{ module: string, name: string, kind: string, type?: FuncType }} ImportDesc
 * @typedef {{ name: string, kind: string, type?: FuncType, global?: { type: string, mutable: boolean }, table?: { element: string } }} ExportDesc
 *
 * @typedef {object} ProgramShape
 * @property {string[]} entries  entry names (without the prefix), in export order
 * @property {string[]} disposers  "MODULE.NAME" of each suspending import the program disposes itself
 * @property {{ name: string, exportName: string, type: string }[]} handlers
 * @property {{ base: boolean, limit: boolean } | null} stack  null: the program has no shadow stack
 * @property {boolean} table  exports __indirect_function_table
 * @property {ImportDesc[]} imports
 * @property {ExportDesc[]} exports
 * @property {boolean} typesKnown  false when only a WebAssembly.Module was given
 */

/**
 * Describes a program and checks it against the ABI. Throws an AbiError that
 * lists every problem found.
 * @param {WebAssembly.Module} module
 * @param {Uint8Array | null} bytes  the module's bytes, when known (full type checks)
 * @param {{ name: string, providedImports: (module: string, name: string) => boolean,
 *           suspendingImport: (module: string, name: string) => boolean, sideModule?: boolean }} context
 * @returns {ProgramShape}
 */
export function describeProgram(module, bytes, context) {
  /** @type {ImportDesc[]} */
  let imports;
  /** @type {ExportDesc[]} */
  let exports;
  let typesKnown = false;
  if (bytes) {
    const info = readModuleInfo(bytes);
    imports = info.imports;
    exports = info.exports;
    typesKnown = true;
  } else {
    imports = WebAssembly.Module.imports(module).map((i) => ({ module: i.module, name: i.name, kind: i.kind }));
    exports = WebAssembly.Module.exports(module).map((e) => ({ name: e.name, kind: e.kind }));
    for (const e of exports) {
      if (e.kind === 'global') e.global = probeGlobal(module, e.name);
      if (e.kind === 'table') e.table = probeTable(module, e.name);
    }
  }

  /** @type {string[]} */
  const problems = [];
  const byName = new Map(exports.map((e) => [e.name, e]));

  const sections = WebAssembly.Module.customSections(module, 'snail.abi');
  if (sections.length) {
    const version = new TextDecoder().decode(sections[0]);
    if (version !== ABI_VERSION) {
      problems.push(/^\d+$/.test(version)
        ? `it was built for snail-core ABI version ${version}; this runtime implements version ${ABI_VERSION}`
        : `its snail.abi section reads ${JSON.stringify(version)}; it must be the ABI version as text, exactly "${ABI_VERSION}" for this runtime`);
    }
  }

  /**
   * An export the ABI names that, where the module has it, is a function of `type`.
   * @param {string} name @param {FuncType} type
   */
  const typedFunction = (name, type) => {
    const x = byName.get(name);
    if (x && x.kind !== 'function') problems.push(`its "${name}" export is a ${x.kind}; it is a function of type ${formatFuncType(type)}`);
    else if (x?.type && !sameType(x.type, type)) problems.push(`its "${name}" has type ${formatFuncType(x.type)}; expected ${formatFuncType(type)}`);
    return x;
  };
  typedFunction('_initialize', { params: [], results: [] });
  const alloc = typedFunction('snail.alloc', { params: ['i32'], results: ['i32'] });

  for (const imp of imports) {
    const where = `${imp.module}.${imp.name}`;
    if (imp.module === 'snail') {
      const spec = SNAIL_IMPORTS[imp.name];
      if (!spec) {
        problems.push(`it imports ${where}, which snail-core does not provide (docs/abi.md lists the imports of module "snail")`);
      } else if (imp.kind !== 'function') {
        problems.push(`it imports ${where} as a ${imp.kind}; it is a function`);
      } else if (imp.type && !sameType(imp.type, spec)) {
        problems.push(`it imports ${where} with type ${formatFuncType(imp.type)}; the ABI type is ${formatFuncType(spec)}`);
      }
    } else if (imp.module === 'wasi_snapshot_preview1') {
      if (imp.kind !== 'function') problems.push(`it imports ${where} as a ${imp.kind}; WASI imports are functions`);
    } else if (runtimeProvides(imp.module, imp.name)) {
      const spec = RUNTIME_ENV_IMPORTS[imp.name];
      if (imp.kind !== 'function') problems.push(`it imports ${where} as a ${imp.kind}; it is a function`);
      else if (imp.type && !sameType(imp.type, spec)) problems.push(`it imports ${where} with type ${formatFuncType(imp.type)}; the runtime provides ${formatFuncType(spec)}`);
    } else if (!context.providedImports(imp.module, imp.name)) {
      problems.push(`it imports ${where}, which nobody provides (pass it in the \`imports\` option)`);
    }
  }

  const entries = [];
  const handlers = [];
  const disposers = [];
  for (const e of exports) {
    if (e.name.startsWith(ENTRY_PREFIX)) {
      const name = e.name.slice(ENTRY_PREFIX.length);
      if (!name) problems.push(`it exports "${e.name}", an entry without a name`);
      else if (e.kind !== 'function') problems.push(`its entry "${e.name}" is a ${e.kind}; entries are functions`);
      else if (e.type && !sameType(e.type, ENTRY_TYPE)) {
        problems.push(`its entry "${e.name}" has type ${formatFuncType(e.type)}; entries have type ${formatFuncType(ENTRY_TYPE)}`);
      } else entries.push(name);
    } else if (e.name.startsWith(HANDLER_PREFIX)) {
      const name = e.name.slice(HANDLER_PREFIX.length);
      if (!name) problems.push(`it exports "${e.name}", a handler global without a name`);
      else if (e.kind !== 'global' || !e.global) problems.push(`its handler "${e.name}" is a ${e.kind}; handlers are mutable globals`);
      else if (!e.global.mutable) problems.push(`its handler global "${e.name}" is immutable; handlers are mutable globals`);
      else if (!HANDLER_TYPES.includes(e.global.type)) {
        problems.push(`its handler global "${e.name}" has type ${e.global.type}; allowed: ${HANDLER_TYPES.join(', ')}`);
      } else handlers.push({ name, exportName: e.name, type: e.global.type });
    } else if (e.name.startsWith(DISPOSER_PREFIX)) {
      const target = e.name.slice(DISPOSER_PREFIX.length);
      const dot = target.indexOf('.');
      const imp = dot > 0 ? imports.find((i) => i.kind === 'function' && i.module === target.slice(0, dot) && i.name === target.slice(dot + 1)) : undefined;
      if (e.kind !== 'function') problems.push(`its disposer "${e.name}" is a ${e.kind}; disposers are functions`);
      else if (!imp) problems.push(`its disposer "${e.name}" names no function it imports (the form is ${DISPOSER_PREFIX}MODULE.NAME)`);
      else if (!context.suspendingImport(imp.module, imp.name)) {
        problems.push(`its disposer "${e.name}" belongs to ${target}, which is not a suspending import declared with suspend()`);
      } else if (e.type && imp.type && (e.type.results.length !== 0 || e.type.params.join() !== imp.type.results.join())) {
        problems.push(`its disposer "${e.name}" has type ${formatFuncType(e.type)}; it takes the result of ${target}: ${formatFuncType({ params: imp.type.results, results: [] })}`);
      } else disposers.push(target);
    }
  }
  if (entries.length === 0 && !context.sideModule && !problems.some((p) => p.includes('entry'))) {
    problems.push(`it exports no entry (a function named "${ENTRY_PREFIX}NAME" of type ${formatFuncType(ENTRY_TYPE)})`);
  }

  /** @type {ProgramShape['stack']} */
  let stack = null;
  const sp = byName.get(STACK.pointer);
  if (sp) {
    const i32Global = (/** @type {ExportDesc | undefined} */ x) => x?.kind === 'global' && x.global?.type === 'i32' && x.global.mutable;
    if (!i32Global(sp)) problems.push(`its ${STACK.pointer} export is not a mutable i32 global`);
    for (const fn of [STACK.acquire, STACK.release]) {
      const x = byName.get(fn);
      if (!x || x.kind !== 'function') {
        problems.push(`it exports ${STACK.pointer} but not the function "${fn}" (programs with a shadow stack let the runtime give each task its own segment)`);
      } else if (x.type && !sameType(x.type, { params: ['i32'], results: ['i32'] })) {
        problems.push(`its "${fn}" has type ${formatFuncType(x.type)}; expected (func (param i32) (result i32))`);
      }
    }
    for (const g of [STACK.base, STACK.limit]) {
      const x = byName.get(g);
      if (x && !i32Global(x)) problems.push(`its "${g}" export is not a mutable i32 global`);
    }
    stack = { base: byName.has(STACK.base), limit: byName.has(STACK.limit) };
  }

  const tableExport = byName.get('__indirect_function_table');
  const table = tableExport?.kind === 'table';
  if (tableExport && !table) problems.push(`its "__indirect_function_table" export is a ${tableExport.kind}; it is a table of funcref`);
  else if (tableExport?.table && tableExport.table.element !== 'funcref') {
    const what = tableExport.table.element === 'unknown' ? 'not a table of funcref' : `a table of ${tableExport.table.element}`;
    problems.push(`its "__indirect_function_table" is ${what}; it must be a table of funcref, in which snail.dispatch finds entries`);
  }
  const dispatches = imports.some((i) => i.module === 'snail' && i.name === 'dispatch');
  if (context.sideModule) {
    // A loaded module's pointers (functions, data) are the program's: the
    // runtime reads them in the program's table and memory.
    const imported = (/** @type {string} */ name, /** @type {string} */ kind) => imports.some((i) => i.module === 'env' && i.name === name && i.kind === kind);
    if (dispatches && !imported('__indirect_function_table', 'table')) {
      problems.push('it imports snail.dispatch but not the program\'s function table (env.__indirect_function_table), in which dispatch finds entries');
    }
    const services = imports.filter((i) => i.module === 'snail' && (i.name in SERVICE_IMPORTS || i.name === 'module_function')).map((i) => i.name);
    if (services.length && !imported('memory', 'memory')) {
      problems.push(`it imports host services (${services.join(', ')}) but not the program's memory (env.memory), in which they read and write`);
    }
  } else if (dispatches && !table) {
    problems.push('it imports snail.dispatch but does not export its function table as "__indirect_function_table"');
  }
  if (!context.sideModule && imports.some((i) => i.module === 'wasi_snapshot_preview1') && byName.get('memory')?.kind !== 'memory') {
    problems.push('it imports WASI functions but does not export its memory as "memory"');
  }
  const services = context.sideModule ? [] : imports.filter((i) => i.module === 'snail' && (i.name in SERVICE_IMPORTS || i.name === 'module_function')).map((i) => i.name);
  if (services.length && byName.get('memory')?.kind !== 'memory') {
    problems.push(`it imports host services (${services.join(', ')}) but does not export its memory as "memory"`);
  }
  const allocating = services.filter((n) => ALLOCATING_IMPORTS.includes(n));
  if (allocating.length && !alloc) {
    problems.push(`it imports ${allocating.join(', ')}, which deliver values in its memory, but does not export "snail.alloc" (func (param i32) (result i32))`);
  }

  if (problems.length) {
    const list = problems.map((p) => `  - ${p}`).join('\n');
    throw new AbiError(`${context.name} does not follow the snail-core ABI (docs/abi.md):\n${list}`);
  }
  return { entries, handlers, disposers, stack, table, imports, exports, typesKnown };
}

/** @param {FuncType} a @param {FuncType} b */
function sameType(a, b) {
  return a.params.join() === b.params.join() && a.results.join() === b.results.join();
}

/**
 * Finds the type of an exported global of a module whose bytes are unknown, by
 * linking it into tiny modules that import a global of each candidate type.
 * @param {WebAssembly.Module} module @param {string} name
 */
function probeGlobal(module, name) {
  const instance = probeInstance(module);
  const value = /** @type {WebAssembly.Global} */ (instance.exports[name]);
  for (const type of HANDLER_TYPES) {
    for (const mutable of [true, false]) {
      try {
        new WebAssembly.Instance(globalImporter(type, mutable), { m: { g: value } });
        return { type, mutable };
      } catch {
        // Not this type.
      }
    }
  }
  return { type: 'unknown', mutable: false };
}

/**
 * Finds the element type of an exported table of a module whose bytes are
 * unknown, by linking it into a tiny module that imports a table of funcref.
 * @param {WebAssembly.Module} module @param {string} name
 */
function probeTable(module, name) {
  const value = probeInstance(module).exports[name];
  try {
    // (module (import "m" "t" (table 0 funcref)))
    new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 2, 9, 1, 1, 0x6d, 1, 0x74, 1, 0x70, 0, 0])), { m: { t: value } });
    return { element: 'funcref' };
  } catch {
    return { element: 'unknown' };
  }
}

const probeInstances = new WeakMap();

/**
 * An instance of the module with inert imports, used only to read export types.
 * @param {WebAssembly.Module} module
 */
function probeInstance(module) {
  let instance = probeInstances.get(module);
  if (!instance) {
    /** @type {Record<string, Record<string, any>>} */
    const imports = {};
    for (const i of WebAssembly.Module.imports(module)) {
      imports[i.module] ??= {};
      if (i.kind === 'function') imports[i.module][i.name] = () => 0;
      else if (i.kind === 'memory') imports[i.module][i.name] = new WebAssembly.Memory({ initial: 1 });
      else if (i.kind === 'table') imports[i.module][i.name] = new WebAssembly.Table({ initial: 0, element: 'anyfunc' });
      else if (i.kind === 'global') imports[i.module][i.name] = new WebAssembly.Global({ value: 'i32', mutable: false }, 0);
    }
    instance = new WebAssembly.Instance(module, imports);
    probeInstances.set(module, instance);
  }
  return instance;
}

/** @param {string} type @param {boolean} mutable */
function globalImporter(type, mutable) {
  const code = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, externref: 0x6f, funcref: 0x70 }[type];
  // (module (import "m" "g" (global (mut? type))))
  const bytes = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 2, 8, 1, 1, 0x6d, 1, 0x67, 3, /** @type {number} */ (code), mutable ? 1 : 0];
  return new WebAssembly.Module(new Uint8Array(bytes));
}
