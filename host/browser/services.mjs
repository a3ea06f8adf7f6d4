// Host services: events, storage, fetch, frames, files and standard input as
// suspending imports of module "snail", with status results (docs/abi.md,
// "Host services"). Each is an adapter on the same bridge path as every other
// wait. A service the host does not have, or a permission the embedder did not
// grant, is the status `denied`, never a crash. Their types are part of the
// ABI's tables (abi.mjs, SERVICE_IMPORTS).
//
// Strings and bytes cross the boundary as (pointer, length) pairs in the
// program's memory. A value for the program is delivered through an *out cell*
// (two u32: pointer, length) the program passes: the runtime allocates the
// buffer with the program's `snail.alloc` export only when the task holds the
// permit again, so a result that is never delivered never touches its memory.
import { adapter, emitterEvent, eventOf } from './adapters.mjs';
import { SnailError } from './errors.mjs';
import { Status } from './status.mjs';

/**
 * An operation failed in a way the program should see as a status.
 */
export class ServiceError extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(message);
    this.name = 'ServiceError';
    this.status = status;
  }
}

/**
 * The status an operation's error becomes: its own for errors that carry one
 * (ServiceError, ModuleLoadError), else failed.
 * @param {unknown} error
 */
export function statusOfError(error) {
  const status = /** @type {any} */ (error)?.status;
  const own = error instanceof ServiceError || (error instanceof SnailError && error.code === 'ERR_MODULE');
  if (own && typeof status === 'number') return status;
  return Status.failed;
}

/**
 * A storage backend: named stores of byte values under string keys. Every
 * method is an adapter (it takes the task's AbortSignal first). `put` is
 * atomic: after it settles, the whole new value is stored, or, if it rejected
 * or was aborted, the old one still is.
 * @typedef {object} StorageBackend
 * @property {(signal: AbortSignal, store: string, key: string) => Promise<Uint8Array | undefined>} get
 * @property {(signal: AbortSignal, store: string, key: string, value: Uint8Array) => Promise<void>} put
 * @property {(signal: AbortSignal, store: string, key: string) => Promise<boolean>} delete  true if it existed
 * @property {(signal: AbortSignal, store: string, prefix: string) => Promise<string[]>} list  sorted keys
 */

/** A storage backend in memory: for tests, and the default where nothing durable is configured. */
export class MemoryStorage {
  constructor() {
    /** @type {Map<string, Map<string, Uint8Array>>} @internal */
    this.stores = new Map();
  }
  /** @param {string} store @internal */
  of(store) {
    let s = this.stores.get(store);
    if (!s) this.stores.set(store, (s = new Map()));
    return s;
  }
  /** @param {AbortSignal} signal @param {string} store @param {string} key */
  async get(signal, store, key) {
    signal.throwIfAborted();
    const v = this.of(store).get(key);
    return v && v.slice();
  }
  /** @param {AbortSignal} signal @param {string} store @param {string} key @param {Uint8Array} value */
  async put(signal, store, key, value) {
    signal.throwIfAborted();
    this.of(store).set(key, value.slice());
  }
  /** @param {AbortSignal} signal @param {string} store @param {string} key */
  async delete(signal, store, key) {
    signal.throwIfAborted();
    return this.of(store).delete(key);
  }
  /** @param {AbortSignal} signal @param {string} store @param {string} prefix */
  async list(signal, store, prefix) {
    signal.throwIfAborted();
    return [...this.of(store).keys()].filter((k) => k.startsWith(prefix)).sort();
  }
}

/**
 * Named event sources the program can wait on with `snail.event_wait`:
 * an EventTarget event ("click" on a button), a message port, a Node
 * EventEmitter event, a process signal.
 */
export class EventRegistry {
  constructor() {
    /** @type {Map<string, { source: any, type: string, filter?: (e: any) => boolean, detail?: (e: any) => unknown, release?: () => void }>} @internal */
    this.sources = new Map();
    /** Why registrations are refused (the runtime closed), or null. @type {string | null} @internal */
    this.refusal = null;
  }

  /**
   * Registers an event source under `name`. Returns a function that removes it.
   * @param {string} name  the name programs wait on ("click #save")
   * @param {EventTarget | { on: Function }} source  an EventTarget or an EventEmitter
   * @param {string} type  the event type ("click", "message", "data")
   * @param {{ filter?(event: Event): boolean, detail?(event: Event | unknown[]): unknown, release?(): void }} [options]
   *   `detail` maps the event to what the program receives (default: a
   *   CustomEvent's detail, a MessageEvent's data, an emitter's first argument);
   *   `release` runs once when the registration goes, by the returned function
   *   or when the runtime closes (a queue stops listening). After close() a
   *   registration is refused (ERR_CLOSED), and its `release` runs at once.
   */
  register(name, source, type, options = {}) {
    if (typeof name !== 'string' || name === '') throw new SnailError('events.register() needs a non-empty name', { code: 'ERR_ARG' });
    if (this.refusal !== null) {
      // Nothing could ever wait on it, and close() released the others: a
      // queue made for it stops listening at once.
      let cause;
      try {
        options?.release?.();
      } catch (error) {
        cause = error;
      }
      throw new SnailError(`events.register("${name}"): ${this.refusal}`, { code: 'ERR_CLOSED', cause });
    }
    const isTarget = typeof (/** @type {any} */ (source)?.addEventListener) === 'function';
    const isEmitter = typeof (/** @type {any} */ (source)?.on) === 'function';
    if (!isTarget && !isEmitter) {
      throw new SnailError(`events.register("${name}"): the source is neither an EventTarget nor an EventEmitter`, { code: 'ERR_ARG' });
    }
    if (this.sources.has(name)) throw new SnailError(`events.register(): "${name}" is already registered`, { code: 'ERR_ARG' });
    const entry = { source, type, ...options };
    this.sources.set(name, entry);
    return () => {
      if (this.sources.get(name) !== entry) return;
      this.sources.delete(name);
      entry.release?.();
    };
  }

  /**
   * Refuses every later registration, with `why` as the reason: the runtime
   * is closing, and nothing will wait on an event again.
   * @param {string} why
   * @internal
   */
  refuse(why) {
    this.refusal = why;
  }

  /**
   * Removes every registration, running each one's `release`: the runtime
   * closed, so nothing waits on them any more.
   */
  clear() {
    const entries = [...this.sources.values()];
    this.sources.clear();
    for (const entry of entries) entry.release?.();
  }

  /** @param {string} name */
  has(name) {
    return this.sources.has(name);
  }

  /** The registered names, sorted. */
  names() {
    return [...this.sources.keys()].sort();
  }

  /**
   * Waits for the next event of `name` and resolves with its detail.
   * @param {AbortSignal} signal @param {string} name
   * @returns {Promise<unknown>}
   */
  async wait(signal, name) {
    const entry = this.sources.get(name);
    if (!entry) throw new ServiceError(Status.invalid, `no event source is registered as "${name}"`);
    if (typeof entry.source.addEventListener === 'function') {
      const event = await eventOf(signal, entry.source, entry.type, { filter: entry.filter });
      if (entry.detail) return entry.detail(event);
      const e = /** @type {any} */ (event);
      return e.detail !== undefined ? e.detail : e.data;
    }
    const args = await emitterEvent(signal, entry.source, entry.type);
    return entry.detail ? entry.detail(args) : args[0];
  }
}

/**
 * Permissions the embedder grants. Nothing is granted by default.
 * @typedef {object} Permissions
 * @property {string[]} [net]  hosts (host or host:port) `snail.fetch` may reach; '*' for any
 */

/**
 * Services a host provides beyond the environment-neutral ones.
 * @typedef {object} HostServices
 * @property {StorageBackend} [storage]  the storage backend (default: in memory)
 * @property {{ read: (signal: AbortSignal, path: string) => Promise<Uint8Array>,
 *              write: (signal: AbortSignal, path: string, data: Uint8Array) => Promise<void> }} [files]
 *   file access, under the host's own permission checks (Node)
 * @property {{ line: (signal: AbortSignal) => Promise<string | null>, unread?: (line: string) => void }} [stdin]  lines of
 *   standard input; `unread` takes back a line that was read for a task cancelled before it got it
 */

/**
 * The program's memory as the services see it.
 */
export class ProgramMemory {
  constructor() {
    /** @type {WebAssembly.Memory | null} */
    this.memory = null;
    /** @type {((size: number) => number) | null} */
    this.alloc = null;
  }

  /** @param {WebAssembly.Instance} instance */
  attach(instance) {
    const x = /** @type {Record<string, any>} */ (instance.exports);
    this.memory = x.memory instanceof WebAssembly.Memory ? x.memory : null;
    this.alloc = typeof x['snail.alloc'] === 'function' ? x['snail.alloc'] : null;
  }

  /** A copy of `len` bytes at `ptr`. @param {number} ptr @param {number} len */
  bytes(ptr, len) {
    if (!this.memory) throw new ServiceError(Status.invalid, 'the program exports no memory');
    const buffer = this.memory.buffer;
    ptr >>>= 0;
    len >>>= 0;
    if (ptr + len > buffer.byteLength) throw new ServiceError(Status.invalid, `bytes ${ptr}..${ptr + len} are outside the program's memory`);
    return new Uint8Array(buffer, ptr, len).slice();
  }

  /** @param {number} ptr @param {number} len */
  string(ptr, len) {
    return new TextDecoder('utf-8', { fatal: false }).decode(this.bytes(ptr, len));
  }

  /**
   * Delivers bytes through an out cell: allocates them in the program and
   * writes (pointer, length) at `out`. An out of 0 means the program does not
   * want the value. Returns a status.
   * @param {number} out @param {Uint8Array} data
   */
  deliver(out, data) {
    if (out === 0) return Status.ok;
    if (!this.memory || !this.alloc) return Status.failed;
    if (out + 8 > this.memory.buffer.byteLength) return Status.invalid;
    const ptr = data.length === 0 ? 0 : this.alloc(data.length) >>> 0;
    if (data.length !== 0 && ptr === 0) return Status.failed;
    // Read after the allocation, which may have grown the memory.
    const buffer = this.memory.buffer;
    if (ptr + data.length > buffer.byteLength) {
      // The program's allocator is broken: a bug in the program, like a trap.
      throw new RangeError(`snail.alloc(${data.length}) returned ${ptr}, but bytes ${ptr}..${ptr + data.length} are outside the program's memory (${buffer.byteLength} bytes); the value could not be delivered`);
    }
    new Uint8Array(buffer, ptr, data.length).set(data);
    const view = new DataView(buffer);
    view.setUint32(out, ptr, true);
    view.setUint32(out + 4, data.length, true);
    return Status.ok;
  }
}

/**
 * A storage key as the program gave it: storage_list delivers keys one per
 * line, so a key may not contain a newline (the call returns invalid).
 * @param {string} key
 */
function storageKey(key) {
  if (key.includes('\n')) throw new ServiceError(Status.invalid, `storage key ${JSON.stringify(key)} contains a newline; storage_list separates keys by newlines, so keys may not contain one`);
  return key;
}

/** @param {unknown} value @returns {Uint8Array} */
function encodeValue(value) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value === undefined || value === null) return new Uint8Array(0);
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return new TextEncoder().encode(text);
}

/** @param {Permissions} permissions @param {string} url */
function netAllowed(permissions, url) {
  const allowed = permissions.net ?? [];
  if (allowed.includes('*')) return true;
  let parsed;
  try {
    parsed = new URL(url, /** @type {any} */ (globalThis).location?.href);
  } catch {
    return false;
  }
  return allowed.includes(parsed.host) || allowed.includes(parsed.hostname);
}

/** A network grant: '*', or a host with an optional port. */
const NET_GRANT = /^(\*|\[[0-9A-Fa-f:.]+\](:\d{1,5})?|[A-Za-z0-9._-]+(:\d{1,5})?)$/;

/**
 * Checks a list of network grants (permissions.net, nodeHost's allowNet): a
 * URL or a path in it would never match a host, so it is refused.
 * @param {unknown} list @param {string} where  the option, for messages
 * @returns {string[]}
 */
export function checkNetGrants(list, where) {
  if (!Array.isArray(list)) throw new SnailError(`${where} takes a list of hosts (host, host:port or '*')`, { code: 'ERR_OPTION' });
  for (const entry of list) {
    if (typeof entry === 'string' && NET_GRANT.test(entry)) continue;
    let hint = '';
    try {
      if (typeof entry === 'string' && entry.includes('//')) hint = `; write ${JSON.stringify(new URL(entry).host)}`;
    } catch {
      // Not a URL either: no hint.
    }
    throw new SnailError(`${where} takes hosts (host, host:port or '*'), got ${JSON.stringify(entry)}${hint}`, { code: 'ERR_OPTION' });
  }
  return /** @type {string[]} */ (list);
}

/** How many redirects a fetch follows, as browsers do. */
const MAX_REDIRECTS = 20;

/**
 * Fetches `url`, following redirects only to granted hosts: each hop is
 * checked before it is requested, so a granted host cannot lead the program
 * to one that was not granted. A page cannot see where a redirect leads
 * before following it (the response is opaque), so there a redirect is
 * followed only when every host is granted ('*').
 * @param {AbortSignal} signal @param {string} url @param {Permissions} permissions
 * @returns {Promise<{ code: number, body: Uint8Array }>}
 */
async function fetchWithinGrant(signal, url, permissions) {
  // With every host granted, the engine follows the redirects itself.
  const redirect = (permissions.net ?? []).includes('*') ? 'follow' : 'manual';
  let current = new URL(url, /** @type {any} */ (globalThis).location?.href).href;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const response = await fetch(current, { signal, redirect });
    if (response.type === 'opaqueredirect') {
      throw new ServiceError(Status.denied, `${current} redirects, and a page cannot see where before it follows; grant every host ('*' in permissions.net) to follow redirects`);
    }
    const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
    if (location === null) return { code: response.status, body: new Uint8Array(await response.arrayBuffer()) };
    await response.body?.cancel();
    const next = new URL(location, current).href;
    if (!netAllowed(permissions, next)) {
      throw new ServiceError(Status.denied, `${current} redirects to ${next}, whose host was not granted (permissions.net)`);
    }
    current = next;
  }
  throw new ServiceError(Status.failed, `${url}: more than ${MAX_REDIRECTS} redirects`);
}

/**
 * The service imports of module "snail" for one runtime.
 * @param {import('./bridge.mjs').Bridge} bridge
 * @param {{ memory: ProgramMemory, events: EventRegistry, services: HostServices, permissions: Permissions,
 *           modules: () => import('./modules.mjs').ModuleLoader }} host
 */
export function serviceImports(bridge, host) {
  const { memory, events, services, permissions } = host;
  const storage = services.storage ?? new MemoryStorage();
  const g = /** @type {any} */ (globalThis);
  const base = {
    cancelled: Status.cancelled,
    failed: (/** @type {unknown} */ e) => statusOfError(e),
  };
  /** A value delivered through the out cell at `out`. */
  const intoOut = (/** @type {number} */ out) => (/** @type {unknown} */ value) => memory.deliver(out, encodeValue(value));
  const denied = (/** @type {string} */ why) => { throw new ServiceError(Status.denied, why); };

  /**
   * A service import: `prepare` decodes the arguments at the call into what the
   * wait needs (a description, the operation, the delivery of its value).
   * @param {string} name
   * @param {(args: any[]) => { describe: string, operation: (signal: AbortSignal) => Promise<unknown> | unknown,
   *   accept: (v: unknown) => unknown, onError?: (e: unknown) => unknown }} prepare
   * @param {{ discard?: (result: any) => void }} [extra]  the disposer of a value never delivered
   */
  const service = (name, prepare, extra = {}) => bridge.suspending({
    ...base,
    ...extra,
    name: `snail.${name}`,
    prepare: (args) => [prepare(args)],
    describe: ([p]) => p.describe,
    operation: (signal, _task, [p]) => Promise.resolve().then(() => p.operation(signal)),
    accept: (value, _task, [p]) => p.accept(value),
    failed: (error, _task, args) => {
      const p = args?.[0];
      return p?.onError ? p.onError(error) : statusOfError(error);
    },
  });

  return {
    event_wait: service('event_wait', ([p, l, out]) => {
      const name = memory.string(p, l);
      return {
        describe: `snail.event_wait("${name}")`,
        operation: (signal) => events.wait(signal, name),
        accept: intoOut(out),
      };
    }),
    storage_get: service('storage_get', ([sp, sl, kp, kl, out]) => {
      const store = memory.string(sp, sl);
      const key = storageKey(memory.string(kp, kl));
      return {
        describe: `snail.storage_get("${store}", "${key}")`,
        operation: async (signal) => {
          const v = await storage.get(signal, store, key);
          if (v === undefined) throw new ServiceError(Status.not_found, `no key "${key}" in store "${store}"`);
          return v;
        },
        accept: intoOut(out),
      };
    }),
    storage_put: service('storage_put', ([sp, sl, kp, kl, vp, vl]) => {
      const store = memory.string(sp, sl);
      const key = storageKey(memory.string(kp, kl));
      const value = memory.bytes(vp, vl);
      return {
        describe: `snail.storage_put("${store}", "${key}", ${value.length} bytes)`,
        operation: (signal) => storage.put(signal, store, key, value),
        accept: () => Status.ok,
      };
    }),
    storage_delete: service('storage_delete', ([sp, sl, kp, kl]) => {
      const store = memory.string(sp, sl);
      const key = storageKey(memory.string(kp, kl));
      return {
        describe: `snail.storage_delete("${store}", "${key}")`,
        operation: (signal) => storage.delete(signal, store, key),
        accept: (existed) => (existed ? Status.ok : Status.not_found),
      };
    }),
    storage_list: service('storage_list', ([sp, sl, pp, pl, out]) => {
      const store = memory.string(sp, sl);
      const prefix = memory.string(pp, pl);
      return {
        describe: `snail.storage_list("${store}", "${prefix}")`,
        operation: (signal) => storage.list(signal, store, prefix),
        accept: (keys) => intoOut(out)(/** @type {string[]} */ (keys).join('\n')),
      };
    }),
    fetch: service('fetch', ([up, ul, out, codePtr]) => {
      const url = memory.string(up, ul);
      return {
        describe: `snail.fetch("${url}")`,
        operation: async (signal) => {
          if (typeof g.fetch !== 'function') denied('this host has no fetch');
          if (!netAllowed(permissions, url)) denied(`network access to ${url} was not granted (permissions.net)`);
          return fetchWithinGrant(signal, url, permissions);
        },
        accept: (r) => {
          const { code, body } = /** @type {{ code: number, body: Uint8Array }} */ (r);
          if (codePtr !== 0 && memory.memory) new DataView(memory.memory.buffer).setInt32(codePtr, code, true);
          return memory.deliver(out, body);
        },
      };
    }),
    frame_wait: service('frame_wait', () => ({
      describe: 'snail.frame_wait()',
      operation: (signal) => {
        if (typeof g.requestAnimationFrame !== 'function') denied('this host has no animation frames');
        return new Promise((resolve, reject) => {
          if (signal.aborted) return reject(signal.reason);
          const onAbort = () => { g.cancelAnimationFrame(id); reject(signal.reason); };
          const id = g.requestAnimationFrame((/** @type {number} */ t) => { signal.removeEventListener('abort', onAbort); resolve(t); });
          signal.addEventListener('abort', onAbort, { once: true });
          return undefined;
        });
      },
      accept: () => Status.ok,
    })),
    idle_wait: service('idle_wait', ([timeoutMs]) => ({
      describe: `snail.idle_wait(${timeoutMs} ms)`,
      operation: (signal) => {
        if (typeof g.requestIdleCallback !== 'function') denied('this host has no idle callbacks');
        return new Promise((resolve, reject) => {
          if (signal.aborted) return reject(signal.reason);
          const onAbort = () => { g.cancelIdleCallback(id); reject(signal.reason); };
          const options = timeoutMs > 0 ? { timeout: timeoutMs } : undefined;
          const id = g.requestIdleCallback(() => { signal.removeEventListener('abort', onAbort); resolve(undefined); }, options);
          signal.addEventListener('abort', onAbort, { once: true });
          return undefined;
        });
      },
      accept: () => Status.ok,
    })),
    file_read: service('file_read', ([pp, pl, out]) => {
      const path = memory.string(pp, pl);
      return {
        describe: `snail.file_read("${path}")`,
        operation: (signal) => (services.files ? services.files.read(signal, path) : denied('this host has no file system')),
        accept: intoOut(out),
      };
    }),
    file_write: service('file_write', ([pp, pl, dp, dl]) => {
      const path = memory.string(pp, pl);
      const data = memory.bytes(dp, dl);
      return {
        describe: `snail.file_write("${path}", ${data.length} bytes)`,
        operation: (signal) => (services.files ? services.files.write(signal, path, data) : denied('this host has no file system')),
        accept: () => Status.ok,
      };
    }),
    module_load: service('module_load', ([np, nl, handleOut, errorOut]) => {
      const name = memory.string(np, nl);
      // The name counts as being loaded from this call on, before the wait's
      // operation starts (a microtask later): a load of the name JavaScript
      // begins meanwhile shares this one instead of starting its own. The
      // resolver itself is asked from a microtask, outside the task's Wasm.
      const loading = host.modules().loadByName(name);
      loading.catch(() => {}); // reported by the operation, unless the wait was cancelled first
      return {
        describe: `snail.module_load("${name}")`,
        // The load is shared by every task that loads the name (and by
        // JavaScript): a cancelled task stops waiting for it at once, and the
        // load goes on for the others, recorded if it succeeds.
        operation: (signal) => adapter(signal, ({ resolve, reject }) => {
          loading.then((record) => resolve(record.handle), reject);
        }),
        accept: (handle) => {
          if (handleOut !== 0 && memory.memory) new DataView(memory.memory.buffer).setInt32(handleOut, /** @type {number} */ (handle), true);
          return Status.ok;
        },
        // The loading task learns why: the message goes to its error cell.
        onError: (error) => {
          memory.deliver(errorOut, new TextEncoder().encode(error instanceof Error ? error.message : String(error)));
          return statusOfError(error);
        },
      };
    }),
    module_function: (/** @type {number} */ handle, /** @type {number} */ np, /** @type {number} */ nl) => {
      let name;
      try {
        name = memory.string(np, nl);
      } catch {
        return -Status.invalid;
      }
      const index = host.modules().functionIndex(handle, name);
      return index === -2 ? -Status.invalid : index === -1 ? -Status.not_found : index;
    },
    stdin_line: service('stdin_line', ([out]) => ({
      describe: 'snail.stdin_line()',
      operation: async (signal) => {
        const stdin = services.stdin;
        if (!stdin) return denied('this host has no standard input');
        const line = await stdin.line(signal);
        if (line === null) throw new ServiceError(Status.closed, 'standard input is at its end');
        return line;
      },
      accept: intoOut(out),
    }), {
      // A line read for a task that was cancelled before it got it goes back
      // to the head of the input, for the next wait.
      discard: (line) => {
        if (typeof line === 'string') services.stdin?.unread?.(line);
      },
    }),
  };
}
