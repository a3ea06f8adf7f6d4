// The adapter contract kit run against every operation of IndexedDBStorage, in
// a page (tests/browser/storage-indexeddb.test.mjs imports this in Node only
// for the case names).
//
// An IndexedDB operation completes by itself, within a turn or two. To hold
// one open until the case says, a read-write transaction over the same object
// store (a *blocker*) is kept alive by a chain of requests: IndexedDB runs
// overlapping transactions in the order they were created, so the operation's
// transaction waits behind it. `complete` releases the blocker.
import { adapterContract } from '../../host/browser/adapter-contract.mjs';
import { IndexedDBStorage } from '../../host/browser/storage-indexeddb.mjs';

/** The object store IndexedDBStorage keeps its entries in (its documented layout). */
const ENTRIES = 'entries';

/**
 * Starts a read-write transaction over the entries that stays open until
 * `release()`; `finished` resolves when it has committed.
 * @param {IDBDatabase} db
 */
export function block(db) {
  const tx = db.transaction(ENTRIES, 'readwrite');
  const entries = tx.objectStore(ENTRIES);
  let released = false;
  const spin = () => {
    if (!released) entries.get(['blocker', '']).onsuccess = spin;
  };
  spin();
  const finished = new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve(undefined);
    tx.onabort = () => reject(tx.error);
  });
  return {
    finished,
    release: () => {
      released = true;
      return finished;
    },
  };
}

/** @type {IndexedDBStorage | null} */
let storage = null;
/** @type {IDBDatabase | null} */
let db = null;
/** @type {ReturnType<typeof block> | null} */
let blocker = null;

async function releaseBlocker() {
  const b = blocker;
  blocker = null;
  if (b) await b.release();
}

const signal = () => new AbortController().signal;
const bytes = (/** @type {string} */ text) => new TextEncoder().encode(text);

/**
 * The operations under test: each starts one operation behind a fresh blocker.
 * @type {{ name: string, start: (s: IndexedDBStorage, signal: AbortSignal) => Promise<unknown> }[]}
 */
const operations = [
  { name: 'get', start: (s, sig) => s.get(sig, 'kit', 'a') },
  { name: 'put', start: (s, sig) => s.put(sig, 'kit', 'b', bytes('value of b')) },
  { name: 'delete', start: (s, sig) => s.delete(sig, 'kit', 'c') },
  { name: 'list', start: (s, sig) => s.list(sig, 'kit', '') },
];

/** @type {{ name: string, run: () => Promise<void> }[]} */
export const cases = operations.flatMap((op) => adapterContract({
  name: `IndexedDBStorage.${op.name}`,
  start: (sig) => {
    const s = /** @type {IndexedDBStorage} */ (storage);
    // A new blocker for every operation; the previous one (an aborted case's)
    // is released by the case's wrapper.
    blocker = block(/** @type {IDBDatabase} */ (db));
    return op.start(s, sig);
  },
  complete: () => releaseBlocker(),
  // Its open transactions: what the operation holds until it settles.
  armed: () => (storage ? storage.pending : 0),
  // An operation's transaction is created a microtask after the call (the
  // connection is awaited), and the kit aborts one turn later.
  promptTurns: 2,
}).map((c) => ({
  name: c.name,
  run: async () => {
    if (!storage) {
      storage = new IndexedDBStorage({ database: 'snail-core-kit' });
      db = await storage.open();
      await storage.put(signal(), 'kit', 'a', bytes('a'));
    }
    try {
      await c.run();
    } finally {
      await releaseBlocker();
    }
  },
})));
