// The WebAssembly features docs/abi.md section 1 accepts beyond the MVP, in
// Node and in Chromium: a 64-bit memory, a shared memory, several memories and
// exception handling (tests/programs/features/). Each program waits, writes
// through WASI and round-trips a value through storage, which reads and
// writes its memory through the ABI's i32 pointers.
import { Runtime } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';
import { closeQuiet, until } from './support.mjs';

/** The smallest module with a 64-bit memory: validates where the engine has memory64. */
const MEMORY64 = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x05, 0x03, 0x01, 0x04, 0x01]);

/** @type {import('./support.mjs').Case[]} */
export const cases = ['memory64', 'shared_memory', 'two_memories'].map((feature) => ({
  name: `features: a_program_with_${feature}_waits_writes_and_gets_values_delivered`,
  /** @param {import('./support.mjs').CaseContext} ctx */
  async run(ctx) {
    /** @type {string[]} */
    const out = [];
    const load = () => Runtime.load(ctx.program(`feature_${feature}`), { checkInvariants: true, stdout: (t) => { out.push(t); } });
    if (feature === 'memory64' && !WebAssembly.validate(MEMORY64)) {
      // An engine without memory64 (JavaScriptCore in Bun 1.4): the load is refused, saying why.
      await assert.rejects(load(), (e) => e.code === 'ERR_NOT_WASM' && /is not a valid WebAssembly module: .*Memory64/i.test(e.message));
      return;
    }
    const rt = await load();
    const tasks = Array.from({ length: 5 }, () => rt.dispatch('main'));
    await rt.drain();
    assert.deepEqual(tasks.map((t) => t.value), [0, 0, 0, 0, 0], `${tasks.map((t) => `${t.state} ${t.value} ${t.error}`)}`);
    assert.equal(out.join(''), 'hi\n'.repeat(5));
    await closeQuiet(rt);
  },
}));

cases.push({
  name: 'features: exceptions_cross_waits_and_one_that_leaves_an_entry_fails_only_its_task',
  async run(ctx) {
    const rt = await Runtime.load(ctx.program('feature_exceptions'), { checkInvariants: true });
    const catches = Array.from({ length: 5 }, (_, i) => rt.dispatch('catches', i));
    const throws = rt.dispatch('throws', 41);
    const cancelled = rt.dispatch('cancelled', 0);
    await until(() => cancelled.state === 'suspended', 'the long wait');
    await Promise.all([...catches, throws].map((t) => t.done));
    assert.deepEqual(catches.map((t) => t.value), [1, 2, 3, 4, 5], 'each caught its own exception after its wait');
    assert.equal(throws.state, 'failed');
    const cause = /** @type {any} */ (throws.error).cause;
    assert.ok(cause instanceof WebAssembly.Exception, 'the task\'s error has the exception as its cause');
    const tag = /** @type {WebAssembly.Tag} */ (/** @type {any} */ (rt.instance.exports).oops);
    assert.ok(cause.is(tag));
    assert.equal(cause.getArg(tag, 0), 42);
    // A cancelled wait returns a status, which no catch sees: the task unwinds.
    cancelled.cancel();
    await cancelled.done;
    assert.equal(cancelled.state, 'cancelled');
    assert.equal(cancelled.value, 1, 'the wait returned cancelled (1), not the catch_all value');
    await closeQuiet(rt);
  },
});
