// Per-task shadow stacks: every task that enters Wasm runs on its own segment,
// and a task that overflows its segment fails alone instead of writing into
// another task's frames.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import wabtInit from 'wabt';

import { Runtime, TaskFailedError } from '../../host/node/root.mjs';
import { loadContracts } from './helpers.mjs';
import { internals } from '../../host/browser/debug.mjs';

test('stacks: each_entered_task_runs_on_its_own_segment', async () => {
  const stackSize = 8192;
  const { rt, violations } = await loadContracts({ stackSize });
  const sp = rt.instance.exports.__stack_pointer;
  const neutral = sp.value;
  // Sleeps long enough that all 64 are suspended at once however slow the
  // machine is (short ones could end before the last one began).
  const tasks = Array.from({ length: 64 }, (_, i) => rt.dispatch('sleep_ms', 600_000 + (i % 3)));
  while (rt.stats().suspended < 64) await new Promise((r) => setImmediate(r));
  // The segment of each start, as its carrier's words hold it.
  const carriers = internals(rt).carriers;
  const segmentOf = (/** @type {number} */ address) => tasks.find((t) => {
    const low = carriers.lowOf(t._slot);
    return address > low && address <= low + stackSize;
  });
  // Between tasks the stack pointer is the neutral stack's again, except while
  // the last task to wait keeps the permit lent: then it is still that task's.
  const s = rt.stats();
  if (s.lends > s.reclaims && sp.value !== neutral) assert.ok(segmentOf(sp.value), 'a lent task keeps its own stack pointer');
  else assert.equal(sp.value, neutral);
  // A task that takes the permit back from it saves that stack pointer and
  // puts the neutral one back.
  assert.equal(await rt.dispatch('nop', 7).result, 7);
  assert.equal(sp.value, neutral);
  const lows = tasks.map((t) => carriers.lowOf(t._slot)).sort((a, b) => a - b);
  assert.ok(lows.every((low) => low > 0 && low % 16 === 0), 'every suspended task owns an aligned segment');
  for (let i = 1; i < lows.length; i++) {
    assert.ok(lows[i] - lows[i - 1] >= stackSize, `segments ${lows[i - 1]} and ${lows[i]} overlap`);
  }
  assert.equal(rt.stats().stacksInUse, 64);
  for (const t of tasks) t.cancel();
  await rt.drain();
  assert.ok(tasks.every((t) => t._slot === 0 && t.state === 'cancelled'), 'finished tasks gave their slots back');
  assert.equal(rt.stats().stacksInUse, 0);
  assert.deepEqual(violations, []);
  await rt.close();
});

test('stacks: a_task_that_overflows_its_segment_fails_alone', async () => {
  const { rt, violations } = await loadContracts({ stackSize: 4096 });
  const neighbours = Array.from({ length: 30 }, (_, i) => rt.dispatch('bind_and_wait', i + 1));
  const deep = rt.dispatch('deep', 100); // 100 frames of more than 512 bytes
  const shallow = rt.dispatch('deep', 2);
  await rt.drain();
  assert.equal(deep.state, 'failed');
  assert.ok(deep.error instanceof TaskFailedError);
  assert.match(deep.error.message, /unreachable \(probably a stack overflow: \d+ of its 4096 stack bytes were left; raise the stackSize option\)/);
  assert.equal(shallow.state, 'returned');
  assert.ok(neighbours.every((t, i) => t.value === i + 1), 'the neighbours were untouched');
  assert.deepEqual(violations, [], 'no frame of another task was overwritten');
  await rt.close();
});

test('stacks: a_bigger_segment_lets_the_same_recursion_finish', async () => {
  const { rt } = await loadContracts({ stackSize: 128 * 1024 });
  const deep = rt.dispatch('deep', 100);
  await rt.drain();
  assert.equal(deep.state, 'returned');
  await rt.close();
});

test('stacks: a_task_whose_segment_cannot_be_had_fails_alone_even_when_the_allocator_traps', async () => {
  const wabt = await wabtInit();
  // acquire() hands out segments from a bump pointer, returns 0 for the third
  // request and traps (like an aborting malloc) from the fifth on.
  const parsed = wabt.parseWat('acquire.wat', `
    (module
      (import "snail" "sleep" (func $sleep (param f64) (result i32)))
      (memory (export "memory") 4)
      (global $sp (export "__stack_pointer") (mut i32) (i32.const 65536))
      (global $next (mut i32) (i32.const 65536))
      (global $calls (mut i32) (i32.const 0))
      (func (export "snail.stack.acquire") (param $size i32) (result i32)
        (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
        (if (i32.eq (global.get $calls) (i32.const 3)) (then (return (i32.const 0))))
        (if (i32.ge_u (global.get $calls) (i32.const 5)) (then unreachable))
        (global.set $next (i32.add (global.get $next) (local.get $size)))
        (i32.sub (global.get $next) (local.get $size)))
      (func (export "snail.stack.release") (param i32) (result i32) (i32.const 0))
      (func (export "snail.entry.main") (param $n i32) (result i32)
        (drop (call $sleep (f64.const 5)))
        (local.get $n)))`);
  const bytes = parsed.toBinary({}).buffer;
  parsed.destroy();
  const rt = await Runtime.load(bytes, { name: 'acquire.wat', stackSize: 4096 });
  const tasks = [1, 2, 3, 4, 5, 6].map((n) => rt.dispatch('main', n));
  await rt.drain();
  assert.deepEqual(tasks.map((t) => t.state), ['returned', 'returned', 'failed', 'returned', 'failed', 'failed']);
  assert.match(String(tasks[2].error.message), /could not start: no memory for its 4096-byte stack segment/);
  assert.match(String(tasks[4].error.message), /could not start: getting its 4096-byte stack segment failed: .*unreachable/);
  assert.deepEqual(tasks.filter((t) => t.state === 'returned').map((t) => t.value), [1, 2, 4]);
  // The runtime goes on.
  const after = rt.dispatch('main', 7);
  await rt.drain();
  assert.equal(after.state, 'returned', 'a finished task left its segment for the next one');
  await rt.close();
});

test('stacks: finished_segments_are_reused_and_every_acquired_segment_is_released_by_close', async () => {
  const wabt = await wabtInit();
  // acquire() hands out segments from a bump pointer; both report to the test
  // through plain imports.
  const parsed = wabt.parseWat('pool.wat', `
    (module
      (import "snail" "sleep" (func $sleep (param f64) (result i32)))
      (import "test" "acquired" (func $acquired (param i32)))
      (import "test" "released" (func $released (param i32)))
      (memory (export "memory") 8)
      (global $sp (export "__stack_pointer") (mut i32) (i32.const 65536))
      (global $next (mut i32) (i32.const 65536))
      (func (export "snail.stack.acquire") (param $size i32) (result i32)
        (global.set $next (i32.add (global.get $next) (local.get $size)))
        (call $acquired (i32.sub (global.get $next) (local.get $size)))
        (i32.sub (global.get $next) (local.get $size)))
      (func (export "snail.stack.release") (param $low i32) (result i32)
        (call $released (local.get $low))
        (i32.const 0))
      (func (export "snail.entry.main") (param $n i32) (result i32)
        (drop (call $sleep (f64.const 1)))
        (local.get $n)))`);
  const bytes = parsed.toBinary({}).buffer;
  parsed.destroy();
  /** @type {number[]} */ const acquired = [];
  /** @type {number[]} */ const released = [];
  const rt = await Runtime.load(bytes, {
    name: 'pool.wat',
    stackSize: 4096,
    imports: { test: { acquired: (/** @type {number} */ low) => { acquired.push(low); }, released: (/** @type {number} */ low) => { released.push(low); } } },
  });
  // Three tasks one after another share one segment.
  for (const n of [1, 2, 3]) assert.equal(await rt.dispatch('main', n).result, n);
  assert.equal(acquired.length, 1, 'a finished task left its segment for the next one');
  // Five at once need five segments: the kept one and four new ones.
  const five = [1, 2, 3, 4, 5].map((n) => rt.dispatch('main', n));
  await rt.drain();
  assert.deepEqual(five.map((t) => t.value), [1, 2, 3, 4, 5]);
  assert.equal(acquired.length, 5);
  assert.deepEqual(released, [], 'segments are kept while the runtime is open');
  await rt.close();
  assert.deepEqual([...released].sort(), [...acquired].sort(), 'close() released every segment acquire gave out, once');
});
