// IndexedDBStorage in the browser under test: the adapter contract for each operation, the
// C++ storage services on it, its key order, a page reload, and the guarantee
// of a cancelled put (done or not done, never half).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { BROWSER_NAME, openBlankPage, runInPage, useBrowser } from './harness.mjs';
import { cases as kitCases } from './idb-contract.mjs';

const env = useBrowser({ before, after });

describe(`IndexedDBStorage: adapter contract (${BROWSER_NAME})`, () => {
  // One page for the kit's cases, like one process runs them under Node.
  /** @type {Awaited<ReturnType<typeof openBlankPage>>} */
  let kit;
  before(async () => { kit = await openBlankPage(env.browser, env.server.url); });
  after(() => kit.page.close());
  for (const c of kitCases) {
    test(c.name, async () => {
      const result = await runInPage(kit.page, async (name) => {
        const { cases } = await import('/tests/browser/idb-contract.mjs');
        const found = cases.find((/** @type {{ name: string }} */ x) => x.name === name);
        if (!found) throw new Error(`no case "${name}"`);
        await found.run();
        return 'passed';
      }, c.name, { log: kit.log, what: c.name });
      assert.equal(result, 'passed');
    });
  }
});

test('IndexedDBStorage: the cpp storage round trip prints what it prints in memory', async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const r = await runInPage(page, async () => {
    const { IndexedDBStorage, MemoryStorage, Runtime } = await import('/host/browser/index.mjs');
    const run = async (/** @type {any} */ storage) => {
      const out = [];
      const rt = await Runtime.load('/build/programs/services.wasm', { services: { storage }, stdout: (x) => { out.push(x); } });
      const task = rt.dispatch('storage_roundtrip');
      await task.done;
      await rt.close();
      return { state: task.state, text: out.join(''), stats: rt.stats() };
    };
    const idb = new IndexedDBStorage({ database: 'roundtrip' });
    const inIdb = await run(idb);
    const inMemory = await run(new MemoryStorage());
    const signal = new AbortController().signal;
    const b = await idb.get(signal, 'prefs', 'b');
    return {
      inIdb, inMemory,
      b: b && new TextDecoder().decode(b),
      bIsBytes: b instanceof Uint8Array,
      lists: [await idb.list(signal, 'prefs', ''), await idb.list(signal, 'other', ''), await idb.list(signal, 'missing', '')],
      pending: idb.pending,
    };
  }, undefined, { log });
  assert.equal(r.inIdb.state, 'returned');
  assert.equal(r.inIdb.text, r.inMemory.text, 'the same statuses and values as MemoryStorage');
  assert.match(r.inIdb.text, /^put a ok\n/);
  assert.equal(r.b, 'twenty-two');
  assert.equal(r.bIsBytes, true);
  assert.deepEqual(r.lists, [['b'], ['a'], []]);
  assert.equal(r.pending, 0);
  assert.equal(r.inIdb.stats.armedListeners, 0);
});

test('IndexedDBStorage: list returns exactly the keys with the prefix, in the order MemoryStorage sorts them', async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const r = await runInPage(page, async () => {
    const { IndexedDBStorage, MemoryStorage } = await import('/host/browser/index.mjs');
    const signal = new AbortController().signal;
    const idb = new IndexedDBStorage({ database: 'ordering' });
    const mem = new MemoryStorage();
    // Keys around the prefixes' edges: the empty key, the prefix itself,
    // U+FFFF and astral characters after it, and the same keys in other stores.
    const keys = ['', 'a', 'a/', 'a/b', 'a/\uffff', 'a/\uffff\uffff', 'a/😀', 'a0', 'ab', 'b', 'B', 'é', '😀', 'a/z'];
    for (const store of ['s', 's2', '']) {
      for (const k of keys) {
        const v = new TextEncoder().encode(`${store}:${k}`);
        await idb.put(signal, store, k, v);
        await mem.put(signal, store, k, v);
      }
    }
    await idb.put(signal, 'sx', 'a/extra', new Uint8Array([1]));
    const prefixes = ['', 'a', 'a/', 'a/\uffff', 'b', 'z', '😀'];
    const results = [];
    for (const store of ['s', 's2', '', 'nothing']) {
      for (const p of prefixes) {
        results.push({ store, p, idb: await idb.list(signal, store, p), mem: await mem.list(signal, store, p) });
      }
    }
    return results;
  }, undefined, { log });
  for (const x of r) assert.deepEqual(x.idb, x.mem, `store "${x.store}", prefix "${x.p}"`);
  const s = r.find((x) => x.store === 's' && x.p === 'a/');
  assert.deepEqual(s?.idb, ['a/', 'a/b', 'a/z', 'a/😀', 'a/\uffff', 'a/\uffff\uffff']);
  assert.deepEqual(r.find((x) => x.store === 'nothing' && x.p === '')?.idb, []);
});

test('IndexedDBStorage: what a cpp task stored survives a page reload', async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  // The test closes the page itself, unless it fails first.
  t.after(() => (page.isClosed() ? undefined : page.close()));
  const visit = () => runInPage(page, async () => {
    const { IndexedDBStorage, Runtime } = await import('/host/browser/index.mjs');
    const out = [];
    const storage = new IndexedDBStorage({ database: 'reload' });
    const rt = await Runtime.load('/build/programs/browser_host.wasm', { services: { storage }, stdout: (x) => { out.push(x); } });
    const task = rt.dispatch('visits');
    await task.done;
    await rt.close();
    await storage.close();
    return { value: task.value, text: out.join('') };
  }, undefined, { log, what: 'visits' });
  assert.deepEqual(await visit(), { value: 1, text: 'visits ok 1\n' });
  await page.reload();
  assert.deepEqual(await visit(), { value: 2, text: 'visits ok 2\n' });
  // A new page of the same profile, after the first one is gone.
  await page.close();
  const second = await openBlankPage(env.browser, env.server.url);
  t.after(() => second.page.close());
  const r = await runInPage(second.page, async () => {
    const { IndexedDBStorage } = await import('/host/browser/index.mjs');
    const v = await new IndexedDBStorage({ database: 'reload' }).get(new AbortController().signal, 'page', 'visits');
    return v && new TextDecoder().decode(v);
  }, undefined, { log: second.log });
  assert.equal(r, '2');
});

test('IndexedDBStorage: a cancelled cpp put leaves the old value or the whole new one, never part', async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const r = await runInPage(page, async () => {
    const { IndexedDBStorage, Runtime } = await import('/host/browser/index.mjs');
    const { block } = await import('/tests/browser/idb-contract.mjs');
    const OLD = 1 << 20; // 1 MiB of 'o'
    const NEW = 8 << 20; // 8 MiB of 'n', put by the program
    const signal = new AbortController().signal;
    const storage = new IndexedDBStorage({ database: 'atomic' });
    const rt = await Runtime.load('/build/programs/browser_host.wasm', { services: { storage }, stdout: () => {} });
    const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
    const until = async (/** @type {() => boolean} */ p, /** @type {string} */ what, maxTurns = 2000) => {
      for (let i = 0; i < maxTurns; i++) {
        if (p()) return;
        await turn();
      }
      throw new Error(`gave up waiting for ${what}`);
    };
    const reset = () => storage.put(signal, 'atomic', 'big', new Uint8Array(OLD).fill(0x6f));
    /** What the store holds: 'old', 'new', or a description of anything else. */
    const check = async () => {
      const v = await storage.get(signal, 'atomic', 'big');
      if (!v) return 'missing';
      const byte = v.length === OLD ? 0x6f : v.length === NEW ? 0x6e : -1;
      if (byte < 0) return `half: ${v.length} bytes`;
      for (let i = 0; i < v.length; i++) if (v[i] !== byte) return `half: byte ${i} of ${v.length} is ${v[i]}`;
      return v.length === OLD ? 'old' : 'new';
    };
    // Resolves the moment the program's put reaches the backend.
    /** @type {() => void} */
    let putCalled = () => {};
    const put = storage.put.bind(storage);
    storage.put = (...args) => {
      const p = put(...args);
      putCalled();
      return p;
    };
    const putTask = async () => {
      const called = new Promise((resolve) => { putCalled = () => resolve(undefined); });
      const task = rt.dispatch('put_big', NEW);
      await called;
      return task;
    };

    // Cancelled before its transaction could commit (a blocker holds it back): not done.
    await reset();
    const db = await storage.open();
    const blocker = block(db);
    const blocked = await putTask();
    await until(() => storage.pending === 1, 'the put to wait behind the blocker');
    blocked.cancel();
    // The cancelled put must settle while its transaction is still held back.
    const settledWhileHeld = await until(() => blocked.finished, 'the cancelled put', 200).then(() => true, () => false);
    const pendingAfterCancel = storage.pending;
    await blocker.release();
    await blocked.done;
    const notDone = { state: blocked.state, value: blocked.value, holds: await check(), settledWhileHeld, pendingAfterCancel };

    // Not cancelled: the whole new value.
    await reset();
    const whole = rt.dispatch('put_big', NEW);
    await whole.done;
    const done = { state: whole.state, value: whole.value, holds: await check() };

    // Cancelled after 0, 1, 2, ... turns in flight: whichever happened, all or
    // nothing. After 0 turns the transaction cannot have committed yet. Turns
    // here are scheduler.postTask tasks, finer than setTimeout's.
    const sweep = [];
    const postTask = () => /** @type {any} */ (globalThis).scheduler.postTask(() => {});
    for (let turns = 0; turns < 16; turns++) {
      await reset();
      const task = await putTask();
      for (let i = 0; i < turns; i++) await postTask();
      task.cancel();
      await task.done;
      sweep.push({ turns, state: task.state, holds: await check() });
    }
    const close = await rt.close();
    return { notDone, done, sweep, stuck: close.stuck.length, stats: rt.stats(), pending: storage.pending };
  }, undefined, { log, timeoutMs: 120_000 });

  assert.deepEqual(r.notDone, { state: 'cancelled', value: 1, holds: 'old', settledWhileHeld: true, pendingAfterCancel: 0 },
    'a put cancelled before its commit is not done, and the cancelled task got status cancelled (1)');
  assert.deepEqual(r.done, { state: 'returned', value: 0, holds: 'new' });
  for (const s of r.sweep) {
    // A cancel that came after the task had returned changes nothing.
    if (s.state === 'returned') assert.equal(s.holds, 'new', `the put returned ok after ${s.turns} turns`);
    else assert.equal(s.state, 'cancelled', `cancelled after ${s.turns} turns`);
    assert.ok(s.holds === 'old' || s.holds === 'new', `after a cancel ${s.turns} turns in, the store holds ${s.holds}`);
  }
  assert.equal(r.sweep[0].holds, 'old', 'a cancel in the turn the put started aborts its transaction');
  const outcomes = r.sweep.map((s) => `${s.turns}:${s.state === 'returned' ? 'returned' : s.holds}`).join(' ');
  t.diagnostic(`cancel after N turns -> store holds: ${outcomes}`);
  console.log(`IndexedDB cancelled 8 MiB put, by turns of flight before the cancel: ${outcomes}`);
  assert.equal(r.pending, 0);
  assert.equal(r.stuck, 0);
  assert.equal(r.stats.armedListeners, 0);
});

test('IndexedDBStorage: refuses a host without IndexedDB and keeps programs apart by database', async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const r = await runInPage(page, async () => {
    const { IndexedDBStorage } = await import('/host/browser/index.mjs');
    let refused = null;
    try {
      new IndexedDBStorage({ indexedDB: /** @type {any} */ ({}) });
    } catch (e) {
      refused = /** @type {any} */ (e).code;
    }
    const signal = new AbortController().signal;
    const a = IndexedDBStorage.forProgram('/a.wasm');
    const b = IndexedDBStorage.forProgram('/b.wasm');
    await a.put(signal, 's', 'k', new Uint8Array([1]));
    const aborted = new AbortController();
    aborted.abort(new Error('already'));
    const early = await a.get(aborted.signal, 's', 'k').then(() => 'fulfilled', (e) => e.message);
    return {
      refused,
      names: [a.database, b.database],
      inA: Array.from(await a.get(signal, 's', 'k') ?? []),
      inB: await b.get(signal, 's', 'k'),
      early,
      databases: (await indexedDB.databases()).map((d) => d.name).sort(),
    };
  }, undefined, { log });
  assert.equal(r.refused, 'ERR_NO_INDEXEDDB');
  assert.deepEqual(r.names, ['snail-core:/a.wasm', 'snail-core:/b.wasm']);
  assert.deepEqual(r.inA, [1]);
  assert.equal(r.inB, undefined);
  assert.equal(r.early, 'already');
  assert.ok(r.databases.includes('snail-core:/a.wasm') && r.databases.includes('snail-core:/b.wasm'));
});
