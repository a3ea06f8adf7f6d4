// Function names from a program's name section (internal): what a child task
// runs is a table index (snail.dispatch), which is named here after the
// function at that index, where the program carries names (a debug build).
//
// The name section and the element section are read once per program, when
// it is loaded; only the names of functions in the table are kept.
import { Reader, WasmFormatError } from './wasm/binary.mjs';

const TABLE_EXPORT = '__indirect_function_table';

/**
 * What a program's bytes say about its functions' names.
 * @typedef {object} ProgramNames
 * @property {boolean} names  the module has a name section with function names
 * @property {boolean} dwarf  it has DWARF debugging information (.debug_info)
 * @property {(string | null)[]} table  the function name at each index of the
 *   exported table as its element segments fill it (null: no element there, or
 *   no name for it)
 * @property {number[]} taskFunctions  the table indices whose function has the
 *   type of an entry, (i32) -> i32: what snail.dispatch can run
 */

/**
 * Reads the names of a module's table functions. A module the reader cannot
 * follow yields no names rather than an error: names only make messages better.
 * @param {Uint8Array | null | undefined} bytes
 * @returns {ProgramNames}
 */
export function readNames(bytes) {
  /** @type {ProgramNames} */
  const none = { names: false, dwarf: false, table: [], taskFunctions: [] };
  if (!bytes || bytes.length < 8) return none;
  try {
    return read(bytes);
  } catch (error) {
    if (error instanceof WasmFormatError || error instanceof RangeError) return none;
    throw error;
  }
}

/** @param {Uint8Array} bytes @returns {ProgramNames} */
function read(bytes) {
  const r = new Reader(bytes);
  r.pos = 8;
  /** @type {boolean[]} whether each type is (i32) -> i32 */
  const entryType = [];
  /** @type {number[]} the type index of every function, imports first */
  const funcTypes = [];
  let tableIndex = 0;
  /** @type {Map<number, number>} function index at each table index */
  const elements = new Map();
  /** @type {Map<number, string>} */
  const functionNames = new Map();
  let dwarf = false;
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (end > bytes.length) throw new WasmFormatError('section extends past the end of the module');
    if (id === 0) {
      const name = r.name();
      if (name === 'name') readFunctionNames(r, end, functionNames);
      else if (name === '.debug_info') dwarf = true;
    } else if (id === 1) {
      for (let n = r.u32(); n > 0; n--) {
        if (r.byte() !== 0x60) break; // GC types: the rest cannot be entries
        const params = [];
        for (let p = r.u32(); p > 0; p--) params.push(r.valtype());
        const results = [];
        for (let p = r.u32(); p > 0; p--) results.push(r.valtype());
        entryType.push(params.length === 1 && params[0] === 'i32' && results.length === 1 && results[0] === 'i32');
      }
    } else if (id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        r.name();
        r.name();
        const kind = r.byte();
        if (kind === 0) funcTypes.push(r.u32());
        else if (kind === 1) { r.valtype(); r.limits(); }
        else if (kind === 2) r.limits();
        else if (kind === 3) { r.valtype(); r.byte(); }
        else if (kind === 4) { r.byte(); r.u32(); }
      }
    } else if (id === 3) {
      for (let n = r.u32(); n > 0; n--) funcTypes.push(r.u32());
    } else if (id === 7) {
      for (let n = r.u32(); n > 0; n--) {
        const name = r.name();
        const kind = r.byte();
        const index = r.u32();
        if (kind === 1 && name === TABLE_EXPORT) tableIndex = index;
      }
    } else if (id === 9) {
      readElements(r, tableIndex, elements);
    }
    r.pos = end;
  }
  /** @type {(string | null)[]} */
  const table = [];
  /** @type {number[]} */
  const taskFunctions = [];
  for (const [index, fn] of [...elements].sort((a, b) => a[0] - b[0])) {
    while (table.length < index) table.push(null);
    table[index] = functionNames.has(fn) ? displayName(/** @type {string} */ (functionNames.get(fn))) : null;
    if (entryType[funcTypes[fn]]) taskFunctions.push(index);
  }
  return { names: functionNames.size > 0, dwarf, table, taskFunctions };
}

/**
 * The function names subsection (1) of a name section.
 * @param {Reader} r @param {number} end @param {Map<number, string>} out
 */
function readFunctionNames(r, end, out) {
  while (r.pos < end) {
    const sub = r.byte();
    const size = r.u32();
    const next = r.pos + size;
    if (sub === 1) {
      for (let n = r.u32(); n > 0; n--) {
        const index = r.u32();
        out.set(index, r.name());
      }
    }
    r.pos = next;
  }
}

/**
 * The active element segments of table `tableIndex` with constant offsets:
 * which function each table index holds when the program starts.
 * @param {Reader} r @param {number} tableIndex @param {Map<number, number>} out
 */
function readElements(r, tableIndex, out) {
  for (let n = r.u32(); n > 0; n--) {
    const flags = r.u32();
    const passive = (flags & 1) !== 0;
    const explicitTable = (flags & 2) !== 0;
    const expressions = (flags & 4) !== 0;
    let table = 0;
    let offset = -1;
    if (!passive) {
      if (explicitTable) table = r.u32();
      offset = constOffset(r);
    }
    // The element kind (0x00, funcref) or reference type, when the form has one.
    if (passive || explicitTable) r.byte();
    const count = r.u32();
    for (let i = 0; i < count; i++) {
      let fn = -1;
      if (expressions) {
        const op = r.byte();
        if (op === 0xd2) fn = r.u32(); // ref.func
        else if (op === 0xd0) r.byte(); // ref.null
        else throw new WasmFormatError(`element expression 0x${op.toString(16)}`);
        if (r.byte() !== 0x0b) throw new WasmFormatError('element expression without end');
      } else {
        fn = r.u32();
      }
      if (!passive && table === tableIndex && offset >= 0 && fn >= 0) out.set(offset + i, fn);
    }
  }
}

/** An `i32.const N end` offset, or -1 for any other expression (a global's value). @param {Reader} r */
function constOffset(r) {
  const op = r.byte();
  let value = -1;
  if (op === 0x41) value = r.u32(); // a table offset is never negative, so its signed LEB reads as unsigned
  else r.skipLeb();
  if (r.byte() !== 0x0b) throw new WasmFormatError('offset expression without end');
  return value;
}

/**
 * A function's name as a task's label: a C++ lambda dispatched with
 * snail::dispatch runs in the core's trampoline, which is named after the
 * lambda's type ("snail_entry_main::$_0").
 * @param {string} name
 */
function displayName(name) {
  const closure = /^int snail::detail::closure_entry<(.+)>\(int\)$/.exec(name);
  return closure ? closure[1] : name;
}

/** @type {WeakMap<object, readonly (string | null)[]>} the names of each program's table */
const tableNames = new WeakMap();

/**
 * Records the function names of a program's table, for childLabel().
 * @param {object} table  the program's WebAssembly.Table
 * @param {ProgramNames} names
 */
export function nameTable(table, names) {
  if (names.names) tableNames.set(table, names.table);
}

/**
 * The label of a child task that runs `table[entry]`: the function's name
 * when the program has one, else `table[N]`.
 * @param {object | null} table @param {number} entry
 */
export function childLabel(table, entry) {
  const names = table === null ? undefined : tableNames.get(table);
  return names?.[entry] ?? `table[${entry}]`;
}
