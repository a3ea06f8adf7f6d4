// Process signals as named event sources (docs/node.md, "Signals").
//
//   registerSignal(rt, 'SIGUSR1');                  // programs wait on "signal:SIGUSR1"
//   registerSignal(rt, 'SIGHUP', { queue: true });   // and keep the ones nobody waited for
//
// By default a signal is caught only while a task waits on it: the listener is
// on `process` for the duration of the wait and removed with it, so at every
// other moment the signal has its usual effect (SIGTERM and SIGINT end the
// process, SIGUSR1 starts Node's inspector). With `queue: true` the signal is
// caught for as long as it is registered: deliveries that find no waiting task
// are counted and each later wait takes one at once. Either way the listener
// does not keep the process alive (Node does not count signal watchers); a
// waiting task does, because it is live. A program receives the signal's name
// ("SIGUSR1") as the event's detail.
import { EventEmitter } from 'node:events';
import os from 'node:os';

import { SnailError } from '../browser/errors.mjs';

/** Signals that cannot be caught, or that Node reserves. */
const UNCATCHABLE = new Set(['SIGKILL', 'SIGSTOP', 'SIGBUS', 'SIGFPE', 'SIGSEGV', 'SIGILL']);

/**
 * A signal caught for as long as it is registered, with deliveries that found
 * no listener kept for the next one. An EventEmitter whose `type` event fires
 * once per delivery.
 */
export class QueuedSignal extends EventEmitter {
  /** @param {NodeJS.Signals} signal */
  constructor(signal) {
    super();
    this.signal = signal;
    /** Deliveries no listener has taken yet. */
    this.pending = 0;
    /** @internal */
    this.onSignal = () => {
      if (this.listenerCount(signal) > 0) this.emit(signal, signal);
      else this.pending++;
    };
    process.on(signal, this.onSignal);
  }

  /** @param {string | symbol} type @param {(...args: unknown[]) => void} listener */
  on(type, listener) {
    super.on(type, listener);
    if (type === this.signal && this.pending > 0) {
      // Later, never during on(): the listener's owner has not finished arming.
      queueMicrotask(() => {
        if (this.pending > 0 && this.listenerCount(this.signal) > 0) {
          this.pending--;
          this.emit(this.signal, this.signal);
        }
      });
    }
    return this;
  }

  /** Stops catching the signal. */
  close() {
    process.off(this.signal, this.onSignal);
  }
}

/**
 * Registers a process signal on a runtime's event registry as
 * "signal:NAME". Returns a function that removes it (and, with `queue`,
 * stops catching the signal).
 * @param {{ events: import('../browser/index.mjs').EventRegistry }} rt
 * @param {string} signal  a signal name, for example "SIGUSR1"
 * @param {{ queue?: boolean, name?: string }} [options]  `queue`: catch it while registered
 *   and keep deliveries no task waited for; `name`: the event name (default "signal:NAME")
 * @returns {() => void}
 */
export function registerSignal(rt, signal, options = {}) {
  if (typeof signal !== 'string' || !(signal in os.constants.signals)) {
    throw new SnailError(`registerSignal(): "${String(signal)}" is not a signal of this system`, { code: 'ERR_ARG' });
  }
  if (UNCATCHABLE.has(signal)) {
    throw new SnailError(`registerSignal(): ${signal} cannot be waited for`, { code: 'ERR_ARG' });
  }
  const sig = /** @type {NodeJS.Signals} */ (signal);
  const name = options.name ?? `signal:${sig}`;
  const detail = () => sig;
  if (!options.queue) return rt.events.register(name, process, sig, { detail });
  const source = new QueuedSignal(sig);
  try {
    return rt.events.register(name, source, sig, { detail, release: () => source.close() });
  } catch (error) {
    source.close();
    throw error;
  }
}

/**
 * The first SIGINT or SIGTERM, for a command that winds down on either (the
 * snail-core command; docs/cli.md, "Ctrl-C and SIGTERM").
 *
 * Node runs a signal's listeners only when the JavaScript agent is free: a
 * signal that arrives while Wasm computes waits in libuv until then, however
 * many arrive. The first one acted on calls `onSignal` and takes both
 * listeners off at once, so that the signals get their default actions back:
 * a later one ends the process at once, even while Wasm computes and no
 * listener could run. Signals that arrived together with the first, before
 * the agent was free, are not seen (libuv drops them with the listeners):
 * they count as one.
 */
export class Interrupts {
  /**
   * @param {(signal: NodeJS.Signals) => void} onSignal
   * @param {NodeJS.Signals[]} [signals]
   */
  constructor(onSignal, signals = ['SIGINT', 'SIGTERM']) {
    /** The signal acted on, or null. @type {NodeJS.Signals | null} */
    this.received = null;
    this.signals = signals;
    this.listener = (/** @type {NodeJS.Signals} */ signal) => {
      this.dispose();
      this.received = signal;
      onSignal(signal);
    };
    for (const s of signals) process.on(s, this.listener);
  }

  /**
   * Resolves with the signal acted on, or null, once every signal that
   * arrived before this call has been delivered: after a computation ends,
   * the signals sent during it reach their listeners at the event loop's next
   * poll for I/O, which the second of two check phases follows.
   * @returns {Promise<NodeJS.Signals | null>}
   */
  async settled() {
    for (let i = 0; i < 2; i++) await new Promise((resolve) => { setImmediate(resolve); });
    return this.received;
  }

  /** Stops listening: the signals have their default actions again. */
  dispose() {
    for (const s of this.signals) process.off(s, this.listener);
  }
}
