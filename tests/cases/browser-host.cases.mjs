// The browser host's page helpers and waits that exist in Node too, in Node and
// in Chromium: queued event sources (message ports, custom events) under the
// adapter contract and from C++, and the cancellation of a fetch from C++.
// Browser-only behaviour (real clicks, IndexedDB, frames) is in tests/browser/.
import { adapterContract } from '../../host/browser/adapter-contract.mjs';
import { armed, EventRegistry, registerPort, registerQueued, Runtime } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';
import { closeQuiet, until } from './support.mjs';

/** The resources our adapters have armed, process-wide. */
const ours = () => armed.listeners + armed.timers;

/**
 * @param {import('./support.mjs').CaseContext} ctx
 * @param {import('../../host/browser/index.mjs').RuntimeOptions} [options]
 */
async function loadBrowserHost(ctx, options = {}) {
  /** @type {string[]} */
  const out = [];
  const rt = await Runtime.load(ctx.program('browser_host'), {
    checkInvariants: true,
    stdout: (text) => { out.push(text); },
    ...options,
  });
  return { rt, text: () => out.join('') };
}

/** Waits for a task to finish, failing (rather than hanging) if it never does. @param {import('../../host/browser/index.mjs').Task} t */
async function finished(t) {
  await until(() => t.finished, `${t} to finish`);
  return t;
}

/**
 * A fresh registry and channel for each operation the contract kit starts, so
 * that a message left queued by one case never reaches the next.
 * @type {{ channel: MessageChannel, unregister: (() => void) & { queue: import('../../host/browser/index.mjs').EventQueue } } | null}
 */
let portKit = null;
function closePortKit() {
  if (!portKit) return;
  portKit.unregister();
  portKit.channel.port1.close();
  portKit.channel.port2.close();
  portKit = null;
}

const portContract = adapterContract({
  name: 'registerPort (queued MessagePort messages)',
  start: (signal) => {
    closePortKit();
    const events = new EventRegistry();
    const channel = new MessageChannel();
    portKit = { channel, unregister: registerPort(events, 'port', channel.port1) };
    return events.wait(signal, 'port');
  },
  complete: () => { portKit?.channel.port2.postMessage('hi'); },
  // The queue's waiting listeners, besides what the adapter helper counts.
  armed: () => ours() + (portKit ? portKit.unregister.queue.waiting : 0),
}).map((c) => ({
  name: c.name,
  run: async () => {
    try {
      await c.run();
    } finally {
      closePortKit();
    }
  },
}));

/**
 * Registers a fresh MessageChannel's port1 as the event source "port" of `rt`,
 * runs `body` with the channel and the registration's queue, then unregisters
 * and closes both ports, whatever `body` did.
 * @param {import('../../host/browser/index.mjs').Runtime} rt
 * @param {(port: { channel: MessageChannel, queue: import('../../host/browser/index.mjs').EventQueue }) => Promise<void>} body
 */
async function withPort(rt, body) {
  const channel = new MessageChannel();
  const unregister = registerPort(rt.events, 'port', channel.port1);
  try {
    await body({ channel, queue: unregister.queue });
  } finally {
    unregister();
    channel.port1.close();
    channel.port2.close();
  }
}

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  ...portContract,
  {
    name: 'browser host: port_messages_reach_a_cpp_task_in_order_even_between_its_waits',
    async run(ctx) {
      const { rt, text } = await loadBrowserHost(ctx);
      await withPort(rt, async ({ channel, queue }) => {
        // Two messages before any task waits: kept.
        channel.port2.postMessage('one');
        channel.port2.postMessage({ n: 2 });
        await until(() => queue.length === 2, 'the two messages to be queued');
        const t = rt.dispatch('wait_many', 4);
        await until(() => t.state === 'suspended' && queue.length === 0 && queue.waiting === 1, 'the task to take both and wait again');
        // A burst: the fourth arrives while the task is between two waits.
        channel.port2.postMessage('three');
        channel.port2.postMessage('four');
        await finished(t);
        assert.equal(t.state, 'returned', `wait_many ended ${t.state}: ${t.error}`);
        assert.equal(t.value, 4);
        assert.equal(text(), 'message 0 ok [one]\nmessage 1 ok [{"n":2}]\nmessage 2 ok [three]\nmessage 3 ok [four]\n');
        assert.equal(queue.dropped, 0);
      });
      await closeQuiet(rt);
    },
  },
  {
    name: 'browser host: a_cancelled_port_wait_leaves_the_next_message_for_the_next_task',
    async run(ctx) {
      const { rt, text } = await loadBrowserHost(ctx);
      await withPort(rt, async ({ channel, queue }) => {
        const first = rt.dispatch('wait_named', 2);
        await until(() => first.state === 'suspended' && queue.waiting === 1, 'the first wait');
        first.cancel();
        await finished(first);
        assert.equal(first.state, 'cancelled');
        assert.equal(queue.waiting, 0, 'the cancelled wait left the queue');
        channel.port2.postMessage('after');
        await until(() => queue.length === 1, 'the message to be kept');
        const second = rt.dispatch('wait_named', 2);
        await finished(second);
        assert.equal(second.state, 'returned');
        assert.equal(text(), 'event port cancelled []\nevent port ok [after]\n');
        assert.equal(queue.length, 0);
      });
      await closeQuiet(rt);
    },
  },
  {
    name: 'browser host: a_queued_custom_event_waits_for_its_task_and_a_plain_registration_does_not_keep_it',
    async run(ctx) {
      const { rt, text } = await loadBrowserHost(ctx);
      const target = new EventTarget();
      const unregister = registerQueued(rt.events, 'saved', target, 'saved');
      target.dispatchEvent(new CustomEvent('saved', { detail: { rev: 3 } }));
      assert.equal(unregister.queue.length, 1);
      const t = rt.dispatch('wait_named', 1);
      await finished(t);
      assert.equal(text(), 'event saved ok [{"rev":3}]\n');
      unregister();
      assert.deepEqual(rt.events.names(), []);

      // Edge-triggered: the event fired before the wait is gone; the next one counts.
      rt.events.register('saved', target, 'saved');
      target.dispatchEvent(new CustomEvent('saved', { detail: { rev: 4 } }));
      const u = rt.dispatch('wait_named', 1);
      await until(() => u.state === 'suspended', 'the plain wait');
      target.dispatchEvent(new CustomEvent('saved', { detail: { rev: 5 } }));
      await finished(u);
      assert.equal(text(), 'event saved ok [{"rev":3}]\nevent saved ok [{"rev":5}]\n');
      await closeQuiet(rt);
    },
  },
  {
    name: 'browser host: a_cpp_fetch_that_never_answers_is_cancelled_promptly',
    async run(ctx) {
      const id = `cpp-fetch-cancel-${ctx.env}`;
      const url = `${ctx.httpBase}/hold?id=${id}`;
      const { rt, text } = await loadBrowserHost(ctx, { args: ['browser_host', url], permissions: { net: [new URL(ctx.httpBase).host] } });
      const t = rt.dispatch('fetch_arg1');
      await until(() => t.state === 'suspended', 'the fetch');
      assert.equal(t.waitingOn, `snail.fetch("${url}")`);
      t.cancel();
      await finished(t);
      assert.equal(t.state, 'cancelled');
      assert.equal(text(), 'fetch cancelled 0 0\n');
      assert.equal(ours(), 0, 'the fetch left no listener armed');
      // Whatever the server still holds of it, let it go.
      await fetch(`${ctx.httpBase}/release?id=${id}`).then((r) => r.text());
      await closeQuiet(rt);
    },
  },
];
