// Loading modules into a running program (docs/abi.md, "Dynamically loaded
// modules"), following the WebAssembly tool-conventions for dynamic linking:
// a side module declares its memory and table needs in a `dylink.0` section and
// imports the program's memory, table and stack pointer, its memory and table
// bases, its data and function addresses through GOT.mem/GOT.func, and the
// functions it uses from the program's exports.
//
// The module's handler globals join the register file: every existing task,
// queued, suspended or executing, sees them null until it binds them; children
// dispatched afterwards copy them; every wait saves and installs them.
import { describeProgram, ENTRY_PREFIX, HANDLER_PREFIX, HANDLER_TYPES } from './abi.mjs';
import { isWaitOutsideTask, SnailError } from './errors.mjs';
import { loadModule } from './program.mjs';
import { Status } from './status.mjs';
import { Reader, WasmFormatError } from './wasm/binary.mjs';

/**
 * @typedef {object} LoadedModuleRecord
 * @property {number} handle  a positive integer, unique in the runtime
 * @property {string} name
 * @property {WebAssembly.Instance} instance
 * @property {number} memoryBase
 * @property {number} tableBase
 * @property {string[]} handlers  the handler globals it added to the register file
 * @property {Map<string, number>} functions  table indices of its exported functions handed out
 */

/**
 * An error loading a module: its message names the module and the reason;
 * `status` is what a loading task receives (not_found when there is no such
 * module, else failed).
 */
export class ModuleLoadError extends SnailError {
  /** @param {string} message @param {{ cause?: unknown, status?: number }} [options] */
  constructor(message, options = {}) {
    super(message, { cause: options.cause, code: 'ERR_MODULE' });
    this.name = 'ModuleLoadError';
    this.status = options.status ?? Status.failed;
  }
}

/** @param {unknown} e */
const why = (e) => (e instanceof Error ? e.message : String(e));

/**
 * Reads a module's `dylink.0` section: memory and table needs, needed modules.
 * @param {WebAssembly.Module} module
 * @returns {{ memSize: number, memAlign: number, tableSize: number, tableAlign: number, needed: string[] } | null}
 * @throws {WasmFormatError} when the section ends inside an entry
 */
export function readDylink(module) {
  const sections = WebAssembly.Module.customSections(module, 'dylink.0');
  if (sections.length === 0) return null;
  const r = new Reader(new Uint8Array(sections[0]), 'the section');
  const info = { memSize: 0, memAlign: 0, tableSize: 0, tableAlign: 0, needed: /** @type {string[]} */ ([]) };
  while (!r.done()) {
    const kind = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (end > r.bytes.length) throw new WasmFormatError('a subsection extends past the end of the section');
    if (kind === 1) {
      info.memSize = r.u32();
      info.memAlign = r.u32();
      info.tableSize = r.u32();
      info.tableAlign = r.u32();
    } else if (kind === 2) {
      for (let n = r.u32(); n > 0; n--) info.needed.push(r.name());
    }
    r.pos = end;
  }
  return info;
}

export class ModuleLoader {
  /**
   * @param {object} runtime  what the loader reaches in the runtime
   * @param {import('./bridge.mjs').Bridge} runtime.bridge
   * @param {WebAssembly.Instance} runtime.program  the program's instance
   * @param {(name: string) => unknown} runtime.resolve  a module name to a source
   * @param {Record<string, Record<string, unknown>>} runtime.userImports  the embedder's imports
   * @param {{ imports: (names: string[]) => Record<string, Function> }} runtime.wasi  the program's WASI,
   *   which gives a module every WASI function (those it lacks return ENOSYS)
   * @param {number} [runtime.maxBytes]  the largest module file read from a path
   */
  constructor({ bridge, program, resolve, userImports, wasi, maxBytes }) {
    this.maxBytes = maxBytes;
    this.bridge = bridge;
    this.program = program;
    this.resolve = resolve;
    this.userImports = userImports;
    this.wasi = wasi;
    /** @type {Map<string, LoadedModuleRecord>} */
    this.byName = new Map();
    /** @type {Map<number, LoadedModuleRecord>} */
    this.byHandle = new Map();
    this.nextHandle = 1;
    /** @type {Map<string, WebAssembly.Global>} handler globals by name, the program's and loaded ones */
    this.handlerGlobals = new Map();
    const x = /** @type {Record<string, any>} */ (program.exports);
    for (const [name, value] of Object.entries(x)) {
      if (name.startsWith(HANDLER_PREFIX)) this.handlerGlobals.set(name.slice(HANDLER_PREFIX.length), value);
    }
    /** Loads in progress, by name: a second load of the same name waits for the first. */
    /** @type {Map<string, Promise<LoadedModuleRecord>>} */
    this.pending = new Map();
    /** @type {Map<Function, number>} functions put in the program's table, and where */
    this.tableIndex = new Map();
  }

  /**
   * Loads a module, or returns the one already loaded under the same name:
   * loading is idempotent per name. Modules cannot be unloaded.
   * @param {unknown} source @param {string} name
   * @returns {Promise<LoadedModuleRecord>}
   */
  load(source, name) {
    return this.shared(name, () => this.loadNew(source, name));
  }

  /**
   * Loads a module by name, through the resolver, which may answer with a
   * source or a promise of one. The name counts as being loaded from the
   * call on, while the resolver works too: every other load of the name, from
   * a task or from JavaScript, shares this one.
   * @param {string} name
   * @returns {Promise<LoadedModuleRecord>}
   */
  loadByName(name) {
    return this.shared(name, () => this.resolveAndLoad(name));
  }

  /**
   * The module loaded under `name`, or the load of it under way, or a new
   * load that `start` begins and every other load of the name shares.
   * @param {string} name @param {() => Promise<LoadedModuleRecord>} start
   * @returns {Promise<LoadedModuleRecord>}
   */
  shared(name, start) {
    const done = this.byName.get(name);
    if (done) return Promise.resolve(done);
    let pending = this.pending.get(name);
    if (!pending) {
      pending = start().finally(() => this.pending.delete(name));
      this.pending.set(name, pending);
    }
    return pending;
  }

  /** @param {string} name @returns {Promise<LoadedModuleRecord>} */
  async resolveAndLoad(name) {
    // A task's load begins inside its Wasm call: the resolver runs after it.
    await null;
    let source;
    try {
      source = await this.resolve(name);
    } catch (error) {
      throw new ModuleLoadError(`module ${name} could not be found: ${why(error)}`, { cause: error, status: Status.not_found });
    }
    if (source === undefined || source === null) {
      throw new ModuleLoadError(`module ${name} could not be found: the modules option does not name it`, { status: Status.not_found });
    }
    return this.loadNew(source, name);
  }

  /**
   * @param {unknown} source @param {string} name
   * @returns {Promise<LoadedModuleRecord>}
   */
  async loadNew(source, name) {
    let loaded;
    try {
      loaded = await loadModule(/** @type {any} */ (source), { name, maxBytes: this.maxBytes });
    } catch (error) {
      if (error instanceof SnailError && error.code === 'ERR_LOAD') {
        throw new ModuleLoadError(`module ${name} could not be found: ${why(error)}`, { cause: error, status: Status.not_found });
      }
      throw new ModuleLoadError(`module ${name} does not compile: ${why(error)}`, { cause: error });
    }
    let dylink;
    try {
      dylink = readDylink(loaded.module);
    } catch (error) {
      throw new ModuleLoadError(`module ${name} has a bad dylink.0 section: ${why(error)}`, { cause: error });
    }
    if (dylink && dylink.needed.length) {
      throw new ModuleLoadError(`module ${name} needs other modules (${dylink.needed.join(', ')}); load those first under these names, or link them into it`);
    }
    let shape;
    try {
      shape = describeProgram(loaded.module, loaded.bytes, {
        name: `module ${name}`,
        providedImports: () => true,
        suspendingImport: () => true,
        sideModule: true,
      });
    } catch (error) {
      throw new ModuleLoadError(why(error).replace(/^module /, 'module '), { cause: error });
    }
    // The rest runs with no task holding the permit: registers hold their
    // defaults, the program's allocator and constructors run on its own stack.
    const release = await this.bridge.exclusive();
    const known = new Set(this.handlerGlobals.keys());
    try {
      return this.link(loaded, name, dylink, shape);
    } catch (error) {
      // The handler names a module that failed brought are no registers: a
      // later module must neither share them nor be refused them.
      for (const handler of [...this.handlerGlobals.keys()]) if (!known.has(handler)) this.handlerGlobals.delete(handler);
      if (error instanceof SnailError) throw error;
      throw new ModuleLoadError(`module ${name} could not be loaded: ${why(error)}`, { cause: error });
    } finally {
      release();
    }
  }

  /**
   * @param {import('./program.mjs').LoadedModule} loaded @param {string} name
   * @param {ReturnType<typeof readDylink>} dylink @param {import('./abi.mjs').ProgramShape} shape
   */
  link(loaded, name, dylink, shape) {
    const bridge = this.bridge;
    const px = /** @type {Record<string, any>} */ (this.program.exports);
    const memory = /** @type {WebAssembly.Memory | undefined} */ (px.memory);
    const table = /** @type {WebAssembly.Table | undefined} */ (px.__indirect_function_table);
    /** @type {string[]} */
    const problems = [];

    // Memory and table for the module's own data and functions.
    let memoryBase = 0;
    let tableBase = 0;
    if (dylink) {
      if (dylink.memSize > 0) {
        if (typeof px['snail.alloc'] !== 'function') {
          throw new ModuleLoadError(`module ${name} needs ${dylink.memSize} bytes of memory, but the program exports no "snail.alloc" to allocate them`);
        }
        const align = 2 ** dylink.memAlign;
        const raw = px['snail.alloc'](dylink.memSize + align) >>> 0;
        if (raw === 0) throw new ModuleLoadError(`module ${name} needs ${dylink.memSize} bytes of memory, and the program has none left`);
        memoryBase = Math.ceil(raw / align) * align;
        new Uint8Array(/** @type {WebAssembly.Memory} */ (memory).buffer, memoryBase, dylink.memSize).fill(0);
      }
      if (dylink.tableSize > 0) tableBase = this.growTable(name, table, dylink.tableSize);
    }

    /** @type {WebAssembly.Global[]} */
    const freshHandlers = [];
    /** @type {string[]} */
    const freshNames = [];
    /** @type {string[]} */
    const freshTypes = [];
    const ownHandlers = new Set(shape.handlers.map((h) => h.name));
    // Handler names are program-wide: a module may share a register by
    // importing it, not define a second one of the same name.
    for (const h of shape.handlers) {
      if (!this.handlerGlobals.has(h.name)) continue;
      const owner = bridge.regs.layout.registers.find((r) => r.role === 'handler' && r.name === h.name)?.module;
      problems.push(`it defines the handler global ${h.exportName}, which ${owner && owner !== bridge.programName ? `module ${owner}` : 'the program'} already has; handler names are program-wide, so import it as env.${h.exportName} to share it`);
    }
    /** @type {Record<string, Record<string, unknown>>} */
    const imports = {};
    const put = (/** @type {string} */ m, /** @type {string} */ f, /** @type {unknown} */ v) => { (imports[m] ??= {})[f] = v; };
    // GOT entries of symbols that only the module itself exports (default
    // visibility, as clang -shared makes them): filled in once it is
    // instantiated, before its data relocations run.
    const exported = new Map(shape.exports.map((e) => [e.name, e.kind]));
    /** @type {{ global: WebAssembly.Global, kind: 'func' | 'mem', symbol: string }[]} */
    const ownGot = [];
    const ownEntry = (/** @type {'func' | 'mem'} */ kind, /** @type {string} */ symbol) => {
      const global = new WebAssembly.Global({ value: 'i32', mutable: true }, 0);
      ownGot.push({ global, kind, symbol });
      return global;
    };
    const usesProgramMemory = shape.imports.some((i) => i.module === 'env' && i.name === 'memory' && i.kind === 'memory');
    for (const imp of shape.imports) {
      const { module: m, name: f, kind } = imp;
      if (m === 'env' && f === 'memory' && kind === 'memory') put(m, f, memory);
      else if (m === 'env' && f === '__indirect_function_table' && kind === 'table') put(m, f, table);
      else if (m === 'env' && f === '__memory_base') put(m, f, new WebAssembly.Global({ value: 'i32', mutable: false }, memoryBase));
      else if (m === 'env' && f === '__table_base') put(m, f, new WebAssembly.Global({ value: 'i32', mutable: false }, tableBase));
      else if (m === 'env' && (f === '__stack_pointer' || f === 'snail.stack.base' || f === 'snail.stack.limit') && kind === 'global') {
        if (px[f]) put(m, f, px[f]);
        else problems.push(`it imports env.${f}, which the program does not export`);
      } else if (m === 'env' && f.startsWith(HANDLER_PREFIX) && kind === 'global') {
        // A handler global by name. A module that also defines and exports it
        // uses its own (position-independent C++ imports a weak symbol it never
        // reads): the import gets a stand-in. Otherwise the program's (or an
        // earlier module's) register, or a new one that starts null.
        const handler = f.slice(HANDLER_PREFIX.length);
        if (ownHandlers.has(handler)) {
          const type = /** @type {any} */ (imp).global?.type ?? 'i32';
          put(m, f, new WebAssembly.Global({ value: type, mutable: true }, type === 'externref' || type === 'funcref' ? null : type === 'i64' ? 0n : 0));
          continue;
        }
        let g = this.handlerGlobals.get(handler);
        if (!g) {
          const type = /** @type {any} */ (imp).global?.type ?? 'i32';
          if (!HANDLER_TYPES.includes(type)) {
            problems.push(`its handler global ${f} has type ${type}; allowed: ${HANDLER_TYPES.join(', ')}`);
            continue;
          }
          g = new WebAssembly.Global({ value: /** @type {any} */ (type), mutable: true }, type === 'externref' || type === 'funcref' ? null : type === 'i64' ? 0n : 0);
          freshHandlers.push(g);
          freshNames.push(handler);
          freshTypes.push(type);
          this.handlerGlobals.set(handler, g);
        }
        put(m, f, g);
      } else if (m === 'GOT.mem') {
        const address = this.dataAddress(f);
        if (address !== undefined) put(m, f, new WebAssembly.Global({ value: 'i32', mutable: true }, address));
        else if (exported.get(f) === 'global') put(m, f, ownEntry('mem', f));
        else problems.push(`it needs the address of ${f} (GOT.mem), which neither the program, a loaded module nor the module itself exports`);
      } else if (m === 'GOT.func') {
        const fn = this.functionNamed(f);
        if (fn) put(m, f, new WebAssembly.Global({ value: 'i32', mutable: true }, this.tableIndexOf(name, table, fn)));
        else if (exported.get(f) === 'function') put(m, f, ownEntry('func', f));
        else problems.push(`it needs the function ${f} (GOT.func), which neither the program, a loaded module nor the module itself exports`);
      } else if (m === 'env' && kind === 'function') {
        const fn = this.functionNamed(f);
        if (!fn) problems.push(`it imports the function ${f}, which neither the program nor a loaded module exports`);
        else put(m, f, fn);
      } else if (m === 'wasi_snapshot_preview1' && kind === 'function') {
        // WASI reads and writes the program's memory: a module calls it with
        // addresses there, so it must import that memory.
        if (!usesProgramMemory) problems.push(`it imports ${m}.${f}, and WASI reads and writes the program's memory, but it has a memory of its own; import the program's as env.memory`);
        else put(m, f, this.wasi.imports([f])[f]);
      } else if (bridge.baseImports && bridge.baseImports[m] && f in bridge.baseImports[m]) {
        put(m, f, bridge.baseImports[m][f]);
      } else if (m === 'env' && kind === 'global' && px[f] instanceof WebAssembly.Global) {
        put(m, f, px[f]);
      } else {
        problems.push(`it imports ${m}.${f} (${kind}), which is not provided`);
      }
    }
    if (problems.length) {
      throw new ModuleLoadError(`module ${name} does not link:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    }

    bridge.link(imports, shape);
    let instance;
    try {
      instance = new WebAssembly.Instance(loaded.module, /** @type {any} */ (imports));
    } catch (error) {
      throw new ModuleLoadError(`module ${name} does not link: ${why(error)}`, { cause: error });
    }
    const x = /** @type {Record<string, any>} */ (instance.exports);
    for (const { global, kind, symbol } of ownGot) {
      global.value = kind === 'func' ? this.tableIndexOf(name, table, x[symbol]) : memoryBase + /** @type {WebAssembly.Global} */ (x[symbol]).value;
    }
    try {
      if (typeof x.__wasm_apply_data_relocs === 'function') x.__wasm_apply_data_relocs();
      if (typeof x.__wasm_call_ctors === 'function') x.__wasm_call_ctors();
      else if (typeof x._initialize === 'function') x._initialize();
    } catch (error) {
      // A wait outside any task: say what it means.
      const reason = isWaitOutsideTask(error)
        ? 'it called a suspending import during its initialisation; waits are only allowed in tasks'
        : why(error);
      throw new ModuleLoadError(`module ${name} failed during its initialisation: ${reason}`, { cause: error });
    }
    // Handler globals the module defines itself are new registers.
    for (const h of shape.handlers) {
      const g = x[h.exportName];
      this.handlerGlobals.set(h.name, g);
      freshHandlers.push(g);
      freshNames.push(h.name);
      freshTypes.push(h.type);
    }
    if (freshHandlers.length) {
      bridge.addRegisters(freshNames.map((n, i) => ({ name: n, module: name, type: freshTypes[i], global: freshHandlers[i] })));
    }
    /** @type {LoadedModuleRecord} */
    const record = {
      handle: this.nextHandle++, name, instance, memoryBase, tableBase,
      handlers: freshNames, functions: new Map(),
    };
    this.byName.set(name, record);
    this.byHandle.set(record.handle, record);
    return record;
  }

  /**
   * Grows the program's table by `n` entries; returns the first new index.
   * @param {string} name @param {WebAssembly.Table | undefined} table @param {number} n
   */
  growTable(name, table, n) {
    if (!table) throw new ModuleLoadError(`module ${name} needs table entries, but the program exports no "__indirect_function_table"`);
    try {
      return table.grow(n, null);
    } catch (error) {
      throw new ModuleLoadError(`module ${name} needs ${n} table entries, but the program's table cannot grow (link the program with --growable-table: snail_add_program(... DYNAMIC)): ${why(error)}`, { cause: error });
    }
  }

  /**
   * The table index of a function, adding it to the table once.
   * @param {string} name @param {WebAssembly.Table | undefined} table @param {Function} fn
   */
  tableIndexOf(name, table, fn) {
    let index = this.tableIndex.get(fn);
    if (index === undefined) {
      index = this.growTable(name, table, 1);
      /** @type {WebAssembly.Table} */ (table).set(index, fn);
      this.tableIndex.set(fn, index);
    }
    return index;
  }

  /** An exported function of the program or of a loaded module, by symbol name. @param {string} symbol */
  functionNamed(symbol) {
    const px = /** @type {Record<string, any>} */ (this.program.exports);
    if (typeof px[symbol] === 'function') return px[symbol];
    for (const m of this.byName.values()) {
      const f = /** @type {Record<string, any>} */ (m.instance.exports)[symbol];
      if (typeof f === 'function') return f;
    }
    return undefined;
  }

  /** The address of an exported data symbol. @param {string} symbol */
  dataAddress(symbol) {
    const px = /** @type {Record<string, any>} */ (this.program.exports);
    if (px[symbol] instanceof WebAssembly.Global) return px[symbol].value;
    for (const m of this.byName.values()) {
      const g = /** @type {Record<string, any>} */ (m.instance.exports)[symbol];
      if (g instanceof WebAssembly.Global) return m.memoryBase + g.value;
    }
    return undefined;
  }

  /**
   * The table index of a loaded module's exported function, for a task to call.
   * @param {number} handle @param {string} fn
   * @returns {number} the index, or -1 for no such function, -2 for no such module
   */
  functionIndex(handle, fn) {
    const record = this.byHandle.get(handle);
    if (!record) return -2;
    const known = record.functions.get(fn);
    if (known !== undefined) return known;
    const f = /** @type {Record<string, any>} */ (record.instance.exports)[fn];
    if (typeof f !== 'function') return -1;
    const table = /** @type {WebAssembly.Table} */ (/** @type {any} */ (this.program.exports).__indirect_function_table);
    const index = this.tableIndexOf(record.name, table, f);
    record.functions.set(fn, index);
    return index;
  }
}

export { ENTRY_PREFIX };
