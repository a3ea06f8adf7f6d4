// Cases written for sentences of the specification (docs/specification.md)
// that no other case proved on its own. They run in Node and in Chromium.
import { adapterContract } from '../../host/browser/adapter-contract.mjs';
import { adapter, CancelledError, MemoryStorage, Runtime, Status, suspend } from '../../host/browser/index.mjs';
import { catchAll, Code, ModuleWriter, op } from '../../host/browser/wasm/binary.mjs';
import { assert } from './assert.mjs';
import { assertQuiet, closeQuiet, loadCancellation, nextTurn, until } from './support.mjs';

/** Event kinds of the program below. */
const UNWINDING = 1; // a = the task's argument: its handler caught the rejection
const DELIVERED = 2; // a = what test.op delivered

/**
 * A program written here, in the binary format, so that it needs no build step
 * in either host. It imports `test.op(n) -> i32` (suspending) and
 * `test.event(kind, a)`, and exports
 * - `snail.entry.guarded(n)`: waits on test.op(n) inside a handler that catches
 *   any exception; a normal delivery reports DELIVERED and returns it, a thrown
 *   one reports UNWINDING and returns 5;
 * - `snail.dispose.test.op(result)`: its native disposer, which waits on
 *   test.op again, which a disposer may not do.
 */
function guardedProgram() {
  const w = new ModuleWriter();
  const wait = w.importFunc('test', 'op', ['i32'], ['i32']);
  const event = w.importFunc('test', 'event', ['i32', 'i32'], []);
  const entry = new Code(['i32']);
  const n = 0;
  const value = entry.local('i32');
  entry.block(null, (caught) => {
    entry.tryTable('i32', [catchAll(caught)], () => {
      entry.localGet(n).call(wait);
    });
    entry.localSet(value);
    entry.i32(DELIVERED).localGet(value).call(event);
    entry.localGet(value).emit(op.return);
  });
  entry.i32(UNWINDING).localGet(n).call(event);
  entry.i32(5);
  w.export('snail.entry.guarded', 'function', w.func(['i32'], ['i32'], entry));
  const disposer = new Code(['i32']);
  disposer.localGet(0).call(wait).emit(op.drop);
  w.export('snail.dispose.test.op', 'function', w.func(['i32'], [], disposer));
  return w.bytes();
}

/**
 * Loads guardedProgram() with a test.op whose operations the case settles by
 * hand (`settle`), ignoring their signals like operations that cannot abort.
 * `seen` records each event with the live count and the task's state then.
 * @param {import('../../host/browser/index.mjs').SuspendOptions} [opOptions]
 */
async function loadGuarded(opOptions = {}) {
  /** @type {{ kind: number, a: number, live: number, state: string }[]} */
  const seen = [];
  /** @type {((v: number) => void)[]} */
  const settle = [];
  /** @type {Runtime} */
  let rt;
  rt = await Runtime.load(guardedProgram(), {
    name: 'guarded.wasm',
    checkInvariants: true,
    imports: {
      test: {
        op: suspend((_signal, _n) => new Promise((resolve) => { settle.push(resolve); }), undefined, opOptions),
        event: (/** @type {number} */ kind, /** @type {number} */ a) => {
          seen.push({ kind, a, live: rt.stats().live, state: rt.tasks()[0]?.state ?? 'none' });
        },
      },
    },
  });
  return { rt, seen, settle };
}

/**
 * Runs one case of the adapter contract kit against an adapter and returns
 * what it threw (null if it passed).
 * @param {Parameters<typeof adapterContract>[0]} subject @param {string} rule
 */
async function kitVerdict(subject, rule) {
  const c = adapterContract(subject).find((k) => k.name.endsWith(`: ${rule}`));
  if (!c) throw new Error(`the kit has no case ${rule}`);
  try {
    await c.run();
    return null;
  } catch (error) {
    return /** @type {Error} */ (error);
  }
}

/**
 * An event source for the adapters under the kit, counting its listeners.
 */
function countedTarget() {
  const target = new EventTarget();
  let listeners = 0;
  const add = target.addEventListener.bind(target);
  const remove = target.removeEventListener.bind(target);
  target.addEventListener = (type, fn, opts) => { listeners++; add(type, fn, opts); };
  target.removeEventListener = (type, fn, opts) => { listeners--; remove(type, fn, opts); };
  return { target, listeners: () => listeners, fire: () => { target.dispatchEvent(new Event('go')); } };
}

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  {
    name: 'spec cancellation: a_rejected_resumption_unwinds_the_task_wasm_while_it_is_still_live',
    async run() {
      const { rt, seen, settle } = await loadGuarded({ cancelled: 'reject' });
      const t = rt.dispatch('guarded', 3);
      await until(() => settle.length === 1, 'the wait');
      assert.equal(t.state, 'suspended');
      t.cancel();
      settle[0](9); // the operation cannot abort; the cancellation wins all the same
      await t.done;
      assert.deepEqual(seen, [{ kind: UNWINDING, a: 3, live: 1, state: 'executing' }],
        'the wait threw into Wasm, whose handler ran while the task was executing and live; 9 was never delivered');
      assert.equal(t.state, 'cancelled');
      assert.equal(t.value, 5, 'its entry returned after unwinding');
      await assert.rejects(t.result, (e) => e instanceof CancelledError && e.task === t);
      await closeQuiet(rt);
    },
  },
  {
    name: 'spec cancellation: a_native_disposer_that_waits_is_refused_and_the_task_still_unwinds',
    async run() {
      const { rt, seen, settle } = await loadGuarded();
      const t = rt.dispatch('guarded', 4);
      await until(() => settle.length === 1, 'the wait');
      t.cancel();
      settle[0](21); // succeeds after the cancellation: the native disposer gets 21
      await t.done;
      assert.equal(settle.length, 1, 'the disposer\'s wait started no operation');
      assert.deepEqual(seen, [{ kind: DELIVERED, a: Status.cancelled, live: 1, state: 'executing' }], 'Wasm got the cancellation, not 21');
      assert.equal(t.state, 'cancelled');
      assert.equal(rt.stats().disposed, 1);
      assert.equal(rt.stats().disposerFailures, 1);
      const report = await rt.close();
      assert.equal(report.disposerErrors.length, 1);
      const { task, operation, error } = report.disposerErrors[0];
      assert.equal(task, t.id);
      assert.equal(operation, 'the native disposer of test.op');
      assert.equal(/** @type {any} */ (error).code, 'ERR_REENTRANT');
      assert.equal(/** @type {Error} */ (error).message,
        'the native disposer of test.op tried to suspend: disposers and drop functions are synchronous and may not wait');
      assertQuiet(rt);
    },
  },
  {
    name: 'spec cancellation: an_adapter_that_never_settles_keeps_drain_pending_until_it_settles',
    async run(ctx) {
      const { rt, ops, disposed } = await loadCancellation(ctx, { stubborn: true });
      const done = rt.dispatch('op_guarded', 1);
      const stuck = rt.dispatch('op_guarded', 2);
      await until(() => ops.length === 2, 'both operations');
      ops[0].resolve(10);
      await until(() => ops.length === 3, 'the first task\'s second operation');
      ops[2].resolve(11);
      await done.done;
      stuck.cancel();
      let drained = false;
      const drain = rt.drain().then(() => { drained = true; });
      // Quiescent: nothing is ready or running, and turns pass without a step.
      await until(() => rt.stats().executing === 0 && rt.stats().ready === 0, 'the runtime to go idle');
      const steps = rt.stats().steps;
      for (let i = 0; i < 10; i++) await nextTurn();
      assert.equal(rt.stats().steps, steps, 'the scheduler had nothing to run');
      assert.equal(ops[1].signal.aborted, true, 'the stuck operation was asked to abort');
      assert.equal(drained, false, 'drain() waits for the adapter that has not settled');
      assert.deepEqual([rt.stats().live, stuck.state, stuck.waitingOn], [1, 'suspended', 'test.op']);
      ops[1].resolve(12);
      await drain;
      assert.equal(stuck.state, 'cancelled');
      assert.deepEqual(disposed, [12], 'its late success was disposed');
      await closeQuiet(rt);
    },
  },
  {
    name: 'spec cancellation: a_non_abortable_put_stays_stored_after_its_task_is_cancelled',
    async run(ctx) {
      const memory = new MemoryStorage();
      const text = new TextDecoder();
      /** @type {(() => Promise<void>)[]} */
      const held = [];
      // A backend whose puts of key b cannot abort: they finish what they began.
      const storage = {
        get: memory.get.bind(memory),
        delete: memory.delete.bind(memory),
        list: memory.list.bind(memory),
        /** @param {AbortSignal} signal @param {string} store @param {string} key @param {Uint8Array} value */
        put(signal, store, key, value) {
          if (key !== 'b') return memory.put(signal, store, key, value);
          return new Promise((resolve) => {
            held.push(async () => {
              await memory.put(new AbortController().signal, store, key, value);
              resolve(undefined);
            });
          });
        },
      };
      /** @type {string[]} */
      const out = [];
      const rt = await Runtime.load(ctx.program('services'), {
        checkInvariants: true, services: { storage }, stdout: (s) => { out.push(s); },
      });
      const t = rt.dispatch('storage_roundtrip');
      await until(() => held.length === 1, 'the put of b');
      t.cancel();
      await held[0]();
      await t.done;
      assert.equal(t.state, 'cancelled');
      assert.deepEqual(out.join('').split('\n').slice(0, 3), ['put a ok', 'put b cancelled', 'put other cancelled'],
        'the program was told that the put was cancelled');
      const b = await memory.get(new AbortController().signal, 'prefs', 'b');
      assert.equal(b && text.decode(b), 'twenty-two', 'what the put did is still done');
      assert.deepEqual(await memory.list(new AbortController().signal, 'other', ''), [], 'nothing ran after the cancellation');
      await closeQuiet(rt);
    },
  },
  {
    name: 'spec cancellation: the_adapter_contract_kit_fails_an_adapter_that_ignores_an_aborted_signal',
    async run() {
      const source = countedTarget();
      // Arms its listener whatever the signal says, and waits for the event.
      const ignoring = (/** @type {AbortSignal} */ _signal) => new Promise((resolve) => {
        source.target.addEventListener('go', function go() {
          source.target.removeEventListener('go', go);
          resolve('went');
        });
      });
      const broken = await kitVerdict({ name: 'ignoring', start: ignoring, complete: source.fire, armed: source.listeners },
        'an_already_aborted_signal_settles_at_once_and_arms_nothing');
      assert.ok(broken !== null && broken.name === 'AdapterContractError', `the kit passed an adapter that ignores an aborted signal: ${broken}`);
      assert.match(broken.message, /^ignoring: an operation started with an aborted signal did not settle within 2 turns$/);
      source.fire(); // let the broken operation go
      assert.equal(source.listeners(), 0);
      // The same wait built with adapter() passes.
      const kept = (/** @type {AbortSignal} */ signal) => adapter(signal, ({ resolve, listen }) => {
        listen(source.target, 'go', () => resolve('went'));
      });
      assert.equal(await kitVerdict({ name: 'kept', start: kept, complete: source.fire, armed: source.listeners },
        'an_already_aborted_signal_settles_at_once_and_arms_nothing'), null);
    },
  },
  {
    name: 'spec cancellation: the_adapter_contract_kit_fails_an_adapter_that_keeps_its_abort_listener_after_completing',
    async run() {
      const source = countedTarget();
      const leaking = (/** @type {AbortSignal} */ signal) => new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const onAbort = () => { source.target.removeEventListener('go', go); reject(signal.reason); };
        function go() {
          source.target.removeEventListener('go', go);
          resolve('went'); // forgets its abort listener
        }
        signal.addEventListener('abort', onAbort);
        source.target.addEventListener('go', go);
        return undefined;
      });
      const broken = await kitVerdict({ name: 'leaking', start: leaking, complete: source.fire, armed: source.listeners },
        'normal_completion_removes_every_listener_before_settling');
      assert.ok(broken !== null && broken.name === 'AdapterContractError', `the kit passed an adapter that keeps its abort listener: ${broken}`);
      assert.match(broken.message, /^leaking: 1 abort listeners were left on the signal after normal completion$/);
    },
  },
  {
    name: 'spec cancellation: the_adapter_contract_kit_fails_an_adapter_that_settles_before_its_cleanup_finishes',
    async run() {
      const source = countedTarget();
      const hasty = (/** @type {AbortSignal} */ signal) => new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        function go() {
          source.target.removeEventListener('go', go);
          resolve('went');
        }
        signal.addEventListener('abort', () => {
          reject(signal.reason); // settles first ...
          nextTurn().then(() => source.target.removeEventListener('go', go)); // ... and cleans up a turn later
        }, { once: true });
        source.target.addEventListener('go', go);
        return undefined;
      });
      const broken = await kitVerdict({ name: 'hasty', start: hasty, complete: source.fire, armed: source.listeners },
        'abort_disarms_promptly_and_settles_after_cleanup');
      assert.ok(broken !== null && broken.name === 'AdapterContractError', `the kit passed an adapter that settles before its cleanup: ${broken}`);
      assert.match(broken.message, /^hasty: 1 resources were still armed when the aborted operation settled$/);
      await until(() => source.listeners() === 0, 'its late cleanup');
    },
  },
  {
    name: 'spec cancellation: the_adapter_contract_kit_fails_an_adapter_that_settles_a_microtask_before_its_cleanup',
    async run() {
      // The runtime watches an operation's promise from its start, so it sees
      // a rejection that comes before a cleanup queued in the same abort. The
      // kit used to start watching after the abort, and passed this adapter.
      const source = countedTarget();
      const quick = (/** @type {AbortSignal} */ signal) => new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        function go() {
          source.target.removeEventListener('go', go);
          resolve('went');
        }
        signal.addEventListener('abort', () => {
          reject(signal.reason);
          queueMicrotask(() => source.target.removeEventListener('go', go));
        }, { once: true });
        source.target.addEventListener('go', go);
        return undefined;
      });
      const broken = await kitVerdict({ name: 'quick', start: quick, complete: source.fire, armed: source.listeners },
        'abort_disarms_promptly_and_settles_after_cleanup');
      assert.ok(broken !== null && broken.name === 'AdapterContractError', `the kit passed an adapter that settles before its cleanup: ${broken}`);
      assert.match(broken.message, /^quick: 1 resources were still armed when the aborted operation settled$/);
      await until(() => source.listeners() === 0, 'its cleanup');
    },
  },
];
