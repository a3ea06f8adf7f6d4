// Host services reached from C++ (tests/programs/services.cpp), in Node and in
// Chromium: the same calls, the same statuses, `denied` where a host lacks a
// service or a permission.
import { armed, MemoryStorage, Runtime } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';
import { assertQuiet, closeQuiet, STORAGE_ROUNDTRIP, until } from './support.mjs';

/**
 * @param {import('./support.mjs').CaseContext} ctx
 * @param {import('../../host/browser/index.mjs').RuntimeOptions} [options]
 */
async function loadServices(ctx, options = {}) {
  /** @type {string[]} */
  const out = [];
  const rt = await Runtime.load(ctx.program('services'), {
    checkInvariants: true,
    stdout: (text) => { out.push(text); },
    ...options,
  });
  return { rt, text: () => out.join('') };
}

/** @param {Runtime} rt @param {string} entry */
async function run(rt, entry) {
  const t = rt.dispatch(entry);
  await t.done;
  assert.equal(t.state, 'returned', `${entry} ended ${t.state}: ${t.error}`);
  return t;
}

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  {
    name: 'services: a_task_waits_for_a_named_event_and_gets_its_detail',
    async run(ctx) {
      const { rt, text } = await loadServices(ctx);
      const button = new EventTarget();
      const unregister = rt.events.register('click #save', button, 'click');
      assert.deepEqual(rt.events.names(), ['click #save']);
      const t = rt.dispatch('event_once');
      await until(() => t.state === 'suspended', 'the wait');
      assert.equal(t.waitingOn, 'snail.event_wait("click #save")');
      button.dispatchEvent(new CustomEvent('click', { detail: { x: 3, y: 4 } }));
      await t.done;
      assert.equal(text(), 'event ok [{"x":3,"y":4}]\n');
      unregister();
      assert.deepEqual(rt.events.names(), []);
      await closeQuiet(rt);
    },
  },
  {
    name: 'services: waiting_for_an_unregistered_event_is_invalid_and_a_cancelled_wait_removes_its_listener',
    async run(ctx) {
      const { rt, text } = await loadServices(ctx);
      await run(rt, 'event_unknown');
      assert.equal(text(), 'event invalid\n');
      const button = new EventTarget();
      rt.events.register('click #save', button, 'click');
      const t = rt.dispatch('event_once');
      await until(() => t.state === 'suspended', 'the wait');
      assert.equal(armed.listeners, 2, 'the event listener and the abort listener');
      t.cancel();
      await t.done;
      assert.equal(t.state, 'cancelled');
      assert.equal(armed.listeners, 0, 'the cancelled wait removed its listener');
      assert.equal(text(), 'event invalid\nevent cancelled []\n');
      assert.throws(() => rt.events.register('click #save', button, 'click'), (e) => e.code === 'ERR_ARG');
      assert.throws(() => rt.events.register('x', /** @type {any} */ ({}), 'click'), (e) => e.code === 'ERR_ARG');
      await closeQuiet(rt);
    },
  },
  {
    name: 'services: storage_puts_gets_lists_and_deletes_per_store',
    async run(ctx) {
      const storage = new MemoryStorage();
      const { rt, text } = await loadServices(ctx, { services: { storage } });
      await run(rt, 'storage_roundtrip');
      assert.equal(text(), STORAGE_ROUNDTRIP);
      assert.deepEqual(new TextDecoder().decode(await storage.get(new AbortController().signal, 'prefs', 'b')), 'twenty-two');
      await closeQuiet(rt);
    },
  },
  {
    name: 'services: fetch_is_denied_unless_granted_and_then_returns_the_body_and_code',
    async run(ctx) {
      const url = `${ctx.httpBase}/echo?text=hi%20there&code=201`;
      const denied = await loadServices(ctx, { args: ['services', url] });
      await run(denied.rt, 'fetch_arg1');
      assert.match(denied.text(), /^fetch denied 0 \[\]\n$/);
      await denied.rt.close();

      const host = new URL(ctx.httpBase).host;
      const granted = await loadServices(ctx, { args: ['services', url], permissions: { net: [host] } });
      await run(granted.rt, 'fetch_arg1');
      assert.equal(granted.text(), 'fetch ok 201 [hi there]\n');
      await granted.rt.close();
      assertQuiet(granted.rt);
    },
  },
  {
    name: 'services: fetch_follows_a_redirect_only_to_a_granted_host',
    async run(ctx) {
      const base = new URL(ctx.httpBase);
      // The same server under another host name, which is not granted.
      const other = new URL(ctx.httpBase);
      other.hostname = base.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
      const id = `r${Math.random().toString(36).slice(2)}`;
      const fetchVia = async (/** @type {string} */ to, /** @type {string[]} */ net) => {
        const url = `${ctx.httpBase}/redirect?to=${encodeURIComponent(to)}`;
        const { rt, text } = await loadServices(ctx, { args: ['services', url], permissions: { net } });
        await run(rt, 'fetch_arg1');
        await rt.close();
        return text();
      };
      // To a host that was not granted: denied, and never requested.
      assert.equal(await fetchVia(`${other.origin}/mark?id=${id}`, [base.host]), 'fetch denied 0 []\n');
      assert.equal(await (await fetch(`${ctx.httpBase}/marked?id=${id}`)).text(), 'no', 'the ungranted host was never asked');
      // To the granted host: followed in Node, which checks each hop; a page
      // cannot see where a redirect leads, so there only '*' follows it.
      const near = `${ctx.httpBase}/echo?text=near`;
      assert.equal(await fetchVia(near, [base.host]), ctx.env === 'browser' ? 'fetch denied 0 []\n' : 'fetch ok 200 [near]\n');
      assert.equal(await fetchVia(near, ['*']), 'fetch ok 200 [near]\n');
    },
  },
  {
    name: 'services: frames_and_idle_time_exist_in_browsers_and_are_denied_elsewhere',
    async run(ctx) {
      const { rt, text } = await loadServices(ctx);
      await run(rt, 'frames_and_idle');
      const expected = ctx.env === 'browser' ? 'frame ok\nidle ok\n' : 'frame denied\nidle denied\n';
      assert.equal(text(), expected);
      await closeQuiet(rt);
    },
  },
  {
    name: 'services: files_and_standard_input_are_denied_when_the_host_grants_none',
    async run(ctx) {
      const { rt, text } = await loadServices(ctx);
      await run(rt, 'files_and_stdin');
      assert.equal(text(), 'write denied\nread denied []\nstdin denied []\n');
      await closeQuiet(rt);
    },
  },
  {
    name: 'services: arguments_outside_the_program_memory_are_invalid_without_suspending',
    async run(ctx) {
      const { rt, text } = await loadServices(ctx);
      await run(rt, 'bad_pointer');
      assert.equal(text(), 'bad pointer invalid\n');
      assert.equal(rt.stats().steps, 1, 'the task never gave up the permit');
      await closeQuiet(rt);
    },
  },
  {
    name: 'services: a_backend_returning_the_wrong_kind_of_value_fails_the_task_and_the_scheduler_goes_on',
    async run(ctx) {
      for (const directWaits of [true, false]) {
        const storage = new MemoryStorage();
        // A broken backend: list() must give an array of keys.
        storage.list = async () => /** @type {any} */ ('not an array');
        const { rt } = await loadServices(ctx, { directWaits, services: { storage } });
        const broken = [rt.dispatch('storage_roundtrip'), rt.dispatch('storage_roundtrip')];
        const fine = rt.dispatch('event_unknown');
        await rt.drain();
        for (const t of broken) {
          assert.equal(t.state, 'failed', `directWaits ${directWaits}: ${t}`);
          assert.match(String(t.error?.message), /keys\.join is not a function/);
        }
        assert.equal(fine.state, 'returned', `directWaits ${directWaits}: the other task went on`);
        await closeQuiet(rt);
      }
    },
  },
];
