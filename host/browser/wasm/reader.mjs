// The WebAssembly binary reader (internal): what the runtime needs to check a
// program against the ABI without the type-reflection proposal (the types of
// imports and exports), and the encodings other readers share (names.mjs
// reads the name and element sections with its Reader). writer.mjs beside it
// writes the modules the runtime generates.

export const SECTION = { custom: 0, type: 1, import: 2, function: 3, table: 4, memory: 5, global: 6, export: 7, code: 10 };
export const KIND = ['function', 'table', 'memory', 'global', 'tag'];

/** @type {Record<number, string>} */
const VALTYPE_NAMES = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64', 0x7b: 'v128', 0x70: 'funcref', 0x6f: 'externref' };
/** @type {Record<string, number>} */
export const VALTYPE = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b, funcref: 0x70, externref: 0x6f };

/**
 * @typedef {{ params: string[], results: string[] }} FuncType
 * @typedef {{ module: string, name: string, kind: string, type?: FuncType, global?: { type: string, mutable: boolean } }} ImportInfo
 * @typedef {{ name: string, kind: string, index: number, type?: FuncType, global?: { type: string, mutable: boolean }, table?: { element: string } }} ExportInfo
 * @typedef {{ imports: ImportInfo[], exports: ExportInfo[], customSections: string[] }} ModuleInfo
 */

export class WasmFormatError extends Error {}

/**
 * Reads the binary format's encodings from bytes (a module, or a custom
 * section's payload), failing with a WasmFormatError at their end.
 */
export class Reader {
  /** @param {Uint8Array} bytes @param {string} [what]  what the bytes are, for errors */
  constructor(bytes, what = 'module') {
    this.bytes = bytes;
    this.what = what;
    this.pos = 0;
  }
  /** Whether every byte has been read. */
  done() {
    return this.pos >= this.bytes.length;
  }
  byte() {
    if (this.pos >= this.bytes.length) throw new WasmFormatError(`unexpected end of ${this.what}`);
    return this.bytes[this.pos++];
  }
  /** An unsigned LEB128 of at most 32 bits. */
  u32() {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
      if (shift > 35) throw new WasmFormatError('LEB128 too long');
    }
  }
  skipLeb() {
    while (this.byte() & 0x80);
  }
  /** A UTF-8 string, after its length. */
  name() {
    const n = this.u32();
    if (this.pos + n > this.bytes.length) throw new WasmFormatError(`unexpected end of ${this.what}`);
    const s = new TextDecoder().decode(this.bytes.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }
  valtype() {
    const b = this.byte();
    const name = VALTYPE_NAMES[b];
    if (name) return name;
    // Typed references (0x63/0x64 heaptype) from the GC proposal.
    if (b === 0x63 || b === 0x64) {
      const heap = this.byte();
      if (heap & 0x40 || heap === 0x70 || heap === 0x6f) return heap === 0x6f ? 'externref' : heap === 0x70 ? 'funcref' : `ref(${heap})`;
      this.pos--;
      this.skipLeb();
      return 'ref';
    }
    return `unknown(0x${b.toString(16)})`;
  }
  limits() {
    const flags = this.byte();
    this.u32();
    if (flags & 1) this.u32();
  }
  skipConstExpr() {
    // Constant expressions end at 0x0b; the immediates used in global inits here
    // never contain that byte in a position we would misread except inside LEBs,
    // which are skipped properly.
    for (;;) {
      const op = this.byte();
      if (op === 0x0b) return;
      if (op === 0x41 || op === 0x42 || op === 0x23 || op === 0xd2) this.skipLeb();
      else if (op === 0x43) this.pos += 4;
      else if (op === 0x44) this.pos += 8;
      else if (op === 0xd0) this.byte();
      else if (op === 0xfb || op === 0xfc || op === 0xfd) this.skipLeb();
    }
  }
}

/**
 * Reads the import and export signatures of a module.
 * @param {ArrayBuffer | ArrayBufferView} source
 * @returns {ModuleInfo}
 */
export function readModuleInfo(source) {
  const bytes = source instanceof Uint8Array ? source
    : ArrayBuffer.isView(source) ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
    : new Uint8Array(source);
  const r = new Reader(bytes);
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new WasmFormatError('not a WebAssembly module (bad magic number)');
  }
  r.pos = 8;
  /** @type {FuncType[]} */
  const types = [];
  /** @type {ImportInfo[]} */
  const imports = [];
  /** @type {number[]} */
  const funcTypes = []; // type index of every function, imports first
  /** @type {{ type: string, mutable: boolean }[]} */
  const globals = []; // every global, imports first
  /** @type {string[]} */
  const tables = []; // the element type of every table, imports first
  /** @type {{ name: string, kind: string, index: number }[]} */
  const rawExports = [];
  /** @type {string[]} */
  const customs = [];

  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (end > bytes.length) throw new WasmFormatError('section extends past the end of the module');
    if (id === SECTION.custom) {
      customs.push(r.name());
    } else if (id === SECTION.type) {
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        let form = r.byte();
        if (form === 0x4e || form === 0x4f || form === 0x50) {
          // rec groups / subtypes (GC proposal): only plain func types matter here.
          types.push({ params: [], results: [] });
          r.pos = end;
          break;
        }
        if (form !== 0x60) {
          types.push({ params: [], results: [] });
          r.pos = end;
          break;
        }
        const params = [];
        for (let n = r.u32(); n > 0; n--) params.push(r.valtype());
        const results = [];
        for (let n = r.u32(); n > 0; n--) results.push(r.valtype());
        types.push({ params, results });
      }
    } else if (id === SECTION.import) {
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        const module = r.name();
        const name = r.name();
        const kind = r.byte();
        /** @type {ImportInfo} */
        const info = { module, name, kind: KIND[kind] ?? `kind${kind}` };
        if (kind === 0) {
          const t = r.u32();
          funcTypes.push(t);
          info.type = types[t];
        } else if (kind === 1) {
          tables.push(r.valtype());
          r.limits();
        } else if (kind === 2) {
          r.limits();
        } else if (kind === 3) {
          const type = r.valtype();
          const mutable = r.byte() === 1;
          globals.push({ type, mutable });
          info.global = { type, mutable };
        } else if (kind === 4) {
          r.byte();
          r.u32();
        }
        imports.push(info);
      }
    } else if (id === SECTION.function) {
      for (let n = r.u32(); n > 0; n--) funcTypes.push(r.u32());
    } else if (id === SECTION.table) {
      for (let n = r.u32(); n > 0; n--) {
        // 0x40 0x00: a table with an initialiser (function references).
        const init = bytes[r.pos] === 0x40;
        if (init) r.pos += 2;
        tables.push(r.valtype());
        r.limits();
        if (init) r.skipConstExpr();
      }
    } else if (id === SECTION.global) {
      for (let n = r.u32(); n > 0; n--) {
        const type = r.valtype();
        const mutable = r.byte() === 1;
        globals.push({ type, mutable });
        r.skipConstExpr();
      }
    } else if (id === SECTION.export) {
      for (let n = r.u32(); n > 0; n--) {
        const name = r.name();
        const kind = r.byte();
        rawExports.push({ name, kind: KIND[kind] ?? `kind${kind}`, index: r.u32() });
      }
    }
    r.pos = end;
  }

  const exports = rawExports.map(({ name, kind, index }) => {
    /** @type {ExportInfo} */
    const info = { name, kind, index };
    if (kind === 'function') info.type = types[funcTypes[index]];
    if (kind === 'global') info.global = globals[index];
    if (kind === 'table') info.table = { element: tables[index] };
    return info;
  });
  return { imports, exports, customSections: customs };
}

/** @param {FuncType | undefined} t */
export function formatFuncType(t) {
  if (!t) return '(unknown type)';
  const params = t.params.length ? `(param ${t.params.join(' ')})` : '';
  const results = t.results.length ? `(result ${t.results.join(' ')})` : '';
  return `(func ${params}${params && results ? ' ' : ''}${results})`.replace('(func )', '(func)');
}
