// `snail-core inspect FILE.wasm`: what a program offers and needs, and whether
// it follows the ABI. The verdict is the runtime's own check (describeProgram);
// this file only sorts what the module declares into the ABI's categories.
//
// This file must stay loadable by Node 20 (see snail-core.mjs): inspecting
// needs no JSPI.
import {
  ABI_VERSION, DISPOSER_PREFIX, ENTRY_PREFIX, HANDLER_PREFIX, SERVICE_IMPORTS, SNAIL_IMPORTS, STACK, describeProgram, runtimeProvides,
} from '../browser/abi.mjs';
import { AbiError } from '../browser/errors.mjs';
import { readNames } from '../browser/names.mjs';
import { formatFuncType, readModuleInfo } from '../browser/wasm/binary.mjs';

/** The modules whose imports the runtime provides itself. */
const RUNTIME_MODULES = ['snail', 'wasi_snapshot_preview1'];

/**
 * What `inspect` found. `follows` is the ABI check's verdict for an embedder
 * that provides every user import (with suspend() where the module has a
 * native disposer for it); `runnable` says whether `snail-core run`, which
 * provides none, can run it.
 * @typedef {object} Inspection
 * @property {string} file
 * @property {boolean} follows
 * @property {string[]} problems  the ABI check's problems, one sentence each
 * @property {string | null} abiVersion  the text of its snail.abi section, if it has one
 * @property {string[]} entries
 * @property {{ name: string, type: string }[]} handlers
 * @property {{ pointer: boolean, base: boolean, limit: boolean }} stack
 * @property {string[]} waits  suspending built-in waits of module snail
 * @property {string[]} services  host services of module snail (they suspend)
 * @property {string[]} control  snail imports that never suspend
 * @property {string[]} unknown  snail imports the ABI does not have
 * @property {string[]} wasi  WASI functions
 * @property {{ module: string, name: string, kind: string, type: string | null }[]} user
 *   imports from other modules, which the embedder provides
 * @property {string[]} disposers  MODULE.NAME of each native disposer
 * @property {{ names: boolean, dwarf: boolean }} debug  whether it has function names
 *   (a name section) and DWARF: a debug build keeps both
 * @property {{ index: number, name: string | null }[]} taskFunctions  the functions of its
 *   table that a task can run (type (i32) -> i32, what snail.dispatch takes), by table
 *   index, named where the module has names: the labels of their tasks
 * @property {boolean} runnable
 */

/**
 * Inspects a compiled module.
 * @param {{ module: WebAssembly.Module, bytes: Uint8Array | null, name: string }} loaded
 * @returns {Inspection}
 */
export function inspectModule(loaded) {
  const { module, name } = loaded;
  const bytes = loaded.bytes ?? new Uint8Array(0);
  const info = readModuleInfo(bytes);

  /** @type {string[]} */
  let problems = [];
  try {
    describeProgram(module, bytes, {
      name,
      // An embedder can provide any import of another module, and declare it
      // with suspend(); the runtime's own modules it cannot.
      providedImports: () => true,
      suspendingImport: (m) => !RUNTIME_MODULES.includes(m),
    });
  } catch (error) {
    if (!(error instanceof AbiError)) throw error;
    problems = error.message.split('\n').slice(1).map((line) => line.replace(/^ {2}- /, ''));
  }

  const sections = WebAssembly.Module.customSections(module, 'snail.abi');
  const abiVersion = sections.length ? new TextDecoder().decode(sections[0]).trim() : null;

  const exportNames = new Set(info.exports.map((e) => e.name));
  /** @type {Inspection} */
  const result = {
    file: name,
    follows: problems.length === 0,
    problems,
    abiVersion,
    entries: [],
    handlers: [],
    stack: { pointer: exportNames.has(STACK.pointer), base: exportNames.has(STACK.base), limit: exportNames.has(STACK.limit) },
    waits: [],
    services: [],
    control: [],
    unknown: [],
    wasi: [],
    user: [],
    disposers: [],
    debug: { names: false, dwarf: false },
    taskFunctions: [],
    runnable: false,
  };
  const names = readNames(bytes);
  result.debug = { names: names.names, dwarf: names.dwarf };
  result.taskFunctions = names.taskFunctions.map((index) => ({ index, name: names.table[index] ?? null }));
  for (const e of info.exports) {
    if (e.name.startsWith(ENTRY_PREFIX)) result.entries.push(e.name.slice(ENTRY_PREFIX.length));
    else if (e.name.startsWith(HANDLER_PREFIX)) {
      const g = e.global;
      result.handlers.push({ name: e.name.slice(HANDLER_PREFIX.length), type: g ? `${g.mutable ? '' : 'immutable '}${g.type}` : e.kind });
    } else if (e.name.startsWith(DISPOSER_PREFIX)) result.disposers.push(e.name.slice(DISPOSER_PREFIX.length));
  }
  for (const i of info.imports) {
    if (i.module === 'snail') {
      if (Object.hasOwn(SERVICE_IMPORTS, i.name)) result.services.push(i.name);
      else if (!Object.hasOwn(SNAIL_IMPORTS, i.name)) result.unknown.push(i.name);
      else if (SNAIL_IMPORTS[i.name].suspends) result.waits.push(i.name);
      else result.control.push(i.name);
    } else if (i.module === 'wasi_snapshot_preview1') {
      result.wasi.push(i.name);
    } else if (runtimeProvides(i.module, i.name)) {
      // Provided by the runtime (a standalone Emscripten module's memory growth).
    } else {
      result.user.push({ module: i.module, name: i.name, kind: i.kind, type: i.type ? formatFuncType(i.type) : null });
    }
  }
  for (const list of [result.waits, result.services, result.control, result.unknown, result.wasi]) list.sort();
  result.runnable = result.follows && result.user.length === 0;
  return result;
}

/**
 * The report `inspect` prints.
 * @param {Inspection} r
 * @returns {string}
 */
export function formatInspection(r) {
  const lines = [];
  if (r.follows) {
    const version = r.abiVersion === null ? `ABI version ${ABI_VERSION}; it has no snail.abi section` : `ABI version ${r.abiVersion}, from its snail.abi section`;
    lines.push(`${r.file}: follows the snail-core ABI (${version})`);
  } else {
    lines.push(`${r.file}: does not follow the snail-core ABI (docs/abi.md):`);
    for (const p of r.problems) lines.push(`  - ${p}`);
  }
  lines.push('');
  const row = (/** @type {string} */ label, /** @type {string[]} */ items, empty = 'none') => {
    lines.push(`${label.padEnd(17)}${items.length ? items.join(', ') : empty}`);
  };
  row('entries', r.entries);
  row('handler globals', r.handlers.map((h) => `${h.name} (${h.type})`));
  let stack = 'none: the program keeps no shadow stack in linear memory';
  if (r.stack.pointer) {
    stack = `${STACK.pointer}: each task gets its own stack segment`;
    stack += r.stack.base && r.stack.limit ? ', with a stack check (snail.stack.base, snail.stack.limit)' : ', without a stack check';
  }
  lines.push(`${'stack registers'.padEnd(17)}${stack}`);
  lines.push('suspending imports');
  row('  waits', r.waits.map((n) => `snail.${n}`));
  row('  host services', r.services.map((n) => `snail.${n}`));
  row('  user imports', r.user.map((u) => `${u.module}.${u.name}${u.type ? ` ${u.type}` : ` (${u.kind})`}`));
  if (r.user.length) lines.push(`${''.padEnd(17)}(the embedder provides these; they suspend if it declares them with suspend())`);
  row('other imports', r.control.map((n) => `snail.${n}`));
  if (r.unknown.length) row('not in the ABI', r.unknown.map((n) => `snail.${n}`));
  row('WASI', r.wasi);
  row('native disposers', r.disposers);
  lines.push(`${'debug info'.padEnd(17)}${r.debug.names && r.debug.dwarf ? 'function names and DWARF (a debug build)'
    : r.debug.names ? 'function names' : r.debug.dwarf ? 'DWARF, no function names'
      : 'none: a debug build (DEBUG, CMAKE_BUILD_TYPE=Debug) keeps function names and DWARF'}`);
  const shown = 8;
  const named = r.taskFunctions.filter((f) => f.name !== null);
  const tasks = r.taskFunctions.length === 0 ? 'none'
    : named.length === 0 ? `${r.taskFunctions.length} in the table, unnamed (no function names)`
      : r.taskFunctions.slice(0, shown).map((f) => `table[${f.index}] ${f.name ?? '(unnamed)'}`).join(', ')
        + (r.taskFunctions.length > shown ? `, and ${r.taskFunctions.length - shown} more` : '');
  lines.push(`${'task functions'.padEnd(17)}${tasks}`);
  lines.push('');
  if (r.runnable) {
    lines.push(`snail-core run can run it (entries: ${r.entries.join(', ')})`);
  } else if (!r.follows) {
    lines.push('snail-core run refuses it, and so does Runtime.load');
  } else {
    const names = r.user.map((u) => `${u.module}.${u.name}`).join(', ');
    lines.push(`snail-core run cannot run it: it imports ${names}; embed it with Runtime.load(file, { imports })`);
  }
  return `${lines.join('\n')}\n`;
}
