// The carriers (internal): the `promising` entry point that runs a task's
// entry and, when the task returns, asks the scheduler for the next start and
// runs it on the same stack (or parks until one comes, or until a dispatch
// wakes it to ask again). A carrier installs a start's registers itself and
// the defaults when its task returns, through a table the bridge points at the
// register file's `start` and `install` (registers.mjs). The carriers are
// built once per program; the register file is rebuilt when a loaded module
// brings new registers, and the carriers are pointed at the new one.
import { Code, leb, ModuleWriter, op } from './binary.mjs';

const PAGE = 65536;

/** @typedef {{ name: string, fn: Function }} NamedEntry  a program's entry: its name and its export */

/** The entries of the carriers' register table. */
export const CARRIER_START = 0; // (slot, low, size) -> (): a start's bindings and stack segment
export const CARRIER_INSTALL = 1; // (slot) -> (): the slot's registers (0: the defaults)

/**
 * Builds and instantiates the carriers of one program. A slot's words
 * (entry, argument, drop function, stack segment, bindings) say what a start
 * runs: a table index (>= 0) or a named entry (< 0), what a discard calls,
 * the lowest address of its stack segment and the slot its bindings come from
 * (its own, or 0 for the defaults).
 * @param {{ entries: NamedEntry[], table: WebAssembly.Table | null, stackSize: number,
 *           next: (slot: number, result: number) => number, idle: () => Promise<number>,
 *           ask: () => number, setCurrent?: Function }} spec  `setCurrent`: the suspension
 *   module's current(slot), which a carrier calls once it entered a start
 */
export function createCarriers({ entries, table, stackSize, next, idle, ask, setCurrent }) {
  const bytes = carriersModule({ entries: entries.length, table: Boolean(table), stackSize, current: Boolean(setCurrent) });
  /** @type {Record<string, Record<string, any>>} */
  const imports = {
    js: { next, idle: new WebAssembly.Suspending(idle), ask },
    entries: Object.fromEntries(entries.map((e, i) => [String(i), e.fn])),
  };
  if (setCurrent) imports.gates = { current: /** @type {any} */ (setCurrent) };
  if (table) imports.program = { table };
  const instance = new WebAssembly.Instance(new WebAssembly.Module(/** @type {BufferSource} */ (bytes)), imports);
  const x = /** @type {any} */ (instance.exports);
  return new Carriers(x.carrier, x.drop, x.memory, x.registers);
}

/**
 * The carriers' module: carrier(slot), drop(fn, arg), the slot words'
 * memory and the register table (CARRIER_START, CARRIER_INSTALL). Imports
 * js.next, js.idle (suspending) and js.ask, a function entries.I per named
 * entry, and, when asked for, the program's function table (program.table)
 * and the suspension module's current(slot) (gates.current).
 * @param {{ entries: number, table: boolean, stackSize: number, current: boolean }} spec
 *   how many named entries the program has, and whether it has a function table
 *   and a suspension module
 */
export function carriersModule({ entries, table, stackSize, current }) {
  const stride = SLOT_WORDS * 4;
  const entryOffset = 0;
  const w = new ModuleWriter();
  const fnNext = w.importFunc('js', 'next', ['i32', 'i32'], ['i32']);
  const fnIdle = w.importFunc('js', 'idle', [], ['i32']);
  const fnAsk = w.importFunc('js', 'ask', [], ['i32']);
  // The suspension module's current(slot): the task whose Wasm now runs.
  const fnCurrent = current ? w.importFunc('gates', 'current', ['i32'], []) : -1;
  const fnEntries = Array.from({ length: entries }, (_, i) => w.importFunc('entries', String(i), ['i32'], ['i32']));
  const programTable = table ? w.importTable('program', 'table', 'funcref', 0) : -1;
  const registerTable = w.table('funcref', 2);
  w.memory(1);
  /** Emits `slot * stride` into local `base`. @param {Code} c @param {number} slotLocal @param {number} baseLocal */
  const slotBase = (c, slotLocal, baseLocal) => {
    c.idx(op.local_get, slotLocal).i32(stride).emit(op.i32_mul).idx(op.local_set, baseLocal);
  };
  // drop(fn, arg): call a drop function (i32) -> () of the program's table.
  {
    const c = new Code();
    if (programTable >= 0) {
      c.idx(op.local_get, 1).idx(op.local_get, 0);
      c.idx(op.call_indirect, w.type(['i32'], [])).bytes.push(...leb(programTable));
    } else {
      c.emit(op.unreachable);
    }
    w.export('drop', 'function', w.func(['i32', 'i32'], [], c));
  }
  // carrier(slot): run the task in `slot`, then whatever next() hands over.
  {
    const c = new Code();
    const params = 1;
    const entry = params + c.local('i32');
    const result = params + c.local('i32');
    const base = params + c.local('i32');
    c.emit(op.loop, op.void);
    slotBase(c, 0, base);
    // start(bindings, low, size): the start's registers.
    c.idx(op.local_get, base).mem(op.i32_load, 2, entryOffset + 16);
    c.idx(op.local_get, base).mem(op.i32_load, 2, entryOffset + 12);
    c.i32(stackSize).i32(CARRIER_START);
    c.idx(op.call_indirect, w.type(['i32', 'i32', 'i32'], [])).bytes.push(...leb(registerTable));
    // Only now is the task's Wasm running: a wait begun after its grant and
    // before this (JavaScript calling an export directly) is not the task's.
    if (fnCurrent >= 0) c.idx(op.local_get, 0).idx(op.call, fnCurrent);
    c.idx(op.local_get, base).mem(op.i32_load, 2, entryOffset).idx(op.local_set, entry);
    // if (entry >= 0) result = table[entry](arg) else result = entries[-entry-1](arg)
    c.idx(op.local_get, entry).i32(0).emit(op.i32_ge_s);
    c.emit(op.if, op.void);
    if (programTable >= 0) {
      c.idx(op.local_get, base).mem(op.i32_load, 2, entryOffset + 4);
      c.idx(op.local_get, entry);
      c.idx(op.call_indirect, w.type(['i32'], ['i32'])).bytes.push(...leb(programTable));
      c.idx(op.local_set, result);
    } else {
      c.emit(op.unreachable);
    }
    c.emit(op.else);
    const n = fnEntries.length;
    if (n === 0) {
      c.emit(op.unreachable);
    } else {
      c.emit(op.block, op.void); // $done
      c.emit(op.block, op.void); // $default
      for (let i = n - 1; i >= 0; i--) c.emit(op.block, op.void);
      c.i32(-1).idx(op.local_get, entry).emit(op.i32_sub); // -1 - entry = -entry - 1
      c.brTable([...Array(n).keys()], n);
      for (let i = 0; i < n; i++) {
        c.emit(op.end);
        c.idx(op.local_get, base).mem(op.i32_load, 2, entryOffset + 4);
        c.idx(op.call, fnEntries[i]).idx(op.local_set, result);
        c.idx(op.br, n - i);
      }
      c.emit(op.end); // $default
      c.emit(op.unreachable);
      c.emit(op.end); // $done
    }
    c.emit(op.end); // if
    // install(0): the defaults, now that the task returned.
    c.i32(0).i32(CARRIER_INSTALL);
    c.idx(op.call_indirect, w.type(['i32'], [])).bytes.push(...leb(registerTable));
    // next() hands over the next start (> 0), ends the carrier (0), or parks it
    // (< 0): then idle() suspends it until a start needs a stack (> 0), the
    // runtime lets it go (0), or a dispatch wakes it to pick the start itself
    // (< 0): ask() answers as next() does.
    c.idx(op.local_get, 0).idx(op.local_get, result).idx(op.call, fnNext).idx(op.local_set, 0);
    c.emit(op.block, op.void); // $out
    c.emit(op.loop, op.void); // $wait
    c.idx(op.local_get, 0).i32(0).emit(op.i32_ge_s).idx(op.br_if, 1);
    c.idx(op.call, fnIdle).idx(op.local_tee, 0);
    c.i32(0).emit(op.i32_ge_s).idx(op.br_if, 1);
    c.idx(op.call, fnAsk).idx(op.local_set, 0);
    c.idx(op.br, 0);
    c.emit(op.end); // $wait
    c.emit(op.end); // $out
    c.idx(op.local_get, 0);
    c.idx(op.br_if, 0);
    c.emit(op.end); // loop
    c.i32(0);
    w.export('carrier', 'function', w.func(['i32'], ['i32'], c));
  }
  w.export('memory', 'memory', 0);
  w.export('registers', 'table', registerTable);
  return w.bytes();
}

/** Words per slot in the carriers' memory: entry, argument, drop function, stack segment, bindings. */
const SLOT_WORDS = 5;

/** The carriers of one program and their slot words. */
export class Carriers {
  /**
   * @param {(slot: number) => number} carrier  the carrier export (wrapped with promising by the bridge)
   * @param {(fn: number, arg: number) => void} drop
   * @param {WebAssembly.Memory} memory
   * @param {WebAssembly.Table} registers  the register table (CARRIER_START, CARRIER_INSTALL)
   */
  constructor(carrier, drop, memory, registers) {
    this.carrier = carrier;
    this.drop = drop;
    this.memory = memory;
    this.registers = registers;
    this.words = new Int32Array(memory.buffer);
  }

  /**
   * Points the register table at a register file (again when it is rebuilt).
   * @param {import('./registers.mjs').RegisterFile} file
   */
  connect(file) {
    this.registers.set(CARRIER_START, file.start);
    this.registers.set(CARRIER_INSTALL, file.install);
  }

  /** Grows the slot words to hold `slots` slots. @param {number} slots */
  ensure(slots) {
    const need = Math.ceil((slots * SLOT_WORDS * 4) / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (need > 0) this.memory.grow(need);
    this.words = new Int32Array(this.memory.buffer);
  }

  /**
   * Records what a queued task will run, the drop function (a table index,
   * 0 for none) a discard calls with the argument instead, and the slot whose
   * bindings it starts with (its own, or 0 for the defaults).
   * @param {number} slot @param {number} entry @param {number} arg @param {number} drop @param {number} bindings
   */
  setEntry(slot, entry, arg, drop, bindings) {
    const at = slot * SLOT_WORDS;
    this.words[at] = entry;
    this.words[at + 1] = arg;
    this.words[at + 2] = drop;
    this.words[at + 4] = bindings;
  }

  /**
   * Records where a granted start's stack segment is.
   * @param {number} slot @param {number} low
   */
  setStart(slot, low) {
    this.words[slot * SLOT_WORDS + 3] = low;
  }

  /** The lowest address of the stack segment of the start in `slot`, 0 if none. @param {number} slot */
  lowOf(slot) {
    return this.words[slot * SLOT_WORDS + 3];
  }

  /** The argument of the start in `slot`. @param {number} slot */
  argOf(slot) {
    return this.words[slot * SLOT_WORDS + 1];
  }

  /** The drop function of the start in `slot`, 0 if none. @param {number} slot */
  dropOf(slot) {
    return this.words[slot * SLOT_WORDS + 2];
  }
}
