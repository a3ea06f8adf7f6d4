// Capability detection, in one place. Everything environment-specific that the
// environment-neutral runtime detects by itself is decided here and exported as
// plain values; what it cannot do by itself (files, the process) a host entry
// gives it through platform.mjs.

const g = /** @type {any} */ (globalThis);

/** JSPI (`WebAssembly.Suspending` and `WebAssembly.promising`) is available. */
export const hasJspi = typeof g.WebAssembly?.Suspending === 'function' && typeof g.WebAssembly?.promising === 'function';

/**
 * Whether `value` is a WebAssembly.Suspending. The JSPI specification makes
 * one an object of that class; JavaScriptCore makes a native function that
 * is not an instance of it, named as the one made here to find out.
 * @type {(value: unknown) => boolean}
 */
export const isSuspending = (() => {
  if (!hasJspi) return () => false;
  const S = g.WebAssembly.Suspending;
  const made = new S(() => undefined);
  if (made instanceof S) return (value) => value instanceof S;
  const name = typeof made === 'function' ? made.name : null;
  const native = (/** @type {unknown} */ f) => /\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(f));
  return (value) => value instanceof S || (typeof value === 'function' && name !== null && value.name === name && native(value));
})();

/** Running under Node.js (or a runtime that presents itself as Node). */
export const isNode = typeof g.process?.versions?.node === 'string';

/** The engine, for messages: "Node 26.10.0", "Chromium", ... @type {string} */
export const engineName = isNode ? `Node ${g.process.versions.node}` : (g.navigator?.userAgent ?? 'unknown engine');

/** What to tell a user whose engine lacks JSPI. */
export function jspiAdvice() {
  if (isNode) {
    const major = Number(String(g.process.versions.node).split('.')[0]);
    // The script as the user would type it: relative to the working directory when inside it.
    const argv1 = g.process.argv?.[1];
    const cwd = typeof g.process.cwd === 'function' ? `${g.process.cwd()}/` : '';
    const script = typeof argv1 !== 'string' ? '' : ` ${cwd && argv1.startsWith(cwd) ? argv1.slice(cwd.length) : argv1}`;
    if (major === 24) return `run Node 24 with --experimental-wasm-jspi, or use Node 25 or newer (npx node@26${script})`;
    return `Node ${g.process.versions.node} has no JSPI; use Node 25 or newer (npx node@26${script})`;
  }
  return 'use a browser with JSPI: Chrome 137+, Firefox 153+ or Safari 27+';
}

/** @type {Set<unknown>} */
const terminal = new Set();

/**
 * Makes `error` end a Node process with one line instead of a stack trace if
 * nobody catches it: an engine without JSPI is not a bug whose stack helps
 * anyone, and the line says what to run instead. A caught error is untouched,
 * and every other uncaught error reaches Node's own report as before.
 * @template {Error} E
 * @param {E} error
 * @returns {E}
 */
export function endsProcessQuietly(error) {
  if (!isNode || typeof g.process.on !== 'function') return error;
  if (terminal.size === 0) {
    g.process.on('uncaughtExceptionMonitor', (/** @type {unknown} */ uncaught) => {
      if (!terminal.has(uncaught)) return;
      g.process.stderr.write(`${/** @type {Error} */ (uncaught).message}\n`);
      g.process.exit(1);
    });
  }
  terminal.add(error);
  return error;
}

/**
 * The best macrotask source of this environment: a function that runs `callback`
 * in a later event-loop turn, after pending input, I/O and timers had a chance.
 * Never a clamped setTimeout: Node's setImmediate, else the browser's
 * `scheduler.postTask`, else a MessageChannel message.
 * @returns {{ name: string, schedule: (callback: () => void) => void }}
 */
export function bestMacrotask() {
  if (typeof g.setImmediate === 'function') {
    return { name: 'setImmediate', schedule: (cb) => g.setImmediate(cb) };
  }
  if (typeof g.scheduler?.postTask === 'function') {
    return { name: 'scheduler.postTask', schedule: (cb) => { g.scheduler.postTask(cb, { priority: 'user-visible' }); } };
  }
  if (typeof g.MessageChannel === 'function') {
    const channel = new g.MessageChannel();
    /** @type {(() => void)[]} */
    const queue = [];
    channel.port1.onmessage = () => {
      const cb = queue.shift();
      if (cb) cb();
    };
    return {
      name: 'MessageChannel',
      schedule: (cb) => {
        queue.push(cb);
        channel.port2.postMessage(0);
      },
    };
  }
  return { name: 'setTimeout', schedule: (cb) => { g.setTimeout(cb, 0); } };
}

/** A monotonic clock in milliseconds. @type {() => number} */
export const now = typeof g.performance?.now === 'function' ? () => g.performance.now() : () => Date.now();
