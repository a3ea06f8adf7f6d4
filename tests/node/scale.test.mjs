// Admission control: many suspending tasks in one runtime, no V8 abort.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadContracts } from './helpers.mjs';

test('scale: one_hundred_thousand_suspending_tasks_complete_in_one_runtime', async () => {
  const { rt, violations } = await loadContracts({ checkInvariants: false });
  const n = 100_000;
  let sum = 0;
  const tasks = new Array(n);
  for (let i = 0; i < n; i++) tasks[i] = rt.dispatch('sleep_once', i);
  assert.equal(rt.stats().live, n, 'every task is live as soon as it is dispatched');
  await rt.drain();
  for (let i = 0; i < n; i++) {
    assert.equal(tasks[i].state, 'returned');
    sum += tasks[i].value;
  }
  assert.equal(sum, (n * (n - 1)) / 2);
  const s = rt.stats();
  assert.equal(s.returned, n);
  assert.ok(s.peakEntered <= rt.limits.maxEntered, `${s.peakEntered} tasks entered at once, bound ${rt.limits.maxEntered}`);
  assert.ok(s.peakEntered > 1000, 'many tasks really were suspended at once');
  assert.deepEqual(violations, []);
  await rt.close();
});

test('scale: admission_control_holds_starts_beyond_the_bound', async () => {
  const { rt } = await loadContracts({ maxEntered: 50 });
  const tasks = Array.from({ length: 2000 }, (_, i) => rt.dispatch('sleep_once', i));
  await new Promise((r) => setTimeout(r, 0));
  assert.ok(rt.stats().entered <= 50);
  assert.ok(rt.stats().queued > 0, 'starts beyond the bound wait queued');
  await rt.drain();
  assert.ok(tasks.every((t) => t.state === 'returned'));
  assert.equal(rt.stats().peakEntered, 50);
  await rt.close();
});

test('scale: joined_children_enter_above_the_soft_bound_so_parents_cannot_deadlock', async () => {
  // Every parent enters, dispatches a child and joins it. With a soft bound of
  // 10 and 40 parents, children could never start if joins did not let them in.
  const { rt } = await loadContracts({ maxEntered: 10, hardMaxEntered: 200 });
  const parents = Array.from({ length: 40 }, (_, i) => rt.dispatch('dispatch_one', i));
  await rt.drain();
  assert.deepEqual(parents.map((t) => t.value), parents.map((_, i) => 5 + i));
  assert.ok(rt.stats().peakEntered > 10, 'joined children entered above the soft bound');
  assert.ok(rt.stats().peakEntered <= 200);
  await rt.close();
});

test('scale: many_short_tasks_share_carriers', async () => {
  const { rt } = await loadContracts({ checkInvariants: false });
  const tasks = Array.from({ length: 5000 }, (_, i) => rt.dispatch('nop', i));
  await rt.drain();
  assert.ok(tasks.every((t, i) => t.value === i));
  const s = rt.stats();
  // Tasks that never suspend run one after another on the same carrier.
  assert.ok(s.carrierReuses > 4000, `${s.carrierReuses} reuses for 5000 tasks`);
  assert.ok(s.peakCarriers < 100, `${s.peakCarriers} carriers at once`);
  await rt.close();
});
