// Stack sizing: with measureStacks, each task's high-water mark on its stack
// segment (rt.stackUse, stats().stackPeak, the message of a failed task);
// tests/programs/stack_use.c writes known amounts of its stack.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Runtime, SnailError } from '../../host/browser/index.mjs';
import { StackMeter } from '../../host/browser/stack-use.mjs';
import { program } from './helpers.mjs';

/** A task's frames beyond the bytes it writes on purpose: a few words. */
const SLACK = 64;

test('stack use: each task gets the high water mark of what it wrote, and stats report the peak', async () => {
  const rt = await Runtime.load(program('stack_use'), { measureStacks: true });
  const sizes = [1000, 4000, 16000];
  const tasks = sizes.map((n) => rt.dispatch('use', n));
  // Every task writes its bytes, then sleeps with them in use: live, measured so far.
  while (!tasks.every((t) => t.state === 'suspended')) await new Promise((resolve) => setImmediate(resolve));
  const live = tasks.map((t) => rt.stackUse(t));
  await rt.drain();
  const marks = tasks.map((t) => rt.stackUse(t));
  for (const [i, n] of sizes.entries()) {
    assert.equal(tasks[i].state, 'returned', String(tasks[i].error));
    assert.ok(marks[i] !== null && marks[i] >= n && marks[i] <= n + SLACK, `use(${n}): ${marks[i]}`);
    assert.equal(live[i], marks[i], 'what a suspended task had used is its mark');
  }
  assert.equal(rt.stats().stackPeak, Math.max(.../** @type {number[]} */ (marks)));
  await rt.close();
});

test('stack use: a task on a segment another task used gets its own mark', async () => {
  const rt = await Runtime.load(program('stack_use'), { measureStacks: true });
  const big = rt.dispatch('use', 16000);
  await big.done;
  // One at a time: the next task takes the segment the first one left.
  const small = rt.dispatch('use', 1000);
  await small.done;
  assert.ok(/** @type {number} */ (rt.stackUse(small)) <= 1000 + SLACK, `the second task's mark is ${rt.stackUse(small)}`);
  assert.ok(/** @type {number} */ (rt.stackUse(big)) >= 16000);
  await rt.close();
});

test('stack use: an overflowing task says how far its stack reached, and without measuring how to find out', async () => {
  const measured = await Runtime.load(program('stack_use'), { measureStacks: true, stackSize: 16384 });
  const deep = measured.dispatch('recurse', 200);
  await deep.done;
  assert.equal(deep.state, 'failed');
  assert.match(/** @type {Error} */ (deep.error).message, /probably a stack overflow: .*; raise the stackSize option\) \(its stack reached (\d+) of its 16384 bytes\)$/);
  assert.ok(/** @type {number} */ (measured.stackUse(deep)) > 16384 - 512);
  await measured.close();

  const plain = await Runtime.load(program('stack_use'), { stackSize: 16384 });
  const again = plain.dispatch('recurse', 200);
  await again.done;
  assert.match(/** @type {Error} */ (again.error).message, /raise the stackSize option\) \(Runtime\.load\(file, \{ measureStacks: true \}\) measures how much stack each task uses\)$/);
  assert.equal(plain.stackUse(again), null);
  assert.equal(plain.stats().stackPeak, 0);
  assert.throws(() => plain.stackUse(deep), (/** @type {any} */ e) => e instanceof SnailError && e.code === 'ERR_ARG');
  await plain.close();
});

test('stack meter: paints a segment once, repaints what a task used, and reads a memory that grew', () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const meter = new StackMeter({ memory: () => memory, size: 4096 });
  const low = 8192;
  const write = (/** @type {number} */ bytes) => new Uint8Array(memory.buffer, low + 4096 - bytes, bytes).fill(7);
  const first = {};
  meter.started(first, low);
  assert.equal(meter.used(first), 0, 'nothing written yet');
  write(1000);
  memory.grow(1); // the buffer a view was made of is detached now
  assert.equal(meter.used(first), 1000);
  write(2000);
  meter.finished(first);
  assert.equal(meter.used(first), 2000);
  const second = {};
  meter.started(second, low);
  write(100);
  meter.finished(second);
  assert.equal(meter.used(second), 100, 'the segment was painted again where the first task wrote');
  assert.equal(meter.peak, 2000);
  assert.equal(meter.used({}), null, 'a task the meter never saw');
  // A segment outside the memory, or none, is not measured.
  const stray = {};
  meter.started(stray, 1 << 30);
  assert.equal(meter.used(stray), null);
});
