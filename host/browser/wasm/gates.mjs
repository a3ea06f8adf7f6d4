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
// The wrapper puts the task's slot in the LENT word as it calls the JavaScript
// side: the task keeps the permit across the wait unless that side clears the
// word (the task gives the permit up). When nothing else wanted the permit as
// the task began to wait, the scheduler lends it the permit for the wait: the
// wrapper then clears the word and goes on without calling into JavaScript at
// all. The scheduler clears the word when it takes the permit back, and the
// wrapper calls `after` as above. A wait answered at once, with the task
// keeping the permit, also leaves its slot in the LENT word.
//
// Many tasks whose operations settle in turn would each pay that call of
// `after` only to take the permit from the task it is lent to. While the
// permit is *open* (the task with the scheduler's lease waits with it lent,
// and nothing else wants it: the OPEN word, which the JavaScript side sets at
// such a wait and clears whenever that stops holding), a task whose wait ends
// takes the permit in Wasm instead, if its slot's wait word says its delivery
// is the value JSPI hands the wrapper (the JavaScript side sets it when such
// a wait parks the task directly, and clears it when the task is cancelled):
// it closes OPEN, records itself in TAKEN and the task that loses the permit
// in LOSER, and goes on. The JavaScript side takes note of a take before
// anything else it does (Waits.sync()).
//
// A task whose `after` parked it (the permit was not to be had) may be
// *released* rather than granted: its gate then settles with the value JSPI
// delivered, and its wrapper wakes again as at the end of the wait (it takes
// the permit if it is open, or calls `after` once more). A grant makes the
// task CURRENT before its gate settles; a release does not, which is how the
// wrapper tells them apart.
//
// Every wrapper saves the task's registers and installs the defaults before
// the JavaScript side of the wait runs, and installs the task's registers again
// when the task goes on, lent or not: while a task waits, the handler globals
// hold the defaults (the specification asks it of every wait). An exception
// `after`, `fail` or `park` throws (a rejected delivery) reaches the program
// only once the registers are installed: the wrapper catches it, installs
// them, and hands it to `raise`, which throws it again. A wrapper called while
// no task holds the permit, or while the holder waits lent (JavaScript called
// an export directly), is not a task's: it calls `foreign`, which refuses it
// before anything changes.
//
// Two modules make this. The program imports the *stubs* (createGates), made
// before it: each passes its arguments on with a tail call through the
// dispatch table (a plain call on an engine that cannot suspend under that
// tail call), where the *wrappers* (createWrappers) are. Those are made
// once the program's register file exists, and import its globals and
// tables: the registers are saved and installed in the wrapper's own code,
// with no call. The words below and the register file's slots share one
// memory, the wrappers' only one (an engine compiles an access to a second
// memory slower). They are made again when the register file is (a loaded
// module's handler globals) or when imports are added (a loaded module's
// waits); each build has a generation number. A task that began its wait in
// an older build finds the GENERATION word changed when it goes on, and
// installs its registers through the register table instead, which the
// bridge points at the current register file's `install`.
// Until the first build, the dispatch table holds functions that refuse the
// wait as outside any task (the program's start function).
import { catchTag, Code, ModuleWriter, op } from './binary.mjs';
import { InternalError } from '../errors.mjs';
import { registerCode } from './registers.mjs';

/** Addresses in the shared memory: the words the bridge shares with the wrappers. */
export const CURRENT = 0; // the slot of the task that holds the permit
export const PARK = 4; // set by `after`/`fail`: the task must wait for the permit
export const LENT = 8; // the slot of a task that keeps the permit across its wait (lent): its wrapper goes on without `after`
export const GENERATION = 12; // the generation of the wrappers the dispatch table holds
// While the permit is open (the task with the lease waits with its permit
// lent, and nothing else wants it), a task whose wait ends may take the
// permit in Wasm, without calling into JavaScript: OPEN says it may (one
// take, then it is closed until JavaScript opens it again), TAKEN and LOSER
// record who took it from whom, until the JavaScript side takes note.
export const OPEN = 16;
export const TAKEN = 20;
export const LOSER = 24;
export const WORDS_END = 32; // the register file's slots follow, 8-aligned

/** The entry of the register table: the register file's install, (slot) -> (). */
export const INSTALL = 0;

/**
 * How the stubs reach their wrappers: by a tail call, so that a wait has only
 * the wrapper's frame, or, where the engine cannot suspend under a tail call
 * into another instance (JavaScriptCore's JSPI stack scan; engine-probe.mjs
 * finds out at the first load), by a plain call. Per agent, like canWrap.
 */
let tailCallStubs = true;

/** Sets how stubs made from now on call their wrappers. @param {boolean} tailCall */
export function useTailCallStubs(tailCall) {
  tailCallStubs = tailCall;
}

/** Result types the wrappers support (no result is null). */
const RESULTS = new Set(['i32', 'i64', 'f32', 'f64', 'externref', null]);

/**
 * Whether this engine has what the wrappers use: the exception-handling
 * proposal with the JS tag, and tail calls.
 */
export const canWrap = (() => {
  try {
    const g = /** @type {any} */ (globalThis).WebAssembly;
    new WebAssembly.Instance(new WebAssembly.Module(/** @type {BufferSource} */ (probeModule())), { js: { tag: g.JSTag } });
    return g.JSTag !== undefined;
  } catch {
    return false;
  }
})();

/**
 * The module canWrap instantiates: a function that catches with the JS tag
 * (import js.tag) in a try_table and ends in a tail call.
 */
export function probeModule() {
  const w = new ModuleWriter();
  const tag = w.importTag('js', 'tag', ['externref']);
  const table = w.table('funcref', 1);
  const c = new Code([]);
  c.block('externref', (caught) => {
    c.tryTable(null, [catchTag(tag, caught)], () => {});
    c.emit(op.unreachable);
  });
  c.emit(op.drop);
  c.i32(0).returnCallIndirect(w.type([], []), table);
  w.func([], [], c);
  return w.bytes();
}

/**
 * @typedef {{ key: string, params: string[], results: string[] }} WrappedImport
 * @typedef {WrappedImport & { at: number, begin: object }} Entry  a wrapped import, at its index in the dispatch table, and its JavaScript side (a Suspending function)
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
 * What createGates() returns: the stubs of the imports given, and what every
 * build of the wrappers shares.
 * @typedef {object} Gates
 * @property {Record<string, Function>} wrappers  the stubs, by import key
 * @property {WebAssembly.Memory} memory  holds the shared words (CURRENT, PARK, LENT, GENERATION, OPEN, TAKEN, LOSER), from byte 0
 * @property {WebAssembly.Table} registers  the register table (INSTALL)
 * @property {WebAssembly.Table} dispatch  the wrappers, by entry index
 * @property {Entry[]} entries  every wrapped import so far
 * @property {Record<string, unknown>} helpers  the JavaScript the wrappers import (tag, raise, foreign, after/fail/park per type)
 * @property {Function} setCurrent  (slot) -> (): writes CURRENT, for the carriers
 */

/** @param {string[]} results */
export function wrappable(results) {
  return results.length <= 1 && RESULTS.has(results[0] ?? null);
}

/** The value a result type has when nothing is delivered. */
const ZERO = { i32: 0, i64: 0n, f32: 0, f64: 0, externref: null, void: undefined };

/**
 * Builds the stubs of the given imports. Imports added later (a loaded
 * module's) get stubs of their own, sharing the first build's tables.
 * @param {WrappedImport[]} list
 * @param {GateCallbacks} callbacks
 * @param {WebAssembly.Memory} memory  the memory of the words (and of the register file's slots)
 * @param {Gates} [shared]  the stubs made before, whose tables these share
 * @param {{ tailCall?: boolean }} [options]  how the stubs call the wrappers (default: useTailCallStubs)
 * @returns {Gates}
 */
export function createGates(list, callbacks, memory, shared, options = {}) {
  const tailCall = options.tailCall ?? tailCallStubs;
  const first = shared?.entries.length ?? 0;
  const table = shared?.dispatch ?? new WebAssembly.Table({ element: 'anyfunc', initial: 0 });
  table.grow(first + list.length - table.length);
  /** @type {Entry[]} */
  const entries = shared?.entries ?? [];
  const helpers = shared?.helpers ?? {
    tag: /** @type {any} */ (globalThis).WebAssembly.JSTag,
    raise: (/** @type {unknown} */ error) => { throw error; },
    foreign: (/** @type {number} */ slot, /** @type {number} */ at) => callbacks.foreign(slot, entries[at].key),
  };
  for (const t of new Set(list.map((i) => i.results[0] ?? null))) {
    const name = t ?? 'void';
    if (`after_${name}` in helpers) continue;
    const z = /** @type {any} */ (ZERO)[name];
    helpers[`after_${name}`] = t === null ? (/** @type {number} */ s) => callbacks.after(s, undefined, z) : (/** @type {number} */ s, /** @type {unknown} */ v) => callbacks.after(s, v, z);
    helpers[`fail_${name}`] = (/** @type {number} */ s, /** @type {unknown} */ e) => callbacks.fail(s, e, z);
    helpers[`park_${name}`] = new WebAssembly.Suspending((/** @type {number} */ s) => callbacks.park(s));
  }
  /** @type {Record<string, any>} */
  const js = { foreign: helpers.foreign, dispatch: table, memory };
  const instance = new WebAssembly.Instance(new WebAssembly.Module(/** @type {BufferSource} */ (stubsModule(list, first, tailCall))), { js });
  const x = /** @type {Record<string, any>} */ (instance.exports);
  list.forEach((imp, i) => {
    const at = first + i;
    entries.push({ ...imp, at, begin: new WebAssembly.Suspending(callbacks.begin(imp.key)) });
    table.set(at, x[`refuse.${at}`]);
  });
  // Set with the first wrappers, the only code that calls it.
  const registers = shared?.registers ?? new WebAssembly.Table({ element: 'anyfunc', initial: 1 });
  return {
    wrappers: Object.fromEntries(list.map((imp) => [imp.key, x[imp.key]])),
    setCurrent: shared ? shared.setCurrent : x.current,
    memory,
    registers,
    dispatch: table,
    entries,
    helpers,
  };
}

/**
 * The stubs of the imports in `list`, at entries `first` on of the dispatch
 * table (import js.dispatch), with the functions that refuse their waits
 * until the wrappers are built (`refuse.AT`) and current(slot). Imports
 * js.foreign and js.memory. A stub reaches its wrapper by a tail call, or
 * with `tailCall` false by a plain call (see useTailCallStubs).
 * @param {WrappedImport[]} list @param {number} first @param {boolean} [tailCall]
 */
export function stubsModule(list, first, tailCall = true) {
  const w = new ModuleWriter();
  const foreign = w.importFunc('js', 'foreign', ['i32', 'i32'], []);
  const dispatch = w.importTable('js', 'dispatch', 'funcref', first + list.length);
  w.importMemory('js', 'memory', 1);
  list.forEach((imp, i) => {
    const at = first + i;
    const type = w.type(imp.params, imp.results);
    // The stub: the wrapper at `at`, with the same arguments, in its place
    // (or under it: a plain call).
    const stub = new Code(imp.params);
    for (let p = 0; p < imp.params.length; p++) stub.localGet(p);
    stub.i32(at);
    if (tailCall) stub.returnCallIndirect(type, dispatch);
    else stub.callIndirect(type, dispatch);
    w.export(imp.key, 'function', w.func(imp.params, imp.results, stub));
    // Until the wrappers are built, a wait is outside any task.
    const refuse = new Code(imp.params);
    refuse.i32(0).i32(at).call(foreign).emit(op.unreachable);
    w.export(`refuse.${at}`, 'function', w.func(imp.params, imp.results, refuse));
  });
  // current(slot): the task whose Wasm now runs, for a carrier to call as it
  // enters a start.
  {
    const c = new Code(['i32']);
    c.i32(0).localGet(0).store('i32', CURRENT);
    w.export('current', 'function', w.func(['i32'], [], c));
  }

  return w.bytes();
}

/**
 * Builds the wrappers of every import the stubs have, for a register file
 * whose slots are in the stubs' memory, and puts them in the dispatch table:
 * a new generation.
 * @param {Gates} gates
 * @param {import('./registers.mjs').RegisterFile} file
 */
export function createWrappers(gates, file) {
  if (file.memory !== gates.memory) throw new InternalError('the register file must share the memory of the words');
  const words = new Int32Array(gates.memory.buffer);
  const generation = words[GENERATION >> 2] + 1;
  const { entries } = gates;
  const layout = file.layout;
  const bytes = wrappersModule(entries, layout, generation);

  /** @type {Record<string, any>} */
  const js = { ...gates.helpers, registers: gates.registers, memory: gates.memory };
  /** @type {Record<string, any>} */
  const begin = Object.fromEntries(entries.map((imp) => [String(imp.at), imp.begin]));
  const instance = new WebAssembly.Instance(new WebAssembly.Module(/** @type {BufferSource} */ (bytes)), {
    js,
    begin,
    registers: Object.fromEntries(layout.registers.map((r, i) => [String(i), r.global])),
    file: { externs: file.externTable, funcs: file.funcTable },
  });
  const x = /** @type {Record<string, Function>} */ (instance.exports);
  for (const imp of entries) gates.dispatch.set(imp.at, x[String(imp.at)]);
  words[GENERATION >> 2] = generation;
}

/**
 * The wrappers of `entries` for registers of `layout`, of build `generation`:
 * export AT is the wrapper of the entry at AT. Imports the JavaScript side of
 * every wait (begin.AT), the registers' globals (registers.I, in the layout's
 * order), the register file's reference tables (file.externs, file.funcs) and,
 * from js, the JS tag, raise, foreign, after/fail/park per result type, the
 * register table and the memory of the words and slots.
 * @param {{ at: number, params: string[], results: string[] }[]} entries
 * @param {import('./registers.mjs').Layout} layout @param {number} generation
 */
export function wrappersModule(entries, layout, generation) {
  const w = new ModuleWriter();
  const tag = w.importTag('js', 'tag', ['externref']);
  const raise = w.importFunc('js', 'raise', ['externref'], []);
  const foreign = w.importFunc('js', 'foreign', ['i32', 'i32'], []);
  /** @type {Map<string | null, { after: number, fail: number, park: number }>} */
  const perType = new Map();
  const types = [...new Set(entries.map((i) => i.results[0] ?? null))];
  for (const t of types) {
    const r = t === null ? [] : [t];
    perType.set(t, {
      after: w.importFunc('js', `after_${t ?? 'void'}`, t === null ? ['i32'] : ['i32', t], r),
      fail: w.importFunc('js', `fail_${t ?? 'void'}`, ['i32', 'externref'], r),
      park: w.importFunc('js', `park_${t ?? 'void'}`, ['i32'], r),
    });
  }
  const begins = entries.map((imp) => w.importFunc('begin', String(imp.at), imp.params, imp.results));
  /** @type {Map<import('./registers.mjs').Register, number>} */
  const globals = new Map();
  layout.registers.forEach((r, i) => globals.set(r, w.importGlobal('registers', String(i), r.type, true)));
  const registerTable = w.importTable('js', 'registers', 'funcref', 1);
  const externTable = w.importTable('file', 'externs', 'externref', 0);
  const funcTable = w.importTable('file', 'funcs', 'funcref', 0);
  w.importMemory('js', 'memory', 1); // the words and the register file's slots
  const code = registerCode(layout, { globalOf: (r) => /** @type {number} */ (globals.get(r)), externTable, funcTable });
  const slotFn = w.type(['i32'], []);
  /**
   * The task's registers from its slot (`base` is set by slotBase): in line
   * when this build is the current one, else through the register table's
   * INSTALL (a wait that began in an older build).
   * @param {Code} c @param {number} slot @param {number} base
   */
  const installFrom = (c, slot, base) => {
    c.i32(0).load('i32', GENERATION).i32(generation).emit(op.i32_eq);
    c.if(() => {
      code.slotBase(c, slot, base);
      code.install(c, layout.registers, slot, base);
    }, () => {
      c.localGet(slot).i32(INSTALL).callIndirect(slotFn, registerTable);
    });
  };

  /**
   * Calls park when `after` or `fail` asked for it (and clears the flag), then
   * `then` with what park returned in the value.
   * @param {Code} c @param {number} slot @param {number} park @param {() => void} setValue
   * @param {() => void} [then]
   */
  const parkIfAsked = (c, slot, park, setValue, then = () => {}) => {
    c.i32(0).load('i32', PARK);
    c.if(() => {
      c.i32(0).i32(0).store('i32', PARK);
      c.localGet(slot).call(park);
      setValue();
      then();
    });
  };

  // The end of a wait whose task did not keep its permit, one function per
  // result type, out of the wrappers (a smaller wrapper keeps the wait that
  // kept it quicker): wake(slot, value) takes the permit in Wasm when it is
  // open, or asks for it (`after`) and parks when told to, and wakes again
  // when its park was released rather than granted. It returns the wait's
  // value with the task's registers installed; an exception of `after` or
  // `park` leaves them to the wrapper.
  /** @type {Map<string | null, number>} */
  const wakeOf = new Map();
  for (const t of types) {
    const fns = /** @type {{ after: number, fail: number, park: number }} */ (perType.get(t));
    const params = t === null ? ['i32'] : ['i32', t];
    const c = new Code(params);
    const slot = 0;
    const value = 1;
    const base = c.local('i32');
    const getValue = () => { if (t !== null) c.localGet(value); };
    const setValue = () => { if (t !== null) c.localSet(value); };
    c.loop(null, (wake) => {
      // Takes the permit in Wasm when it is open, this build is the current
      // one and the task's wait word says its wait may end so (its delivery
      // is the value JSPI converted, and it was not cancelled): the task the
      // permit is lent to loses it, TAKEN and LOSER say so to the JavaScript
      // side, and the task goes on with its registers installed.
      c.i32(0).load('i32', OPEN);
      c.if(() => {
        c.i32(0).load('i32', GENERATION).i32(generation).emit(op.i32_eq);
        c.if(() => {
          code.slotBase(c, slot, base);
          c.localGet(base).load('i32', layout.base + layout.waitWord);
          c.if(() => {
            c.i32(0).i32(0).store('i32', OPEN);
            c.i32(0).i32(0).load('i32', LENT).store('i32', LOSER);
            c.i32(0).localGet(slot).store('i32', TAKEN);
            c.i32(0).i32(0).store('i32', LENT);
            c.i32(0).localGet(slot).store('i32', CURRENT);
            code.install(c, layout.registers, slot, base);
            getValue();
            c.emit(op.return);
          });
        });
      });
      c.localGet(slot);
      getValue();
      c.call(fns.after);
      setValue();
      // Released rather than granted (a grant makes the task CURRENT): the
      // park ended with what JSPI delivered, and the task wakes again.
      parkIfAsked(c, slot, fns.park, setValue, () => { c.i32(0).load('i32', CURRENT).localGet(slot).emit(op.i32_ne).brIf(wake); });
    });
    installFrom(c, slot, base);
    getValue();
    wakeOf.set(t, w.func(params, t === null ? [] : [t], c));
  }

  entries.forEach((imp, i) => {
    const t = imp.results[0] ?? null;
    const fns = /** @type {{ after: number, fail: number, park: number }} */ (perType.get(t));
    const n = imp.params.length;
    const c = new Code(imp.params);
    const slot = c.local('i32');
    const err = c.local('externref');
    const value = t === null ? -1 : c.local(t);
    const kept = c.local('i32');
    const base = c.local('i32');
    const zero = c.local('i32'); // stays 0: the defaults' slot
    /** Pushes the value the wait delivers, if it has one. */
    const getValue = () => { if (t !== null) c.localGet(value); };
    /** Keeps the value on the stack as the wait's value, if it has one. */
    const setValue = () => { if (t !== null) c.localSet(value); };
    /**
     * The task's registers, from its slot: in line when this build is the
     * current one, else through the register table's INSTALL (a wait that
     * began in an older build).
     */
    const install = () => installFrom(c, slot, base);
    /**
     * The task's registers into its slot, and the defaults in. A wait always
     * begins in the current build: the stubs reach it through the dispatch
     * table, which holds nothing older.
     */
    const suspend = () => {
      code.slotBase(c, slot, base);
      code.save(c, layout.registers, slot, base);
      code.install(c, layout.registers, zero, zero);
    };
    /** Pushes whether the task kept the permit (its slot is in the LENT word). */
    const keptPermit = () => {
      c.i32(0).load('i32', LENT).localGet(slot).emit(op.i32_eq);
    };
    /**
     * The task goes on with the permit it kept: no longer lent, and no longer
     * open to a take (the JavaScript side opens it again at a lent wait).
     */
    const clearLent = () => {
      c.i32(0).i32(0).store('i32', LENT);
      c.i32(0).i32(0).store('i32', OPEN);
    };
    c.i32(0).load('i32', CURRENT).localSet(slot);
    // At the wait the task's registers are saved and the defaults installed,
    // whatever then happens to the permit: while it waits, the handler
    // globals hold the defaults. With no task holding the permit (slot 0,
    // the defaults' own), the wait is refused here: the engine would throw
    // its own error for a suspension outside `promising` before the
    // JavaScript side could say what is wrong.
    c.localGet(slot);
    c.if(() => {
      // The permit holder waits with its permit lent, so this wait is not its
      // own (an export called directly from JavaScript): refused before
      // anything of the holder's changes.
      keptPermit();
      c.if(() => {
        c.localGet(slot).i32(imp.at).call(foreign);
      });
      suspend();
      // The task keeps the permit across the wait unless the JavaScript side
      // gives it up (clears the word).
      c.i32(0).localGet(slot).store('i32', LENT);
    }, () => {
      c.i32(0).i32(imp.at).call(foreign);
    });
    c.block('externref', (threw) => { // an exception of after, fail or park
      c.tryTable(null, [catchTag(tag, threw)], () => {
        c.block('externref', (caught) => { // an exception of the wait itself
          c.tryTable(t, [catchTag(tag, caught)], () => {
            for (let p = 0; p < n; p++) c.localGet(p);
            c.call(begins[i]);
          });
          setValue();
          // The task kept the permit: what JSPI delivered is final, and the
          // task's registers go back in without a call into JavaScript.
          keptPermit();
          c.if(() => {
            clearLent();
            install();
            getValue();
            c.emit(op.return);
          });
          // Else it takes the permit, or asks for it (wake).
          c.localGet(slot);
          getValue();
          c.call(/** @type {number} */ (wakeOf.get(t)));
          c.emit(op.return);
        });
        c.localSet(err);
        keptPermit();
        c.localTee(kept);
        c.if(() => {
          clearLent();
          // The registers first: `fail` may call into the program.
          install();
        });
        c.localGet(slot).localGet(err).call(fns.fail);
        setValue();
        parkIfAsked(c, slot, fns.park, setValue);
        // A task that kept the permit has its registers installed already.
        c.localGet(kept);
        c.if(() => {
          getValue();
          c.emit(op.return);
        });
        install();
        getValue();
        c.emit(op.return);
      });
      c.emit(op.unreachable);
    });
    // An exception of after, fail or park reaches the program once the
    // task's registers are in.
    c.localSet(err);
    c.localGet(kept).emit(op.i32_eqz);
    c.if(() => install());
    c.localGet(err).call(raise);
    c.emit(op.unreachable);
    w.export(String(imp.at), 'function', w.func(imp.params, imp.results, c));
  });
  return w.bytes();
}
