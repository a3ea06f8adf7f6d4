// The program's import objects (internal): the waits of module "snail", the
// suspending imports an embedder declares with suspend(), and the wait
// specifications (WaitSpec) that say how each suspending import behaves on the
// wait path. What a program is finally given for a wait is decided when it is
// linked (linking.mjs): a suspension wrapper, or a plain WebAssembly.Suspending.
import { adapter } from './adapters.mjs';
import { argList } from './execution.mjs';
import { InternalError, SnailError } from './errors.mjs';
import { ownCopy } from './own-code.mjs';
import { isThenable } from './promises.mjs';
import { Status } from './status.mjs';
import { S } from './tasks.mjs';

/** A delivery that throws into the task's Wasm instead of returning a value. */
export const REJECT = 'reject';

/**
 * @typedef {object} SuspendOptions
 * @property {number | bigint | 'reject'} [cancelled]  what Wasm receives when the wait ends because the
 *   task was cancelled (default: Status.cancelled), or 'reject' to throw a CancelledError
 * @property {number | bigint | 'reject'} [failed]  what Wasm receives when the operation rejects
 *   (default: Status.failed), or 'reject' to throw the operation's error
 * @property {boolean} [context]  the operation receives a WaitContext first (the signal, the
 *   calling task, the program's memory) instead of the signal alone
 * @property {boolean | number} [shield]  each call runs in a shield of its own (shields.mjs): true
 *   for no deadline, or the deadline in milliseconds (a number above 0, or Infinity)
 */

/**
 * What an operation declared with suspend(..., { context: true }) receives
 * first: the wait's signal, the task that waits, and the program's memory,
 * reached where it is at the moment of the access.
 */
export class WaitContext {
  /**
   * @internal
   * @param {AbortSignal} signal @param {import('./tasks.mjs').Task} task
   * @param {() => WebAssembly.Memory | null} memoryOf
   */
  constructor(signal, task, memoryOf) {
    /** Aborts when the task's cancellation is requested. @readonly */
    this.signal = signal;
    /** The task that waits in this call. @readonly */
    this.task = task;
    /** @internal */
    this.memoryOf = memoryOf;
    /** @internal true once the operation's promise settled */
    this.settled = false;
  }

  /** The program's memory (a loaded module's pointers are into it too). */
  get memory() {
    const memory = this.memoryOf();
    if (memory === null) throw new SnailError('the program exports no memory (memory), so an operation cannot reach its buffers', { code: 'ERR_ADAPTER' });
    return memory;
  }

  /**
   * A view of `length` bytes of the program's memory at `pointer`, made
   * now: use it at once (a memory that grows detaches it). Refused outside
   * the memory, and once the operation settled: the task may have freed its
   * buffer by then, so write first, then settle.
   * @param {number} pointer @param {number} length
   * @returns {Uint8Array}
   */
  bytes(pointer, length) {
    if (this.settled) {
      throw new SnailError(`the operation of ${this.task} reached the program's memory after it settled: the task may have freed its buffer; write into it first, then settle`, { code: 'ERR_ADAPTER' });
    }
    const buffer = this.memory.buffer;
    if (!Number.isInteger(pointer) || !Number.isInteger(length) || pointer < 0 || length < 0 || pointer + length > buffer.byteLength) {
      throw new SnailError(`the bytes ${pointer}..${pointer + length} are outside the program's memory (${buffer.byteLength} bytes)`, { code: 'ERR_ADAPTER' });
    }
    return new Uint8Array(buffer, pointer, length);
  }
}

/**
 * A suspending import declared by a runtime author with suspend(): the
 * runtime turns it into a suspending import that runs `operation` at each
 * call, with the task's AbortSignal first.
 */
export class SuspendingImport {
  /**
   * @param {((signal: AbortSignal, ...args: any[]) => PromiseLike<unknown>) | ((context: WaitContext, ...args: any[]) => PromiseLike<unknown>)} operation
   * @param {((result: unknown, context: import('./disposal.mjs').DisposeContext) => void) | undefined} discard
   * @param {SuspendOptions} options
   */
  constructor(operation, discard, options) {
    this.operation = operation;
    this.discard = discard;
    this.options = options;
  }
}

/** A delivery that rejects the gate: the error is thrown into the task's Wasm. */
export class Rejection {
  /** @param {unknown} error */
  constructor(error) {
    this.error = error;
  }
}

/**
 * Whether a function cannot see any argument it is called with: an arrow
 * function of no parameters, whose source begins `() =>` or `async () =>`
 * (an arrow function has no `arguments` of its own). Any other function may:
 * one with a rest parameter, one that reads `arguments`, a bound or a
 * built-in function, whose source the test does not show.
 * @param {Function} fn
 */
export function seesNoArguments(fn) {
  return fn.length === 0 && /^(?:async\s*)?\(\s*\)\s*=>/.test(Function.prototype.toString.call(fn));
}

/** The delivery of a result that needs no conversion. @param {unknown} v */
export const identity = (v) => v;

/**
 * How one suspending import behaves.
 * @typedef {object} WaitSpec
 * @property {string} name  the import's name, for messages ("snail.sleep", "env.read")
 * @property {((args: any[]) => any[]) | null} prepare  decodes the Wasm arguments once, at
 *   the call (what they point to may change while the task waits); a throw ends
 *   the wait at once with the `failed` delivery of the error
 * @property {(args: any[]) => string} describe  what the task waits on
 * @property {((task: import('./tasks.mjs').Task, args: any[]) => unknown) | null} now  a delivery to
 *   return at once, keeping the permit, or undefined to suspend
 * @property {(signal: AbortSignal, task: import('./tasks.mjs').Task, args: any[]) => unknown} operation  the
 *   adapter: a promise covering the operation and its cleanup, or a value ready now
 * @property {boolean} seesSignal  the operation is given the task's signal (made at the task's
 *   first wait whose operation is). False for one that takes none: a suspend() operation that
 *   cannot see its arguments (written `() => ...`), the built-in yield (it completes at once)
 *   and the built-in sleep (it sets `task._exec.cancelWait`, which cancel() calls instead:
 *   aborting a signal costs an event dispatch). No AbortController is made for such a wait,
 *   and what the operation is passed in the signal's place is undefined
 * @property {(value: unknown, task: import('./tasks.mjs').Task, args: any[]) => unknown} accept  the delivery of
 *   a result; runs with the task holding the permit and its registers installed
 * @property {unknown} cancelled  the delivery when the task was cancelled (or REJECT)
 * @property {(error: unknown, task: import('./tasks.mjs').Task, args: any[] | null) => unknown} failed  the delivery
 *   of a failure (a Rejection to throw it)
 * @property {((result: unknown, context: import('./disposal.mjs').DisposeContext) => void) | null} discard
 * @property {((result: unknown) => void) | null} nativeDiscard  the program's own disposer
 * @property {boolean} keepsResults  the operation's own value must be kept for delivery or
 *   disposal (not the one JSPI converts to the import's type); derived, not set by callers
 * @property {((n: number) => (signal: AbortSignal, task: import('./tasks.mjs').Task, a: unknown, b: unknown, c: unknown, d: unknown) => unknown) | null} operationOf
 *   the operation of an import of `n` arguments (up to four) whose arguments only the operation
 *   sees, made for that `n`: called with the arguments themselves, without an argument list
 *   (suspend() imports). It never throws: an exception (the operation's, or the refusal of a
 *   result that is no promise) comes back rejected, so that the task suspends as for any
 *   wait and work the operation made ready before it threw goes first. (The lent wait calls
 *   it outside any try: a try there made every switch some 6% slower in Node.)
 * @property {boolean} keepsArgs  describe, accept and failed read the arguments, so a
 *   suspended task keeps them (false for suspend() imports, whose operation alone sees them)
 * @property {string | null} resultType  the import's result type where it is known ('i32',
 *   'i64', ...; null for none or unknown): what the delivery must convert to
 * @property {boolean} lendable  a task may wait here with its permit lent: what JSPI
 *   converts is the delivery, and the operation always returns a promise; derived from
 *   keepsResults, and false when the spec says so (yield, whose operation returns a value)
 *   or the wait is shielded (its shield ends when the wait path delivers)
 * @property {number | null} leased  what a wait of no arguments delivers under the scheduler's
 *   lease, where `now` always answers it (yield: ok, for nothing else is ready and the turn has
 *   budget left); null for a wait that is not answered so
 * @property {number | null} shield  each call runs in a shield of its own with a deadline this
 *   many ms after the call (Infinity: none); null for an ordinary wait. Only for waits
 *   with neither `prepare` nor `now`, which end before the wait path could end the shield
 */

/** A wait import before linking decides how the program reaches it. */
export class WaitImport {
  /** @param {WaitSpec} spec */
  constructor(spec) {
    this.spec = spec;
  }
}

/**
 * Makes a suspending import from a wait specification.
 * @param {Partial<WaitSpec> & { name: string, describe: WaitSpec['describe'], operation: WaitSpec['operation'] }} partial
 * @returns {WaitImport}
 */
export function suspending(partial) {
  // Every field in one order, whatever the caller gave: all specs share one
  // shape, so the wait path's reads of them stay monomorphic.
  const accept = partial.accept ?? identity;
  const discard = partial.discard ?? null;
  // A wait whose result is delivered as it is and never disposed can take
  // the value JSPI converts; any other keeps the operation's own value.
  const keepsResults = accept !== identity || discard !== null;
  const shield = partial.shield ?? null;
  if (shield !== null && (partial.prepare || partial.now)) throw new InternalError(`the shielded wait ${partial.name} has prepare or now`);
  /** @type {WaitSpec} */
  const spec = {
    name: partial.name,
    describe: partial.describe,
    prepare: partial.prepare ?? null,
    now: partial.now ?? null,
    operation: partial.operation,
    operationOf: partial.operationOf ?? null,
    seesSignal: partial.seesSignal ?? true,
    accept,
    cancelled: partial.cancelled ?? Status.cancelled,
    failed: partial.failed ?? (() => Status.failed),
    discard,
    nativeDiscard: partial.nativeDiscard ?? null,
    keepsResults,
    lendable: (partial.lendable ?? true) && !keepsResults && shield === null,
    leased: partial.leased ?? null,
    keepsArgs: partial.keepsArgs ?? true,
    resultType: partial.resultType ?? null,
    shield,
  };
  return new WaitImport(spec);
}

/**
 * What the imports of module "snail" reach in the runtime.
 * @typedef {object} SnailImportHooks
 * @property {import('./tasks.mjs').Scheduler} scheduler
 * @property {Map<number, import('./tasks.mjs').Task>} handles  the tasks Wasm holds a handle on
 * @property {import('./sleepers.mjs').Sleepers} sleepers
 * @property {(entry: number, arg: number, drop: number) => number} dispatch  snail.dispatch
 * @property {(task: import('./tasks.mjs').Task) => boolean} cancel  a cancellation request
 * @property {(task: import('./tasks.mjs').Task) => boolean} cancelTree  a cancellation request of a task's tree
 * @property {(ms: number) => number} shieldBegin  snail.shield_begin: a status
 * @property {() => number} shieldEnd  snail.shield_end: a status
 * @property {(what: string) => void} refuseReentry  throws while a disposer runs
 * @property {() => void} queuePump  grants from a microtask
 * @property {() => void} sync  takes note of a take of the permit in Wasm (the wait path's sync())
 */

/**
 * The import object of module "snail", built before the program is instantiated.
 * @param {SnailImportHooks} hooks
 * @param {Record<string, unknown>} [extra]  further imports of module "snail" (the host services)
 */
export function snailImports(hooks, extra = {}) {
  const { scheduler: sched, handles, sleepers } = hooks;
  const statusOf = { accept: identity, cancelled: Status.cancelled, failed: () => Status.failed };
  return {
    // The built-in waits are adapters on the same path as every other
    // suspending import; `now` only answers calls that need no waiting.
    sleep: suspending({
      ...statusOf,
      name: 'snail.sleep',
      describe: ([ms]) => `snail.sleep(${ms} ms)`,
      now: (_t, [ms]) => (typeof ms === 'number' && ms >= 0 ? undefined : Status.invalid),
      // It cancels itself (cancelWait): no signal to make for it.
      seesSignal: false,
      operation: (_signal, task, [ms]) => sleepers.sleep(task._exec, ms),
    }),
    yield: suspending({
      ...statusOf,
      name: 'snail.yield',
      describe: () => 'snail.yield()',
      lendable: false,
      // No arguments to keep: a wait the lease answers leaves no list behind.
      keepsArgs: false,
      // Its operation completes at once: no signal to make for it.
      seesSignal: false,
      // Nothing else is ready and the turn has budget left: the permit comes
      // straight back, so the task keeps it (lent) across the resumption.
      now: () => (sched.pickNext() === null && sched.takeStep() ? Status.ok : undefined),
      // Under the lease nothing else is ready, and the lease's steps are the turn's.
      leased: Status.ok,
      operation: () => Status.ok,
    }),
    join: suspending({
      ...statusOf,
      name: 'snail.join',
      describe: ([h]) => `snail.join(#${h})`,
      now: (_t, [h]) => {
        const child = handles.get(h);
        if (!child) return Status.invalid;
        return child.finished ? endStatus(child) : undefined;
      },
      operation: (signal, _t, [h]) => {
        const child = /** @type {import('./tasks.mjs').Task} */ (handles.get(h));
        // The joining task may keep its permit lent across this wait: a pump
        // takes it back for the start, which may now enter.
        if (sched.boost(child)) hooks.queuePump();
        return adapter(signal, ({ resolve }) => {
          child.done.then((c) => resolve(endStatus(c)));
        });
      },
    }),
    dispatch: (/** @type {number} */ entry, /** @type {number} */ arg, /** @type {number} */ drop) => hooks.dispatch(entry, arg, drop),
    result: (/** @type {number} */ h) => {
      const t = handles.get(h);
      return t && t._s === S.returned ? /** @type {number} */ (t.value) : 0;
    },
    release: (/** @type {number} */ h) => {
      const t = handles.get(h);
      if (t && --t._handles === 0) handles.delete(h);
    },
    // Whether the task's waits return cancelled now: inside a shield, only
    // once the shield expired.
    cancel_requested: () => {
      hooks.sync();
      const t = sched.holder;
      return t !== null && t._cancelNow ? 1 : 0;
    },
    cancel: (/** @type {number} */ h) => {
      hooks.refuseReentry('snail.cancel');
      const t = handles.get(h);
      if (!t) return Status.invalid;
      hooks.cancel(t);
      return Status.ok;
    },
    cancel_tree: (/** @type {number} */ h) => {
      hooks.refuseReentry('snail.cancel_tree');
      const t = handles.get(h);
      if (!t) return Status.invalid;
      hooks.cancelTree(t);
      return Status.ok;
    },
    shield_begin: (/** @type {number} */ ms) => hooks.shieldBegin(ms),
    shield_end: () => hooks.shieldEnd(),
    ...extra,
  };
}

/** The status a join delivers for a finished task. @param {import('./tasks.mjs').Task} t */
function endStatus(t) {
  if (t._s === S.returned) return Status.ok;
  if (t._s === S.cancelled) return Status.cancelled;
  return Status.failed;
}

/**
 * The import object for a module the embedder provides; fields declared with
 * suspend() become suspending imports.
 * @param {string} moduleName @param {Record<string, unknown>} fields
 * @param {(module: string, name: string) => import('./wasm/binary.mjs').FuncType | undefined} [typeOf]  the type the
 *   program imports a field with, where known: its `cancelled` and `failed` values must fit it
 * @param {() => WebAssembly.Memory | null} [memoryOf]  the program's memory, once instantiated (WaitContext)
 * @param {boolean} [ownCode]  false: the operations' starts on the shared code (the ownCode option)
 */
export function userImports(moduleName, fields, typeOf = () => undefined, memoryOf = () => null, ownCode = true) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [name, value] of Object.entries(fields)) {
    const label = `${moduleName}.${name}`;
    if (value instanceof WebAssembly.Suspending) {
      throw new SnailError(`imports.${label} is a WebAssembly.Suspending made outside snail-core; declare it with suspend(operation) so that the scheduler owns its suspension (its gate, the permit, cancellation)`, { code: 'ERR_ADAPTER' });
    }
    if (!(value instanceof SuspendingImport)) {
      out[name] = value;
      continue;
    }
    const { operation, discard, options } = value;
    const shield = options.shield === undefined || options.shield === false ? null : options.shield === true ? Infinity : options.shield;
    const result = typeOf(moduleName, name)?.results[0];
    // The default statuses as the import's result type has them.
    const status = (/** @type {number} */ s) => (result === 'i64' ? BigInt(s) : s);
    const cancelled = options.cancelled ?? status(Status.cancelled);
    const failed = options.failed ?? status(Status.failed);
    for (const [option, v] of /** @type {const} */ ([['cancelled', cancelled], ['failed', failed]])) {
      const fits = v === REJECT || result === undefined || result === 'externref' || result === 'funcref'
        || (result === 'i64' ? typeof v === 'bigint' : typeof v === 'number');
      if (!fits) {
        const want = result === 'i64' ? 'a BigInt' : 'a number';
        throw new SnailError(`suspend() option ${option} of ${label} is ${typeof v === 'string' ? JSON.stringify(v) : `${typeof v} ${String(v)}`}, but ${label} returns ${result}: give ${want}, or 'reject' to throw into the task`, { code: 'ERR_OPTION' });
      }
    }
    const contextual = options.context === true;
    // An operation that cannot see its arguments is given no signal: an
    // AbortController costs a call into the embedder in browsers.
    const seesSignal = contextual || !seesNoArguments(operation);
    // Code of its own for each import: its operation is the one function
    // its starts call (own-code.mjs).
    const starts = ownCopy(operationStarts, ownCode)(operation, label, contextual, memoryOf, { argList, isThenable, SnailError, WaitContext });
    out[name] = suspending({
      name: label,
      describe: () => label,
      keepsArgs: false,
      seesSignal,
      operation: starts.operation,
      operationOf: starts.operationOf,
      accept: identity,
      cancelled,
      failed: (error) => (failed === REJECT ? new Rejection(error) : failed),
      discard: discard ?? null,
      nativeDiscard: null,
      resultType: result ?? null,
      shield,
    });
  }
  return out;
}

/**
 * The starts of a suspend() import's operation: its call with a list of
 * arguments (WaitSpec.operation) and with up to four (WaitSpec.operationOf),
 * each returning the operation's promise, or its exception as a rejected one.
 * Each import has a copy of its own (ownCopy(), in userImports()), so this
 * reads its parameters alone, what its module has among them (`names`).
 * @param {Function} operation @param {string} label  the import, for messages
 * @param {boolean} contextual  the operation receives a WaitContext first
 * @param {() => WebAssembly.Memory | null} memoryOf  the program's memory (WaitContext)
 * @param {{ argList: typeof argList, isThenable: typeof isThenable, SnailError: typeof SnailError, WaitContext: typeof WaitContext }} names
 * @returns {{ operation: NonNullable<WaitSpec['operation']>, operationOf: NonNullable<WaitSpec['operationOf']> }}
 */
function operationStarts(operation, label, contextual, memoryOf, names) {
  const { argList, isThenable, SnailError, WaitContext } = names;
  /** @param {unknown} p */
  const promised = (p) => {
    if (!isThenable(p)) {
      throw new SnailError(`the operation of suspending import ${label} returned ${p === null ? 'null' : typeof p}, not a Promise; an operation returns one Promise covering its work and its cleanup`, { code: 'ERR_ADAPTER' });
    }
    return p;
  };
  const call = /** @type {(first: unknown, ...args: unknown[]) => unknown} */ (operation);
  /** An operation with a context: the context knows when it settled. @param {AbortSignal} signal @param {import('./tasks.mjs').Task} task @param {unknown[]} args */
  const withContext = (signal, task, args) => {
    const context = new WaitContext(signal, task, memoryOf);
    const p = promised(call(context, ...args));
    const settle = () => { context.settled = true; };
    p.then(settle, settle);
    return p;
  };
  /**
   * The operation of `n` arguments started, or its exception as a rejected
   * promise (see WaitSpec.operationOf).
   * @param {number} n @param {AbortSignal} signal @param {import('./tasks.mjs').Task} task
   * @param {unknown} a @param {unknown} b @param {unknown} c @param {unknown} d
   */
  const startOf = (n, signal, task, a, b, c, d) => {
    try {
      if (contextual) return withContext(signal, task, argList(n, a, b, c, d));
      switch (n) {
        case 0: return promised(call(signal));
        case 1: return promised(call(signal, a));
        case 2: return promised(call(signal, a, b));
        case 3: return promised(call(signal, a, b, c));
        default: return promised(call(signal, a, b, c, d));
      }
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return {
    operation: contextual
      ? (signal, task, args) => withContext(signal, task, args)
      : (signal, _task, args) => promised(args.length === 1 ? call(signal, args[0]) : call(signal, ...args)),
    operationOf: (n) => (signal, task, a, b, c, d) => startOf(n, signal, task, a, b, c, d),
  };
}
