// The register file (internal).
//
// A program's registers are its handler globals plus its stack registers
// (`__stack_pointer`, `snail.stack.base`, `snail.stack.limit`). The runtime
// generates one small Wasm module per program that imports those globals and
// saves, installs and copies them in Wasm: one call from JS instead of one JS
// accessor call per global. Each task owns a *slot*: its binding vector while it
// is queued, its saved registers while it is suspended. Slot 0 holds the
// defaults (the values after the program's initialisation). The slots are in
// a memory the suspension wrappers share (gates.mjs), which save and install
// them at every wait with the same code (registerCode), in their own. The
// register file is rebuilt when a loaded module brings new registers, and the
// tasks' saved values move over to it (RegisterFile.takeOver); the carriers
// (carriers.mjs) and the wrappers are pointed at the new one.
import { Code, ModuleWriter, op } from './binary.mjs';

const NUMERIC = new Set(['i32', 'i64', 'f32', 'f64']);
const PAGE = 65536;

/**
 * @typedef {'handler' | 'stack_pointer' | 'stack_base' | 'stack_limit'} RegisterRole
 * @typedef {{ name: string, module: string, type: string, role: RegisterRole, global: WebAssembly.Global }} Register
 */

const WIDE = new Set(['i64', 'f64']);

/**
 * @typedef {{ ref: 0 | 1 | 2, at: number }} Place  where a register lives in a slot: a
 *   byte offset (ref 0), or an index among the slot's externref (1) or funcref (2) entries
 * @typedef {{ stride: number, base: number, externs: number, funcs: number,
 *   registers: Register[], places: Map<Register, Place> }} Layout  slot n at byte `base + n * stride`
 */

/**
 * The layout of the slots of these registers, from byte `base` on. The
 * layout's registers are the handlers first, so that a binding vector is one
 * contiguous prefix of a slot, then the others, each in the order given. In a
 * slot, 64-bit registers come first, each at an 8-aligned offset, then the
 * 32-bit ones in 4 bytes each; a slot is a multiple of 8 bytes (at least 8).
 * @param {Register[]} given @param {number} base
 * @returns {Layout}
 */
export function slotLayout(given, base) {
  const registers = [...given.filter((r) => r.role === 'handler'), ...given.filter((r) => r.role !== 'handler')];
  for (const r of registers) {
    if (!NUMERIC.has(r.type) && r.type !== 'externref' && r.type !== 'funcref') {
      throw new TypeError(`register ${r.name} has unsupported type ${r.type}`);
    }
  }
  /** @type {Map<Register, Place>} */
  const places = new Map();
  let bytes = 0;
  for (const r of registers) if (WIDE.has(r.type)) { places.set(r, { ref: 0, at: bytes }); bytes += 8; }
  for (const r of registers) if (NUMERIC.has(r.type) && !WIDE.has(r.type)) { places.set(r, { ref: 0, at: bytes }); bytes += 4; }
  let externs = 0;
  let funcs = 0;
  for (const r of registers) {
    if (r.type === 'externref') places.set(r, { ref: 1, at: externs++ });
    else if (r.type === 'funcref') places.set(r, { ref: 2, at: funcs++ });
  }
  return { stride: Math.max(8, Math.ceil(bytes / 8) * 8), base, externs, funcs, registers, places };
}

/**
 * The code that saves and installs registers, for a module that has the
 * registers' globals, the slots' memory (as its memory 0) and the reference
 * tables of a register file of this layout (the register file itself, or the
 * suspension wrappers, which import them).
 * @param {Layout} layout
 * @param {{ globalOf: (r: Register) => number, externTable: number, funcTable: number }} at
 *   the global of each register and the tables' indices in the module
 */
export function registerCode({ stride, base, externs, funcs, places }, { globalOf, externTable, funcTable }) {
  const place = (/** @type {Register} */ r) => /** @type {Place} */ (places.get(r));
  /** The index of ref register r of the slot in `slotLocal`, onto the stack. @param {Code} c @param {Register} r @param {number} slotLocal */
  const refIndex = (c, r, slotLocal) => {
    c.localGet(slotLocal).i32(r.type === 'externref' ? externs : funcs).emit(op.i32_mul).i32(place(r).at).emit(op.i32_add);
  };
  const refTable = (/** @type {Register} */ r) => (r.type === 'externref' ? externTable : funcTable);
  return {
    /** `slot * stride` into local `baseLocal`. @param {Code} c @param {number} slotLocal @param {number} baseLocal */
    slotBase(c, slotLocal, baseLocal) {
      c.localGet(slotLocal).i32(stride).emit(op.i32_mul).localSet(baseLocal);
    },
    /**
     * Saves registers `which` from their globals into a slot (`baseLocal` holds its byte offset).
     * @param {Code} c @param {Register[]} which @param {number} slotLocal @param {number} baseLocal
     */
    save(c, which, slotLocal, baseLocal) {
      for (const r of which) {
        if (NUMERIC.has(r.type)) {
          c.localGet(baseLocal).globalGet(globalOf(r)).store(r.type, base + place(r).at);
        } else {
          refIndex(c, r, slotLocal);
          c.globalGet(globalOf(r)).tableSet(refTable(r));
        }
      }
    },
    /**
     * Installs registers `which` from a slot into their globals.
     * @param {Code} c @param {Register[]} which @param {number} slotLocal @param {number} baseLocal
     */
    install(c, which, slotLocal, baseLocal) {
      for (const r of which) {
        if (NUMERIC.has(r.type)) {
          c.localGet(baseLocal).load(r.type, base + place(r).at).globalSet(globalOf(r));
        } else {
          refIndex(c, r, slotLocal);
          c.tableGet(refTable(r)).globalSet(globalOf(r));
        }
      }
    },
  };
}

/**
 * Builds and instantiates the register file of one program. Its slots live in
 * `memory` from byte `base` on, up to the memory's end: the memory grows with
 * them. The suspension wrappers share the memory (gates.mjs), so that their
 * words and the slots are in one memory; a register file made to replace
 * another takes the same bytes, from a snapshot of the old one's slots
 * (RegisterFile.snapshot, takeOver).
 * @param {{ registers: Register[], memory: WebAssembly.Memory, base: number }} spec
 */
export function createRegisterFile({ registers, memory, base }) {
  const layout = slotLayout(registers, base);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(/** @type {BufferSource} */ (registerFileModule(layout))), {
    registers: { ...Object.fromEntries(layout.registers.map((r, i) => [String(i), r.global])), memory },
  });
  return new RegisterFile(instance, memory, layout);
}

/**
 * The register file of registers of `layout`: save, install, suspend,
 * capture and start, and the slots' reference tables (externs, funcs).
 * Imports the registers' globals (registers.I, in the layout's order) and
 * the slots' memory (registers.memory).
 * @param {Layout} layout
 */
export function registerFileModule(layout) {
  const ordered = layout.registers;
  const w = new ModuleWriter();
  /** @type {Map<Register, number>} */
  const globalIndexOf = new Map();
  ordered.forEach((r, i) => globalIndexOf.set(r, w.importGlobal('registers', String(i), r.type, true)));
  w.importMemory('registers', 'memory', 1);
  const externTable = w.table('externref', 0);
  const funcTable = w.table('funcref', 0);

  const globalOf = (/** @type {Register} */ r) => /** @type {number} */ (globalIndexOf.get(r));
  const { slotBase, save, install } = registerCode(layout, { globalOf, externTable, funcTable });
  const handlers = ordered.filter((r) => r.role === 'handler');
  const byRole = (role) => ordered.find((r) => r.role === role);

  const slot = 0; // every function's first parameter
  // save(slot): every register into the slot.
  {
    const c = new Code(['i32']);
    const at = c.local('i32');
    slotBase(c, slot, at);
    save(c, ordered, slot, at);
    w.export('save', 'function', w.func(['i32'], [], c));
  }
  // install(slot): every register from the slot.
  {
    const c = new Code(['i32']);
    const at = c.local('i32');
    slotBase(c, slot, at);
    install(c, ordered, slot, at);
    w.export('install', 'function', w.func(['i32'], [], c));
  }
  // suspend(slot): save, then install the defaults (slot 0). One call per wait.
  {
    const c = new Code(['i32']);
    const at = c.local('i32');
    const zero = c.local('i32'); // slot 0, the defaults', whose byte offset is 0 too
    slotBase(c, slot, at);
    save(c, ordered, slot, at);
    c.i32(0).localSet(zero);
    install(c, ordered, zero, zero);
    w.export('suspend', 'function', w.func(['i32'], [], c));
  }
  // capture(slot): the current handler bindings into the slot (dispatch).
  {
    const c = new Code(['i32']);
    const at = c.local('i32');
    slotBase(c, slot, at);
    save(c, handlers, slot, at);
    w.export('capture', 'function', w.func(['i32'], [], c));
  }
  // start(slot, low, size): install the slot's bindings and a fresh stack segment.
  {
    const c = new Code(['i32', 'i32', 'i32']);
    const low = 1;
    const size = 2;
    const at = c.local('i32');
    slotBase(c, slot, at);
    install(c, handlers, slot, at);
    for (const [role, top] of [['stack_pointer', true], ['stack_base', true], ['stack_limit', false]]) {
      const r = byRole(role);
      if (!r) continue;
      c.localGet(low);
      if (top) c.localGet(size).emit(op.i32_add);
      c.globalSet(globalOf(r));
    }
    w.export('start', 'function', w.func(['i32', 'i32', 'i32'], [], c));
  }
  w.export('externs', 'table', externTable);
  w.export('funcs', 'table', funcTable);
  return w.bytes();
}

/** The instantiated register file of one program. */
export class RegisterFile {
  /**
   * @param {WebAssembly.Instance} instance @param {WebAssembly.Memory} memory @param {Layout} layout
   */
  constructor(instance, memory, layout) {
    const x = /** @type {any} */ (instance.exports);
    this.layout = layout;
    this.memory = memory;
    this.externTable = /** @type {WebAssembly.Table} */ (x.externs);
    this.funcTable = /** @type {WebAssembly.Table} */ (x.funcs);
    /** @type {(slot: number) => void} */ this.save = x.save;
    /** @type {(slot: number) => void} */ this.install = x.install;
    /** @type {(slot: number) => void} */ this.suspend = x.suspend;
    /** @type {(slot: number) => void} */ this.capture = x.capture;
    /** @type {(slot: number, low: number, size: number) => void} */ this.start = x.start;
    this.capacity = 0;
    /** @type {number[]} free slots, most recently freed last */
    this.free = [];
    this.used = 1; // slot 0 holds the defaults
    /** @type {((slots: number) => void) | null} also grows what else is kept per slot (the carriers' words); called after the memory grew */
    this.onGrow = null;
    this.ensure(64);
  }

  /** Grows memory and tables to hold `slots` slots. @param {number} slots */
  ensure(slots) {
    if (slots <= this.capacity) return;
    const { stride, base, externs, funcs } = this.layout;
    const capacity = Math.max(slots, this.capacity * 2);
    const needBytes = base + capacity * stride;
    const pages = Math.ceil(needBytes / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
    if (externs) this.externTable.grow(capacity * externs - this.externTable.length, null);
    if (funcs) this.funcTable.grow(capacity * funcs - this.funcTable.length, null);
    this.capacity = capacity;
    if (this.onGrow) this.onGrow(capacity);
  }

  /** A free slot for a new task. */
  allocate() {
    if (this.free.length) return /** @type {number} */ (this.free.pop());
    if (this.used >= this.capacity) this.ensure(this.used + 1);
    return this.used++;
  }

  /** Returns a slot; references it held are cleared so they can be collected. @param {number} slot */
  release(slot) {
    const { externs, funcs } = this.layout;
    for (let i = 0; i < externs; i++) this.externTable.set(slot * externs + i, null);
    for (let i = 0; i < funcs; i++) this.funcTable.set(slot * funcs + i, null);
    this.free.push(slot);
  }

  /** Slots handed out and not released (not counting the defaults). */
  get inUse() {
    return this.used - 1 - this.free.length;
  }

  /**
   * Where register `register` of `slot` lives.
   * @param {number} slot @param {Register} register
   */
  locate(slot, register) {
    const { stride, base, externs, funcs } = this.layout;
    const place = /** @type {Place} */ (this.layout.places.get(register));
    if (place.ref === 0) return { at: base + slot * stride + place.at, table: null, index: 0 };
    return place.ref === 1
      ? { at: 0, table: this.externTable, index: slot * externs + place.at }
      : { at: 0, table: this.funcTable, index: slot * funcs + place.at };
  }

  /** The value of a register saved in `slot`. @param {number} slot @param {Register} register */
  read(slot, register) {
    const { at, table, index } = this.locate(slot, register);
    if (table) return table.get(index);
    const view = new DataView(this.memory.buffer);
    switch (register.type) {
      case 'i32': return view.getInt32(at, true);
      case 'i64': return view.getBigInt64(at, true);
      case 'f32': return view.getFloat32(at, true);
      default: return view.getFloat64(at, true);
    }
  }

  /** Sets the value of a register saved in `slot`. @param {number} slot @param {Register} register @param {any} value */
  write(slot, register, value) {
    const { at, table, index } = this.locate(slot, register);
    if (table) {
      table.set(index, value);
      return;
    }
    const view = new DataView(this.memory.buffer);
    switch (register.type) {
      case 'i32': view.setInt32(at, value, true); break;
      case 'i64': view.setBigInt64(at, value, true); break;
      case 'f32': view.setFloat32(at, value, true); break;
      default: view.setFloat64(at, value, true);
    }
  }

  /**
   * The saved values of every register in the given slots, for the register
   * file that replaces this one: it takes the same bytes of the memory.
   * @param {number[]} slots
   * @returns {{ slots: number[], values: unknown[][] }}  values[i][j]: register j of slots[i]
   */
  snapshot(slots) {
    return { slots, values: slots.map((slot) => this.layout.registers.map((r) => this.read(slot, r))) };
  }

  /**
   * Takes over the slots of the register file this one replaces, from its
   * snapshot (made before this file was, whose slots may lie where the old
   * ones were): every saved value of every register both know, in every slot
   * in use (the defaults included). Registers only this one knows keep the
   * value they have in slot 0 in every slot: a new module's handler globals
   * start null in every task. Grows first, so that nothing is written if the
   * memory cannot grow.
   * @param {RegisterFile} old @param {{ slots: number[], values: unknown[][] }} snapshot
   */
  takeOver(old, { slots, values }) {
    this.ensure(old.capacity);
    this.free = old.free;
    this.used = old.used;
    const mine = old.layout.registers.map((r) => this.layout.registers.find((m) => m.global === r.global));
    const known = new Set(old.layout.registers.map((r) => r.global));
    const fresh = this.layout.registers.filter((r) => !known.has(r.global)).map((r) => ({ r, value: this.read(0, r) }));
    slots.forEach((slot, i) => {
      mine.forEach((m, j) => { if (m) this.write(slot, m, values[i][j]); });
      if (slot !== 0) for (const { r, value } of fresh) this.write(slot, r, value);
    });
  }
}
