// The built-in sleep's timer heap (host/browser/sleepers.mjs) on its own, with
// an injected clock and host timers: deadline order, one host timer for many
// sleeps, cancellation that clears no timer until nothing sleeps, the sweep of
// cancelled entries, and sleeps longer than one host timer reaches. The
// runtime's own sleep cases run with real timers in tests/cases (Node and
// Chromium).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { armed, Status } from '../../host/node/root.mjs';
import { Sleepers } from '../../host/browser/sleepers.mjs';

/** A stand-in for a task's execution record. */
const record = () => ({ cancelWait: /** @type {(() => void) | null} */ (null) });

/** Lets settled sleeps' reactions run. */
const flush = () => new Promise((r) => setImmediate(r));

/**
 * A clock and host timers that move only when told to.
 * `advance(to)` fires the timers due by `to` in order; `early` makes each
 * fire that many milliseconds before its time, as host timers may.
 */
function fakeHost({ early = 0 } = {}) {
  const state = { time: 0, set: 0, cleared: 0, nextId: 1 };
  /** @type {Map<number, { at: number, fn: () => void }>} */
  const timers = new Map();
  const host = {
    now: () => state.time,
    set: (/** @type {() => void} */ fn, /** @type {number} */ ms) => {
      const id = state.nextId++;
      timers.set(id, { at: state.time + ms, fn });
      state.set++;
      return id;
    },
    clear: (/** @type {unknown} */ id) => {
      if (timers.delete(/** @type {number} */ (id))) state.cleared++;
    },
  };
  /** @param {number} to */
  const advance = async (to) => {
    for (let fired = 0; ; fired++) {
      if (fired > 10_000) throw new Error(`timers keep firing at ${state.time} ms: a sleep that is never due`);
      let next = null;
      for (const [id, t] of timers) if (t.at <= to && (next === null || t.at < next[1].at)) next = [id, t];
      if (next === null) break;
      timers.delete(next[0]);
      state.time = Math.max(state.time, next[1].at - early);
      next[1].fn();
      await flush();
    }
    state.time = to;
    await flush();
  };
  return { host, state, timers, advance };
}

test('sleepers: sleeps_wake_in_deadline_order_then_in_the_order_they_began', async () => {
  const { host, advance } = fakeHost();
  const sleepers = new Sleepers(host);
  /** @type {string[]} */
  const order = [];
  const sleeps = [['c', 30], ['a1', 10], ['b', 20], ['a2', 10], ['z', 0]].map(([name, ms]) =>
    sleepers.sleep(record(), /** @type {number} */ (ms)).then((status) => order.push(`${name}:${status === Status.ok ? 'ok' : status}`)));
  await advance(0);
  assert.deepEqual(order, ['z:ok']);
  await advance(9.99);
  assert.deepEqual(order, ['z:ok'], 'nothing wakes before its deadline');
  await advance(10);
  assert.deepEqual(order, ['z:ok', 'a1:ok', 'a2:ok'], 'equal deadlines wake in the order they began');
  await advance(100);
  await Promise.all(sleeps);
  assert.deepEqual(order, ['z:ok', 'a1:ok', 'a2:ok', 'b:ok', 'c:ok']);
  assert.equal(sleepers.live, 0);
  assert.equal(sleepers.heap.length, 0);
  assert.equal(sleepers.timer, undefined, 'no host timer is left armed');
});

test('sleepers: a_host_timer_that_fires_before_the_clock_says_is_armed_again_and_no_sleep_ends_early', async () => {
  const { host, state, advance } = fakeHost({ early: 0.5 });
  const sleepers = new Sleepers(host);
  /** @type {[number, number][]} each sleep's length and the clock when it woke */
  const woke = [];
  for (const ms of [5, 5.25, 6]) sleepers.sleep(record(), ms).then(() => woke.push([ms, host.now()]));
  await advance(5);
  // The timer for the 5 ms deadline fired at 4.5 on the clock: nothing is due yet.
  assert.deepEqual(woke, []);
  assert.equal(sleepers.live, 3);
  await advance(5.5);
  // Armed again for the rest (rounded up to 1 ms), it fired at 5: the 5 ms sleep is due, the 5.25 ms one not.
  assert.deepEqual(woke, [[5, 5]]);
  await advance(8);
  assert.deepEqual(woke, [[5, 5], [5.25, 5.5], [6, 6]]);
  assert.equal(state.set, 4, 'one host timer per wake-up, and one more each time one fired early');
  assert.equal(sleepers.timer, undefined);
});

test('sleepers: many_sleeps_share_one_host_timer_and_cancelling_them_clears_it_once', async () => {
  const before = armed.timers;
  const { host, state, timers } = fakeHost();
  const sleepers = new Sleepers(host);
  const records = Array.from({ length: 1000 }, record);
  const sleeps = records.map((x, i) => {
    state.time = i / 1000; // deadlines that only grow
    return sleepers.sleep(x, 60_000);
  });
  assert.equal(armed.timers - before, 1000, 'each sleep counts as an armed timer');
  assert.equal(sleepers.live, 1000);
  assert.equal(timers.size, 1);
  for (const x of records) /** @type {() => void} */ (x.cancelWait)();
  assert.deepEqual(await Promise.all(sleeps), records.map(() => Status.cancelled));
  assert.ok(records.every((x) => x.cancelWait === null));
  assert.equal(sleepers.timer, undefined);
  assert.equal(sleepers.heap.length, 0);
  assert.equal(armed.timers, before);
  assert.deepEqual([state.set, state.cleared, timers.size], [1, 1, 0], 'armed once, cleared once');
});

test('sleepers: an_earlier_deadline_moves_the_host_timer_and_a_cancelled_sleep_never_wakes', async () => {
  const { host, state, advance } = fakeHost();
  const sleepers = new Sleepers(host);
  const late = sleepers.sleep(record(), 60_000);
  const x = record();
  const early = sleepers.sleep(x, 5);
  assert.equal(sleepers.armedFor, 5, 'armed for the 5 ms sleep');
  assert.deepEqual([state.set, state.cleared], [2, 1]);
  /** @type {number[]} */
  const seen = [];
  const soon = sleepers.sleep(record(), 15).then((s) => seen.push(s));
  /** @type {() => void} */ (x.cancelWait)();
  assert.equal(await early, Status.cancelled);
  await advance(14);
  assert.deepEqual(seen, [], 'not yet');
  await advance(15);
  await soon;
  assert.deepEqual(seen, [Status.ok], 'the sleep behind the cancelled one woke when due');
  assert.equal(sleepers.live, 1);
  assert.equal(sleepers.armedFor, 60_000, 'the timer moved on to the 60 s sleep');
  assert.equal(sleepers.heap.length, 1, 'the cancelled entry left when it reached the top');
  for (const s of sleepers.heap) /** @type {() => void} */ (/** @type {any} */ (s.x).cancelWait)();
  assert.equal(await late, Status.cancelled);
  assert.equal(sleepers.timer, undefined);
});

test('sleepers: cancelled_entries_are_swept_when_a_sleep_begins_once_they_outnumber_the_live_ones', async () => {
  const { host, advance } = fakeHost();
  const sleepers = new Sleepers(host);
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
  const next = [7, 3, 5, 3.5, 9, 1].map((ms) => sleepers.sleep(record(), ms).then(() => order.push(ms)));
  assert.equal(sleepers.heap.length, 7, 'the live sleeps only');
  await advance(10);
  await Promise.all(next);
  assert.deepEqual(order, [1, 3, 3.5, 5, 7, 9]);
  /** @type {() => void} */ (keep.cancelWait)();
  assert.equal(await kept, Status.cancelled);
  assert.equal(sleepers.heap.length, 0);
});

test('sleepers: a_sleep_longer_than_a_host_timer_reaches_arms_as_far_as_one_goes', async () => {
  const { host, state, timers, advance } = fakeHost();
  const sleepers = new Sleepers(host);
  const max = 2 ** 31 - 1; // setTimeout's longest delay
  const days = 40 * 24 * 3600 * 1000;
  let woke = false;
  const long = sleepers.sleep(record(), days).then((s) => { woke = s === Status.ok; });
  assert.equal(sleepers.armedFor, max, 'the timer stands for as much as one reaches');
  assert.equal([...timers.values()][0].at, max);
  await advance(max);
  assert.equal(woke, false, 'still asleep after the first timer');
  assert.equal(sleepers.live, 1);
  assert.equal(state.set, 2, 'armed again for the rest');
  await advance(days);
  await long;
  assert.equal(woke, true);
  assert.equal(sleepers.timer, undefined);
});
