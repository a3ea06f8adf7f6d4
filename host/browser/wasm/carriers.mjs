// The carriers (internal): the `promising` entry point that runs a task's
// entry and, when the task returns, asks the scheduler for the next start and
// runs it on the same stack (or parks until one comes, or until a dispatch
// wakes it to ask again). A carrier installs a start's registers itself and
// the defaults when its task returns, through a table the bridge points at the
// register file's `start` and `install` (registers.mjs). The carriers are
// built once per program; the register file is rebuilt when a loaded module
// brings new registers, and the carriers are pointed at the new one.
import { Code, ModuleWriter, op } from './binary.mjs';

const PAGE = 65536;

// The words of a slot in the carriers' memory, by index: what a start runs
// (a table index, or a named entry's -1 - index), its argument, its drop
// function, the lowest address of its stack segment and the slot its bindings
// come from.
const ENTRY_WORD = 0;
const ARG_WORD = 1;
const DROP_WORD = 2;
const LOW_WORD = 3;
const BINDINGS_WORD = 4;
/** Words per slot. */
const SLOT_WORDS = 5;

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
  // drop(fn, arg): call a drop function (i32) -> () of the program's table.
  {
    const c = new Code(['i32', 'i32']);
    const [fn, arg] = [0, 1];
    if (programTable >= 0) {
      c.localGet(arg).localGet(fn).callIndirect(w.type(['i32'], []), programTable);
    } else {
      c.emit(op.unreachable);
    }
    w.export('drop', 'function', w.func(['i32', 'i32'], [], c));
  }
  // carrier(slot): run the task in `slot`, then whatever next() hands over.
  {
    const c = new Code(['i32']);
    const slot = 0;
    const entry = c.local('i32');
    const result = c.local('i32');
    const base = c.local('i32');
    /** Pushes word `index` of the slot at byte `base`. @param {number} index */
    const word = (index) => c.localGet(base).load('i32', index * 4);
    c.loop(null, (again) => {
      c.localGet(slot).i32(stride).emit(op.i32_mul).localSet(base);
      // start(bindings, low, size): the start's registers.
      word(BINDINGS_WORD);
      word(LOW_WORD);
      c.i32(stackSize).i32(CARRIER_START).callIndirect(w.type(['i32', 'i32', 'i32'], []), registerTable);
      // Only now is the task's Wasm running: a wait begun after its grant and
      // before this (JavaScript calling an export directly) is not the task's.
      if (fnCurrent >= 0) c.localGet(slot).call(fnCurrent);
      word(ENTRY_WORD);
      c.localSet(entry);
      // A table index (>= 0) runs table[entry](arg), a named entry (< 0)
      // entries[-entry - 1](arg).
      c.localGet(entry).i32(0).emit(op.i32_ge_s);
      c.if(() => {
        if (programTable < 0) {
          c.emit(op.unreachable);
          return;
        }
        word(ARG_WORD);
        c.localGet(entry).callIndirect(w.type(['i32'], ['i32']), programTable).localSet(result);
      }, () => {
        if (fnEntries.length === 0) {
          c.emit(op.unreachable);
          return;
        }
        c.switch(
          () => c.i32(-1).localGet(entry).emit(op.i32_sub), // -1 - entry = -entry - 1
          fnEntries.map((fn) => () => {
            word(ARG_WORD);
            c.call(fn).localSet(result);
          }),
          () => c.emit(op.unreachable),
        );
      });
      // install(0): the defaults, now that the task returned.
      c.i32(0).i32(CARRIER_INSTALL).callIndirect(w.type(['i32'], []), registerTable);
      // next() hands over the next start (> 0), ends the carrier (0), or parks it
      // (< 0): then idle() suspends it until a start needs a stack (> 0), the
      // runtime lets it go (0), or a dispatch wakes it to pick the start itself
      // (< 0): ask() answers as next() does.
      c.localGet(slot).localGet(result).call(fnNext).localSet(slot);
      c.block(null, (out) => {
        c.loop(null, (wait) => {
          c.localGet(slot).i32(0).emit(op.i32_ge_s).brIf(out);
          c.call(fnIdle).localTee(slot);
          c.i32(0).emit(op.i32_ge_s).brIf(out);
          c.call(fnAsk).localSet(slot);
          c.br(wait);
        });
      });
      c.localGet(slot).brIf(again);
    });
    c.i32(0);
    w.export('carrier', 'function', w.func(['i32'], ['i32'], c));
  }
  w.export('memory', 'memory', 0);
  w.export('registers', 'table', registerTable);
  return w.bytes();
}


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
    this.words[at + ENTRY_WORD] = entry;
    this.words[at + ARG_WORD] = arg;
    this.words[at + DROP_WORD] = drop;
    this.words[at + BINDINGS_WORD] = bindings;
  }

  /**
   * Records where a granted start's stack segment is.
   * @param {number} slot @param {number} low
   */
  setStart(slot, low) {
    this.words[slot * SLOT_WORDS + LOW_WORD] = low;
  }

  /** The lowest address of the stack segment of the start in `slot`, 0 if none. @param {number} slot */
  lowOf(slot) {
    return this.words[slot * SLOT_WORDS + LOW_WORD];
  }

  /** The argument of the start in `slot`. @param {number} slot */
  argOf(slot) {
    return this.words[slot * SLOT_WORDS + ARG_WORD];
  }

  /** The drop function of the start in `slot`, 0 if none. @param {number} slot */
  dropOf(slot) {
    return this.words[slot * SLOT_WORDS + DROP_WORD];
  }
}
