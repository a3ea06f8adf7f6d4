// A program built with Emscripten's generated JavaScript
// (tests/programs/emscripten/tasks.cpp) running on the snail-core scheduler:
// several suspending tasks with handler bindings and shadow-stack frames that
// must survive every wait, a child that keeps its copy of the parent's
// binding, frames that a shared stack would let a later task overwrite, a
// cancelled sleeper, a cancelled host operation whose late result
// is disposed exactly once, Emscripten's printf, exit() and a stack overflow
// that fail only their own task, two drains and a clean close. The same code
// runs under node:test (tests/node/emscripten.test.mjs, against every build
// variant) and in Chromium (tests/browser/emscripten.test.mjs).
import { Runtime, suspend } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';
import { assertQuiet, nextTurn, until } from './support.mjs';

/** Event kinds of tests/programs/emscripten/tasks.cpp. */
export const EM_EV = Object.freeze({ woke: 1, intact: 2, unwound: 3, child: 4, joined: 5, op: 6 });

/**
 * What a runner gives the Emscripten cases: where a build variant's Wasm module
 * is, and its factory (the function emcc generated with -sMODULARIZE).
 * @typedef {{ env: 'node' | 'browser', variant: string, wasm: unknown, factory: () => Promise<Function>,
 *             checkedStack: boolean }} EmscriptenContext
 */

/** @param {{ kind: number, a: number, b: number }[]} events @param {number} kind @param {number} [a] */
function pick(events, kind, a) {
  return events.filter((e) => e.kind === kind && (a === undefined || e.a === a)).map((e) => e.b);
}

/**
 * @param {EmscriptenContext} ctx
 * @returns {Promise<{ counts: Record<string, number> }>} what ran, for the runner's report
 */
export async function runScenario(ctx) {
  /** @type {{ kind: number, a: number, b: number }[]} */
  const events = [];
  /** @type {{ n: number, signal: AbortSignal, resolve: (v: number) => void }[]} */
  const ops = [];
  /** @type {{ result: unknown, task: number }[]} */
  const disposed = [];
  let out = '';
  /** The object that becomes Emscripten's Module object. @type {Record<string, any>} */
  const em = {};
  const factory = await ctx.factory();
  const rt = await Runtime.load(/** @type {any} */ (ctx.wasm), {
    name: `tasks (${ctx.variant})`,
    emscripten: { factory: /** @type {any} */ (factory), module: em },
    stdout: (text) => { out += text; },
    stderr: () => {},
    checkInvariants: true,
    imports: {
      test: {
        event: (/** @type {number} */ kind, /** @type {number} */ a, /** @type {number} */ b) => { events.push({ kind, a, b }); },
        // Settles only when the case says so, and ignores the signal: a result
        // that arrives after the cancellation must be disposed.
        op: suspend(
          (signal, n) => new Promise((resolve) => { ops.push({ n, signal, resolve }); }),
          (result, context) => { disposed.push({ result, task: context.task.id }); },
          { cancelled: -1 },
        ),
      },
    },
  });
  assert.ok(em.HEAPU8 instanceof Uint8Array, 'the module option became Emscripten\'s Module object (HEAPU8)');
  assert.deepEqual([...rt.entries].sort(), ['family', 'framed', 'greet', 'napper', 'operation', 'overflow', 'quit', 'sleeper']);
  assert.deepEqual(rt.handlerGlobals.map((h) => h.name), ['who']);
  const who = /** @type {WebAssembly.Global} */ (rt.instance.exports['snail.handler.who']);

  // Interval 1: six sleepers, a family, a sleeper and an operation to cancel,
  // an operation that completes, and a greeting.
  const sleepers = [1, 2, 3, 4, 5, 6].map((n) => rt.dispatch('sleeper', n));
  const family = rt.dispatch('family', 7);
  const napper = rt.dispatch('napper', 20);
  const cancelledOp = rt.dispatch('operation', 30);
  const deliveredOp = rt.dispatch('operation', 31);
  const greet = rt.dispatch('greet', 40);
  assert.equal(rt.stats().live, 11, 'every dispatched task is live at once');

  await until(() => ops.length === 2 && napper.state === 'suspended', 'both operations started and the napper suspended');
  assert.equal(rt.stats().suspended >= 3, true, 'tasks are suspended at once');
  assert.equal(who.value, 0, 'between tasks the handler global holds its default');
  assert.equal(rt.cancel(napper), true);
  assert.equal(rt.cancel(cancelledOp), true);
  /** @type {any} */ (ops.find((o) => o.n === 31)).resolve(310);
  await nextTurn();
  const late = /** @type {any} */ (ops.find((o) => o.n === 30));
  assert.equal(late.signal.aborted, true, 'the cancelled operation saw its signal abort');
  late.resolve(300); // succeeds after the cancellation: disposed, never delivered
  await rt.drain();

  for (const [i, t] of sleepers.entries()) {
    assert.equal(t.state, 'returned', `sleeper ${i + 1} returned`);
    assert.equal(await t.result, (i + 1) * 10 + 3, `sleeper ${i + 1} found its binding and its stack frame intact after each of its 3 waits`);
    assert.deepEqual(pick(events, EM_EV.woke, i + 1), [0, 0, 0], `sleeper ${i + 1} woke with ok three times`);
  }
  const intact = pick(events, EM_EV.intact);
  assert.equal(intact.length, 18, 'every sleeper checked its registers after every wait');
  assert.deepEqual(intact.filter((b) => b !== 1), [], 'no sleeper saw another task\'s binding or frame');
  assert.equal(family.state, 'returned');
  assert.equal(await family.result, 1007, 'the child saw the binding the parent had at dispatch, with its own frame intact');
  assert.deepEqual(pick(events, EM_EV.child, 7), [7], 'the child kept its copy after the parent rebound');
  assert.deepEqual(pick(events, EM_EV.joined, 7), [0], 'the parent joined the child: ok');
  assert.equal(napper.state, 'cancelled');
  assert.deepEqual(pick(events, EM_EV.woke, 20), [1, 1], 'the napper woke cancelled, and its next wait returned cancelled at once');
  assert.deepEqual(pick(events, EM_EV.unwound, 20), [0], 'the napper unwound (its destructor ran)');
  assert.equal(cancelledOp.state, 'cancelled');
  assert.deepEqual(pick(events, EM_EV.op, 30), [-1], 'the cancelled operation delivered its cancelled value');
  assert.deepEqual(pick(events, EM_EV.unwound, 30), [0]);
  assert.deepEqual(disposed, [{ result: 300, task: cancelledOp.id }], 'the late result was disposed exactly once');
  assert.equal(deliveredOp.state, 'returned');
  assert.equal(await deliveredOp.result, 310);
  assert.deepEqual(pick(events, EM_EV.op, 31), [310]);
  assert.equal(greet.state, 'returned');
  assert.equal(out, 'hello from task 40\n', 'Emscripten\'s printf reached the stdout option');
  assert.equal(who.value, 0, 'after the drain the handler global holds its default');
  let drained = false;
  await rt.drain().then(() => { drained = true; });
  assert.equal(drained, true, 'a drain of an empty live set resolves at once');

  // Interval 2, stack segments step by step: A and B keep frames across a
  // wait; A finishes (on a shared stack, the stack pointer would return above
  // B's frame); C starts with a larger frame; B must find its frame intact.
  const opOf = (/** @type {number} */ n) => ops.find((o) => o.n === n);
  const a = rt.dispatch('framed', 101);
  const b = rt.dispatch('framed', 102);
  await until(() => opOf(101) !== undefined && opOf(102) !== undefined, 'A and B wait');
  /** @type {any} */ (opOf(101)).resolve(1);
  await until(() => a.state === 'returned', 'A finished');
  const c = rt.dispatch('framed', 109);
  await until(() => opOf(109) !== undefined, 'C waits with its larger frame');
  /** @type {any} */ (opOf(102)).resolve(2);
  /** @type {any} */ (opOf(109)).resolve(9);
  await rt.drain();
  assert.deepEqual([await a.result, await b.result, await c.result], [1, 2, 9], 'A, B and C found their frames intact');
  assert.deepEqual([101, 102, 109].map((n) => pick(events, EM_EV.intact, n)), [[1], [1], [1]]);

  // Interval 3: exit() and a stack overflow each end only their own task.
  const quitter = rt.dispatch('quit', 9);
  const overflow = rt.dispatch('overflow', 1 << 20);
  const survivor = rt.dispatch('sleeper', 50);
  await rt.drain();
  assert.equal(quitter.state, 'returned', 'exit() ended the task as a return');
  assert.equal(await quitter.result, 9);
  assert.deepEqual(pick(events, EM_EV.unwound, 9), [], 'exit() does not unwind');
  assert.equal(overflow.state, 'failed', 'the overflowing task failed');
  const why = await overflow.result.then(() => '', (e) => String(e?.message ?? e));
  assert.match(why, ctx.checkedStack ? /stack overflow/ : /probably a stack overflow/, 'the failure says it was a stack overflow');
  assert.equal(survivor.state, 'returned');
  assert.equal(await survivor.result, 503, 'a task running beside the overflow kept its binding and frame');

  const report = await rt.close();
  assert.deepEqual(report.cancelled, [], 'nothing was live at close()');
  assert.deepEqual(report.stuck, []);
  assert.deepEqual(report.disposerErrors, []);
  assert.equal(report.timedOut, false);
  assertQuiet(rt);
  const s = rt.stats();
  assert.equal(s.dispatched, 18, 'eleven root tasks and a child, then three and three more roots');
  assert.equal(s.cancelled, 2);
  assert.equal(s.failed, 1);
  assert.equal(s.disposed, 1);
  return { counts: { dispatched: s.dispatched, returned: s.returned, cancelled: s.cancelled, failed: s.failed, disposed: s.disposed, steps: s.steps } };
}
