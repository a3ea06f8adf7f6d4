// The suspension module (internal): per program, one Wasm wrapper around each
// suspending import whose type is known, so that a wait costs the promise hops
// of a raw JSPI call.
//
// Without it, the promise JSPI parks a task on must be a continuation of the
// operation (`op.then(arrive)`), where the scheduler grants the permit and
// installs the registers before Wasm resumes: two promise hops per wait. With
// it, JSPI parks the task on the operation's own promise, and the wrapper runs
// the scheduler's side in Wasm order after the resumption: `after` claims the
// permit, or, when other work is ahead, says so and the wrapper parks the task
// once more on a gate. A rejected operation arrives
// as a JavaScript exception, caught with the JS tag and handed to `fail`.
//
// When nothing else wanted the permit as the task began to wait, the scheduler
// lends it the permit for the wait (the LENT word holds its slot): the wrapper
// then clears the word and goes on without calling into JavaScript at all. The
// scheduler clears the word when it takes the permit back, and the wrapper
// calls `after` as above. A wait answered at once, with the task keeping the
// permit, also leaves its slot in the LENT word.
//
// Every wrapper saves the task's registers and installs the defaults before
// the JavaScript side of the wait runs, and installs the task's registers again
// when the task goes on, lent or not: while a task waits, the handler globals
// hold the defaults (the specification asks it of every wait). Both are
// Wasm-to-Wasm calls, through a table the bridge points at the register file's
// `suspend` and `install`. An exception `after`, `fail` or `park` throws (a
// rejected delivery) reaches the program only once the registers are
// installed: the wrapper catches it, installs them, and hands it to `raise`,
// which throws it again. A wrapper called while no task holds the permit, or
// while the holder waits lent (JavaScript called an export directly), is not a
// task's: it calls `foreign`, which refuses it before anything changes.
//
// The module is instantiated before the program, which imports the wrappers
// in place of the JavaScript functions.
import { blockType, Code, leb, ModuleWriter, op } from './wasm-binary.mjs';

/** Addresses in the module's memory the bridge shares with the wrappers. */
export const CURRENT = 0; // the slot of the task that holds the permit
export const PARK = 4; // set by `after`/`fail`: the task must wait for the permit
export const LENT = 8; // the slot of a task that keeps the permit across its wait (lent): its wrapper goes on without `after` and without installing registers

/** The entries of the wrappers' register table: the register file's install and suspend, (slot) -> (). */
export const INSTALL = 0;
export const SUSPEND = 1;

/** Result types the wrappers support (no result is null). */
const RESULTS = new Set(['i32', 'i64', 'f32', 'f64', 'externref', null]);

/** Whether this engine has the exception-handling proposal and the JS tag. */
export const canWrap = (() => {
  try {
    const w = new ModuleWriter();
    w.importTag('js', 'tag', ['externref']);
    const c = new Code();
    c.emit(op.block, 0x6f);
    c.emit(op.try_table, 0x40, 1, 0x00, 0, 0);
    c.emit(op.end);
    c.emit(op.unreachable);
    c.emit(op.end);
    c.emit(op.drop);
    w.func([], [], c);
    const g = /** @type {any} */ (globalThis).WebAssembly;
    new WebAssembly.Instance(new WebAssembly.Module(/** @type {BufferSource} */ (w.bytes())), { js: { tag: g.JSTag } });
    return g.JSTag !== undefined;
  } catch {
    return false;
  }
})();

/**
 * @typedef {{ key: string, params: string[], results: string[] }} WrappedImport
 * @typedef {object} GateCallbacks
 * @property {(key: string) => (...args: any[]) => unknown} begin  the JS side of import `key`
 * @property {(slot: number, value: unknown, zero: unknown) => unknown} after
 * @property {(slot: number, error: unknown, zero: unknown) => unknown} fail
 * @property {(slot: number) => Promise<unknown>} park
 * @property {(slot: number, key: string) => never} foreign  a wait (of import `key`) begun outside any task: while no
 *   task holds the permit (slot 0), or while the holder waits with its permit lent (an
 *   export called directly from JavaScript): throws
 */

/**
 * What createGates() returns.
 * @typedef {object} Gates
 * @property {Record<string, Function>} wrappers  by import key
 * @property {Int32Array} words  the shared words (CURRENT, PARK, LENT)
 * @property {WebAssembly.Memory} memory
 * @property {WebAssembly.Table} registers  the register table (INSTALL), shared by every wrapper
 * @property {Function} setCurrent  (slot) -> (): writes CURRENT, for the carriers
 */

/** @param {string[]} results */
export function wrappable(results) {
  return results.length <= 1 && RESULTS.has(results[0] ?? null);
}

/**
 * Builds and instantiates the suspension module for the given imports. Modules
 * loaded later get their own wrappers sharing the first one's memory, so that
 * the words the bridge writes reach every wrapper.
 * @param {WrappedImport[]} list
 * @param {GateCallbacks} callbacks
 * @param {Gates} [shared]  a suspension module made before, whose memory and register table this one shares
 * @returns {Gates}
 */
export function createGates(list, callbacks, shared) {
  const w = new ModuleWriter();
  if (shared) {
    w.importMemory('js', 'memory', 1);
    w.importTable('js', 'registers', 'funcref', 2);
  }
  const tag = w.importTag('js', 'tag', ['externref']);
  const raise = w.importFunc('js', 'raise', ['externref'], []);
  const foreign = w.importFunc('js', 'foreign', ['i32', 'i32'], []);
  /** @type {Map<string | null, { after: number, fail: number, park: number }>} */
  const perType = new Map();
  const types = [...new Set(list.map((i) => i.results[0] ?? null))];
  // Function imports first, in one run: the helpers per result type, then one
  // begin per wrapped import.
  for (const t of types) {
    const r = t === null ? [] : [t];
    perType.set(t, {
      after: w.importFunc('js', `after_${t ?? 'void'}`, t === null ? ['i32'] : ['i32', t], r),
      fail: w.importFunc('js', `fail_${t ?? 'void'}`, ['i32', 'externref'], r),
      park: w.importFunc('js', `park_${t ?? 'void'}`, ['i32'], r),
    });
  }
  const begins = list.map((imp, i) => w.importFunc('begin', String(i), imp.params, imp.results));
  const table = shared ? 0 : w.table('funcref', 2);
  if (!shared) w.memory(1);
  const slotFn = w.type(['i32'], []);
  /** Emits a call of the register file's install with the slot. @param {Code} c @param {number} slot */
  const install = (c, slot) => {
    c.idx(op.local_get, slot).i32(INSTALL).idx(op.call_indirect, slotFn).bytes.push(...leb(table));
  };
  /** Emits a call of the register file's suspend (save, then the defaults). @param {Code} c @param {number} slot */
  const suspendRegisters = (c, slot) => {
    c.idx(op.local_get, slot).i32(SUSPEND).idx(op.call_indirect, slotFn).bytes.push(...leb(table));
  };

  list.forEach((imp, i) => {
    const t = imp.results[0] ?? null;
    const fns = /** @type {{ after: number, fail: number, park: number }} */ (perType.get(t));
    const c = new Code();
    const n = imp.params.length;
    const slot = n + c.local('i32');
    const err = n + c.local('externref');
    const value = t === null ? -1 : n + c.local(t);
    const kept = n + c.local('i32');
    /** Calls park when `after`/`fail` asked for it (and clears the flag). */
    const parkIfAsked = () => {
      c.i32(0).mem(op.i32_load, 2, PARK);
      c.emit(op.if, op.void);
      c.i32(0).i32(0).mem(op.i32_store, 2, PARK);
      c.idx(op.local_get, slot).idx(op.call, fns.park);
      if (t !== null) c.idx(op.local_set, value);
      c.emit(op.end);
    };
    /** Pushes whether the task kept the permit (its slot is in the LENT word). */
    const keptPermit = () => {
      c.i32(0).mem(op.i32_load, 2, LENT).idx(op.local_get, slot).emit(op.i32_eq);
    };
    c.i32(0).mem(op.i32_load, 2, CURRENT).idx(op.local_set, slot);
    // The permit holder waits with its permit lent, so this wait is not its
    // own (an export called directly from JavaScript): refused before
    // anything of the holder's changes.
    // At the wait the task's registers are saved and the defaults installed,
    // whatever then happens to the permit: while it waits, the handler
    // globals hold the defaults. With no task holding the permit (slot 0,
    // the defaults' own), the wait is refused here: the engine would throw
    // its own error for a suspension outside `promising` before the
    // JavaScript side could say what is wrong.
    c.idx(op.local_get, slot);
    c.emit(op.if, op.void);
    keptPermit();
    c.emit(op.if, op.void);
    c.idx(op.local_get, slot).i32(i).idx(op.call, foreign);
    c.emit(op.end);
    suspendRegisters(c, slot);
    c.emit(op.else);
    c.i32(0).i32(i).idx(op.call, foreign);
    c.emit(op.end);
    c.emit(op.block, 0x6f); // $threw: an exception of after/fail/park
    c.emit(op.try_table, op.void, 1, 0x00);
    c.bytes.push(...leb(tag), 0);
    c.emit(op.block, op.void); // $done
    c.emit(op.block, 0x6f); // $caught: an exception of the wait itself
    // try_table (result t) (catch $tag $caught) ... end
    c.emit(op.try_table, blockType(t), 1, 0x00);
    c.bytes.push(...leb(tag), 0);
    for (let p = 0; p < n; p++) c.idx(op.local_get, p);
    c.idx(op.call, begins[i]);
    c.emit(op.end);
    if (t !== null) c.idx(op.local_set, value);
    // The task kept the permit: what JSPI delivered is final, and the
    // task's registers go back in without a call into JavaScript.
    keptPermit();
    c.emit(op.if, op.void);
    c.i32(0).i32(0).mem(op.i32_store, 2, LENT);
    install(c, slot);
    if (t !== null) c.idx(op.local_get, value);
    c.emit(op.return);
    c.emit(op.end);
    c.idx(op.local_get, slot);
    if (t !== null) c.idx(op.local_get, value);
    c.idx(op.call, fns.after);
    if (t !== null) c.idx(op.local_set, value);
    parkIfAsked();
    c.idx(op.br, 1); // $done
    c.emit(op.end); // $caught
    c.idx(op.local_set, err);
    keptPermit();
    c.idx(op.local_tee, kept);
    c.emit(op.if, op.void);
    c.i32(0).i32(0).mem(op.i32_store, 2, LENT);
    // The registers first: `fail` may call into the program.
    install(c, slot);
    c.emit(op.end);
    c.idx(op.local_get, slot).idx(op.local_get, err).idx(op.call, fns.fail);
    if (t !== null) c.idx(op.local_set, value);
    parkIfAsked();
    // A task that kept the permit has its registers installed already.
    c.idx(op.local_get, kept);
    c.emit(op.if, op.void);
    if (t !== null) c.idx(op.local_get, value);
    c.emit(op.return);
    c.emit(op.end);
    c.emit(op.end); // $done
    install(c, slot);
    if (t !== null) c.idx(op.local_get, value);
    c.emit(op.return);
    c.emit(op.end); // try_table
    c.emit(op.unreachable);
    c.emit(op.end); // $threw
    c.idx(op.local_set, err);
    c.idx(op.local_get, kept).emit(op.i32_eqz);
    c.emit(op.if, op.void);
    install(c, slot);
    c.emit(op.end);
    c.idx(op.local_get, err).idx(op.call, raise);
    c.emit(op.unreachable);
    w.export(imp.key, 'function', w.func(imp.params, imp.results, c));
  });
  const nop = w.func(['i32'], [], new Code());
  w.export('nop', 'function', nop);
  // current(slot): the task whose Wasm now runs, for a carrier to call as it
  // enters a start.
  {
    const c = new Code();
    c.i32(0).idx(op.local_get, 0).mem(op.i32_store, 2, CURRENT);
    w.export('current', 'function', w.func(['i32'], [], c));
  }
  w.export('memory', 'memory', 0);
  w.export('registers', 'table', table);

  const zero = { i32: 0, i64: 0n, f32: 0, f64: 0, externref: null, void: undefined };
  /** @type {Record<string, any>} */
  const js = {
    tag: /** @type {any} */ (globalThis).WebAssembly.JSTag,
    raise: (/** @type {unknown} */ error) => { throw error; },
    foreign: (/** @type {number} */ slot, /** @type {number} */ i) => callbacks.foreign(slot, list[i].key),
  };
  if (shared) {
    js.memory = shared.memory;
    js.registers = shared.registers;
  }
  for (const t of types) {
    const name = t ?? 'void';
    const z = /** @type {any} */ (zero)[name];
    js[`after_${name}`] = t === null ? (/** @type {number} */ s) => callbacks.after(s, undefined, z) : (/** @type {number} */ s, /** @type {unknown} */ v) => callbacks.after(s, v, z);
    js[`fail_${name}`] = (/** @type {number} */ s, /** @type {unknown} */ e) => callbacks.fail(s, e, z);
    js[`park_${name}`] = new WebAssembly.Suspending((/** @type {number} */ s) => callbacks.park(s));
  }
  /** @type {Record<string, any>} */
  const begin = Object.fromEntries(list.map((imp, i) => [String(i), new WebAssembly.Suspending(callbacks.begin(imp.key))]));
  const instance = new WebAssembly.Instance(new WebAssembly.Module(/** @type {BufferSource} */ (w.bytes())), { js, begin });
  const x = /** @type {Record<string, any>} */ (instance.exports);
  const registers = /** @type {WebAssembly.Table} */ (x.registers);
  if (!shared) {
    registers.set(INSTALL, x.nop);
    registers.set(SUSPEND, x.nop);
  }
  return {
    wrappers: Object.fromEntries(list.map((imp) => [imp.key, x[imp.key]])),
    setCurrent: shared ? shared.setCurrent : x.current,
    words: new Int32Array(/** @type {WebAssembly.Memory} */ (x.memory).buffer),
    memory: /** @type {WebAssembly.Memory} */ (x.memory),
    registers,
  };
}
