// The built-in sleep's timer heap (host/browser/sleepers.mjs) on its own:
// deadline order, one host timer for many sleeps, cancellation that clears
// no timer until nothing sleeps, the sweep of cancelled entries, and sleeps
// longer than one host timer reaches. The runtime's own sleep cases run in
// tests/cases (Node and Chromium).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { armed, Status } from '../../host/browser/index.mjs';
import { Sleepers } from '../../host/browser/sleepers.mjs';

/** A stand-in for a task's execution record. */
const record = () => ({ cancelWait: /** @type {(() => void) | null} */ (null) });

/**
 * Counts the host timers armed and cleared while `fn` runs.
 * @template T @param {() => Promise<T>} fn
 */
async function countingTimers(fn) {
  const counts = { set: 0, cleared: 0 };
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  globalThis.setTimeout = /** @type {any} */ ((/** @type {any[]} */ ...a) => { counts.set++; return set(...a); });
  globalThis.clearTimeout = /** @type {any} */ ((/** @type {any} */ id) => { if (id !== undefined) counts.cleared++; return clear(id); });
  try {
    return { result: await fn(), counts };
  } finally {
    globalThis.setTimeout = set;
    globalThis.clearTimeout = clear;
  }
}

test('sleepers: sleeps_wake_in_deadline_order_then_in_the_order_they_began', async () => {
  const sleepers = new Sleepers();
  /** @type {string[]} */
  const order = [];
  const t0 = performance.now();
  const sleeps = [['c', 30], ['a1', 10], ['b', 20], ['a2', 10], ['z', 0]].map(([name, ms]) =>
    sleepers.sleep(record(), /** @type {number} */ (ms)).then((status) => {
      assert.equal(status, Status.ok);
      // Host timers may fire up to a millisecond before the clock says.
      assert.ok(performance.now() - t0 >= /** @type {number} */ (ms) - 1.5, `${name} woke after ${performance.now() - t0} ms`);
      order.push(/** @type {string} */ (name));
    }));
  await Promise.all(sleeps);
  assert.deepEqual(order, ['z', 'a1', 'a2', 'b', 'c']);
  assert.equal(sleepers.live, 0);
  assert.equal(sleepers.heap.length, 0);
  assert.equal(sleepers.timer, undefined, 'no host timer is left armed');
});

test('sleepers: many_sleeps_share_one_host_timer_and_cancelling_them_clears_it_once', async () => {
  const before = armed.timers;
  const { counts } = await countingTimers(async () => {
    const sleepers = new Sleepers();
    const records = Array.from({ length: 1000 }, record);
    const sleeps = records.map((x) => sleepers.sleep(x, 60_000));
    assert.equal(armed.timers - before, 1000, 'each sleep counts as an armed timer');
    assert.equal(sleepers.live, 1000);
    for (const x of records) /** @type {() => void} */ (x.cancelWait)();
    assert.deepEqual(await Promise.all(sleeps), records.map(() => Status.cancelled));
    assert.ok(records.every((x) => x.cancelWait === null));
    assert.equal(sleepers.timer, undefined);
    assert.equal(sleepers.heap.length, 0);
  });
  assert.equal(armed.timers, before);
  // Deadlines that only grow never move the timer: armed once, cleared once.
  assert.deepEqual(counts, { set: 1, cleared: 1 });
});

test('sleepers: an_earlier_deadline_moves_the_host_timer_and_a_cancelled_sleep_never_wakes', async () => {
  const sleepers = new Sleepers();
  const late = sleepers.sleep(record(), 60_000);
  const x = record();
  const early = sleepers.sleep(x, 5);
  assert.ok(sleepers.armedFor < performance.now() + 10, 'armed for the 5 ms sleep');
  /** @type {number[]} */
  const seen = [];
  const soon = sleepers.sleep(record(), 15).then((s) => seen.push(s));
  /** @type {() => void} */ (x.cancelWait)();
  assert.equal(await early, Status.cancelled);
  await soon;
  assert.deepEqual(seen, [Status.ok], 'the sleep behind the cancelled one woke when due');
  assert.equal(sleepers.live, 1);
  assert.ok(sleepers.armedFor > performance.now() + 50_000, 'the timer moved on to the 60 s sleep');
  for (const s of sleepers.heap) /** @type {() => void} */ (/** @type {any} */ (s.x).cancelWait)();
  assert.equal(await late, Status.cancelled);
  assert.equal(sleepers.timer, undefined);
});

test('sleepers: cancelled_entries_are_swept_when_a_sleep_begins_once_they_outnumber_the_live_ones', async () => {
  const sleepers = new Sleepers();
  const keep = record();
  const kept = sleepers.sleep(keep, 60_000);
  const records = Array.from({ length: 200 }, record);
  const sleeps = records.map((x, i) => sleepers.sleep(x, 1000 + i));
  for (const x of records) /** @type {() => void} */ (x.cancelWait)();
  await Promise.all(sleeps);
  assert.equal(sleepers.live, 1);
  assert.equal(sleepers.heap.length, 201, 'a cancel only marks its entry');
  // The next sleep sweeps them out, and the heap still gives deadline order.
  /** @type {number[]} */
  const order = [];
  const next = [7, 3, 5].map((ms) => sleepers.sleep(record(), ms).then(() => order.push(ms)));
  assert.ok(sleepers.heap.length <= 4, `${sleepers.heap.length} entries for four live sleeps`);
  await Promise.all(next);
  assert.deepEqual(order, [3, 5, 7]);
  /** @type {() => void} */ (keep.cancelWait)();
  assert.equal(await kept, Status.cancelled);
  assert.equal(sleepers.heap.length, 0);
});

test('sleepers: a_sleep_longer_than_a_host_timer_reaches_arms_as_far_as_one_goes', async () => {
  const sleepers = new Sleepers();
  const x = record();
  const days = 40 * 24 * 3600 * 1000; // beyond setTimeout's 2^31 - 1 ms
  const now = performance.now();
  const long = sleepers.sleep(x, days);
  assert.ok(sleepers.armedFor < now + days - 1e9, 'the timer stands for less than the whole sleep');
  assert.ok(sleepers.armedFor >= now + 2 ** 31 - 1, 'but for as much as one timer reaches');
  // When that timer fires, the sleep is not due yet: it re-arms.
  sleepers.armedFor = performance.now();
  clearTimeout(sleepers.timer);
  sleepers.fire();
  assert.equal(sleepers.live, 1, 'still asleep');
  assert.notEqual(sleepers.timer, undefined, 'armed again');
  /** @type {() => void} */ (x.cancelWait)();
  assert.equal(await long, Status.cancelled);
});
