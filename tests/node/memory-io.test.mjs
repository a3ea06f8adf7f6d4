// A suspending import that fills its caller's buffer, as docs/bridge.md
// ("Writing into the program's memory") says to write one: through a view of
// memory.buffer made when the operation completes. tests/programs/c_api.c's
// read(n) passes a buffer of n bytes to test.read and reports their sum;
// grow(n) allocates n MiB, which grows the memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Runtime, SnailError, Status, suspend, WaitContext } from '../../host/node/root.mjs';
import { program } from './helpers.mjs';

const EV_READ = 11;

/** The bytes a read of `n` delivers, and their sum. @param {number} n */
function content(n) {
  const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) & 0xff);
  return { bytes, sum: bytes.reduce((a, b) => a + b, 0) };
}

/**
 * Loads c_api.wasm with a test.read whose completions the test drives.
 * `onEvent` sees every test.event, synchronously, while the reporting task's
 * Wasm is on the stack.
 * @param {import('node:test').TestContext} t  closes the runtime after the test
 * @param {(kind: number, a: number, b: number) => void} [onEvent]
 */
async function load(t, onEvent = () => {}) {
  /** @type {{ kind: number, a: number, b: number }[]} */
  const events = [];
  /** @type {{ ptr: number, len: number, n: number, early: Uint8Array, signal: AbortSignal, settled: boolean, complete: (how?: 'early' | 'fresh') => void }[]} */
  const reads = [];
  /** @type {WebAssembly.Memory | null} the program's memory, once Runtime.load resolved */
  let memory = null;
  const rt = await Runtime.load(program('c_api'), {
    checkInvariants: true,
    imports: {
      test: {
        event: (/** @type {number} */ kind, /** @type {number} */ a, /** @type {number} */ b) => {
          events.push({ kind, a, b });
          onEvent(kind, a, b);
        },
        note_i64: () => {}, note_f32: () => {}, note_f64: () => {}, note_ref: () => {},
        make: () => null,
        op: suspend(() => Promise.resolve(Status.ok)),
        buffer: suspend(() => Promise.resolve(0)),
        read: suspend((signal, ptr, len, n) => new Promise((resolve) => {
          const m = /** @type {WebAssembly.Memory} */ (memory);
          // What the docs warn against: a view made when the call began.
          const early = new Uint8Array(m.buffer, ptr, len);
          const read = {
            ptr, len, n, signal, early, settled: false,
            complete: (/** @type {'early' | 'fresh'} */ how = 'fresh') => {
              const { bytes } = content(len);
              if (how === 'early') {
                // Element by element: a detached view drops every write.
                for (let i = 0; i < len; i++) early[i] = bytes[i];
              } else {
                new Uint8Array(m.buffer, ptr, len).set(bytes);
              }
              read.settled = true;
              resolve(Status.ok);
            },
          };
          reads.push(read);
        })),
      },
    },
  });
  memory = /** @type {WebAssembly.Memory} */ (rt.instance.exports.memory);
  t.after(async () => {
    // A read the test left pending would keep the runtime (and the process) alive.
    for (const r of reads) if (!r.settled) r.complete();
    await rt.close();
  });
  return { rt, events, reads, memory };
}

/** Waits (a macrotask at a time) until `done()`. @param {() => boolean} done */
async function until(done) {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(done());
}

test('memory io: a read fills its caller\'s buffer through a view made at completion, after other tasks grew the memory', async (t) => {
  const { rt, events, reads, memory } = await load(t);
  const reader = rt.dispatch('read', 4096);
  await until(() => reads.length === 1);
  const before = memory.buffer.byteLength;
  const grower = rt.dispatch('grow', 32);
  await grower.done;
  assert.equal(grower.value, 0);
  assert.ok(memory.buffer.byteLength >= before + (32 << 20), 'another task grew the memory meanwhile');
  // The view made when the call began is detached: a write through it would
  // be lost without an error.
  assert.equal(reads[0].early.length, 0);
  reads[0].complete();
  await reader.done;
  assert.deepEqual(events.filter((e) => e.kind === EV_READ).map((e) => [e.a, e.b]), [[4096, content(4096).sum]]);
  assert.equal(reader.value, Status.ok);
});

test('memory io: element writes through a view from before the growth are lost without an error', async (t) => {
  const { rt, events, reads } = await load(t);
  const reader = rt.dispatch('read', 256);
  await until(() => reads.length === 1);
  await rt.dispatch('grow', 32).done;
  assert.equal(reads[0].early.length, 0);
  assert.throws(() => reads[0].early.set([1]), TypeError, 'set() on a detached view throws');
  reads[0].complete('early');
  await reader.done;
  assert.deepEqual(events.filter((e) => e.kind === EV_READ).map((e) => [e.a, e.b]), [[256, 0]], 'the buffer stayed as the program left it: zero');
});

test('memory io: writing a suspended task\'s buffer while another task holds the permit and runs Wasm is safe', async (t) => {
  /** @type {(() => void) | null} */
  let completeRead = null;
  /** @type {string[]} the state of the other task at each write */
  const writes = [];
  /** @type {import('../../host/browser/index.mjs').Task | null} */
  let other = null;
  const { rt, events, reads } = await load(t, (kind) => {
    // test.event is a plain import: the task that calls it holds the permit,
    // its Wasm is on the stack below this call.
    if (kind !== EV_READ && completeRead !== null) {
      writes.push(/** @type {any} */ (other).state);
      completeRead();
      completeRead = null;
    }
  });
  const reader = rt.dispatch('read', 1000);
  await until(() => reads.length === 1);
  completeRead = () => reads[0].complete();
  other = rt.dispatch('children', 5); // reports events as it goes, and dispatches and joins
  await rt.drain();
  assert.deepEqual(writes, ['executing'], 'one write, while the other task held the permit');
  assert.equal(other.state, 'returned', String(other.error));
  assert.deepEqual(events.filter((e) => e.kind === EV_READ).map((e) => [e.a, e.b]), [[1000, content(1000).sum]]);
  assert.equal(reader.value, Status.ok);
});

test('memory io: a cancelled task\'s buffer stays its own until the operation settles', async (t) => {
  const { rt, events, reads } = await load(t);
  const reader = rt.dispatch('read', 512);
  await until(() => reads.length === 1);
  reader.cancel();
  assert.equal(reads[0].signal.aborted, true);
  // This operation does not honour the signal: it finishes its write, then
  // settles, and only then does the task resume and unwind.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(reader.state, 'suspended');
  reads[0].complete();
  await reader.done;
  assert.equal(reader.state, 'cancelled');
  assert.deepEqual(events.filter((e) => e.kind === EV_READ).map((e) => [e.a, e.b]), [[512, content(512).sum]], 'the task read its buffer as it unwound');
});

/**
 * Loads c_api.wasm with a test.read declared with { context: true }: the
 * operation learns its task and reaches the program's memory through the
 * context, with no variable of the test's set after the load.
 * @param {import('node:test').TestContext} t
 */
async function loadWithContext(t) {
  /** @type {{ kind: number, a: number, b: number }[]} */
  const events = [];
  /** @type {{ context: WaitContext, ptr: number, len: number, complete: () => void }[]} */
  const reads = [];
  const rt = await Runtime.load(program('c_api'), {
    checkInvariants: true,
    imports: {
      test: {
        event: (/** @type {number} */ kind, /** @type {number} */ a, /** @type {number} */ b) => { events.push({ kind, a, b }); },
        note_i64: () => {}, note_f32: () => {}, note_f64: () => {}, note_ref: () => {},
        make: () => null,
        op: suspend(() => Promise.resolve(Status.ok)),
        buffer: suspend(() => Promise.resolve(0)),
        read: suspend((context, ptr, len) => new Promise((resolve) => {
          reads.push({
            context: /** @type {WaitContext} */ (context), ptr, len,
            complete: () => {
              /** @type {WaitContext} */ (context).bytes(ptr, len).set(content(len).bytes);
              resolve(Status.ok);
            },
          });
        }), undefined, { context: true }),
      },
    },
  });
  t.after(async () => {
    for (const r of reads) if (!r.context.settled) r.complete();
    await rt.close();
  });
  return { rt, events, reads };
}

test('memory io: an operation with a context learns its task and writes through the memory as it is at completion, after other tasks grew it', async (t) => {
  const { rt, events, reads } = await loadWithContext(t);
  const readers = [rt.dispatch('read', 4096), rt.dispatch('read', 300)];
  await until(() => reads.length === 2);
  assert.ok(reads[0].context instanceof WaitContext);
  assert.equal(reads[0].context.task, readers[0], 'the context names the task that waits');
  assert.equal(reads[1].context.task, readers[1]);
  assert.equal(reads[0].context.signal.aborted, false);
  const memory = reads[0].context.memory;
  assert.equal(memory, rt.instance.exports.memory, 'the program\'s memory');
  const before = memory.buffer.byteLength;
  const grower = rt.dispatch('grow', 32);
  await grower.done;
  assert.ok(memory.buffer.byteLength >= before + (32 << 20), 'another task grew the memory meanwhile');
  // In the other order than they began, while the memory has grown.
  reads[1].complete();
  reads[0].complete();
  await rt.drain();
  assert.deepEqual(events.filter((e) => e.kind === EV_READ).map((e) => [e.a, e.b]).sort((x, y) => x[0] - y[0]), [[300, content(300).sum], [4096, content(4096).sum]]);
  assert.deepEqual(readers.map((r) => r.value), [Status.ok, Status.ok]);
});

test('memory io: a context refuses bytes outside the memory, and once its operation settled', async (t) => {
  const { rt, reads } = await loadWithContext(t);
  const reader = rt.dispatch('read', 64);
  await until(() => reads.length === 1);
  const { context } = reads[0];
  const size = context.memory.buffer.byteLength;
  assert.throws(() => context.bytes(size - 8, 16), (e) => e instanceof SnailError && e.code === 'ERR_ADAPTER' && /outside the program's memory/.test(e.message));
  assert.throws(() => context.bytes(-1, 4), (e) => e instanceof SnailError && e.code === 'ERR_ADAPTER');
  reads[0].complete();
  await reader.done;
  assert.throws(() => context.bytes(reads[0].ptr, 64), (e) => e instanceof SnailError && e.code === 'ERR_ADAPTER' && /after it settled: the task may have freed its buffer/.test(e.message));
});
