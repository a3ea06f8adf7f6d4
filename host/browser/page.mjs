// Helpers for pages that let tasks wait on their events (snail.event_wait,
// C++ snail::wait_event): a selector and an event type, message ports, and
// queues that keep events no task was waiting for.
//
//   import { registerPort, registerSelector } from 'snail-core';
//   registerSelector(rt.events, 'click #save', '#save', 'click');
//   registerPort(rt.events, 'worker', worker);
//
// A plain registration (rt.events.register, registerSelector) is edge-triggered,
// like addEventListener: a task receives the events that happen while it waits,
// and an event nobody waits for is gone. A queued registration (registerPort,
// registerQueued) keeps events that arrive while no task waits and gives each
// event to exactly one waiting task, oldest waiter first, so a task that waits
// in a loop misses nothing between two waits.
import { microtask } from './promises.mjs';

/**
 * @typedef {import('./services.mjs').EventRegistry} EventRegistry
 * @typedef {{ filter?(event: Event): boolean, detail?(event: Event): unknown }} RegisterOptions
 */

/**
 * What a program receives for a DOM event by default: a small JSON-able
 * summary. `type`; the target's `id` and `tag` (and its `data-*` attributes
 * as `data`); `x`, `y` (client coordinates) and `button` for mouse and pointer
 * events; `key` and `code` for keyboard events; `value` for form controls; a
 * CustomEvent's `detail`; a MessageEvent's `data`.
 * @param {Event} event
 * @param {Element | null} [element]  the element to describe (default: the target)
 * @returns {Record<string, unknown>}
 */
export function eventDetail(event, element) {
  const g = /** @type {any} */ (globalThis);
  const e = /** @type {any} */ (event);
  /** @type {Record<string, unknown>} */
  const out = { type: event.type };
  const el = element ?? (g.Element && event.target instanceof g.Element ? /** @type {Element} */ (event.target) : null);
  if (el) {
    if (el.id) out.id = el.id;
    out.tag = el.tagName.toLowerCase();
    const data = /** @type {any} */ (el).dataset;
    if (data && Object.keys(data).length) out.data = { ...data };
    if ('value' in el && typeof (/** @type {any} */ (el).value) === 'string' && el.tagName !== 'BUTTON') out.value = /** @type {any} */ (el).value;
  }
  if (g.MouseEvent && event instanceof g.MouseEvent) {
    out.x = e.clientX;
    out.y = e.clientY;
    out.button = e.button;
  }
  if (g.KeyboardEvent && event instanceof g.KeyboardEvent) {
    out.key = e.key;
    out.code = e.code;
  }
  if (g.CustomEvent && event instanceof g.CustomEvent && e.detail !== null && e.detail !== undefined) out.detail = e.detail;
  if (g.MessageEvent && event instanceof g.MessageEvent) out.data = e.data;
  return out;
}

/**
 * Registers, under `name`, the `type` events of the elements that match
 * `selector`, through one listener on `root` (default: the document), so that
 * elements added later match too. The event must bubble (clicks, inputs and
 * CustomEvents created with `bubbles: true` do). The program receives
 * eventDetail() of the event and of the matching element, unless `detail` says
 * otherwise. Returns a function that removes the registration.
 * @param {EventRegistry} events  the runtime's registry (`rt.events`)
 * @param {string} name  what the program waits on ("click #save")
 * @param {string} selector  a CSS selector ("#save", "button.task")
 * @param {string} type  the event type ("click", "input", a custom type)
 * @param {RegisterOptions & { root?: Document | Element | ShadowRoot, queue?: boolean, limit?: number }} [options]
 *   `filter` further selects events; `queue: true` keeps the events nobody waits for
 * @returns {() => void}
 */
export function registerSelector(events, name, selector, type, options = {}) {
  const g = /** @type {any} */ (globalThis);
  const root = options.root ?? g.document;
  if (!root || typeof root.addEventListener !== 'function') {
    throw new TypeError(`registerSelector("${name}"): there is no document here; pass options.root`);
  }
  // Fails now, with the browser's message, rather than at the first event.
  root.querySelector?.(selector);
  /** @param {Event} event */
  const matched = (event) => {
    const target = /** @type {any} */ (event.target);
    const el = target && typeof target.closest === 'function' ? target.closest(selector) : null;
    // closest() may climb above the root; such a match is not the root's.
    return el && (typeof root.contains !== 'function' || root.contains(el)) ? /** @type {Element} */ (el) : null;
  };
  const filter = (/** @type {Event} */ event) => matched(event) !== null && (!options.filter || options.filter(event));
  const detail = options.detail ?? ((/** @type {Event} */ event) => eventDetail(event, matched(event)));
  if (options.queue) return registerQueued(events, name, root, type, { filter, detail, limit: options.limit });
  return events.register(name, root, type, { filter, detail });
}

/**
 * Registers the messages of a port under `name`, queued (see registerQueued):
 * a MessagePort, a Worker, a BroadcastChannel, a window, anything that fires
 * `message` events. Starts a MessagePort. The program receives the message's
 * data (as JSON unless it is text or bytes). Returns a function that removes
 * the registration and stops listening to the port (its `queue` property is
 * the EventQueue).
 * @param {EventRegistry} events @param {string} name
 * @param {EventTarget & { start?: () => void }} port
 * @param {RegisterOptions & { limit?: number }} [options]
 * @returns {(() => void) & { queue: EventQueue }}
 */
export function registerPort(events, name, port, options = {}) {
  const unregister = registerQueued(events, name, port, 'message', {
    detail: (/** @type {MessageEvent} */ e) => e.data,
    ...options,
  });
  // A MessagePort delivers nothing to addEventListener listeners until started.
  if (typeof port.start === 'function') port.start();
  return unregister;
}

/**
 * Registers the `type` events of `target` under `name`, queued: an event that
 * arrives while no task waits is kept (up to `limit`, default 1024, dropping
 * the oldest), and every event goes to exactly one waiting task. A task that
 * is cancelled after it was handed an event but before it ran again loses
 * that event. Returns a function that removes the registration and the queue;
 * its `queue` property is the EventQueue (its `length`, `waiting`, `dropped`).
 * @param {EventRegistry} events @param {string} name
 * @param {EventTarget} target @param {string} type
 * @param {RegisterOptions & { limit?: number }} [options]
 * @returns {(() => void) & { queue: EventQueue }}
 */
export function registerQueued(events, name, target, type, options = {}) {
  const queue = new EventQueue(target, type, { filter: options.filter, limit: options.limit });
  let unregister;
  try {
    unregister = events.register(name, queue, type, { detail: options.detail, release: () => queue.close() });
  } catch (error) {
    queue.close();
    throw error;
  }
  return Object.assign(() => unregister(), { queue });
}

/**
 * The `type` events of a source, kept until a listener takes them: each event
 * goes to the oldest listener only, which is then removed. It looks like an
 * EventTarget to the event adapters (addEventListener, removeEventListener),
 * so the registry's waits use it like any other source.
 */
export class EventQueue {
  /**
   * @param {EventTarget} source @param {string} type
   * @param {{ filter?(event: Event): boolean, limit?: number }} [options]
   */
  constructor(source, type, options = {}) {
    if (!source || typeof source.addEventListener !== 'function') {
      throw new TypeError(`EventQueue: the source of "${type}" is not an EventTarget`);
    }
    const limit = options.limit ?? 1024;
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`EventQueue: limit must be a positive integer, got ${limit}`);
    /** The event type it queues. */
    this.type = type;
    /** @internal */ this.source = source;
    /** @internal */ this.limit = limit;
    /** @internal @type {Event[]} */ this.events = [];
    /** @internal @type {Function[]} listeners, oldest first */ this.waiters = [];
    /** Events dropped because the queue was full. */
    this.dropped = 0;
    /** @internal */ this.closed = false;
    /** @internal */ this.flushing = false;
    /** @internal */
    this.onEvent = (/** @type {Event} */ event) => {
      if (options.filter && !options.filter(event)) return;
      this.events.push(event);
      if (this.events.length > this.limit) {
        this.events.shift();
        this.dropped++;
      }
      this.flush();
    };
    source.addEventListener(type, this.onEvent);
  }

  /** Events kept for the next waiters. */
  get length() {
    return this.events.length;
  }

  /** Listeners waiting for an event. */
  get waiting() {
    return this.waiters.length;
  }

  /**
   * @param {string} type @param {(event: Event) => void} listener
   */
  addEventListener(type, listener) {
    if (type !== this.type || this.closed || typeof listener !== 'function') return;
    if (this.waiters.includes(listener)) return;
    this.waiters.push(listener);
    // Never call a listener from inside addEventListener: its adapter has not
    // finished arming yet.
    if (this.events.length) microtask(() => this.flush());
  }

  /** @param {string} type @param {(event: Event) => void} listener */
  removeEventListener(type, listener) {
    if (type !== this.type) return;
    const i = this.waiters.indexOf(listener);
    if (i >= 0) this.waiters.splice(i, 1);
  }

  /**
   * Queues `event` as if the source had fired it (if it has the queue's type).
   * @param {Event} event
   */
  dispatchEvent(event) {
    if (event.type === this.type && !this.closed) this.onEvent(event);
    return true;
  }

  /** Stops listening to the source and forgets the kept events. */
  close() {
    if (this.closed) return;
    this.closed = true;
    this.source.removeEventListener(this.type, this.onEvent);
    this.events.length = 0;
    this.waiters.length = 0;
  }

  /** @internal */
  flush() {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.events.length && this.waiters.length) {
        const listener = /** @type {Function} */ (this.waiters.shift());
        listener.call(this, this.events.shift());
      }
    } finally {
      this.flushing = false;
    }
  }
}
