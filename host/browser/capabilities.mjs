// Capability detection, in one place. Everything environment-specific that the
// environment-neutral runtime needs is decided here and exported as plain values.

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

/** The engine, for messages: "Node 26.10.0", "Chromium", ... */
export const engineName = isNode ? `Node ${g.process.versions.node}` : (g.navigator?.userAgent ?? 'unknown engine');

/** What to tell a user whose engine lacks JSPI. */
export function jspiAdvice() {
  if (isNode) {
    const major = Number(String(g.process.versions.node).split('.')[0]);
    if (major === 24) return 'run Node 24 with --experimental-wasm-jspi, or use Node 25 or newer (npm install node@26)';
    return `Node ${g.process.versions.node} has no JSPI; use Node 25 or newer (npm install node@26)`;
  }
  return 'use a browser with JSPI: Chrome 137+, Firefox 153+ or Safari 27+';
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

/** A monotonic clock in milliseconds. */
export const now = typeof g.performance?.now === 'function' ? () => g.performance.now() : () => Date.now();

/**
 * How many tasks may have entered Wasm and not finished at once.
 *
 * V8 aborts the process ("StackMemory::StackSegment Allocation failed") somewhere
 * between 30,000 and 40,000 suspended JSPI stacks on Linux with the default
 * vm.max_map_count of 65,530, because every stack takes memory mappings. The hard
 * bound keeps a quarter of the map count for stacks; the soft bound (new starts)
 * stays lower so that joined children can still enter above it.
 * @returns {{ soft: number, hard: number, source: string }}
 */
export function stackLimits() {
  let maps = 65530;
  let source = 'default vm.max_map_count (65530)';
  if (isNode && typeof g.process.getBuiltinModule === 'function' && g.process.platform === 'linux') {
    try {
      const fs = g.process.getBuiltinModule('node:fs');
      const value = Number(fs.readFileSync('/proc/sys/vm/max_map_count', 'utf8').trim());
      if (Number.isFinite(value) && value > 0) {
        maps = value;
        source = `vm.max_map_count (${value})`;
      }
    } catch {
      // Not readable: keep the kernel default.
    }
  }
  const hard = Math.max(64, Math.floor(maps / 4));
  return { soft: Math.min(10000, hard), hard, source };
}

/**
 * A token that keeps a Node process alive while tasks are live: unresolved
 * promises alone do not. Elsewhere nothing needs holding.
 * @returns {{ hold: () => void, release: () => void, dispose: () => void }}
 */
export function processKeepAlive() {
  if (!isNode) return { hold() {}, release() {}, dispose() {} };
  // One timer for the runtime's life, referenced only while tasks are live:
  // toggling a reference is much cheaper than making a timer per interval.
  /** @type {any} */
  let timer = null;
  return {
    hold() {
      if (timer === null) timer = g.setInterval(() => {}, 2 ** 30);
      else timer.ref();
    },
    release() {
      if (timer !== null) timer.unref();
    },
    dispose() {
      if (timer !== null) g.clearInterval(timer);
      timer = null;
    },
  };
}
