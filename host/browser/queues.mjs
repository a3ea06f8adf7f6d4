// The scheduler's queues of tasks (internal): the FIFOs of starts and
// resumptions, and the live set.

/** @typedef {import('./task.mjs').Task} Task */

/**
 * A FIFO of tasks in a ring buffer, with lazy removal: entries that went stale
 * (the task started or was discarded through another queue) are skipped when
 * they reach the head.
 */
export class TaskQueue {
  constructor() {
    /** @type {(Task | undefined)[]} */
    this.ring = new Array(16);
    this.mask = 15;
    this.head = 0;
    this.tail = 0;
  }
  /** @param {Task} t */
  push(t) {
    if (this.tail - this.head > this.mask) this.grow();
    this.ring[this.tail & this.mask] = t;
    this.tail++;
  }
  grow() {
    const old = this.ring;
    const size = old.length;
    const ring = new Array(size * 2);
    for (let i = this.head; i < this.tail; i++) ring[i - this.head] = old[i & (size - 1)];
    this.tail -= this.head;
    this.head = 0;
    this.ring = ring;
    this.mask = size * 2 - 1;
  }
  /** The first valid task, dropping stale ones before it. @param {(t: Task) => boolean} valid */
  peek(valid) {
    while (this.head !== this.tail) {
      const t = /** @type {Task} */ (this.ring[this.head & this.mask]);
      if (valid(t)) return t;
      this.ring[this.head & this.mask] = undefined;
      this.head++;
    }
    return null;
  }
  /**
   * Keeps only the tasks for which `valid` holds, in order: stale entries are
   * otherwise dropped only when they reach the head. @param {(t: Task) => boolean} valid
   */
  compact(valid) {
    const kept = [];
    for (let i = this.head; i < this.tail; i++) {
      const t = /** @type {Task} */ (this.ring[i & this.mask]);
      if (valid(t)) kept.push(t);
    }
    let size = 16;
    while (size <= kept.length) size *= 2;
    this.ring = new Array(size);
    for (let i = 0; i < kept.length; i++) this.ring[i] = kept[i];
    this.mask = size - 1;
    this.head = 0;
    this.tail = kept.length;
  }
  pop() {
    const t = /** @type {Task} */ (this.ring[this.head & this.mask]);
    this.ring[this.head & this.mask] = undefined;
    this.head++;
    return t;
  }
  get length() {
    return this.tail - this.head;
  }
}

/**
 * The live set: every task from its dispatch until it finished, in dispatch
 * order. A list threaded through the tasks, so that adding and removing one
 * of a million tasks hashes nothing and allocates nothing.
 */
export class LiveSet {
  constructor() {
    /** @type {Task | null} */
    this.head = null;
    /** @type {Task | null} */
    this.tail = null;
    this.size = 0;
  }

  /** @param {Task} t */
  add(t) {
    t._lprev = this.tail;
    t._lnext = null;
    if (this.tail === null) this.head = t;
    else this.tail._lnext = t;
    this.tail = t;
    this.size++;
  }

  /** @param {Task} t */
  has(t) {
    return t._lprev !== null || this.head === t;
  }

  /** @param {Task} t */
  delete(t) {
    if (!this.has(t)) return false;
    if (t._lprev === null) this.head = t._lnext;
    else t._lprev._lnext = t._lnext;
    if (t._lnext === null) this.tail = t._lprev;
    else t._lnext._lprev = t._lprev;
    t._lprev = null;
    t._lnext = null;
    this.size--;
    return true;
  }

  /** The live tasks at this moment, oldest first. @returns {Task[]} */
  toArray() {
    /** @type {Task[]} */
    const all = [];
    for (let t = this.head; t !== null; t = t._lnext) all.push(t);
    return all;
  }

  /** Goes through a snapshot: callers may retire tasks while they go through them. */
  [Symbol.iterator]() {
    return this.toArray()[Symbol.iterator]();
  }
}
