// The adapter contract as a reusable test kit (`snail-core/adapter-contract`).
//
//   import { adapterContract } from 'snail-core/adapter-contract';
//   for (const c of adapterContract({ name: 'my wait', start, complete, armed })) {
//     test(c.name, c.run);          // node:test, or any runner that awaits c.run()
//   }
//
// Every adapter, ours or a runtime author's, must pass these cases: it handles
// an already aborted signal, removes its listeners when it completes normally,
// disarms promptly when aborted, and settles only after the cleanup it owns.
/// <reference lib="dom" preserve="true" />
// The API speaks of WebAssembly, AbortSignal, Response and the page's elements,
// which TypeScript declares in its DOM library: the declarations bring it in,
// so that a Node project without "dom" in its lib compiles.

/**
 * @typedef {object} AdapterUnderTest
 * @property {string} name  used in the case names
 * @property {(signal: AbortSignal) => PromiseLike<unknown>} start  starts one operation
 * @property {() => void | Promise<void>} [complete]  makes the running operation
 *   complete normally (fire the event, answer the request); omit for operations
 *   that complete by themselves (a short timer)
 * @property {() => number} armed  what the adapter has armed right now (listeners
 *   on its source, timers, open requests): the same before start and after settling
 * @property {number} [promptTurns]  event-loop turns an abort may take to settle (default 2)
 */

/** @param {string} message */
function fail(message) {
  const e = new Error(message);
  e.name = 'AdapterContractError';
  throw e;
}

/** One event-loop turn, in any environment. */
function turn() {
  return new Promise((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}

/**
 * An AbortSignal that counts the 'abort' listeners added to it and not yet
 * removed (listeners added with `once` count as removed once they ran).
 */
function countingSignal() {
  const controller = new AbortController();
  const signal = controller.signal;
  /** @type {Map<unknown, Function>} */
  const active = new Map();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  /** @param {string} type @param {any} listener @param {any} [options] */
  signal.addEventListener = (type, listener, options) => {
    if (type !== 'abort' || listener === null) return add(type, listener, options);
    if (active.has(listener)) return undefined;
    const once = typeof options === 'object' && options !== null && options.once;
    const wrapped = once
      ? (/** @type {Event} */ e) => {
        active.delete(listener);
        return typeof listener === 'function' ? listener.call(signal, e) : listener.handleEvent(e);
      }
      : listener;
    active.set(listener, wrapped);
    return add(type, wrapped, options);
  };
  /** @param {string} type @param {any} listener @param {any} [options] */
  signal.removeEventListener = (type, listener, options) => {
    if (type !== 'abort') return remove(type, listener, options);
    const wrapped = active.get(listener);
    active.delete(listener);
    return remove(type, wrapped ?? listener, options);
  };
  return { controller, signal, listeners: () => active.size };
}

/**
 * Waits for a promise to settle within `turns` event-loop turns, or, with
 * `turns` Infinity, within `graceMs` (a liveness bound for operations that
 * complete on their own, such as timers; not a performance check).
 * @param {PromiseLike<unknown>} promise @param {number} turns @param {() => void} [onSettle]
 */
async function settleWithin(promise, turns, onSettle, graceMs = 10000) {
  /** @type {{ settled: boolean, ok?: boolean, value?: unknown }} */
  const outcome = { settled: false };
  Promise.resolve(promise).then(
    (value) => { onSettle?.(); Object.assign(outcome, { settled: true, ok: true, value }); },
    (value) => { onSettle?.(); Object.assign(outcome, { settled: true, ok: false, value }); },
  );
  const deadline = Date.now() + graceMs;
  for (let i = 0; !outcome.settled && (i <= turns) && Date.now() < deadline; i++) await turn();
  return outcome;
}

/**
 * The contract cases for one adapter.
 * @param {AdapterUnderTest} adapter
 * @returns {{ name: string, run: () => Promise<void> }[]}
 */
export function adapterContract(adapter) {
  const { name } = adapter;
  const promptTurns = adapter.promptTurns ?? 2;
  /** @param {string} what */
  const baseline = (what) => {
    const n = adapter.armed();
    if (n !== 0) fail(`${name}: ${n} resources armed ${what}; run each case on an idle adapter`);
  };

  return [
    {
      name: `adapter contract (${name}): an_already_aborted_signal_settles_at_once_and_arms_nothing`,
      async run() {
        baseline('before the case');
        const s = countingSignal();
        s.controller.abort(new Error('aborted before the start'));
        let armedDuring = 0;
        const outcome = await settleWithin(adapter.start(s.signal), promptTurns, () => { armedDuring = adapter.armed(); });
        if (!outcome.settled) fail(`${name}: an operation started with an aborted signal did not settle within ${promptTurns} turns`);
        if (outcome.ok) fail(`${name}: an operation started with an aborted signal fulfilled instead of rejecting`);
        if (armedDuring !== 0 || adapter.armed() !== 0) fail(`${name}: an operation started with an aborted signal armed ${Math.max(armedDuring, adapter.armed())} resources`);
        if (s.listeners() !== 0) fail(`${name}: ${s.listeners()} abort listeners left on an aborted signal`);
      },
    },
    {
      name: `adapter contract (${name}): normal_completion_removes_every_listener_before_settling`,
      async run() {
        baseline('before the case');
        const s = countingSignal();
        let armedAtSettle = -1;
        let listenersAtSettle = -1;
        const promise = adapter.start(s.signal);
        await turn();
        if (adapter.complete) await adapter.complete();
        const outcome = await settleWithin(promise, Infinity, () => {
          armedAtSettle = adapter.armed();
          listenersAtSettle = s.listeners();
        });
        if (!outcome.settled) fail(`${name}: the operation did not settle after it completed`);
        if (!outcome.ok) fail(`${name}: the operation rejected on normal completion: ${String(outcome.value)}`);
        if (armedAtSettle !== 0) fail(`${name}: ${armedAtSettle} resources were still armed when the operation fulfilled`);
        if (listenersAtSettle !== 0) fail(`${name}: ${listenersAtSettle} abort listeners were left on the signal after normal completion`);
      },
    },
    {
      name: `adapter contract (${name}): abort_disarms_promptly_and_settles_after_cleanup`,
      async run() {
        baseline('before the case');
        const s = countingSignal();
        let armedAtSettle = -1;
        const promise = adapter.start(s.signal);
        await turn();
        const reason = new Error('aborted while running');
        // Watched from before the abort, as the runtime watches it: an adapter
        // that rejects and then queues its cleanup is seen settling first.
        const settling = settleWithin(promise, promptTurns, () => { armedAtSettle = adapter.armed(); });
        s.controller.abort(reason);
        const outcome = await settling;
        if (!outcome.settled) fail(`${name}: the operation did not settle within ${promptTurns} turns of the abort`);
        if (outcome.ok) fail(`${name}: the operation fulfilled after it was aborted`);
        if (armedAtSettle !== 0) fail(`${name}: ${armedAtSettle} resources were still armed when the aborted operation settled`);
        if (s.listeners() !== 0) fail(`${name}: ${s.listeners()} abort listeners left on the signal after the abort`);
      },
    },
    {
      name: `adapter contract (${name}): a_completion_after_the_abort_changes_nothing`,
      async run() {
        baseline('before the case');
        const s = countingSignal();
        const promise = adapter.start(s.signal);
        await turn();
        s.controller.abort(new Error('aborted'));
        const outcome = await settleWithin(promise, promptTurns);
        if (adapter.complete) await adapter.complete();
        for (let i = 0; i < 3; i++) await turn();
        if (!outcome.settled || outcome.ok) fail(`${name}: the aborted operation did not reject`);
        if (adapter.armed() !== 0) fail(`${name}: completing after the abort armed ${adapter.armed()} resources`);
      },
    },
  ];
}
