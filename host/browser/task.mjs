// A task: one invocation of a program entry, and its states (internal; the
// package exports Task, TaskState). The scheduler (tasks.mjs) moves tasks
// between the states; a queued task is only the fields of this class, so that
// a million of them stay small, and what a task needs once it entered Wasm is
// in its execution record (execution.mjs).
import { CancelledError, checkOptionKeys, InternalError, SnailError } from './errors.mjs';
import { Execution } from './execution.mjs';

/** @typedef {import('./execution.mjs').TaskOwner} TaskOwner */

/**
 * The options of `task.cancel()` and `rt.cancel()`.
 * @typedef {object} CancelOptions
 * @property {boolean} [children]  cancel the task's tree too: every task it dispatched, transitively
 */

/**
 * Whether cancel() options ask for the tree; refuses anything else.
 * @param {string} fn  for messages @param {unknown} options
 */
export function cancelsTree(fn, options) {
  if (options === undefined) return false;
  checkOptionKeys(fn, options, ['children'], 'ERR_ARG');
  const children = options.children;
  if (children !== undefined && typeof children !== 'boolean') {
    throw new SnailError(`${fn}: option children must be true or false, got ${typeof children}`, { code: 'ERR_ARG' });
  }
  return children === true;
}

/** Task states. Live: queued, executing, suspended. Done: returned, failed, cancelled. */
export const TaskState = Object.freeze({
  queued: 'queued',
  executing: 'executing',
  suspended: 'suspended',
  returned: 'returned',
  failed: 'failed',
  cancelled: 'cancelled',
});

/** @typedef {'queued'|'executing'|'suspended'|'returned'|'failed'|'cancelled'} TaskStateName */
/** @typedef {TaskStateName} TaskState  the type of `task.state`: one of the names above */

/**
 * The same states as small integers, for the hot paths (`task._s`). The three
 * live states come first, so `_s < S.returned` means live.
 */
export const S = Object.freeze({ queued: 0, executing: 1, suspended: 2, returned: 3, failed: 4, cancelled: 5 });

/** @type {readonly TaskStateName[]} */
export const STATE_NAMES = Object.freeze(['queued', 'executing', 'suspended', 'returned', 'failed', 'cancelled']);

/**
 * The legal transitions, one bit per target state; every transition checks
 * this table first.
 */
export const LEGAL_TRANSITIONS = Object.freeze([
  // A start the hard bound keeps out for good fails without entering.
  /* queued    -> */ (1 << S.executing) | (1 << S.cancelled) | (1 << S.failed),
  /* executing -> */ (1 << S.suspended) | (1 << S.returned) | (1 << S.failed) | (1 << S.cancelled),
  /* suspended -> */ (1 << S.executing),
  /* returned  -> */ 0,
  /* failed    -> */ 0,
  /* cancelled -> */ 0,
]);

/** What doneExecutor() was given, until `done` takes it. @type {((t: Task) => void) | null} */
let doneResolve = null;
/** One executor for every task's done promise: no closure per task. @param {(t: Task) => void} resolve */
function doneExecutor(resolve) {
  doneResolve = resolve;
}

/**
 * One task: one invocation of a program entry. The public surface is `id`,
 * `entry`, `state`, `waitingOn`, `result` and `done`; fields starting with `_`
 * belong to the scheduler and the bridge.
 */
export class Task {
  static {
    // A task is not a thenable, and says so where promise resolution looks
    // first: `done` resolves with the task, and resolving with an object
    // looks up its `then`, which missed along the task's whole prototype
    // chain every time (about 6% of a task's start and end).
    Object.defineProperty(this.prototype, 'then', { value: undefined });
  }

  /**
   * Only the scheduler makes tasks (dispatch() and the program's own dispatch).
   * @internal
   * @param {number} id @param {string} entry
   * @param {TaskOwner | Task | null} [owner]  the runtime that cancel() asks, or for a
   *   child the task that dispatched it
   */
  constructor(id, entry, owner = null) {
    // A queued task is only these fields: a million of them must stay small.
    // What a task needs once it entered Wasm lives in its execution record.
    /** A positive integer, unique within its runtime; Wasm sees it as the task handle. @readonly */
    this.id = id;
    /** The entry this task runs: an exported entry name or `table[N]`. @readonly */
    this.entry = entry;
    // The enqueue order in the ready queue while live; once finished, what the
    // entry returned (with HAS_VALUE): a finished task needs no execution record.
    this._seq = 0;
    // The state (S) in the low bits, then READY, BOOSTED, CANCEL, HANDLE,
    // HAS_VALUE, SHIELD, CANCEL_NOW, TREE; `_s` and the flag properties read
    // and write it.
    this._flags = /** @type {number} */ (S.queued);
    /** @type {null | { promise: Promise<Task>, resolve: (t: Task) => void, result: Promise<number> | null }} */
    this._done = null;
    this._slot = 0; // register-file slot; the carriers' words of the slot hold the entry, argument and drop function
    // The execution record once the task needs one; until then the runtime
    // that cancel() asks, or for a child the task that dispatched it (its
    // parent, whose runtime is the child's), which the record then keeps.
    /** @type {Execution | TaskOwner | Task | null} */
    this._x = owner;
    /** @type {Task | null} neighbours in the live set (LiveSet) */
    this._lprev = null;
    /** @type {Task | null} */
    this._lnext = null;
  }

  /**
   * The runtime that cancel() asks. Not a per-runtime subclass: every
   * runtime's tasks share one shape, so the scheduler's accesses stay
   * monomorphic with many runtimes.
   * @returns {TaskOwner | null}
   */
  get _owner() {
    const x = this._x;
    if (x instanceof Execution) return x.owner;
    return x instanceof Task ? x._owner : x;
  }

  /** @returns {Execution} the execution record, made on first use */
  get _exec() {
    const x = this._x;
    if (x instanceof Execution) return x;
    return (this._x = x instanceof Task ? new Execution(x._owner, x) : new Execution(x, null));
  }

  /**
   * The task that dispatched this one (from Wasm), or the nearest task above
   * it that can still be named (bridge.mjs, cancelTree()); null for a root
   * task. Kept after either finished: a tree is cancelled through it.
   * @returns {Task | null}
   */
  get _parent() {
    const x = this._x;
    if (x instanceof Execution) return x.parent;
    return x instanceof Task ? x : null;
  }
  /** @param {Task | null} p */
  set _parent(p) {
    const x = this._x;
    if (x instanceof Execution) x.parent = p;
    else this._x = p ?? this._owner;
  }

  /** @returns {number} the state as a small integer (S); `state` names it */
  get _s() { return this._flags & STATE_MASK; }
  /** @param {number} v */
  set _s(v) { this._flags = (this._flags & ~STATE_MASK) | v; }

  /** @returns {number | undefined} what the entry returned (a cancelled task may have returned too) */
  get value() { return (this._flags & HAS_VALUE) !== 0 ? this._seq : undefined; }
  /** @internal @param {number | undefined} v */
  set value(v) {
    if (v === undefined) return;
    this._seq = v;
    this._flags |= HAS_VALUE;
  }
  /** @returns {unknown} why the task failed, or the CancelledError of a cancelled task */
  get error() {
    if (!(this._x instanceof Execution)) return undefined;
    // A task cancelled while it ran gets its CancelledError when someone asks:
    // close() of many tasks need not build an error for each.
    if (this._x.error === CANCELLED_LATER) this._x.error = CancelledError.quick(`task #${this.id} (${this.entry}) was cancelled`, { task: this });
    return this._x.error;
  }
  /** @internal @param {unknown} e */
  set error(e) { if (e !== undefined) this._exec.error = e; }

  // Flags, as boolean properties.
  get _ready() { return (this._flags & READY) !== 0; }
  set _ready(v) { this._flags = v ? this._flags | READY : this._flags & ~READY; }
  get _boosted() { return (this._flags & BOOSTED) !== 0; }
  set _boosted(v) { this._flags = v ? this._flags | BOOSTED : this._flags & ~BOOSTED; }
  /** Sticky: set once, never cleared. Outside a shield the task's waits are cancelled from then on. */
  get _cancelRequested() { return (this._flags & CANCEL) !== 0; }
  set _cancelRequested(v) {
    if (!v) throw new InternalError(`${this}: a cancellation request is never withdrawn`);
    this._flags |= (this._flags & SHIELD) !== 0 ? CANCEL : CANCEL | CANCEL_NOW;
  }
  /**
   * Whether the task's waits end cancelled now: its cancellation was
   * requested and no shield holds it off, or the shield it is in expired
   * (its deadline passed, or close() gave up on it). The wait path reads
   * this, never _cancelRequested. Shields (shields.mjs) keep it.
   */
  get _cancelNow() { return (this._flags & CANCEL_NOW) !== 0; }
  set _cancelNow(v) { this._flags = v ? this._flags | CANCEL_NOW : this._flags & ~CANCEL_NOW; }
  /** In a shield (shields.mjs has its records). */
  get _shielded() { return (this._flags & SHIELD) !== 0; }
  set _shielded(v) { this._flags = v ? this._flags | SHIELD : this._flags & ~SHIELD; }
  /** Its tree was cancelled: a child it dispatches later outside a shield is cancelled at once. */
  get _treeCancelled() { return (this._flags & TREE) !== 0; }
  set _treeCancelled(v) { this._flags = v ? this._flags | TREE : this._flags & ~TREE; }
  /** Handles Wasm holds on this task: 0 or 1 (the parent that dispatched it). */
  get _handles() { return (this._flags & HANDLE) !== 0 ? 1 : 0; }
  set _handles(v) { this._flags = v > 0 ? this._flags | HANDLE : this._flags & ~HANDLE; }

  /** @returns {TaskStateName} queued, executing, suspended, returned, failed or cancelled */
  get state() {
    return STATE_NAMES[this._observed];
  }

  /**
   * The state as observed from outside: a task waiting with its permit lent
   * (Scheduler.lent) is suspended, though the scheduler counts it as executing.
   */
  get _observed() {
    const s = this._s;
    if (s === S.executing && this._owner?.lendParked(this)) return S.suspended;
    return s;
  }

  /**
   * What a suspended task waits on ("snail.sleep(5 ms)", "env.read"), else null.
   * @returns {string | null}
   */
  get waitingOn() {
    const x = this._x;
    if (this._observed !== S.suspended || !(x instanceof Execution) || x.wait === null) return null;
    return x.wait.describe(x.waitArgs);
  }

  /** True once the task left the live set. */
  get finished() {
    return this._s >= S.returned;
  }

  /**
   * A promise that resolves with this task when it leaves the live set, however
   * it ended. It never rejects.
   * @returns {Promise<Task>}
   */
  get done() {
    if (this.finished) return Promise.resolve(this);
    if (!this._done) {
      const promise = new Promise(doneExecutor);
      this._done = { promise, resolve: /** @type {(t: Task) => void} */ (doneResolve), result: null };
      doneResolve = null;
    }
    return this._done.promise;
  }

  /**
   * A promise of the entry's return value. Rejects with the task's error when it
   * failed or was cancelled. Created on first use, so an ignored failure never
   * becomes an unhandled rejection.
   * @returns {Promise<number>}
   */
  get result() {
    const done = this.done;
    const record = this._done;
    if (record !== null && record.result !== null) return record.result;
    const result = done.then((t) => {
      if (t._s === S.returned) return /** @type {number} */ (t.value);
      throw t.error;
    });
    if (record !== null) record.result = result;
    return result;
  }

  /** True once cancellation of this task was requested (it stays requested). */
  get cancelRequested() {
    return this._cancelRequested;
  }

  /**
   * Requests cancellation. A queued task is discarded at once; a suspended one
   * resumes with the cancellation and unwinds; an executing one sees it at its
   * next wait. Returns false if the task had already finished.
   *
   * With `{ children: true }`, of its tree too: every task it dispatched, the
   * tasks those dispatched, and so on, whether the tasks between finished or
   * not; it and they dispatch their later children cancelled. Returns false
   * if neither the task nor any task of its tree was live.
   * @param {CancelOptions} [options]
   */
  cancel(options) {
    const tree = cancelsTree('task.cancel()', options);
    const owner = this._owner;
    if (!owner) return false;
    return tree ? owner.cancelTree(this) : owner.cancel(this);
  }

  toString() {
    return `task #${this.id} (${this.entry}, ${this.state})`;
  }
}

const STATE_MASK = 7; // the low bits of _flags: the state (S)
const READY = 8; // suspended with a resumption in the ready queue
const BOOSTED = 16; // a start someone joins: may enter above the soft bound
const CANCEL = 32; // cancellation was requested
const HANDLE = 64; // the program holds a handle on this task
const HAS_VALUE = 128; // finished, and _seq holds what its entry returned
const SHIELD = 256; // in a shield: a cancellation request leaves its waits alone
const CANCEL_NOW = 512; // its waits end cancelled now (_cancelNow)
const TREE = 1024; // its tree was cancelled

// Trees. A child keeps the task that dispatched it (Task._parent), also
// after either finished, so that cancelling a task's tree reaches every live
// task below it. A finished child whose handle the program released can never
// be named again: when a task below it finishes, it skips such tasks in its
// own link, so that a chain of tasks that each dispatch the next and return
// holds on to no more than the last few.

/**
 * Whether a finished task can still be named to cancel its tree: a root task
 * (JavaScript may hold it), or a child whose handle the program holds.
 * @param {Task} task
 */
export function nameable(task) {
  return task._parent === null || task._handles !== 0;
}

/**
 * The nearest task from `p` up that is live or nameable.
 * @param {Task | null} p
 */
export function nearestNameable(p) {
  while (p !== null && p.finished && !nameable(p)) p = p._parent;
  return p;
}

/**
 * The live tasks below `root` in its tree (its descendants), oldest first.
 * @param {Task} root @param {Iterable<Task>} live  the live set
 * @returns {Task[]}
 */
export function treeOf(root, live) {
  /** @type {Map<Task, boolean>} whether a task seen is in root's tree */
  const seen = new Map([[root, true]]);
  /** @type {Task[]} */
  const members = [];
  /** @type {Task[]} */
  const path = [];
  for (const t of live) {
    /** @type {Task | null} */
    let p = t;
    let inTree = false;
    while (p !== null) {
      const known = seen.get(p);
      if (known !== undefined) {
        inTree = known;
        break;
      }
      path.push(p);
      p = p._parent;
    }
    for (const q of path) seen.set(q, inTree);
    path.length = 0;
    if (inTree && t !== root) members.push(t);
  }
  return members;
}

/** Execution.error of a task cancelled while it ran, until Task.error makes its CancelledError. */
export const CANCELLED_LATER = Symbol('cancelled');
