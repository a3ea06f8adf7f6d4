// Engine probes (internal): what an engine can do that only running it shows.
// capabilities.mjs and gates.mjs's canWrap find out what an engine accepts
// (JSPI exists, the wrappers' instructions validate); an engine can accept
// code and still fail when it suspends through it. So before the first
// program of this agent loads, the runtime suspends once through each shape
// it relies on, inside WebAssembly.promising, and checks that the call
// resumes with the right value and registers:
//
// - raw: a `promising` export calling a `Suspending` import directly. Every
//   wait needs this; an engine failing it cannot run programs at all.
// - direct waits: the real suspension module (gates.mjs): a program-like
//   module imports a stub, which tail-calls (return_call_indirect) through the
//   dispatch table into the wrapper, another instance, which saves the
//   registers, calls the Suspending import inside try_table with the JS tag,
//   and installs the registers again. JavaScriptCore (Bun 1.4) fails here:
//   its JSPI stack scan does not know the frame a tail call into another
//   instance leaves ("unrecognized type of Wasm frame: RestoreFrameMode"),
//   and the wrapper's try_table catches that as the wait's failure. The same
//   wrapper reached by a plain call_indirect suspends there, so where the
//   tail call fails the probe tries that, and the stubs call their wrappers
//   that way (one more frame per wait). Where both fail, every wait goes
//   without the wrappers, one more promise hop each (bridge.mjs).
//
// Each probe runs once per agent; the results are cached promises.
import { hasJspi } from './capabilities.mjs';
import { canWrap, createGates, createWrappers, INSTALL, useTailCallStubs, WORDS_END } from './wasm/gates.mjs';
import { createRegisterFile } from './wasm/registers.mjs';
import { Code, ModuleWriter, op } from './wasm/writer.mjs';

/**
 * What a probe found: `ok`, and when not, what was probed and what the engine
 * did instead.
 * @typedef {{ ok: boolean, probed: string, failure: string | null }} ProbeResult
 * @typedef {ProbeResult & { tailCall: boolean, tailCallFailure: string | null }} WaitsProbeResult
 *   the direct-waits probe: `ok` if either stub shape works, `tailCall` if the tail call does,
 *   and what the tail call did where it failed
 */

/** How long a probe's suspended call may take to resume before it counts as never resuming. */
const RESUME_TIMEOUT_MS = 5000;

/** What each probe exercises, as its failure names it. */
export const PROBED = Object.freeze({
  raw: 'a WebAssembly.promising export suspending at a WebAssembly.Suspending import',
  tailCall: 'a wait through the suspension module: a tail call (return_call_indirect) from the importing instance '
    + 'into the wrapper in another instance, which suspends at a Suspending import inside try_table with the JS tag',
  plainCall: 'a wait through the suspension module with the wrapper reached by a plain call_indirect',
});

/** @type {Promise<ProbeResult> | null} */
let raw = null;
/** @type {Promise<WaitsProbeResult> | null} */
let direct = null;

/** Whether this engine's JSPI suspends and resumes at all (probed once per agent). */
export function probeRawJspi() {
  raw ??= guarded(PROBED.raw, rawProbe);
  return raw;
}

/**
 * Whether waits can go through the suspension module here, and how its stubs
 * must call the wrappers (probed once per agent): the `directWaits` option's
 * default. Sets the stub shape of gates.mjs (useTailCallStubs) to the one
 * that works.
 * @returns {Promise<WaitsProbeResult>}
 */
export function probeDirectWaits() {
  direct ??= (async () => {
    if (!canWrap) {
      const failure = 'the engine lacks exception handling with WebAssembly.JSTag, or tail calls';
      return { ok: false, probed: PROBED.tailCall, failure, tailCall: false, tailCallFailure: failure };
    }
    const tail = await guarded(PROBED.tailCall, () => directProbe(true));
    if (tail.ok) return { ...tail, tailCall: true, tailCallFailure: null };
    const plain = await guarded(PROBED.plainCall, () => directProbe(false));
    if (plain.ok) useTailCallStubs(false);
    return { ...plain, tailCall: false, tailCallFailure: tail.failure };
  })();
  return direct;
}

/**
 * Runs a probe: its value must be `true`; anything else, a throw, or no
 * resumption within RESUME_TIMEOUT_MS is a failure that says what happened.
 * @param {string} probed @param {() => Promise<string | true>} probe
 * @returns {Promise<ProbeResult>}
 */
async function guarded(probed, probe) {
  if (!hasJspi) return { ok: false, probed, failure: 'the engine has no JSPI' };
  /** @type {any} */
  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(() => resolve(`the suspended call did not resume within ${RESUME_TIMEOUT_MS} ms`), RESUME_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([probe().catch((error) => `it threw ${describe(error)}`), expired]);
    return outcome === true ? { ok: true, probed, failure: null } : { ok: false, probed, failure: String(outcome) };
  } finally {
    clearTimeout(timer);
  }
}

/** @param {unknown} error */
function describe(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * A promise that a Suspending import returns: settled in a later turn, so
 * that the call really suspends and the engine scans its stack.
 * @param {number} value
 */
const later = (value) => new Promise((resolve) => { setTimeout(() => resolve(value), 0); });

/**
 * The program-like module: `run(x)` sets its handler global to 7, waits on
 * `probe.wait(x)`, and returns the result plus the global's value then.
 * @param {Record<string, unknown>} imports  `wait` and `handler`
 */
function probeProgram(imports) {
  const w = new ModuleWriter();
  const wait = w.importFunc('probe', 'wait', ['i32'], ['i32']);
  const handler = w.importGlobal('probe', 'handler', 'i32', true);
  const c = new Code(['i32']);
  c.i32(7).globalSet(handler);
  c.localGet(0).call(wait);
  c.globalGet(handler).emit(op.i32_add);
  w.export('run', 'function', w.func(['i32'], ['i32'], c));
  const instance = new WebAssembly.Instance(new WebAssembly.Module(/** @type {BufferSource} */ (w.bytes())), /** @type {any} */ ({ probe: imports }));
  return WebAssembly.promising(/** @type {any} */ (instance.exports).run);
}

/** @returns {Promise<string | true>} */
async function rawProbe() {
  const handler = new WebAssembly.Global({ value: 'i32', mutable: true }, 0);
  const run = probeProgram({ wait: new WebAssembly.Suspending((/** @type {number} */ x) => later(x + 1)), handler });
  const value = await run(40);
  return value === 48 ? true : `the call resumed with ${value}, not 48`;
}

/** @param {boolean} tailCall  how the stub calls the wrapper @returns {Promise<string | true>} */
async function directProbe(tailCall) {
  const SLOT = 1;
  const memory = new WebAssembly.Memory({ initial: 1 });
  const handler = new WebAssembly.Global({ value: 'i32', mutable: true }, 0);
  const file = createRegisterFile({
    registers: [{ name: 'probe.handler', module: 'probe', type: 'i32', role: 'handler', global: handler }],
    memory,
    base: WORDS_END,
  });
  /** @type {unknown} */
  let failed;
  let during = -1;
  const gates = createGates([{ key: 'probe.wait', params: ['i32'], results: ['i32'] }], {
    begin: () => (/** @type {number} */ x) => {
      // The wrapper saved the task's registers and installed the defaults.
      during = handler.value;
      return later(x + 1);
    },
    after: (_slot, value) => value,
    fail: (_slot, error) => {
      failed = error;
      return -1;
    },
    park: () => { throw new Error('the engine probe never parks'); },
    foreign: () => { throw new Error('the engine probe waits in its own slot'); },
  }, memory, undefined, { tailCall });
  gates.registers.set(INSTALL, file.install);
  createWrappers(gates, file);
  const run = probeProgram({ wait: gates.wrappers['probe.wait'], handler });
  gates.setCurrent(SLOT);
  const value = await run(40);
  if (failed !== undefined) return `the suspension failed: ${describe(failed)}`;
  if (during !== 0) return `the handler global held ${during} during the wait, not the default 0`;
  return value === 48 ? true : `the call resumed with ${value}, not 48 (the registers were not installed again)`;
}

/**
 * The error of a runtime that cannot run on this engine at all, or null.
 * @returns {Promise<string | null>} one line saying which shape fails and how
 */
export async function engineRefusal() {
  const r = await probeRawJspi();
  return r.ok ? null : `this engine's JSPI fails on ${r.probed}: ${r.failure}`;
}
