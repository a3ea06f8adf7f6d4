// Per-task shadow stacks: every task that enters Wasm runs on its own segment,
// and a task that overflows its segment fails alone instead of writing into
// another task's frames.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TaskFailedError } from '../../host/browser/index.mjs';
import { loadContracts } from './helpers.mjs';

test('stacks: each_entered_task_runs_on_its_own_segment', async () => {
  const stackSize = 8192;
  const { rt, violations } = await loadContracts({ stackSize });
  const sp = rt.instance.exports.__stack_pointer;
  const neutral = sp.value;
  const tasks = Array.from({ length: 64 }, (_, i) => rt.dispatch('sleep_ms', 30 + (i % 3)));
  while (rt.stats().suspended < 64) await new Promise((r) => setImmediate(r));
  // Between tasks the stack pointer is the neutral stack's again.
  assert.equal(sp.value, neutral);
  const lows = tasks.map((t) => t._stackLow).sort((a, b) => a - b);
  assert.ok(lows.every((low) => low > 0 && low % 16 === 0), 'every suspended task owns an aligned segment');
  for (let i = 1; i < lows.length; i++) {
    assert.ok(lows[i] - lows[i - 1] >= stackSize, `segments ${lows[i - 1]} and ${lows[i]} overlap`);
  }
  assert.equal(rt.stats().stacksInUse, 64);
  await rt.drain();
  assert.ok(tasks.every((t) => t._stackLow === 0 && t.state === 'returned'));
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
