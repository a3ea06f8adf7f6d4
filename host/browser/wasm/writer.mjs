// The WebAssembly binary writer (internal): builds the modules the runtime
// generates per program (gates.mjs, registers.mjs, carriers.mjs beside this
// file). Its Code writes a function body as nested constructs whose branches
// name labels, not depths.
import { InternalError } from '../errors.mjs';
import { KIND, SECTION, VALTYPE } from './reader.mjs';

/** The module's preamble: the magic number "\0asm" and version 1. */
const PREAMBLE = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
/** The form of a function type in the type section. */
const FUNC_FORM = 0x60;
/** Limits with a minimum and no maximum. */
const LIMITS_MIN = 0x00;
/** A tag's attribute: an exception. */
const TAG_EXCEPTION = 0x00;
/** The subsection of global names in the "name" section. */
const NAME_GLOBALS = 7;
/** The block type of a block that takes and yields nothing. */
const EMPTY_BLOCK = 0x40;

/** Appends `value` as an unsigned LEB128. @param {number[]} out @param {number} value */
function u32(out, value) {
  let v = value >>> 0;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
}

/** `value` as unsigned LEB128 bytes. @param {number} value */
export function leb(value) {
  /** @type {number[]} */
  const out = [];
  u32(out, value);
  return out;
}

/** @param {number[]} out @param {number} value */
function s32(out, value) {
  let v = value | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return;
    }
    out.push(b | 0x80);
  }
}

/** @param {number[]} out @param {string} s */
function name(out, s) {
  const bytes = new TextEncoder().encode(s);
  u32(out, bytes.length);
  for (const b of bytes) out.push(b);
}

/** Opcodes of the instructions generated code uses. */
export const op = {
  unreachable: 0x00, block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b,
  br: 0x0c, br_if: 0x0d, br_table: 0x0e, return: 0x0f, call: 0x10, call_indirect: 0x11,
  return_call_indirect: 0x13,
  drop: 0x1a, local_get: 0x20, local_set: 0x21, local_tee: 0x22, global_get: 0x23, global_set: 0x24,
  table_get: 0x25, table_set: 0x26,
  i32_load: 0x28, i64_load: 0x29, f32_load: 0x2a, f64_load: 0x2b,
  i32_store: 0x36, i64_store: 0x37, f32_store: 0x38, f64_store: 0x39,
  i32_const: 0x41, i32_eqz: 0x45, i32_eq: 0x46, i32_ne: 0x47, i32_lt_s: 0x48, i32_ge_s: 0x4e, i32_add: 0x6a, i32_sub: 0x6b, i32_mul: 0x6c,
  /** Not an instruction: the block type of no value (blockType(null)). */
  void: EMPTY_BLOCK,
  try_table: 0x1f,
  /** The prefix of the 0xfc instructions (Code.fc). */
  prefix_fc: 0xfc,
};

/** The loads and stores of numeric values, with their natural alignment (log2 bytes). */
const LOAD = { i32: [op.i32_load, 2], i64: [op.i64_load, 3], f32: [op.f32_load, 2], f64: [op.f64_load, 3] };
const STORE = { i32: [op.i32_store, 2], i64: [op.i64_store, 3], f32: [op.f32_store, 2], f64: [op.f64_store, 3] };

/** The kinds of a try_table's catch clauses. */
const CATCH = { tag: 0x00, all: 0x02 };

/** The block type of a value type, or of no value. @param {string | null} t */
export function blockType(t) {
  return t === null ? EMPTY_BLOCK : VALTYPE[t];
}

/**
 * A label: a block, loop, if or try_table of a function body, while it is
 * open. Branches name it; the writer turns it into the relative depth the
 * binary format wants.
 * @typedef {{ level: number }} Label
 * @typedef {{ kind: number, tag: number, label: Label }} CatchClause
 */

/**
 * A try_table clause that catches exceptions of tag `tag` and branches to
 * `label` with their values.
 * @param {number} tag @param {Label} label @returns {CatchClause}
 */
export function catchTag(tag, label) {
  return { kind: CATCH.tag, tag, label };
}

/**
 * A try_table clause that catches every exception and branches to `label`.
 * @param {Label} label @returns {CatchClause}
 */
export function catchAll(label) {
  return { kind: CATCH.all, tag: -1, label };
}

/**
 * Builds a function body. Instructions are appended in order; blocks, loops,
 * ifs and try_tables take their body as a function that receives the
 * construct's label, so that the code's nesting is the generator's, and
 * branches name labels instead of depths.
 */
export class Code {
  /**
   * @param {string[]} [params]  the function's parameter types, when locals
   *   are to be numbered after them (local() then returns their index)
   */
  constructor(params) {
    /** @type {number[]} */
    this.bytes = [];
    /** @type {string[]} */
    this.locals = [];
    /** @type {string[] | null} */
    this.params = params ?? null;
    /** @type {Label[]} the open constructs, outermost first */
    this.open = [];
  }

  /** Appends instructions without immediates (or raw bytes). @param {...number} bytes */
  emit(...bytes) {
    for (const b of bytes) {
      // An opcode misspelt in op is undefined, which would be written as 0 (unreachable).
      if (!Number.isInteger(b) || b < 0 || b > 255) throw new InternalError(`emit() of ${String(b)}, which is not a byte`);
      this.bytes.push(b);
    }
    return this;
  }
  /** An instruction with one index. @param {number} opcode @param {number} index */
  idx(opcode, index) {
    this.bytes.push(opcode);
    u32(this.bytes, index);
    return this;
  }
  /** An unsigned immediate (an index). @param {number} value */
  imm(value) {
    u32(this.bytes, value);
    return this;
  }
  /** @param {number} value */
  i32(value) {
    this.bytes.push(op.i32_const);
    s32(this.bytes, value);
    return this;
  }
  /** A memory access with alignment `align` (log2) and offset. @param {number} opcode @param {number} align @param {number} offset */
  mem(opcode, align, offset) {
    this.bytes.push(opcode);
    u32(this.bytes, align);
    u32(this.bytes, offset);
    return this;
  }
  /** A 0xfc-prefixed instruction with u32 immediates. @param {number} extOpcode @param {...number} imm */
  fc(extOpcode, ...imm) {
    this.bytes.push(op.prefix_fc);
    u32(this.bytes, extOpcode);
    for (const i of imm) u32(this.bytes, i);
    return this;
  }

  /**
   * Declares a local of type `type`: its index, after the parameters given to
   * the constructor (without them, its index among the locals).
   * @param {string} type
   */
  local(type) {
    this.locals.push(type);
    return (this.params?.length ?? 0) + this.locals.length - 1;
  }
  /** @param {number} index */
  localGet(index) { return this.idx(op.local_get, index); }
  /** @param {number} index */
  localSet(index) { return this.idx(op.local_set, index); }
  /** @param {number} index */
  localTee(index) { return this.idx(op.local_tee, index); }
  /** @param {number} index */
  globalGet(index) { return this.idx(op.global_get, index); }
  /** @param {number} index */
  globalSet(index) { return this.idx(op.global_set, index); }
  /** @param {number} table */
  tableGet(table) { return this.idx(op.table_get, table); }
  /** @param {number} table */
  tableSet(table) { return this.idx(op.table_set, table); }
  /** @param {number} func */
  call(func) { return this.idx(op.call, func); }
  /** A call through `table` of a function of type `type`. @param {number} type @param {number} table */
  callIndirect(type, table) { return this.idx(op.call_indirect, type).imm(table); }
  /** A tail call through `table` of a function of type `type`. @param {number} type @param {number} table */
  returnCallIndirect(type, table) { return this.idx(op.return_call_indirect, type).imm(table); }
  /** Loads a numeric value of type `type` from memory 0, naturally aligned. @param {string} type @param {number} offset */
  load(type, offset) {
    const [opcode, align] = LOAD[/** @type {keyof typeof LOAD} */ (type)];
    return this.mem(opcode, align, offset);
  }
  /** Stores a numeric value of type `type` into memory 0, naturally aligned. @param {string} type @param {number} offset */
  store(type, offset) {
    const [opcode, align] = STORE[/** @type {keyof typeof STORE} */ (type)];
    return this.mem(opcode, align, offset);
  }

  /** A block: a branch to its label goes to its end. @param {string | null} type @param {(label: Label) => void} body */
  block(type, body) {
    this.bytes.push(op.block, blockType(type));
    return this.construct(body);
  }
  /** A loop: a branch to its label goes to its start. @param {string | null} type @param {(label: Label) => void} body */
  loop(type, body) {
    this.bytes.push(op.loop, blockType(type));
    return this.construct(body);
  }
  /**
   * An if without a value: `then` runs when the value on the stack is not
   * zero, `otherwise` (if given) when it is.
   * @param {(label: Label) => void} then @param {(label: Label) => void} [otherwise]
   */
  if(then, otherwise) {
    this.bytes.push(op.if, EMPTY_BLOCK);
    const label = this.enter();
    then(label);
    if (otherwise) {
      this.bytes.push(op.else);
      otherwise(label);
    }
    return this.leave(label);
  }
  /**
   * A try_table: an exception its body throws that a clause catches
   * branches to the clause's label, which must be of a construct around
   * this one.
   * @param {string | null} type @param {CatchClause[]} catches @param {(label: Label) => void} body
   */
  tryTable(type, catches, body) {
    this.bytes.push(op.try_table, blockType(type));
    u32(this.bytes, catches.length);
    for (const { kind, tag, label } of catches) {
      this.bytes.push(kind);
      if (kind === CATCH.tag) u32(this.bytes, tag);
      u32(this.bytes, this.depth(label));
    }
    return this.construct(body);
  }
  /**
   * A switch over the i32 `select` pushes: value i runs cases[i], any other
   * runs `otherwise`; then the code after the switch. One br_table into
   * nested blocks, the first case innermost.
   * @param {() => void} select @param {(() => void)[]} cases @param {() => void} otherwise
   */
  switch(select, cases, otherwise) {
    return this.block(null, (done) => {
      this.block(null, (other) => {
        /** @type {Label[]} */
        const labels = [];
        /** Opens the blocks of cases `i` down to 0, then selects; case i's code follows its block. @param {number} i */
        const open = (i) => {
          if (i < 0) {
            select();
            this.brTable(labels, other);
            return;
          }
          this.block(null, (label) => {
            labels[i] = label;
            open(i - 1);
          });
          cases[i]();
          this.br(done);
        };
        open(cases.length - 1);
      });
      otherwise();
    });
  }

  /** @param {Label} label */
  br(label) { return this.idx(op.br, this.depth(label)); }
  /** @param {Label} label */
  brIf(label) { return this.idx(op.br_if, this.depth(label)); }
  /** A br_table: value i branches to targets[i], any other to `fallback`. @param {Label[]} targets @param {Label} fallback */
  brTable(targets, fallback) {
    this.bytes.push(op.br_table);
    u32(this.bytes, targets.length);
    for (const t of targets) u32(this.bytes, this.depth(t));
    u32(this.bytes, this.depth(fallback));
    return this;
  }

  /** Runs the body of a construct whose opening is written. @param {(label: Label) => void} body */
  construct(body) {
    const label = this.enter();
    body(label);
    return this.leave(label);
  }
  /** @returns {Label} */
  enter() {
    const label = { level: this.open.length };
    this.open.push(label);
    return label;
  }
  /** @param {Label} label */
  leave(label) {
    if (this.open.at(-1) !== label) throw new InternalError('a construct of generated code ends out of order');
    this.open.pop();
    this.bytes.push(op.end);
    return this;
  }
  /** The relative depth of an open label, from here. @param {Label} label */
  depth(label) {
    if (this.open[label.level] !== label) throw new InternalError('generated code branches to a label that is not open');
    return this.open.length - 1 - label.level;
  }
}

/**
 * A minimal module writer: types are interned, everything else is appended in
 * declaration order. Indices of imported functions/globals/tables come first, as
 * in the binary format, so declare imports before definitions.
 */
export class ModuleWriter {
  constructor() {
    /** @type {string[]} */
    this.typeKeys = [];
    /** @type {import('./reader.mjs').FuncType[]} */
    this.types = [];
    /** @type {number[][]} */
    this.imports = [];
    this.importedFuncs = 0;
    this.importedGlobals = 0;
    this.importedTables = 0;
    this.importedTags = 0;
    this.importedMemories = 0;
    /** @type {number[]} */
    this.funcTypeIndices = [];
    /** @type {Code[]} */
    this.bodies = [];
    /** @type {number[][]} */
    this.tables = [];
    /** @type {number[][]} */
    this.memories = [];
    /** @type {number[][]} */
    this.globals = [];
    /** @type {number[][]} */
    this.exports = [];
  }

  /** @param {string[]} params @param {string[]} results */
  type(params, results) {
    const key = `${params.join(',')}->${results.join(',')}`;
    let i = this.typeKeys.indexOf(key);
    if (i < 0) {
      i = this.types.length;
      this.typeKeys.push(key);
      this.types.push({ params, results });
    }
    return i;
  }

  /** The start of an import entry of kind `kind`. @param {string} module @param {string} field @param {string} kind */
  importOf(module, field, kind) {
    /** @type {number[]} */
    const out = [];
    name(out, module);
    name(out, field);
    out.push(KIND.indexOf(kind));
    this.imports.push(out);
    return out;
  }

  /** @param {string} module @param {string} field @param {string[]} params @param {string[]} results @returns {number} function index */
  importFunc(module, field, params, results) {
    if (this.funcTypeIndices.length) throw new InternalError('import functions before defining any');
    u32(this.importOf(module, field, 'function'), this.type(params, results));
    return this.importedFuncs++;
  }

  /** @param {string} module @param {string} field @param {string} type @param {boolean} mutable @returns {number} global index */
  importGlobal(module, field, type, mutable) {
    if (this.globals.length) throw new InternalError('import globals before defining any');
    this.importOf(module, field, 'global').push(VALTYPE[type], mutable ? 1 : 0);
    return this.importedGlobals++;
  }

  /** @param {string} module @param {string} field @param {string} elemType @param {number} min @returns {number} table index */
  importTable(module, field, elemType, min) {
    if (this.tables.length) throw new InternalError('import tables before defining any');
    const out = this.importOf(module, field, 'table');
    out.push(VALTYPE[elemType], LIMITS_MIN);
    u32(out, min);
    return this.importedTables++;
  }

  /**
   * Imports a memory; memories imported count from 0, before any defined one.
   * @param {string} module @param {string} field @param {number} min @returns {number} memory index
   */
  importMemory(module, field, min) {
    if (this.memories.length) throw new InternalError('import memories before defining any');
    const out = this.importOf(module, field, 'memory');
    out.push(LIMITS_MIN);
    u32(out, min);
    return this.importedMemories++;
  }

  /**
   * Imports an exception tag (the JS API's WebAssembly.JSTag has one externref).
   * @param {string} module @param {string} field @param {string[]} params @returns {number} tag index
   */
  importTag(module, field, params) {
    const out = this.importOf(module, field, 'tag');
    out.push(TAG_EXCEPTION);
    u32(out, this.type(params, []));
    return this.importedTags++;
  }

  /** @param {string[]} params @param {string[]} results @param {Code} code */
  func(params, results, code) {
    if (code.open.length) throw new InternalError('a function body ends inside a construct');
    if (code.params && code.params.join() !== params.join()) throw new InternalError('a function body was written for other parameters');
    this.funcTypeIndices.push(this.type(params, results));
    this.bodies.push(code);
    return this.importedFuncs + this.bodies.length - 1;
  }

  /** @param {string} elemType @param {number} min */
  table(elemType, min) {
    const out = [VALTYPE[elemType], LIMITS_MIN];
    u32(out, min);
    this.tables.push(out);
    return this.importedTables + this.tables.length - 1;
  }

  /** @param {number} minPages */
  memory(minPages) {
    const out = [LIMITS_MIN];
    u32(out, minPages);
    this.memories.push(out);
    return this.importedMemories + this.memories.length - 1;
  }

  /** @param {string} field @param {'function'|'table'|'memory'|'global'} kind @param {number} index */
  export(field, kind, index) {
    /** @type {number[]} */
    const out = [];
    name(out, field);
    out.push(KIND.indexOf(kind));
    u32(out, index);
    this.exports.push(out);
  }

  /** @returns {Uint8Array} */
  bytes() {
    const out = [...PREAMBLE];
    /** @param {number} id @param {number[][]} items */
    const section = (id, items) => {
      if (!items.length) return;
      /** @type {number[]} */
      const body = [];
      u32(body, items.length);
      for (const item of items) for (const b of item) body.push(b);
      out.push(id);
      u32(out, body.length);
      for (const b of body) out.push(b);
    };
    section(SECTION.type, this.types.map((t) => {
      const b = [FUNC_FORM];
      u32(b, t.params.length);
      for (const p of t.params) b.push(VALTYPE[p]);
      u32(b, t.results.length);
      for (const p of t.results) b.push(VALTYPE[p]);
      return b;
    }));
    section(SECTION.import, this.imports);
    section(SECTION.function, this.funcTypeIndices.map((t) => leb(t)));
    section(SECTION.table, this.tables);
    section(SECTION.memory, this.memories);
    section(SECTION.global, this.globals);
    section(SECTION.export, this.exports);
    section(SECTION.code, this.bodies.map((code) => {
      /** @type {number[]} */
      const body = [];
      // Locals, one entry per declared local (no run-length grouping needed).
      u32(body, code.locals.length);
      for (const t of code.locals) {
        body.push(1, VALTYPE[t]);
      }
      for (const b of code.bytes) body.push(b);
      body.push(op.end);
      const sized = leb(body.length);
      for (const b of body) sized.push(b);
      return sized;
    }));
    return new Uint8Array(out);
  }
}

/**
 * Appends a "name" section naming globals, for a module that has none (linkers
 * strip it in optimised builds; some tools find globals by name).
 * @param {Uint8Array} bytes @param {Map<number, string>} globalNames
 */
export function appendGlobalNames(bytes, globalNames) {
  /** @type {number[]} */
  const sub = [];
  u32(sub, globalNames.size);
  for (const [index, n] of [...globalNames].sort((a, b) => a[0] - b[0])) {
    u32(sub, index);
    name(sub, n);
  }
  /** @type {number[]} */
  const payload = [];
  name(payload, 'name');
  payload.push(NAME_GLOBALS);
  u32(payload, sub.length);
  payload.push(...sub);
  const section = [SECTION.custom];
  u32(section, payload.length);
  section.push(...payload);
  const out = new Uint8Array(bytes.length + section.length);
  out.set(bytes);
  out.set(section, bytes.length);
  return out;
}
