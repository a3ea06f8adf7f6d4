// What a long-lived embedding keeps: cancelled work, polled drain() calls,
// runtimes that come and go on one standard input or one signal, and a
// runtime dropped without close(). Each used to grow without bound or stay
// reachable for good.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';

import { nodeHost, registerSignal, Runtime, suspend } from '../../host/node/index.mjs';
import { loadContracts, until } from '../cases/support.mjs';
import { nodeContext, program, sink } from './helpers.mjs';
import { internals } from '../../host/browser/debug.mjs';

process.report.reportOnSignal = false;

test('lifetimes: cancelling_queued_tasks_keeps_no_trace_of_them_in_the_start_queue', async () => {
  // One task waits for good, so no start is ever taken from the queue: the
  // cancelled starts used to stay there, about 440 bytes each, for ever.
  const { rt } = await loadContracts(nodeContext);
  const waiting = rt.dispatch('sleep_ms', 600_000);
  await until(() => waiting.state === 'suspended', 'the long sleep to begin');
  for (let round = 0; round < 50; round++) {
    const tasks = Array.from({ length: 200 }, (_, i) => rt.dispatch('nop', i));
    for (const t of tasks) t.cancel();
  }
  assert.equal(rt.stats().discarded, 10_000);
  assert.ok(internals(rt).startQueueEntries <= 128, `${internals(rt).startQueueEntries} entries in the start queues`);
  // A live queued task among them keeps its place.
  const kept = rt.dispatch('nop', 7);
  for (let i = 0; i < 500; i++) rt.dispatch('nop', i).cancel();
  assert.equal(await kept.result, 7);
  await rt.close();
});

test('lifetimes: polling_drain_while_work_goes_on_holds_one_waiter', async () => {
  const { rt } = await loadContracts(nodeContext);
  const t = rt.dispatch('sleep_ms', 600_000);
  const first = rt.drain();
  for (let i = 0; i < 1000; i++) assert.equal(rt.drain(), first, 'every call of one interval gets the same promise');
  assert.equal(internals(rt).drainPromise, first, 'one waiter');
  t.cancel();
  await first;
  // The next interval gets a promise of its own.
  const u = rt.dispatch('sleep_ms', 600_000);
  const second = rt.drain();
  assert.notEqual(second, first);
  u.cancel();
  await second;
  await rt.close();
});

test('lifetimes: runtimes_that_read_one_input_in_turn_take_its_lines_in_turn', async () => {
  // Each runtime had a reader of its own: the first read ahead and kept the
  // other lines when it closed (the later runtimes waited for ever), and each
  // left a listener on the stream.
  const input = new PassThrough();
  input.end('one\ntwo\nthree\n');
  const lines = [];
  for (let i = 0; i < 3; i++) {
    const out = sink();
    const rt = await Runtime.load(program('node_host'), { stdout: out, args: ['node_host'], ...nodeHost({ stdin: input }) });
    const t = rt.dispatch('stdin_one');
    await t.done;
    await rt.close();
    lines.push(out.text().trim());
  }
  assert.deepEqual(lines, ['stdin ok [one]', 'stdin ok [two]', 'stdin ok [three]']);
  assert.ok(input.listenerCount('error') <= 1, `${input.listenerCount('error')} error listeners on the stream`);
});

test('lifetimes: close_gives_back_a_queued_signal_nobody_unregistered', async () => {
  const before = process.listenerCount('SIGUSR2');
  for (let i = 0; i < 12; i++) {
    const rt = await Runtime.load(program('node_host'), { stdout: () => {}, args: ['node_host'] });
    registerSignal(rt, 'SIGUSR2', { queue: true });
    assert.equal(process.listenerCount('SIGUSR2'), before + 1);
    await rt.close();
    assert.equal(process.listenerCount('SIGUSR2'), before, 'close() stopped catching the signal');
    assert.deepEqual(rt.events.names(), []);
  }
});

test('lifetimes: a_runtime_idle_for_a_while_lets_its_parked_carriers_go', async () => {
  // A parked carrier is a suspended engine stack, a root for the collector:
  // a runtime dropped without close() used to stay reachable for good, with
  // its memory reservation (some thousands of them and no Wasm could be
  // instantiated any more). The idle timer lets the carriers go; the test
  // runs its callback rather than waiting for it.
  const { rt } = await loadContracts(nodeContext);
  const sleeper = rt.dispatch('sleep_ms', 600_000);
  await until(() => sleeper.state === 'suspended', 'the sleep to begin');
  await Promise.all(Array.from({ length: 8 }, (_, i) => rt.dispatch('nop', i).done));
  assert.equal(rt.stats().idleCarriers, 1, 'the carrier of the short tasks parked when they returned');
  assert.equal(internals(rt).idleTimerArmed, true, 'the idle timer is armed');
  // With a task live, the timer leaves the carriers parked.
  internals(rt).fireIdleTimer();
  assert.equal(rt.stats().idleCarriers, 1);
  sleeper.cancel();
  await sleeper.done;
  internals(rt).fireIdleTimer();
  await until(() => rt.stats().carriers === 0, 'the carriers to end');
  assert.equal(rt.stats().idleCarriers, 0);
  // Nor does the process keep-alive keep a timer for the idle runtime.
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const t = rt.dispatch('sleep_ms', 600_000);
  await until(() => t.state === 'suspended', 'a sleep');
  assert.ok(timers() > before, 'a live task holds a timer');
  t.cancel();
  await t.done;
  await until(() => !internals(rt).keepAliveReleasePending, 'the turn to end');
  internals(rt).fireIdleTimer();
  assert.equal(timers(), before, 'the idle runtime holds none');
  // The runtime goes on as before: a new start makes a new carrier.
  assert.equal(await rt.dispatch('nop', 3).result, 3);
  await rt.close();
  assert.equal(internals(rt).idleTimerArmed, false, 'close() clears the timer');
});

test('lifetimes: the_idle_timer_leaves_the_keep_alive_that_a_turn_in_progress_still_holds', async () => {
  // The live set emptied within a turn that has not ended: the keep-alive
  // goes at the turn's end, and work dispatched before then keeps it. The
  // idle timer used to dispose it meanwhile, and the next interval ran with
  // nothing holding the process.
  /** @type {(() => void)[]} */
  const pending = [];
  const rt = await Runtime.load(program('keepalive'), {
    // The test ends the turns by hand: a turn must not run out of time while
    // it awaits the second task (a new carrier's first entry can take more
    // than the default 0.5 ms), or the task waits for a turn end that never
    // comes.
    maxTimeMs: 60_000,
    macrotask: (cb) => { pending.push(cb); },
    imports: { test: { wait_unref: suspend((_signal, n) => new Promise((resolve) => { setTimeout(() => resolve(n + 1), n).unref(); })) } },
  });
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const first = rt.dispatch('main', 0);
  await first.done;
  assert.equal(internals(rt).keepAliveReleasePending, true, 'the live set emptied within a turn still in progress');
  const held = timers();
  internals(rt).fireIdleTimer();
  assert.equal(timers(), held, 'the keep-alive is still there');
  const second = rt.dispatch('main', 5);
  for (const cb of pending.splice(0)) cb();
  assert.equal(await second.result, 6);
  for (const cb of pending.splice(0)) cb();
  await rt.close();
});
