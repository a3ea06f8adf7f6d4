// What the fuzzer runs a case against, in this process (tests/fuzz/worker.mjs
// calls these): `inspect` (loadModule, inspectModule and its report),
// `load` (Runtime.load, every entry dispatched, close()) and `misuse`
// (random calls of the public API with random values). Each returns what
// happened and the problems it found: anything but a SnailError with a code
// for bad input, an InternalError anywhere, a module WebAssembly refuses
// that was accepted, a runtime that does not close or leaves something held.
import { inspectModule, formatInspection } from '../../host/cli/inspect.mjs';
import { InternalError, Runtime, SnailError, suspend } from '../../host/node/root.mjs';
import { loadModule } from '../../host/browser/program.mjs';
import { readModuleInfo } from '../../host/browser/wasm/binary.mjs';
import { nodeHost } from '../../host/node/host.mjs';

/** @param {unknown} e */
export function describe(e) {
  if (e instanceof Error) return `${e.constructor.name}${/** @type {any} */ (e).code ? ` ${/** @type {any} */ (e).code}` : ''}: ${e.message.split('\n')[0]}`;
  return `${typeof e} ${String(e)}`;
}

/**
 * Whether an error is what bad input or misuse should give: a SnailError
 * with an ERR_ code and a message, not an internal error.
 * @param {unknown} e
 */
export function isClearError(e) {
  return e instanceof SnailError && typeof e.code === 'string' && /^ERR_[A-Z_]+$/.test(e.code) && e.message.length > 0;
}

/** An internal error, or one that carries one. @param {unknown} e */
function internal(e) {
  for (let x = e, depth = 0; x && depth < 5; x = /** @type {any} */ (x).cause, depth++) {
    if (x instanceof InternalError) return true;
  }
  return false;
}

/** @param {number} ms */
const delay = (ms) => new Promise((resolve) => { setTimeout(resolve, ms).unref(); });

/**
 * Settles within `ms`, or says it did not.
 * @template T @param {Promise<T>} p @param {number} ms
 * @returns {Promise<{ value?: T, error?: unknown, timedOut: boolean }>}
 */
async function within(p, ms) {
  /** @type {any} */
  let timer;
  const expired = new Promise((resolve) => { timer = setTimeout(() => resolve({ timedOut: true }), ms); });
  try {
    return await Promise.race([p.then((value) => ({ value, timedOut: false }), (error) => ({ error, timedOut: false })), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The gauges that must be zero after close() (as tests/cases/support.mjs assertQuiet). @param {Runtime} rt */
function heldAfterClose(rt) {
  const s = rt.stats();
  const gauges = {
    live: s.live, queued: s.queued, executing: s.executing, suspended: s.suspended, ready: s.ready,
    entered: s.entered, carriers: s.carriers, stacksInUse: s.stacksInUse, slotsInUse: s.slotsInUse,
    handles: s.handles, pendingGates: s.pendingGates, pendingCleanups: s.pendingCleanups,
    armedListeners: s.armedListeners, armedTimers: s.armedTimers,
  };
  return Object.entries(gauges).filter(([, v]) => v !== 0).map(([k, v]) => `${k} ${v}`);
}

/**
 * Stand-ins for the imports of modules other than the runtime's own: a
 * function returning 0, or a global of the imported type. Memories, tables
 * and tags stay unprovided (the load is refused for them).
 * @param {Uint8Array} bytes
 */
function stubImports(bytes) {
  /** @type {Record<string, Record<string, unknown>>} */
  const imports = {};
  let info;
  try {
    info = readModuleInfo(bytes);
  } catch {
    return imports;
  }
  for (const imp of info.imports) {
    if (imp.module === 'snail' || imp.module === 'wasi_snapshot_preview1') continue;
    if (imp.kind === 'function') (imports[imp.module] ??= {})[imp.name] = () => 0;
    else if (imp.kind === 'global' && imp.global && ['i32', 'i64', 'f32', 'f64'].includes(imp.global.type)) {
      const value = imp.global.type === 'i64' ? 0n : 0;
      (imports[imp.module] ??= {})[imp.name] = new WebAssembly.Global({ value: /** @type {any} */ (imp.global.type), mutable: imp.global.mutable }, value);
    }
  }
  return imports;
}

/**
 * `inspect`: what `snail-core inspect` does in this process.
 * @param {Uint8Array} bytes
 */
export async function inspectTarget(bytes) {
  /** @type {string[]} */
  const problems = [];
  const valid = WebAssembly.validate(/** @type {BufferSource} */ (bytes));
  let loaded;
  try {
    loaded = await loadModule(bytes, { name: 'mutant.wasm' });
  } catch (e) {
    if (!isClearError(e)) problems.push(`loadModule threw ${describe(e)}`);
    return { outcome: `refused ${/** @type {any} */ (e)?.code}`, problems };
  }
  if (!valid) problems.push('loadModule accepted bytes WebAssembly.validate refuses');
  try {
    const result = inspectModule(loaded);
    formatInspection(result);
    JSON.stringify(result);
    return { outcome: result.follows ? 'follows' : 'does not follow', problems };
  } catch (e) {
    problems.push(`inspectModule threw ${describe(e)}`);
    return { outcome: 'threw', problems };
  }
}

/**
 * `load`: Runtime.load with stand-ins for user imports, each entry (up to
 * four) dispatched with argument 0, a moment to run, then close().
 * `stuck` says close() timed out: a hang, unless the program's own code loops.
 * @param {Uint8Array} bytes
 * @param {{ entries?: string[], onEntries?: (entries: string[]) => void }} [options]  the entries to
 *   dispatch (default: the program's, at most four); `onEntries` hears them before they run
 */
export async function loadTarget(bytes, options = {}) {
  /** @type {string[]} */
  const problems = [];
  const valid = WebAssembly.validate(/** @type {BufferSource} */ (bytes));
  let rt;
  try {
    rt = await Runtime.load(bytes, {
      name: 'mutant.wasm', checkInvariants: true, imports: stubImports(bytes), stdout: () => {}, stderr: () => {},
    });
  } catch (e) {
    if (!isClearError(e)) problems.push(`Runtime.load threw ${describe(e)}`);
    return { outcome: `refused ${/** @type {any} */ (e)?.code}`, problems, stuck: false, entries: [] };
  }
  if (!valid) problems.push('Runtime.load accepted bytes WebAssembly.validate refuses');
  const entries = options.entries ?? rt.entries.slice(0, 4);
  options.onEntries?.(entries);
  const tasks = [];
  for (const entry of entries) {
    try {
      tasks.push(rt.dispatch(entry, 0));
    } catch (e) {
      if (!isClearError(e)) problems.push(`dispatch("${entry}") threw ${describe(e)}`);
    }
  }
  await within(rt.drain(), 100);
  let stuck = false;
  try {
    const closed = await within(rt.close({ timeout: 2000 }), 5000);
    if (closed.timedOut || closed.error) problems.push(closed.timedOut ? 'close({ timeout }) did not settle' : `close() rejected: ${describe(closed.error)}`);
    else if (closed.value?.timedOut) stuck = true;
    else problems.push(...heldAfterClose(rt).map((g) => `after close(): ${g}`));
  } catch (e) {
    problems.push(`close() threw ${describe(e)}`);
  }
  for (const t of tasks) if (internal(t.error)) problems.push(`${t} failed with an internal error: ${describe(t.error)}`);
  try {
    rt.stats();
  } catch (e) {
    problems.push(`stats() threw ${describe(e)}`);
  }
  const states = tasks.map((t) => t.state).sort().join(',');
  return { outcome: `loaded, tasks ${states || 'none'}`, problems, stuck, entries };
}

/** An object whose every property read throws: its error is its own, not the runtime's. */
const THROWING = new Error('a getter that throws');
const throwingObject = () => new Proxy({}, { get() { throw THROWING; } });

/** Values misuse passes where the API expects others. */
function oddValues() {
  return [
    undefined, null, 0, -1, 1.5, NaN, Infinity, 2 ** 32, -(2 ** 31) - 1, '', 'main', 'nop', 'sleep', '1', 'x'.repeat(300),
    {}, [], [1], () => {}, Symbol('odd'), 10n, true, Object.create(null), new Uint8Array(0), new ArrayBuffer(8),
    new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), { timeout: -1 }, { timeout: 1 }, { name: 5 }, { name: 'm' },
    { maxSteps: 0 }, { maxSteps: 'x' }, { stdout: 3 }, { imports: { env: 1 } }, { modules: 7 }, { typo: 1 },
    new URL('file:///nonexistent/snail-fuzz.wasm'), '/nonexistent/snail-fuzz.wasm', '/dev/null', new Date(0),
    throwingObject(),
  ];
}

/**
 * `misuse`: a sequence of public API calls with random values on a program
 * that follows the ABI. Every call returns, or throws (or rejects with) a
 * clear SnailError; the runtime then closes and holds nothing.
 * @param {Uint8Array} program @param {ReturnType<typeof import('./mutate.mjs').random>} r
 */
export async function misuseTarget(program, r) {
  /** @type {string[]} */
  const problems = [];
  const values = oddValues();
  const any = () => (r.oneIn(4) ? r.pick(['main', 'nop', 'sleep', 'argc', 0, 1, {}, undefined]) : r.pick(values));
  const rt = await Runtime.load(program, { name: 'fixture.wasm', stdout: () => {}, stderr: () => {}, checkInvariants: true });
  /** @type {import('../../host/browser/index.mjs').Task[]} */
  const tasks = [];
  /** @type {{ what: string, promise: Promise<unknown> }[]} */
  const pending = [];
  /** @type {Record<string, () => unknown>} */
  const calls = {
    'Runtime.load': () => Runtime.load(/** @type {any} */ (any()), /** @type {any} */ (any())),
    dispatch: () => {
      const t = rt.dispatch(/** @type {any} */ (any()), /** @type {any} */ (r.oneIn(2) ? r.pick([0, 1, 5]) : any()));
      tasks.push(t);
      return t;
    },
    dispatchSleep: () => {
      const t = rt.dispatch('sleep', r.pick([0, 1, 10, 60000]));
      tasks.push(t);
      return t;
    },
    cancel: () => rt.cancel(/** @type {any} */ (tasks.length && r.oneIn(2) ? r.pick(tasks) : any())),
    taskCancel: () => (tasks.length ? r.pick(tasks).cancel() : undefined),
    close: () => rt.close(/** @type {any} */ (r.oneIn(2) ? undefined : any())),
    drain: () => rt.drain(),
    loadModule: () => rt.loadModule(/** @type {any} */ (any()), /** @type {any} */ (any())),
    register: () => rt.events.register(/** @type {any} */ (any()), /** @type {any} */ (any()), /** @type {any} */ (any()), /** @type {any} */ (any())),
    suspend: () => suspend(/** @type {any} */ (any()), /** @type {any} */ (any()), /** @type {any} */ (any())),
    nodeHost: () => {
      const options = any();
      // stdin: true would read this process's standard input.
      if (options !== null && typeof options === 'object' && 'stdin' in options) return undefined;
      return nodeHost(/** @type {any} */ (options));
    },
    read: () => [rt.stats(), rt.tasks(), rt.limits, rt.handlerGlobals, rt.modules, rt.entries, rt.events.names()],
  };
  const names = Object.keys(calls);
  for (let n = 5 + r.below(20); n > 0; n--) {
    const what = r.pick(names);
    try {
      const result = calls[what]();
      if (result && typeof (/** @type {any} */ (result)).then === 'function') {
        const promise = /** @type {Promise<unknown>} */ (result);
        // Looked at once the runtime closed; not an unhandled rejection meanwhile.
        promise.catch(() => {});
        pending.push({ what, promise });
      }
    } catch (e) {
      if (!isClearError(e) && e !== THROWING) problems.push(`${what} threw ${describe(e)}`);
    }
    if (r.oneIn(3)) await delay(0);
  }
  const closed = await within(rt.close({ timeout: 2000 }), 5000);
  if (closed.timedOut || closed.error) problems.push(closed.timedOut ? 'close() did not settle' : `close() rejected: ${describe(closed.error)}`);
  else if (/** @type {any} */ (closed.value).timedOut) problems.push(`close() timed out with ${JSON.stringify(/** @type {any} */ (closed.value).stuck)}`);
  else problems.push(...heldAfterClose(rt).map((g) => `after close(): ${g}`));
  // Once the runtime closed, everything it returned settles.
  for (const { what, promise } of pending) {
    const settled = await within(promise, 3000);
    if (settled.timedOut) problems.push(`${what}'s promise did not settle after close()`);
    else if (settled.error !== undefined && !isClearError(settled.error) && settled.error !== THROWING) problems.push(`${what} rejected with ${describe(settled.error)}`);
    // A runtime that misuse loaded by chance is closed too.
    if (settled.value instanceof Runtime) await settled.value.close();
  }
  for (const t of tasks) {
    if (!t.finished) problems.push(`${t} is ${t.state} after close()`);
    if (internal(t.error)) problems.push(`${t} failed with an internal error: ${describe(t.error)}`);
  }
  return { outcome: `${tasks.length} tasks, ${pending.length} promises`, problems };
}
