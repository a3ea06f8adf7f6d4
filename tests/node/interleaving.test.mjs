// Seeded randomized interleavings: thousands of schedules of dispatch, sleep,
// yield, join and bind. Programs check after every wait that they see exactly
// their own bindings and that their shadow-stack frames are intact; the
// scheduler checks its invariants after every step.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadContracts, rng } from './helpers.mjs';

const SEED = Number(process.env.SNAIL_SEED ?? 20261130);

test(`interleaving: no_task_observes_another_task_bindings_in_1200_random_schedules (seed ${SEED})`, async () => {
  const next = rng(SEED);
  let schedules = 0;
  let tasks = 0;
  for (let group = 0; group < 48; group++) {
    // Each group is one runtime with its own budget, so turns end at different
    // points; each root task is one schedule with its own script.
    const maxSteps = 1 + (next() % 8);
    const maxEntered = 4 + (next() % 60);
    const { rt, violations } = await loadContracts({ maxSteps, maxEntered, hardMaxEntered: 1000 });
    const roots = Array.from({ length: 25 }, () => rt.dispatch('random_tree', next() & 0x7fffffff));
    await rt.drain();
    const context = `group ${group} (seed ${SEED}, maxSteps ${maxSteps}, maxEntered ${maxEntered})`;
    assert.deepEqual(violations, [], `violations in ${context}`);
    for (const r of roots) assert.equal(r.state, 'returned', `${r} in ${context}: ${r.error}`);
    const s = rt.stats();
    assert.equal(s.failed, 0, context);
    assert.equal(s.live, 0, context);
    schedules += roots.length;
    tasks += s.returned;
    await rt.close();
  }
  assert.equal(schedules, 1200);
  assert.ok(tasks > 3000, `${tasks} tasks ran in ${schedules} schedules`);
});
