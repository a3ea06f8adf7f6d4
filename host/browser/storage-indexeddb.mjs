// A StorageBackend (services.mjs) in IndexedDB, for the storage services in
// browsers: values survive page reloads and browser restarts.
//
//   import { IndexedDBStorage, Runtime } from 'snail-core';
//   const storage = new IndexedDBStorage({ database: 'my-app' });
//   const rt = await Runtime.load('app.wasm', { services: { storage } });
//
// Layout: one IndexedDB database (default "snail-core", or one per program
// with IndexedDBStorage.forProgram(name)) holding one object store, "entries",
// whose keys are the arrays [snail store, key] and whose values are the bytes.
// Snail stores are key prefixes rather than object stores of their own because
// creating an object store needs a version change, which every other open
// connection (another tab of the same page) would have to allow.
//
// Every operation runs in one IndexedDB transaction and settles when that
// transaction has finished. Aborting the signal before the transaction commits
// aborts it: nothing of the operation is done, and the promise rejects with the
// signal's reason. Once the transaction is committing, it can no longer be
// aborted: the operation is done, and the promise fulfils although the signal
// aborted. So a put either stores the whole new value (it fulfilled) or leaves
// the old one (it rejected), never part of it.
import { abortReason } from './adapters.mjs';
import { SnailError } from './errors.mjs';

/** The object store that holds every snail store. */
const ENTRIES = 'entries';
/** The schema version of the database. */
const VERSION = 1;

/**
 * @typedef {object} IndexedDBStorageOptions
 * @property {string} [database]  the IndexedDB database's name (default "snail-core")
 * @property {IDBFactory} [indexedDB]  the factory to use (default: the global indexedDB)
 * @property {IDBTransactionDurability} [durability]  the durability hint of
 *   read-write transactions (default "default": the browser's choice)
 */

/**
 * Storage for the host services in one IndexedDB database. Implements the
 * StorageBackend interface of services.mjs: every method takes the task's
 * AbortSignal first and honours it (the adapter contract).
 */
export class IndexedDBStorage {
  /**
   * A backend whose database is named after a program, so that programs served
   * from the same origin keep their stores apart.
   * @param {string} name  the program's name (Runtime's `name`, or any stable text)
   * @param {Omit<IndexedDBStorageOptions, 'database'>} [options]
   */
  static forProgram(name, options = {}) {
    return new IndexedDBStorage({ ...options, database: `snail-core:${name}` });
  }

  /** @param {IndexedDBStorageOptions} [options] */
  constructor(options = {}) {
    const factory = options.indexedDB ?? /** @type {any} */ (globalThis).indexedDB;
    if (!factory || typeof factory.open !== 'function') {
      throw new SnailError('IndexedDBStorage needs IndexedDB, which this host does not have; use MemoryStorage or another backend', { code: 'ERR_NO_INDEXEDDB' });
    }
    const database = options.database ?? 'snail-core';
    if (typeof database !== 'string' || database === '') {
      throw new SnailError('IndexedDBStorage: the database name must be a non-empty string', { code: 'ERR_ARG' });
    }
    /** The IndexedDB database's name. */
    this.database = database;
    /** @internal @type {IDBFactory} */
    this.factory = factory;
    /** @internal */
    this.durability = options.durability ?? 'default';
    /** @internal @type {Promise<IDBDatabase> | null} */
    this.connection = null;
    /** Transactions this backend started that have not finished (committed or aborted). @internal */
    this.pending = 0;
  }

  /**
   * Opens the database (creating it on first use). The connection is shared by
   * every operation and reopened after it closed.
   * @returns {Promise<IDBDatabase>}
   */
  open() {
    if (this.connection) return this.connection;
    /** @type {Promise<IDBDatabase>} */
    const connection = new Promise((resolve, reject) => {
      const request = this.factory.open(this.database, VERSION);
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains(ENTRIES)) db.createObjectStore(ENTRIES);
      };
      request.onsuccess = () => {
        const db = request.result;
        const forget = () => {
          if (this.connection === connection) this.connection = null;
        };
        // Another page that upgrades or deletes the database waits for us to
        // close; later operations open it again.
        db.onversionchange = () => { db.close(); forget(); };
        db.onclose = forget;
        resolve(db);
      };
      request.onerror = () => reject(request.error ?? new Error(`cannot open IndexedDB database "${this.database}"`));
    });
    this.connection = connection;
    connection.catch(() => {
      if (this.connection === connection) this.connection = null;
    });
    return connection;
  }

  /** Closes the connection; a later operation opens it again. */
  async close() {
    const connection = this.connection;
    this.connection = null;
    if (connection) (await connection.catch(() => null))?.close();
  }

  /**
   * The value stored under `key` in `store`, or undefined.
   * @param {AbortSignal} signal @param {string} store @param {string} key
   * @returns {Promise<Uint8Array | undefined>}
   */
  get(signal, store, key) {
    return this.transact(signal, 'readonly', (entries, result) => {
      const request = entries.get([store, key]);
      request.onsuccess = () => result(toBytes(request.result));
    });
  }

  /**
   * Stores `value` under `key` in `store`, atomically: when the promise
   * fulfils the whole value is stored; when it rejects the old value still is.
   * @param {AbortSignal} signal @param {string} store @param {string} key @param {Uint8Array} value
   * @returns {Promise<void>}
   */
  put(signal, store, key, value) {
    // put() clones the bytes synchronously, so the caller may reuse its buffer.
    return this.transact(signal, 'readwrite', (entries) => { entries.put(value, [store, key]); });
  }

  /**
   * Deletes `key` from `store`; true if it existed. Both the check and the
   * deletion are in one transaction.
   * @param {AbortSignal} signal @param {string} store @param {string} key
   * @returns {Promise<boolean>}
   */
  delete(signal, store, key) {
    return this.transact(signal, 'readwrite', (entries, result) => {
      const count = entries.count([store, key]);
      count.onsuccess = () => result(count.result > 0);
      entries.delete([store, key]);
    });
  }

  /**
   * The keys of `store` that start with `prefix`, sorted by UTF-16 code units
   * (JavaScript's default sort, and IndexedDB's key order).
   * @param {AbortSignal} signal @param {string} store @param {string} prefix
   * @returns {Promise<string[]>}
   */
  list(signal, store, prefix) {
    return this.transact(signal, 'readonly', (entries, result) => {
      /** @type {string[]} */
      const keys = [];
      result(keys);
      // An array sorts after every string, so [store, []] bounds the store's keys.
      const range = IDBKeyRange.bound([store, prefix], [store, []]);
      const cursor = entries.openKeyCursor(range);
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c) return;
        const k = /** @type {[string, string]} */ (c.key)[1];
        // Keys that start with the prefix are contiguous: stop at the first other.
        if (typeof k !== 'string' || !k.startsWith(prefix)) return;
        keys.push(k);
        c.continue();
      };
    });
  }

  /**
   * Runs `body` in one transaction over the entries and settles when the
   * transaction has finished: with the value body gave `result` once it
   * committed, or with an error once it aborted. The signal aborts the
   * transaction until it commits.
   * @private
   * @template T
   * @param {AbortSignal} signal @param {IDBTransactionMode} mode
   * @param {(entries: IDBObjectStore, result: (value: T) => void) => void} body
   * @returns {Promise<T>}
   * @internal
   */
  async transact(signal, mode, body) {
    if (signal.aborted) throw abortReason(signal);
    const db = await whileNotAborted(signal, this.open());
    return new Promise((resolve, reject) => {
      /** @type {IDBTransaction} */
      let tx;
      try {
        tx = mode === 'readwrite'
          ? db.transaction(ENTRIES, mode, { durability: this.durability })
          : db.transaction(ENTRIES, mode);
      } catch (error) {
        // The connection closed under us (versionchange): forget it.
        if (this.connection) this.close();
        reject(error);
        return;
      }
      this.pending++;
      /** @type {any} */
      let value;
      let settled = false;
      const finished = () => {
        settled = true;
        this.pending--;
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        try {
          tx.abort();
        } catch {
          // Already committing: the operation is done and 'complete' follows.
          return;
        }
        // abort() finishes the transaction and reverts its changes at once (the
        // 'abort' event only reports it, turns later), and every later
        // transaction sees the old state: settle now.
        finished();
        reject(abortReason(signal));
      };
      tx.oncomplete = () => {
        if (settled) return;
        finished();
        resolve(value);
      };
      tx.onabort = () => {
        if (settled) return;
        finished();
        reject(tx.error ?? new DOMException('the IndexedDB transaction was aborted', 'AbortError'));
      };
      // A failed request aborts the transaction (its error event is left
      // uncancelled on purpose), and onabort reports it: nothing was done.
      signal.addEventListener('abort', onAbort);
      try {
        body(tx.objectStore(ENTRIES), (v) => { value = v; });
      } catch (error) {
        // A synchronous failure (a key IndexedDB refuses): abort and say why.
        try { tx.abort(); } catch { /* finished already */ }
        if (!settled) {
          finished();
          reject(error);
        }
      }
    });
  }
}

/**
 * Awaits `promise` (a shared operation that the caller does not own, such as
 * opening the connection), rejecting as soon as the signal aborts.
 * @template T
 * @param {AbortSignal} signal @param {Promise<T>} promise
 * @returns {Promise<T>}
 */
function whileNotAborted(signal, promise) {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => { signal.removeEventListener('abort', onAbort); if (signal.aborted) reject(abortReason(signal)); else resolve(v); },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}

/** @param {unknown} v @returns {Uint8Array | undefined} */
function toBytes(v) {
  if (v === undefined) return undefined;
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  // Written by something else: the bytes of its text.
  return new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
}
