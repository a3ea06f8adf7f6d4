// The browser host's waits from C++ that only a browser has: clicks that
// the browser driver dispatches on real elements, custom events on elements, messages
// from a Worker, the selector helper under the adapter contract, and the
// cancellation of animation-frame, idle and fetch waits (their handles and
// requests released).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { adapterContract } from '../../host/browser/adapter-contract.mjs';
import { heldRequests } from '../cases/http-routes.mjs';
import { BROWSER_NAME, openBlankPage, runInPage, useBrowser } from './harness.mjs';

const env = useBrowser({ before, after });

/**
 * A blank page with a few elements, the browser_host program loaded as
 * `window.rt` and its output collected in `window.out`.
 * @param {import('node:test').TestContext} t
 */
async function hostPage(t) {
  const opened = await openBlankPage(env.browser, env.server.url);
  t.after(() => opened.page.close());
  await runInPage(opened.page, async () => {
    document.body.innerHTML = `
      <button id="save" style="margin: 40px; width: 120px; height: 40px">Save</button>
      <button id="other">Other</button>
      <div id="panel" data-kind="editor"><span id="inner">text</span></div>`;
    const snail = await import('/host/browser/index.mjs');
    const g = /** @type {any} */ (globalThis);
    g.snail = snail;
    g.out = [];
    g.rt = await snail.Runtime.load('/build/programs/browser_host.wasm', {
      checkInvariants: true,
      stdout: (/** @type {string} */ x) => { g.out.push(x); },
      args: ['browser_host', `${location.origin}/hold?id=browser-fetch`],
      permissions: { net: [location.host] },
    });
    g.until = async (/** @type {() => boolean} */ p, /** @type {string} */ what) => {
      for (let i = 0; i < 2000; i++) {
        if (p()) return;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      throw new Error(`gave up waiting for ${what}`);
    };
  }, undefined, { log: opened.log, what: 'loading browser_host' });
  return opened;
}

test('page events: a cpp task waits for a real click on #save and ignores clicks elsewhere', async (t) => {
  const { page, log } = await hostPage(t);
  await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    g.snail.registerSelector(g.rt.events, 'click #save', '#save', 'click');
    g.task = g.rt.dispatch('wait_named', 0);
    await g.until(() => g.task.state === 'suspended', 'the wait');
  }, undefined, { log });
  // A click on another element first: if the selector did not filter, the task
  // would wake with the wrong element's detail.
  await page.click('#other');
  await page.click('#save');
  const r = await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    await g.until(() => g.task.finished, 'the task');
    const box = document.getElementById('save')?.getBoundingClientRect();
    await g.rt.close();
    return { state: g.task.state, out: g.out.join(''), box: box && { x: box.x, y: box.y, w: box.width, h: box.height }, stats: g.rt.stats() };
  }, undefined, { log });
  assert.equal(r.state, 'returned');
  const m = /^event click #save ok \[(.*)\]\n$/.exec(r.out);
  assert.ok(m, `the task printed ${JSON.stringify(r.out)}`);
  const detail = JSON.parse(m[1]);
  assert.deepEqual(Object.keys(detail), ['type', 'id', 'tag', 'x', 'y', 'button']);
  assert.equal(detail.type, 'click');
  assert.equal(detail.id, 'save');
  assert.equal(detail.tag, 'button');
  assert.equal(detail.button, 0);
  // The driver clicks the middle of the element.
  assert.ok(Math.abs(detail.x - (r.box.x + r.box.w / 2)) <= 1 && Math.abs(detail.y - (r.box.y + r.box.h / 2)) <= 1,
    `the click at (${detail.x}, ${detail.y}) is the middle of the button ${JSON.stringify(r.box)}`);
  assert.equal(r.stats.armedListeners, 0);
});

test('page events: a queued selector registration keeps a click that came before the task waited', async (t) => {
  const { page, log } = await hostPage(t);
  await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    g.unregister = g.snail.registerSelector(g.rt.events, 'click #save', '#save', 'click', { queue: true });
  }, undefined, { log });
  await page.click('#save');
  await page.click('#other');
  const r = await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    const kept = g.unregister.queue.length;
    const task = g.rt.dispatch('wait_named', 0);
    await g.until(() => task.finished, 'the task');
    await g.rt.close();
    return { kept, left: g.unregister.queue.length, out: g.out.join('') };
  }, undefined, { log });
  assert.equal(r.kept, 1, 'the click on #save was kept, the one on #other was not');
  assert.equal(r.left, 0);
  assert.match(r.out, /^event click #save ok \[\{"type":"click","id":"save","tag":"button",/);
});

test('page events: a custom event bubbling from inside an element reaches a selector registration', async (t) => {
  const { page, log } = await hostPage(t);
  const r = await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    g.snail.registerSelector(g.rt.events, 'saved', '#panel', 'saved');
    const task = g.rt.dispatch('wait_named', 1);
    await g.until(() => task.state === 'suspended', 'the wait');
    const inner = /** @type {HTMLElement} */ (document.getElementById('inner'));
    // Not bubbling: the registration on the document never sees it.
    inner.dispatchEvent(new CustomEvent('saved', { detail: { rev: 1 } }));
    inner.dispatchEvent(new CustomEvent('saved', { bubbles: true, detail: { rev: 2 } }));
    await g.until(() => task.finished, 'the task');
    await g.rt.close();
    return g.out.join('');
  }, undefined, { log });
  assert.equal(r, 'event saved ok [{"type":"saved","id":"panel","tag":"div","data":{"kind":"editor"},"detail":{"rev":2}}]\n');
});

test('page events: a cpp task receives a Worker\'s messages through registerPort', async (t) => {
  const { page, log } = await hostPage(t);
  const r = await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    // The worker answers every message with three of its own at once.
    const source = 'onmessage = (e) => { for (let i = 1; i <= 3; i++) postMessage({ from: "worker", n: e.data * 10 + i }); };';
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
    const unregister = g.snail.registerPort(g.rt.events, 'port', worker);
    const task = g.rt.dispatch('wait_many', 3);
    await g.until(() => task.state === 'suspended', 'the wait');
    worker.postMessage(4);
    await g.until(() => task.finished, 'the task');
    unregister();
    worker.terminate();
    await g.rt.close();
    return { out: g.out.join(''), value: task.value };
  }, undefined, { log });
  assert.equal(r.out, [
    'message 0 ok [{"from":"worker","n":41}]',
    'message 1 ok [{"from":"worker","n":42}]',
    'message 2 ok [{"from":"worker","n":43}]',
    '',
  ].join('\n'));
  assert.equal(r.value, 3);
});

describe(`page events: registerSelector under the adapter contract, completed by real clicks (${BROWSER_NAME})`, () => {
  const KIT_NAME = 'registerSelector("#kit", "click")';
  // The kit's case names depend on the adapter's name alone: node:test needs them now.
  const names = adapterContract({ name: KIT_NAME, start: async () => {}, armed: () => 0 }).map((c) => c.name);
  /** @type {Awaited<ReturnType<typeof openBlankPage>>} */
  let kit;
  before(async () => {
    kit = await openBlankPage(env.browser, env.server.url);
    // The kit's `complete` asks Node to click through the driver.
    await kit.page.exposeFunction('realClick', () => kit.page.click('#kit'));
    const inPage = await runInPage(kit.page, async (name) => {
      document.body.innerHTML = '<button id="kit">kit</button>';
      const snail = await import('/host/browser/index.mjs');
      const { adapterContract } = await import('/host/browser/adapter-contract.mjs');
      // Click listeners on the document, besides what the adapter helper counts.
      let documentListeners = 0;
      const add = document.addEventListener.bind(document);
      const remove = document.removeEventListener.bind(document);
      document.addEventListener = (/** @type {string} */ type, /** @type {any} */ fn, /** @type {any} */ o) => { if (type === 'click') documentListeners++; add(type, fn, o); };
      document.removeEventListener = (/** @type {string} */ type, /** @type {any} */ fn, /** @type {any} */ o) => { if (type === 'click') documentListeners--; remove(type, fn, o); };
      const events = new snail.EventRegistry();
      snail.registerSelector(events, 'click #kit', '#kit', 'click');
      const cases = adapterContract({
        name,
        start: (signal) => events.wait(signal, 'click #kit'),
        complete: () => /** @type {any} */ (globalThis).realClick(),
        armed: () => snail.armed.listeners + snail.armed.timers + documentListeners,
      });
      /** @type {any} */ (globalThis).kitCases = cases;
      return cases.map((c) => c.name);
    }, KIT_NAME, { log: kit.log });
    assert.deepEqual(inPage, names);
  });
  after(() => kit.page.close());
  for (const [i, name] of names.entries()) {
    test(name, async () => {
      const r = await runInPage(kit.page, async (index) => {
        await /** @type {any} */ (globalThis).kitCases[index].run();
        return 'passed';
      }, i, { log: kit.log, what: name });
      assert.equal(r, 'passed');
    });
  }
});

test('frames and idle time: a cpp wait completes, and cancelling it releases its handle', async (t) => {
  const { page, log } = await hostPage(t);
  const r = await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    // Controlled stand-ins for the browser's callbacks, so that the cancel
    // certainly comes before the frame: they count what is outstanding.
    const fake = (/** @type {string} */ request, /** @type {string} */ cancel) => {
      const pending = new Map();
      let next = 1;
      const real = { request: g[request], cancel: g[cancel] };
      g[request] = (/** @type {Function} */ cb) => { pending.set(next, cb); return next++; };
      g[cancel] = (/** @type {number} */ id) => { pending.delete(id); };
      return {
        pending,
        fire: () => { const cbs = [...pending.values()]; pending.clear(); for (const cb of cbs) cb(performance.now()); },
        restore: () => { g[request] = real.request; g[cancel] = real.cancel; },
      };
    };
    const results = {};
    for (const [kind, entry, request, cancel] of [['frame', 'frame_once', 'requestAnimationFrame', 'cancelAnimationFrame'], ['idle', 'idle_once', 'requestIdleCallback', 'cancelIdleCallback']]) {
      const f = fake(request, cancel);
      const waited = g.rt.dispatch(entry, 50);
      await g.until(() => waited.state === 'suspended' && f.pending.size === 1, `the ${kind} wait`);
      const waitingOn = waited.waitingOn;
      f.fire();
      await g.until(() => waited.finished, `the ${kind} task`);
      const cancelled = g.rt.dispatch(entry, 50);
      await g.until(() => cancelled.state === 'suspended' && f.pending.size === 1, `the second ${kind} wait`);
      cancelled.cancel();
      await g.until(() => cancelled.finished, `the cancelled ${kind} task`);
      results[kind] = { waitingOn, first: waited.state, second: cancelled.state, left: f.pending.size };
      f.restore();
    }
    // And the real ones, once each.
    const real = [g.rt.dispatch('frame_once'), g.rt.dispatch('idle_once', 1000)];
    await g.until(() => real.every((x) => x.finished), 'the real frame and idle waits');
    await g.rt.close();
    return { results, out: g.out.join(''), stats: g.rt.stats() };
  }, undefined, { log });
  assert.deepEqual(r.results, {
    frame: { waitingOn: 'snail.frame_wait()', first: 'returned', second: 'cancelled', left: 0 },
    idle: { waitingOn: 'snail.idle_wait(50 ms)', first: 'returned', second: 'cancelled', left: 0 },
  });
  assert.equal(r.out, 'frame ok\nframe cancelled\nidle ok\nidle cancelled\nframe ok\nidle ok\n');
  assert.equal(r.stats.cancelled, 2);
});

test('fetch: cancelling a cpp fetch the server holds closes the request', async (t) => {
  const { page, log } = await hostPage(t);
  assert.equal(heldRequests(), 0);
  await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    g.task = g.rt.dispatch('fetch_arg1');
    await g.until(() => g.task.state === 'suspended', 'the fetch');
  }, undefined, { log });
  // The request reached the server, which holds it unanswered.
  await waitFor(() => heldRequests() === 1, 'the server to hold the request');
  const r = await runInPage(page, async () => {
    const g = /** @type {any} */ (globalThis);
    g.task.cancel();
    await g.until(() => g.task.finished, 'the cancelled fetch');
    return { state: g.task.state, out: g.out.join(''), armed: g.rt.stats().armedListeners };
  }, undefined, { log });
  assert.deepEqual(r, { state: 'cancelled', out: 'fetch cancelled 0 0\n', armed: 0 });
  // The browser aborted the request: the server saw its connection close.
  await waitFor(() => heldRequests() === 0, 'the held request to close');
  await runInPage(page, async () => { await /** @type {any} */ (globalThis).rt.close(); }, undefined, { log });
});

/**
 * Waits until `predicate()` holds: what it waits for happens in another
 * process (the browser's network stack), so the bound is time, and generous
 * (a turn count ran out on a loaded machine before the request arrived).
 * @param {() => boolean} predicate @param {string} what
 */
async function waitFor(predicate, what) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`gave up waiting for ${what} (30 s)`);
}
