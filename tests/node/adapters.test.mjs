// Node-only adapter checks: the contract kit against a real node:events
// EventEmitter, and the adapter() helper's guarantees one by one.
import assert from 'node:assert/strict';
import { EventEmitter, getEventListeners } from 'node:events';
import { test } from 'node:test';

import { adapterContract } from '../../host/browser/adapter-contract.mjs';
import { adapter, armed, emitterEvent, timer } from '../../host/node/root.mjs';

const emitter = new EventEmitter();
for (const c of adapterContract({
  name: 'emitterEvent on a node:events EventEmitter',
  start: (signal) => emitterEvent(signal, emitter, 'data'),
  complete: () => { emitter.emit('data', 'x'); },
  armed: () => armed.listeners + armed.timers + emitter.listenerCount('data') + emitter.listenerCount('error'),
})) {
  test(c.name, c.run);
}

test('adapters: emitterEvent_rejects_on_an_error_event_and_removes_its_listeners', async () => {
  const e = new EventEmitter();
  const p = emitterEvent(new AbortController().signal, e, 'data');
  e.emit('error', new Error('broken pipe'));
  await assert.rejects(p, /broken pipe/);
  assert.equal(e.listenerCount('data') + e.listenerCount('error'), 0);
});

test('adapters: adapter_runs_cleanups_newest_first_and_settles_after_async_cleanup', async () => {
  const order = [];
  const controller = new AbortController();
  const p = adapter(controller.signal, ({ resolve, onCleanup }) => {
    onCleanup(() => { order.push('A, armed first'); });
    onCleanup(() => { order.push('B, armed second'); });
    onCleanup(async () => {
      await new Promise((r) => setTimeout(r, 5));
      order.push('C, armed last, asynchronous');
    });
    queueMicrotask(() => resolve('value'));
  });
  p.then(() => order.push('settled'));
  assert.equal(await p, 'value');
  assert.deepEqual(order, ['B, armed second', 'A, armed first', 'C, armed last, asynchronous', 'settled']);
  assert.deepEqual(getEventListeners(controller.signal, 'abort'), []);
});

test('adapters: a_failing_cleanup_turns_the_outcome_into_its_error', async () => {
  const p = adapter(new AbortController().signal, ({ resolve, onCleanup }) => {
    onCleanup(() => { throw new Error('close failed'); });
    resolve(1);
  });
  await assert.rejects(p, /close failed/);
  assert.equal(armed.listeners, 0);
});

test('adapters: an_exception_in_start_rejects_and_cleans_up', async () => {
  let cleaned = false;
  const p = adapter(new AbortController().signal, ({ onCleanup }) => {
    onCleanup(() => { cleaned = true; });
    throw new Error('cannot arm');
  });
  await assert.rejects(p, /cannot arm/);
  assert.equal(cleaned, true);
  assert.equal(armed.listeners, 0);
});

test('adapters: the_timer_control_takes_the_callback_first_and_refuses_anything_else_at_once', async () => {
  // timer(200, fn), the order of the timer() adapter, used to throw from the
  // event loop (fn is not a function) and end the process.
  await assert.rejects(adapter(new AbortController().signal, ({ timer: arm }) => { /** @type {any} */ (arm)(200, () => {}); }),
    (e) => e instanceof TypeError && /^timer\(callback, ms\): the callback must be a function, got number$/.test(e.message));
  await assert.rejects(adapter(new AbortController().signal, ({ timer: arm }) => { arm(() => {}, -1); }),
    (e) => e instanceof RangeError && /the delay must be a number of milliseconds >= 0, got -1/.test(e.message));
  assert.equal(armed.timers, 0);
  assert.equal(await adapter(new AbortController().signal, ({ resolve, timer: arm }) => { arm(() => resolve('fired'), 1); }), 'fired');
  assert.equal(armed.timers, 0);
});

test('adapters: timer_rejects_bad_delays_and_re_arms_long_ones', async () => {
  await assert.rejects(timer(new AbortController().signal, -1), RangeError);
  await assert.rejects(timer(new AbortController().signal, Number.NaN), RangeError);
  const controller = new AbortController();
  const long = timer(controller.signal, 2 ** 32, 'never');
  assert.equal(armed.timers, 1, 'a delay beyond setTimeout\'s range is armed in steps');
  controller.abort(new Error('stop'));
  await assert.rejects(long, /stop/);
  assert.equal(armed.timers, 0);
});
