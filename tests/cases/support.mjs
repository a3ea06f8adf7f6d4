// Environment-neutral support for the contract cases: loading the test
// programs with their `test` imports, controlling event-loop turns, and the
// check that a closed runtime left nothing behind. The same code runs under
// node:test and in Chromium.
import { bestMacrotask, now } from '../../host/browser/capabilities.mjs';
import { Runtime, suspend } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';

/**
 * What a runner gives every case.
 * @typedef {{ env: 'node' | 'browser' | 'deno' | 'bun', program: (name: string) => any, httpBase: string }} CaseContext
 * @typedef {{ name: string, run: (ctx: CaseContext) => Promise<void> }} Case
 */

const macrotask = bestMacrotask();

/** Resolves in a later event-loop turn. */
export function nextTurn() {
  return new Promise((resolve) => macrotask.schedule(() => resolve(undefined)));
}

/**
 * Waits, turn by turn, until `predicate()` holds.
 * @param {() => boolean} predicate @param {string} what @param {number} [maxTurns]
 */
export async function until(predicate, what, maxTurns = 5000) {
  for (let i = 0; i < maxTurns; i++) {
    if (predicate()) return;
    await nextTurn();
  }
  throw new Error(`gave up after ${maxTurns} turns waiting for ${what}`);
}

/**
 * Waits, turn by turn, until `predicate()` holds, for what a host timer
 * brings (a deadline passing). A number of turns is no bound for that: an
 * idle engine runs thousands of turns before a 30 ms timer fires. Gives up
 * after `ms` milliseconds instead.
 * @param {() => boolean} predicate @param {string} what @param {number} [ms]
 */
export async function untilTimer(predicate, what, ms = 10_000) {
  const start = now();
  while (!predicate()) {
    if (now() - start > ms) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await nextTurn();
  }
}

/**
 * A macrotask source the case drives by hand: the scheduler's turns end only
 * when the case calls `endTurn()`, so "the budget is used up and the resumption
 * waits in the ready queue" is a state a case can hold the runtime in.
 */
export function manualTurns() {
  /** @type {(() => void)[]} */
  const pending = [];
  return {
    macrotask: (/** @type {() => void} */ cb) => { pending.push(cb); },
    get pending() { return pending.length; },
    endTurn() {
      const batch = pending.splice(0);
      for (const cb of batch) cb();
      return batch.length;
    },
  };
}

/** Event kinds of tests/programs/contracts.cpp. */
export const CONTRACT_EV = Object.freeze({
  dispatched: 1, childSaw: 2, parentDone: 3, childDone: 4, step: 5, joined: 6, result: 7, dropped: 8,
});

/** Event kinds of tests/programs/cancellation.cpp. */
export const EV = Object.freeze({
  unwound: 1, woke: 2, op: 3, sawCancel: 4, dropped: 5, ran: 6, joined: 7, buffer: 8, freed: 9,
});

/**
 * Loads contracts.wasm with a `test` module that records events and
 * violations, with invariants checked after every scheduler step.
 * `test.pause(n)` is a suspending import resolving to n in a later turn;
 * `onPause(phase, rt)` sees its start ('start', while the caller is parked)
 * and its completion ('settle'); `pause` replaces the import.
 * @param {CaseContext} ctx
 * @param {import('../../host/browser/index.mjs').RuntimeOptions & { onEvent?: Function, onPause?: Function, pause?: unknown }} [options]
 */
export async function loadContracts(ctx, options = {}) {
  /** @type {{ kind: number, a: number, b: number }[]} */
  const events = [];
  /** @type {{ code: number, a: number }[]} */
  const violations = [];
  const { onEvent, onPause, pause, ...rest } = options;
  /** @type {Runtime} */
  let rt;
  rt = await Runtime.load(ctx.program('contracts'), {
    checkInvariants: true,
    stdout: () => {},
    ...rest,
    imports: {
      ...(rest.imports ?? {}),
      test: {
        event: (/** @type {number} */ kind, /** @type {number} */ a, /** @type {number} */ b) => {
          events.push({ kind, a, b });
          if (onEvent) onEvent({ kind, a, b }, rt);
        },
        violation: (/** @type {number} */ code, /** @type {number} */ a) => { violations.push({ code, a }); },
        pause: pause ?? suspend((_signal, n) => {
          if (onPause) onPause('start', rt);
          return new Promise((resolve) => {
            macrotask.schedule(() => {
              if (onPause) onPause('settle', rt);
              resolve(n);
            });
          });
        }),
      },
    },
  });
  return { rt, events, violations };
}

/**
 * An operation of test.op the case controls.
 * @typedef {object} ControlledOp
 * @property {number} n  the argument Wasm passed
 * @property {AbortSignal} signal
 * @property {(v: number) => void} resolve
 * @property {(e: unknown) => void} reject
 * @property {boolean} settled
 */

/**
 * A `test.pause` the case releases by hand (pass `pause` to loadContracts):
 * `held` lists the waits in progress, oldest first, and release() lets the
 * oldest go on with its argument. A wait whose signal aborts rejects with the
 * reason and leaves the list.
 */
export function heldPauses() {
  /** @type {(() => void)[]} */
  const held = [];
  const pause = suspend((signal, n) => new Promise((resolve, reject) => {
    const go = () => resolve(n);
    held.push(go);
    signal.addEventListener('abort', () => {
      held.splice(held.indexOf(go), 1);
      reject(signal.reason);
    }, { once: true });
  }));
  const release = () => {
    const go = held.shift();
    if (!go) throw new Error('no pause is held');
    go();
  };
  return { pause, held, release };
}

/**
 * The contracts program's handler globals (alpha, beta, gamma) as JavaScript
 * reads them now.
 * @param {Runtime} rt
 */
export function handlerValues(rt) {
  const x = /** @type {Record<string, WebAssembly.Global>} */ (/** @type {unknown} */ (rt.instance.exports));
  return ['alpha', 'beta', 'gamma'].map((n) => x[`snail.handler.h_${n}`].value);
}

/**
 * Loads cancellation.wasm. `test.op(n)` is a suspending import whose operations
 * the case settles by hand (`ops`); by default it honours its signal (abort
 * rejects it at once), with `stubborn: true` it ignores it like an operation
 * that cannot abort. Undelivered results go to `disposed`; `discard` replaces
 * the disposer. `test.op_buffer(n)` resolves in a later turn with a buffer
 * allocated in the program's memory, freed by the program's native disposer.
 * @param {CaseContext} ctx
 * @param {import('../../host/browser/index.mjs').RuntimeOptions & {
 *   stubborn?: boolean, stubbornIf?: (n: number) => boolean, onEvent?: Function,
 *   discard?: (result: unknown, context: any, rt: Runtime) => void,
 *   opOptions?: object, cleanupTurns?: number, onCleanupFinished?: () => void }} [options]
 */
export async function loadCancellation(ctx, options = {}) {
  /** @type {{ kind: number, a: number, b: number }[]} */
  const events = [];
  /** @type {ControlledOp[]} */
  const ops = [];
  /** @type {unknown[]} */
  const disposed = [];
  const cleanup = { started: 0, finished: 0 };
  const { stubborn = false, stubbornIf, onEvent, discard, opOptions = {}, cleanupTurns = 0, onCleanupFinished, ...rest } = options;
  /** @type {Runtime} */
  let rt;
  const op = suspend((signal, n) => new Promise((resolve, reject) => {
    /** @type {ControlledOp} */
    const entry = {
      n, signal, settled: false,
      resolve: (v) => { entry.settled = true; resolve(v); },
      reject: (e) => { entry.settled = true; reject(e); },
    };
    ops.push(entry);
    if (!(stubborn || (stubbornIf && stubbornIf(n)))) {
      const onAbort = async () => {
        // The adapter's own cleanup takes `cleanupTurns` turns; the operation
        // settles only after it.
        cleanup.started++;
        for (let i = 0; i < cleanupTurns; i++) await nextTurn();
        cleanup.finished++;
        if (onCleanupFinished) onCleanupFinished();
        entry.reject(signal.reason);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
  }), (result, context) => {
    disposed.push(result);
    return discard ? discard(result, context, rt) : undefined;
  }, opOptions);
  const opBuffer = suspend((_signal, n) => new Promise((resolve) => {
    macrotask.schedule(() => {
      const buffer = /** @type {any} */ (rt.instance.exports).test_alloc(16);
      resolve(buffer);
      ops.push({ n, signal: _signal, resolve: () => {}, reject: () => {}, settled: true });
    });
  }), undefined, { cancelled: 0, failed: 0 }); // 0 is no buffer: statuses would look like pointers
  rt = await Runtime.load(ctx.program('cancellation'), {
    checkInvariants: true,
    stdout: () => {},
    ...rest,
    imports: {
      test: {
        event: (/** @type {number} */ kind, /** @type {number} */ a, /** @type {number} */ b) => {
          events.push({ kind, a, b });
          if (onEvent) onEvent({ kind, a, b }, rt);
        },
        op,
        op_buffer: opBuffer,
      },
    },
  });
  const liveBuffers = () => /** @type {any} */ (rt.instance.exports).test_live_buffers();
  return { rt, events, ops, disposed, cleanup, liveBuffers };
}

/** Event kinds of tests/programs/cleanup.cpp and cleanup_c.c. */
export const CLEANUP_EV = Object.freeze({ unwound: 1, wait: 2, requested: 3, status: 4, ran: 5, dropped: 6 });

/**
 * Loads cleanup.wasm (or `program`: cleanup_c.wasm). `test.op(n)` is an
 * operation the case settles by hand (`ops`), with a disposer (`disposed`);
 * it rejects when its signal aborts, unless `stubborn`. `test.op_shielded(n)`
 * is the same operation declared with suspend()'s option `shield` (default
 * true). `test.pause(n)`, a wait without a disposer, resolves to n (or as
 * `pause` does).
 * @param {CaseContext} ctx
 * @param {import('../../host/browser/index.mjs').RuntimeOptions & { program?: string, stubborn?: boolean,
 *   shield?: boolean | number, pause?: unknown, onEvent?: Function }} [options]
 */
export async function loadCleanup(ctx, options = {}) {
  /** @type {{ kind: number, a: number, b: number }[]} */
  const events = [];
  /** @type {ControlledOp[]} */
  const ops = [];
  /** @type {unknown[]} */
  const disposed = [];
  const { program = 'cleanup', stubborn = false, shield = true, pause, onEvent, ...rest } = options;
  /** @type {Runtime} */
  let rt;
  const operation = (/** @type {AbortSignal} */ signal, /** @type {number} */ n) => new Promise((resolve, reject) => {
    /** @type {ControlledOp} */
    const entry = {
      n, signal, settled: false,
      resolve: (v) => { entry.settled = true; resolve(v); },
      reject: (e) => { entry.settled = true; reject(e); },
    };
    ops.push(entry);
    if (!stubborn) {
      if (signal.aborted) entry.reject(signal.reason);
      else signal.addEventListener('abort', () => entry.reject(signal.reason), { once: true });
    }
  });
  const discard = (/** @type {unknown} */ result) => { disposed.push(result); };
  rt = await Runtime.load(ctx.program(program), {
    checkInvariants: true,
    stdout: () => {},
    ...rest,
    imports: {
      test: {
        event: (/** @type {number} */ kind, /** @type {number} */ a, /** @type {number} */ b) => {
          events.push({ kind, a, b });
          if (onEvent) onEvent({ kind, a, b }, rt);
        },
        op: suspend(operation, discard),
        op_shielded: suspend(operation, discard, { shield }),
        pause: pause ?? suspend((_signal, n) => Promise.resolve(n)),
      },
    },
  });
  return { rt, events, ops, disposed };
}

/** What services.cpp's storage_roundtrip prints, whichever storage backs it. */
export const STORAGE_ROUNDTRIP = [
  'put a ok', 'put b ok', 'put other ok',
  'get b ok [twenty-two]',
  'list ok a b',
  'delete a ok', 'delete a again not_found',
  'get a not_found []',
  'get other a ok [elsewhere]',
  '',
].join('\n');

/** What examples/c/tasks.c prints, in Node and in browsers. */
export const C_TASKS_LINES = Object.freeze([
  '[root] hello from C',
  '[root, rebound] rebound for a while; the children keep the printer they were dispatched with',
  '[root] worker of request 1234567890123: 3 items, 1.5 units',
  '[root] worker of request 1234567890123: 5 items, 2.5 units',
  '[root] sleeper woke: cancelled, cancel requested: 1',
  '[root] joined: ok 3, ok 5, sleeper cancelled',
]);

/**
 * Contract 14: after close() every gauge of the runtime is zero.
 * @param {Runtime} rt
 */
export function assertQuiet(rt) {
  const s = rt.stats();
  const gauges = {
    live: s.live, queued: s.queued, executing: s.executing, suspended: s.suspended,
    ready: s.ready, entered: s.entered, carriers: s.carriers, stacksInUse: s.stacksInUse,
    slotsInUse: s.slotsInUse, handles: s.handles, pendingGates: s.pendingGates,
    pendingCleanups: s.pendingCleanups, armedListeners: s.armedListeners, armedTimers: s.armedTimers,
    shielded: s.shielded,
  };
  const nonZero = Object.fromEntries(Object.entries(gauges).filter(([, v]) => v !== 0));
  assert.deepEqual(nonZero, {}, 'gauges left non-zero after close()');
}

/**
 * Closes a runtime and checks that it holds nothing (assertQuiet): how most
 * tests end.
 * @param {Runtime} rt @param {{ timeout?: number }} [options]  close()'s
 */
export async function closeQuiet(rt, options) {
  const report = await rt.close(options);
  assertQuiet(rt);
  return report;
}

/** @param {{ kind: number }[]} events @param {number} kind */
export function ofKind(events, kind) {
  return events.filter((e) => e.kind === kind);
}
