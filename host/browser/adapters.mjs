// Adapters: host operations written to the adapter contract, and the helper
// that makes the contract easy to keep.
//
// An adapter is `(signal, ...args) => Promise`. Its one Promise covers the
// operation *and* its cleanup. It must
//   - handle a signal that is already aborted (settle at once, arm nothing),
//   - remove its listeners when it completes normally,
//   - disarm promptly when the signal aborts,
//   - settle only after the cleanup it owns has finished.

// Written by the adapters and the sleepers only; armed is their read-only face.
const ARMED = { listeners: 0, timers: 0 };

/**
 * What adapters built with `adapter()` have armed right now, across the
 * process: listeners (on signals and event sources) and timers. Both return to
 * zero when every operation has settled.
 */
export const armed = /** @type {{ readonly listeners: number, readonly timers: number }} */ (ARMED);

/** The writable counters behind `armed`, for the sleepers' timers. */
export function armedCounts() {
  return ARMED;
}

/** The error an adapter rejects with when its signal aborts. @param {AbortSignal} signal */
export function abortReason(signal) {
  if (signal.reason !== undefined) return signal.reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

/**
 * @template [T=unknown]
 * @typedef {object} AdapterControls
 * @property {(value: T) => void} resolve  completes the operation
 * @property {(error: unknown) => void} reject  fails the operation
 * @property {(target: { removeEventListener?: Function, off?: Function }, type: string, listener: (...args: never[]) => void) => void} listen
 *   adds a listener that is removed however the operation ends
 * @property {(fn: () => void, ms: number) => void} timer  arms a timer that is cleared however it ends
 * @property {(cleanup: () => void | PromiseLike<void>) => void} onCleanup
 *   runs `cleanup` when the operation ends; the adapter settles after it
 */

/**
 * Runs an operation under the adapter contract. `start(controls)` arms the
 * operation with the controls' `listen`, `timer` and `onCleanup`, and calls
 * `resolve` or `reject` when it ends. The helper removes every listener and
 * timer and runs every cleanup before the returned promise settles, on
 * completion, failure and abort alike; an already aborted signal rejects at
 * once without calling `start`.
 * @template T
 * @param {AbortSignal} signal
 * @param {(controls: AdapterControls<T>) => void} start
 * @returns {Promise<T>}
 */
export function adapter(signal, start) {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise((settleResolve, settleReject) => {
    /** @type {(() => void | PromiseLike<void>)[]} */
    const cleanups = [];
    let done = false;

    /** @param {() => void} settle */
    const finish = (settle) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      ARMED.listeners--;
      /** @type {PromiseLike<void>[]} */
      const pending = [];
      /** @type {unknown[]} */
      const errors = [];
      // Newest first, like destructors.
      for (let i = cleanups.length - 1; i >= 0; i--) {
        try {
          const r = cleanups[i]();
          if (r && typeof r.then === 'function') pending.push(r);
        } catch (e) {
          errors.push(e);
        }
      }
      const settleAfter = () => {
        if (errors.length) settleReject(errors.length === 1 ? errors[0] : new AggregateError(errors, 'adapter cleanup failed'));
        else settle();
      };
      if (pending.length === 0) settleAfter();
      else {
        Promise.allSettled(pending).then((results) => {
          for (const r of results) if (r.status === 'rejected') errors.push(r.reason);
          settleAfter();
        });
      }
    };
    const onAbort = () => finish(() => settleReject(abortReason(signal)));
    signal.addEventListener('abort', onAbort);
    ARMED.listeners++;

    /** @type {AdapterControls<T>} */
    const controls = {
      resolve: (value) => finish(() => settleResolve(value)),
      reject: (error) => finish(() => settleReject(error)),
      listen(target, type, listener) {
        if (done) return;
        const t = /** @type {any} */ (target);
        if (typeof t.addEventListener === 'function') {
          t.addEventListener(type, listener);
          cleanups.push(() => t.removeEventListener(type, listener));
        } else if (typeof t.on === 'function') {
          t.on(type, listener);
          cleanups.push(() => (typeof t.off === 'function' ? t.off(type, listener) : t.removeListener(type, listener)));
        } else {
          throw new TypeError(`cannot listen for "${type}": the target has neither addEventListener nor on`);
        }
        ARMED.listeners++;
        cleanups.push(() => { ARMED.listeners--; });
      },
      timer(fn, ms) {
        // Checked before the operation is under way: a wrong call would
        // otherwise throw from the event loop, where nothing catches it.
        if (typeof fn !== 'function') throw new TypeError(`timer(callback, ms): the callback must be a function, got ${typeof fn}`);
        if (!(typeof ms === 'number' && ms >= 0)) throw new RangeError(`timer(callback, ms): the delay must be a number of milliseconds >= 0, got ${String(ms)}`);
        if (done) return;
        let fired = false;
        const id = setTimeout(() => {
          // A fired timer needs no clearing, but keep the count exact.
          fired = true;
          ARMED.timers--;
          fn();
        }, ms);
        ARMED.timers++;
        cleanups.push(() => {
          if (!fired) {
            clearTimeout(id);
            ARMED.timers--;
          }
        });
      },
      onCleanup(cleanup) {
        if (done) throw new Error('onCleanup() after the operation ended');
        cleanups.push(cleanup);
      },
    };
    try {
      start(controls);
    } catch (error) {
      controls.reject(error);
    }
  });
}

// The longest delay setTimeout takes; longer sleeps re-arm.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves with `value` after `ms` milliseconds. Aborting clears the timer and
 * rejects with the signal's reason.
 * @template T
 * @param {AbortSignal} signal @param {number} ms @param {T} [value]
 * @returns {Promise<T | undefined>}
 */
export function timer(signal, ms, value) {
  if (!(ms >= 0)) return Promise.reject(new RangeError(`timer(): the delay must be a number >= 0, got ${ms}`));
  return adapter(signal, ({ resolve, timer: arm }) => {
    let left = ms;
    const step = () => {
      if (left <= MAX_TIMER_MS) {
        arm(() => resolve(value), left);
      } else {
        left -= MAX_TIMER_MS;
        arm(step, MAX_TIMER_MS);
      }
    };
    step();
  });
}

/**
 * Resolves with the next event `type` that `target` (an EventTarget) fires and
 * that passes `filter`. The listener is removed however the wait ends.
 * @param {AbortSignal} signal
 * @param {EventTarget} target @param {string} type
 * @param {{ filter?: (event: Event) => boolean }} [options]
 * @returns {Promise<Event>}
 */
export function eventOf(signal, target, type, options = {}) {
  if (!target || typeof target.addEventListener !== 'function') {
    return Promise.reject(new TypeError(`eventOf(): the target of "${type}" is not an EventTarget`));
  }
  return adapter(signal, ({ resolve, reject, listen }) => {
    listen(target, type, (/** @type {Event} */ event) => {
      try {
        if (!options.filter || options.filter(event)) resolve(event);
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * Resolves with the arguments of the next `name` event of a Node EventEmitter
 * (or anything with on/off). An `error` event rejects, unless `name` is 'error'.
 * @param {AbortSignal} signal
 * @param {{ on: Function, off?: Function, removeListener?: Function }} emitter @param {string} name
 * @returns {Promise<unknown[]>}
 */
export function emitterEvent(signal, emitter, name) {
  if (!emitter || typeof emitter.on !== 'function') {
    return Promise.reject(new TypeError(`emitterEvent(): the emitter of "${name}" has no on() method`));
  }
  return adapter(signal, ({ resolve, reject, listen }) => {
    listen(emitter, name, (/** @type {unknown[]} */ ...args) => resolve(args));
    if (name !== 'error') listen(emitter, 'error', (/** @type {unknown} */ error) => reject(error));
  });
}

/**
 * `fetch` with the task's signal, resolving once the whole body has arrived:
 * the Response it resolves with holds no connection, so an undelivered one
 * needs no disposer. The signal aborts the request and the body's download.
 * @param {AbortSignal} signal @param {RequestInfo | URL} input @param {RequestInit} [init]
 * @returns {Promise<Response>}
 */
export async function fetchResponse(signal, input, init = {}) {
  if (signal.aborted) throw abortReason(signal);
  const response = await fetch(input, { ...init, signal });
  const body = await response.arrayBuffer();
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
