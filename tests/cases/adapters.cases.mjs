// The adapter contract kit (snail-core/adapter-contract) run against every
// adapter snail-core ships, in Node and in Chromium.
import { adapterContract } from '../../host/browser/adapter-contract.mjs';
import { armed, emitterEvent, eventOf, fetchResponse, timer } from '../../host/browser/index.mjs';

/** The resources our adapters have armed, process-wide. */
const ours = () => armed.listeners + armed.timers;

/** A minimal emitter with on/off, like Node's EventEmitter, for any environment. */
class MiniEmitter {
  constructor() {
    /** @type {Map<string, Set<Function>>} */
    this.listeners = new Map();
  }
  /** @param {string} name @param {Function} fn */
  on(name, fn) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    /** @type {Set<Function>} */ (this.listeners.get(name)).add(fn);
    return this;
  }
  /** @param {string} name @param {Function} fn */
  off(name, fn) {
    this.listeners.get(name)?.delete(fn);
    return this;
  }
  /** @param {string} name @param {...unknown} args */
  emit(name, ...args) {
    for (const fn of [...(this.listeners.get(name) ?? [])]) fn(...args);
  }
  count() {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}

const target = new EventTarget();
let targetListeners = 0;
const add = target.addEventListener.bind(target);
const remove = target.removeEventListener.bind(target);
target.addEventListener = (type, fn, opts) => { targetListeners++; add(type, fn, opts); };
target.removeEventListener = (type, fn, opts) => { targetListeners--; remove(type, fn, opts); };

const emitter = new MiniEmitter();

let fetchId = 0;
let currentFetch = '';
/** @type {string} */
let httpBase = '';

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  ...adapterContract({
    name: 'timer',
    start: (signal) => timer(signal, 5, 'rang'),
    armed: ours,
  }),
  ...adapterContract({
    name: 'eventOf on an EventTarget',
    start: (signal) => eventOf(signal, target, 'ping'),
    complete: () => { target.dispatchEvent(new Event('ping')); },
    armed: () => ours() + targetListeners,
  }),
  ...adapterContract({
    name: 'emitterEvent on an emitter',
    start: (signal) => emitterEvent(signal, emitter, 'data'),
    complete: () => { emitter.emit('data', 1, 2); },
    armed: () => ours() + emitter.count(),
  }),
  ...adapterContract({
    name: 'fetchResponse',
    start: (signal) => {
      currentFetch = `kit-${++fetchId}`;
      return fetchResponse(signal, `${httpBase}/hold?id=${currentFetch}`);
    },
    complete: async () => {
      await fetch(`${httpBase}/release?id=${currentFetch}`).then((r) => r.text());
    },
    // A fetch arms nothing the page can count; its signal listeners are checked.
    armed: ours,
  }),
].map((c) => ({
  name: c.name,
  /** @param {import('./support.mjs').CaseContext} ctx */
  run: async (ctx) => {
    httpBase = ctx.httpBase;
    await c.run(ctx);
  },
}));
