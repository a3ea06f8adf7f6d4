// Program attachment and the register file (internal).
//
// Before the program is instantiated, its wait imports are linked: each wait
// whose type is known goes through a wrapper of the suspension module
// (wasm/gates.mjs), the others through a plain WebAssembly.Suspending. Once it is
// instantiated, its registers (handler globals and stack registers) make the
// register file, its entries the carrier module, and the suspension wrappers
// are built for that register file; both are built again when a loaded
// module brings handler globals or waits.
import { SnailError } from './errors.mjs';
import { SNAIL_IMPORTS } from './abi.mjs';
import { canWrap, createGates, createWrappers, INSTALL, WORDS_END, wrappable } from './wasm/gates.mjs';
import { WaitImport } from './imports.mjs';
import { Outcome } from './execution.mjs';
import { createCarriers } from './wasm/carriers.mjs';
import { createRegisterFile } from './wasm/registers.mjs';
import { outsideTask, waitFunction } from './wait-functions.mjs';
import { InternalError } from './errors.mjs';

/**
 * @typedef {import('./tasks.mjs').Task} Task
 * @typedef {import('./imports.mjs').WaitSpec} WaitSpec
 * @typedef {import('./abi.mjs').ProgramShape} ProgramShape
 * @typedef {import('./wasm/registers.mjs').RegisterFile} RegisterFile
 * @typedef {import('./wasm/carriers.mjs').Carriers} Carriers
 */

/**
 * @typedef {object} LinkHooks
 * @property {import('./words.mjs').SharedWords} words
 * @property {(Task | undefined)[]} slotTasks  the task owning each register-file slot
 * @property {import('./waits.mjs').Waits} waits  the wait path the wrappers call
 * @property {boolean} directWaits  waits may go through the suspension module
 * @property {boolean} ownCode  the waits of each import get code of their own (own-code.mjs)
 * @property {string} programName
 * @property {number} stackSize
 */

/**
 * What the carrier module calls back (the carrier pool's).
 * @typedef {{ next: (slot: number, result: number) => number, idle: () => Promise<number>, ask: () => number }} CarrierCallbacks
 */

export class ProgramLink {
  /** @param {LinkHooks} hooks */
  constructor(hooks) {
    this.words = hooks.words;
    this.slotTasks = hooks.slotTasks;
    this.waits = hooks.waits;
    this.programName = hooks.programName;
    this.stackSize = hooks.stackSize;
    /** Waits go through the suspension module (one promise hop) where the engine allows. */
    this.directWaits = canWrap && hooks.directWaits;
    /** The common waits of each import get code of their own (own-code.mjs; the ownCode option). */
    this.ownCode = hooks.ownCode;
    /** @type {WebAssembly.Memory | null} see registerMemory */
    this.sharedMemory = null;
    /** @type {import('./wasm/gates.mjs').Gates | null} the first stubs of the suspension module: their memory and tables are shared by the others */
    this.gates = null;
    /** @type {Map<string, Function>} wrappers made so far, by "module.field:type" */
    this.wrappers = new Map();
    /** @type {Map<string, { params: string[], spec: WaitSpec }>} the wrapped imports, by the same key */
    this.wrappedByKey = new Map();
    /** @type {Map<string, WaitSpec>} the spec behind each suspending import, by "module.field" */
    this.specsByImport = new Map();
    /** @type {Record<string, Record<string, unknown>> | null} the program's imports as given, which loaded modules resolve theirs from */
    this.baseImports = null;
    /** @type {RegisterFile | null} */
    this.registers = null;
    /** @type {Carriers | null} */
    this.carriers = null;
    /** @type {string[]} */
    this.entryNames = [];
    /** @type {Map<string, number>} each entry name's index in entryNames */
    this.entryIndex = new Map();
    /** @type {WebAssembly.Table | null} */
    this.table = null;
    /** @type {{ pointer: WebAssembly.Global, limit: WebAssembly.Global } | null} the stack registers, for the overflow hint */
    this.stackRegisters = null;
    /** @type {Record<string, Function>} the program's native disposers by import */
    this.nativeDisposers = {};
    /** @type {WebAssembly.Memory | null} the program's memory, once attached */
    this.memory = null;
  }

  /** The register file, once the program is attached. @returns {RegisterFile} */
  get regs() {
    if (this.registers === null) throw new InternalError('the register file was used before the program was attached');
    return this.registers;
  }

  /**
   * The memory of the suspension module's words and of the register file's
   * slots, made when the program is linked (where a failure to allocate it
   * is reported as the program's).
   */
  get registerMemory() {
    return (this.sharedMemory ??= new WebAssembly.Memory({ initial: 1 }));
  }

  /**
   * Replaces the wait imports of an import object with what the program calls:
   * one suspension module (wasm/gates.mjs) with a wrapper per wait whose type is
   * known, plain Suspending functions for the others.
   * @param {Record<string, Record<string, unknown>>} importObject
   * @param {ProgramShape} shape
   */
  link(importObject, shape) {
    this.baseImports ??= Object.fromEntries(Object.entries(importObject).map(([m, f]) => [m, { ...f }]));
    /** @type {(import('./wasm/gates.mjs').WrappedImport & { module: string, field: string, spec: WaitSpec })[]} */
    const wrapped = [];
    for (const [module, fields] of Object.entries(importObject)) {
      for (const [field, value] of Object.entries(fields)) {
        if (!(value instanceof WaitImport)) continue;
        const spec = value.spec;
        const key = `${module}.${field}`;
        this.specsByImport.set(key, spec);
        const imp = shape.imports.find((i) => i.module === module && i.name === field && i.kind === 'function');
        const type = imp?.type ?? (module === 'snail' ? SNAIL_IMPORTS[field] : undefined);
        const typeKey = type ? `${key}:${type.params.join()}->${type.results.join()}` : '';
        const made = this.wrappers.get(typeKey);
        if (made && this.specsByImport.get(key) === spec) {
          // A module loaded later that imports the same wait with the same type.
          fields[field] = made;
        } else if (this.directWaits && imp && type && wrappable(type.results)) {
          wrapped.push({ key: typeKey, params: type.params, results: type.results, module, field, spec });
        } else {
          fields[field] = new WebAssembly.Suspending(waitFunction(this.waits, spec, false, -1, this.ownCode));
        }
      }
    }
    if (wrapped.length === 0) return;
    for (const w of wrapped) this.wrappedByKey.set(w.key, w);
    const byKey = this.wrappedByKey;
    const waits = this.waits;
    const ownCode = this.ownCode;
    const gates = createGates(wrapped, {
      begin: (key) => {
        const w = /** @type {{ params: string[], spec: WaitSpec }} */ (byKey.get(key));
        return waitFunction(waits, w.spec, true, w.params.length, ownCode);
      },
      after: (slot, value, zero) => waits.land(slot, Outcome.fulfilled, value, zero),
      fail: (slot, error, zero) => waits.land(slot, Outcome.rejected, error, zero),
      park: (slot) => waits.park(slot),
      foreign: (slot, key) => this.foreignWait(slot, /** @type {{ spec: WaitSpec }} */ (byKey.get(key)).spec.name),
    }, this.registerMemory, this.gates ?? undefined);
    this.gates ??= gates;
    this.words.view(this.registerMemory);
    this.connectRegisters();
    for (const w of wrapped) {
      importObject[w.module][w.field] = gates.wrappers[w.key];
      this.wrappers.set(w.key, gates.wrappers[w.key]);
    }
  }

  /**
   * A wrapper was called while no task holds the permit, or while the holder
   * waits with it lent: the wait is outside any task, and is refused.
   * @param {number} slot  the CURRENT word @param {string} name  the import
   * @returns {never}
   */
  foreignWait(slot, name) {
    // Whatever the caller's Wasm bound before its wait goes: a waiting
    // task's registers are saved, and the defaults go back in (none are
    // recorded yet during the program's start function).
    this.registers?.install(0);
    const holder = this.slotTasks[slot];
    if (slot === 0 || holder === undefined) throw outsideTask(name);
    throw new SnailError(`${name} was called while ${holder} waits with the permit, so outside any task (an export called directly from JavaScript?); waits are only allowed in tasks: dispatch the entry instead`, { code: 'ERR_NOT_IN_TASK' });
  }

  /**
   * Points the carriers and the register table at the current register file,
   * and builds the suspension wrappers for it (after it is made, again when a
   * loaded module brings new registers or new waits).
   */
  connectRegisters() {
    if (this.registers === null) return;
    if (this.carriers !== null) this.carriers.connect(this.registers);
    if (this.gates === null) return;
    this.gates.registers.set(INSTALL, this.registers.install);
    createWrappers(this.gates, this.registers);
  }

  /**
   * Connects the instantiated program: its registers, entries, table and
   * stack. Returns what the carrier pool runs the program's tasks with.
   * @param {WebAssembly.Instance} instance @param {ProgramShape} shape
   * @param {CarrierCallbacks} callbacks
   * @returns {import('./carrier-pool.mjs').CarrierProgram}
   */
  attach(instance, shape, callbacks) {
    const x = /** @type {Record<string, any>} */ (instance.exports);
    /** @type {import('./wasm/registers.mjs').Register[]} */
    const registers = shape.handlers.map((h) => ({
      name: h.name, module: this.programName, type: h.type, role: 'handler', global: x[h.exportName],
    }));
    if (shape.stack) {
      registers.push({ name: '__stack_pointer', module: this.programName, type: 'i32', role: 'stack_pointer', global: x.__stack_pointer });
      if (shape.stack.base) registers.push({ name: 'snail.stack.base', module: this.programName, type: 'i32', role: 'stack_base', global: x['snail.stack.base'] });
      if (shape.stack.limit) registers.push({ name: 'snail.stack.limit', module: this.programName, type: 'i32', role: 'stack_limit', global: x['snail.stack.limit'] });
    }
    this.memory = x.memory instanceof WebAssembly.Memory ? x.memory : null;
    this.entryNames = shape.entries;
    this.entryIndex = new Map(shape.entries.map((name, i) => [name, i]));
    this.table = shape.table ? x.__indirect_function_table : null;
    const limitRegister = registers.find((r) => r.role === 'stack_limit');
    this.stackRegisters = limitRegister ? { pointer: x.__stack_pointer, limit: limitRegister.global } : null;
    for (const name of shape.disposers) this.nativeDisposers[name] = x[`snail.dispose.${name}`];
    const setsCurrent = this.gates !== null;
    const carriers = createCarriers({
      entries: shape.entries.map((name) => ({ name, fn: x[`snail.entry.${name}`] })),
      table: this.table,
      stackSize: this.stackSize,
      setCurrent: this.gates?.setCurrent,
      next: callbacks.next,
      idle: callbacks.idle,
      ask: callbacks.ask,
    });
    this.carriers = carriers;
    const file = createRegisterFile({ registers, memory: this.registerMemory, base: WORDS_END });
    this.registers = file;
    this.words.layout(file.layout);
    if (this.gates !== null) this.words.view(this.registerMemory);
    this.connectRegisters();
    carriers.ensure(file.capacity);
    file.onGrow = (slots) => {
      if (this.gates !== null) this.words.view(this.registerMemory);
      carriers.ensure(slots);
    };
    return {
      carriers,
      run: WebAssembly.promising(carriers.carrier),
      acquire: shape.stack ? x['snail.stack.acquire'] : null,
      release: shape.stack ? x['snail.stack.release'] : null,
      setsCurrent,
    };
  }

  /**
   * Connects the program's native disposers (exports `snail.dispose.MODULE.NAME`)
   * to the suspending imports they belong to.
   */
  attachNativeDisposers() {
    for (const [name, fn] of Object.entries(this.nativeDisposers)) {
      const spec = this.specsByImport.get(name);
      if (spec) spec.nativeDiscard = /** @type {(r: unknown) => void} */ (fn);
    }
  }

  /**
   * Adds registers to the register file: a loaded module's handler globals.
   * Runs between tasks (an exclusive section of the scheduler), when every
   * task's registers are saved and the globals hold the defaults. The new
   * register file takes over every saved value; the new registers start at
   * their defaults (null) in every task.
   * @param {{ name: string, module: string, type: string, global: WebAssembly.Global }[]} added
   * @param {number[]} liveSlots  the slots of the live tasks
   */
  addRegisters(added, liveSlots) {
    const old = this.regs;
    const registers = [
      ...old.layout.registers,
      ...added.map((a) => /** @type {import('./wasm/registers.mjs').Register} */ ({ ...a, role: 'handler' })),
    ];
    // The new file's slots take the old one's bytes: what they hold is read
    // first. Nothing is written until the memory has grown for all of them,
    // so that a failure leaves the old file as it was.
    const snapshot = old.snapshot([0, ...liveSlots]);
    const next = createRegisterFile({ registers, memory: this.registerMemory, base: WORDS_END });
    next.ensure(old.capacity);
    if (this.gates !== null) this.words.view(this.registerMemory);
    next.onGrow = old.onGrow;
    next.save(0);
    next.takeOver(old, snapshot);
    this.registers = next;
    this.words.layout(next.layout);
    this.connectRegisters();
  }

  /**
   * For the invariant check: which register holds something other than its
   * default (slot 0), or null when all hold their defaults.
   * @returns {string | null}
   */
  registersOffDefaults() {
    const regs = this.registers;
    if (regs === null) return null;
    for (const r of regs.layout.registers) {
      const value = r.global.value;
      const fallback = regs.read(0, r);
      if (!Object.is(value, fallback)) return `register ${r.name} holds ${String(value)}, not its default ${String(fallback)}`;
    }
    return null;
  }

  /** Records the current register values as the defaults (after initialisation). */
  captureDefaults() {
    this.regs.save(0);
  }
}
