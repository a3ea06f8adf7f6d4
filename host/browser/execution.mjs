// A task's execution record and the state machine of its waits (internal).
//
// A task gets its execution record when it first needs one (it entered Wasm,
// it failed before entering, or something asked for its signal): what the
// wait path keeps of the wait in progress, and how the task ended. A queued
// task has none, so that a million of them stay small.
//
// Every wait of a task moves its record through the wait modes below, from
// `none` and back. The legal moves are the table LEGAL_MOVES; the wait path
// checks each move against it when the runtime checks its invariants
// (`checkInvariants`), as the scheduler checks every transition of a task's
// state.
import { InternalError } from './errors.mjs';

/**
 * What a task's wait is doing.
 * - `none`: no wait in progress (the last one ended, or there was none). What
 *   a wrapper's `after` receives in this mode is final: it passes it on.
 * - `begun`: the JavaScript side of a wait runs; what it returns to JSPI is
 *   final (an answer at once, or a gate).
 * - `lent`: the task waits with its permit lent: its wrapper goes on in Wasm
 *   when the operation fulfils and calls back only when it rejects. The mode
 *   stays `lent` after the wrapper took the permit back in Wasm, which the
 *   JavaScript side does not see (the LENT word tells: see lendParked()).
 * - `direct`: JSPI parks the task on its operation's own promise; the
 *   wrapper's `after` or `fail` claims the permit when it wakes.
 * - `settled`: as `direct`, and the operation's own outcome is stored (a wait
 *   that keeps its results: JSPI converts the value it hands the wrapper).
 * - `chained`: the operation is continued by a reaction that makes the task
 *   ready (no suspension module: two promise hops).
 * - `gated`: the task is ready or about to be; its resumption settles its gate.
 * - `parked`: as `gated`, for a wait whose delivery is what JSPI handed its
 *   wrapper (kept in the record): the wrapper parked the task because the
 *   permit was not to be had. Released (release()), the task leaves the ready
 *   queue and its gate settles with that value: it is `direct` again, its
 *   wait ended, and its wrapper wakes again as at the end of the wait (it
 *   takes the permit in Wasm if it is open, or asks for it).
 * - `delivered`: the resumption ran before the task's continuation made its
 *   gate: the delivery waits in the record for the continuation to take it.
 */
export const W = Object.freeze({ none: 0, begun: 1, lent: 2, direct: 3, settled: 4, chained: 5, gated: 6, delivered: 7, parked: 8 });

/** @type {readonly string[]} */
export const WAIT_MODE_NAMES = Object.freeze(['none', 'begun', 'lent', 'direct', 'settled', 'chained', 'gated', 'delivered', 'parked']);

/** The legal moves of a wait, one bit per target mode. */
const LEGAL_MOVES = Object.freeze([
  /* none      -> */ (1 << W.begun) | (1 << W.lent),
  // A task whose wrapper took a lent permit back in Wasm begins its next
  // wait from `lent`; a rejected lent wait ends; a reclaimed one goes direct.
  /* begun     -> */ (1 << W.none) | (1 << W.lent) | (1 << W.direct) | (1 << W.chained) | (1 << W.gated),
  // A lent wait whose failure may be a value that did not convert parks
  // until its operation says (gated).
  /* lent      -> */ (1 << W.begun) | (1 << W.lent) | (1 << W.direct) | (1 << W.none) | (1 << W.gated),
  /* direct    -> */ (1 << W.settled) | (1 << W.none) | (1 << W.gated) | (1 << W.parked),
  /* settled   -> */ (1 << W.none) | (1 << W.gated),
  /* chained   -> */ (1 << W.gated),
  /* gated     -> */ (1 << W.delivered) | (1 << W.none),
  /* delivered -> */ (1 << W.none),
  // Granted as a gated wait is, or released to wake again.
  /* parked    -> */ (1 << W.delivered) | (1 << W.none) | (1 << W.direct),
]);

/**
 * Throws unless a wait may move from `from` to `to`.
 * @param {{ toString(): string }} task @param {number} from @param {number} to
 */
export function checkWaitMove(task, from, to) {
  if ((LEGAL_MOVES[from] & (1 << to)) === 0) {
    throw new InternalError(`illegal move of the wait of ${task}: ${WAIT_MODE_NAMES[from]} -> ${WAIT_MODE_NAMES[to]}`);
  }
}

/** How an operation settled, once its task is ready. */
export const Outcome = Object.freeze({ pending: 0, fulfilled: 1, rejected: 2 });

/**
 * The runtime a task belongs to, as the task sees it.
 * @typedef {{ cancel: (task: any) => boolean, cancelTree: (task: any) => boolean, lendParked: (task: any) => boolean }} TaskOwner
 */

/** What a task needs once it entered Wasm (the wait path's fields), and how it ended. */
export class Execution {
  /** @param {TaskOwner | null} owner @param {any} parent  the task that dispatched it (a Task), or null */
  constructor(owner, parent) {
    /** The runtime the task belongs to. */
    this.owner = owner;
    /** @type {any} the task's parent (Task._parent), or null */
    this.parent = parent;
    /** @type {unknown} why the task failed, or its CancelledError */
    this.error = undefined;
    /** @type {number} the wait's mode (W); its moves are checked under checkInvariants */
    this.mode = W.none;
    /**
     * The spec of the import the task waits in: set from the wait's start
     * until its delivery is made (takeWait() takes it), and kept by a lent
     * wait whose wrapper went on in Wasm (the lease reuses it).
     * @type {any}
     */
    this.wait = null;
    /** @type {any[] | null} that wait's prepared arguments, when its spec reads them */
    this.waitArgs = null;
    /**
     * @type {PromiseLike<unknown> | null} the operation's promise, while JSPI
     * parks the task on it (direct or lent): a failure that may be JSPI's own
     * (a value that does not convert) is told apart by it
     */
    this.op = null;
    /** @type {number} how its operation settled (Outcome), while the task is ready or settled */
    this.outcome = Outcome.pending;
    /**
     * @type {unknown} the operation's value or error, owned by the suspension
     * until delivered (only then is it the program's, or disposed); in mode
     * `delivered`, the delivery itself. Undefined in every other mode.
     */
    this.result = undefined;
    /** @type {((value: unknown) => void) | null} resolves the gate of a parked task (mode gated) */
    this.gate = null;
    /** @type {((error: unknown) => void) | null} rejects it */
    this.gateReject = null;
    /** @type {AbortController | null} created when a wait first needs the task's signal */
    this.abort = null;
    /** @type {AbortSignal | null} its signal */
    this.signal = null;
    /** @type {(() => void) | null} cancels the current wait itself (a wait that sees no signal: sleep) */
    this.cancelWait = null;
    /** @type {((v: unknown) => any) | null} reactions to its operations, made once */
    this.onOk = null;
    /** @type {((e: unknown) => any) | null} */
    this.onErr = null;
  }
}

/** The execution record gateExecutor() hands its functions to. @type {Execution | null} */
let gateFor = null;
/** @param {(v: unknown) => void} resolve @param {(e: unknown) => void} reject */
function gateExecutor(resolve, reject) {
  const x = /** @type {Execution} */ (gateFor);
  x.gate = resolve;
  x.gateReject = reject;
}

/**
 * A new gate for a task: the promise JSPI parks it on until resume() settles
 * it. One executor for every gate, so that a gate costs no closure of its own
 * (with 10,000 tasks taking turns, gates are most of what survives a scavenge).
 * @param {Execution} x
 * @returns {Promise<unknown>}
 */
export function gateOf(x) {
  gateFor = x;
  const gate = new Promise(gateExecutor);
  gateFor = null;
  return gate;
}

/**
 * The arguments of a call of `n` arguments, as a list (the general path).
 * @param {number} n @param {unknown} a @param {unknown} b @param {unknown} c @param {unknown} d
 */
export function argList(n, a, b, c, d) {
  return n === 0 ? [] : n === 1 ? [a] : n === 2 ? [a, b] : n === 3 ? [a, b, c] : [a, b, c, d];
}

/** The arguments of an import that takes none: shared, never changed. */
export const NO_ARGS = /** @type {any[]} */ (/** @type {unknown} */ (Object.freeze([])));

const RESOLVED = /** @type {Promise<unknown>[]} */ ([]);
/** A settled promise per status value, reused by waits that complete at once. */
export function resolvedStatus(/** @type {number} */ s) {
  return (RESOLVED[s] ??= Promise.resolve(s));
}

/**
 * A wait begins: what its record must be (checked under checkInvariants).
 * A lent wait whose wrapper went on in Wasm left its spec behind; nothing
 * else may be left over from an earlier wait.
 * @param {{ toString(): string }} task @param {Execution} x
 */
export function assertWaitBegins(task, x) {
  if (x.gate !== null || x.result !== undefined || x.outcome !== Outcome.pending || (x.wait !== null && x.mode !== W.lent)) {
    throw new InternalError(`invariant broken: ${task} begins a wait in mode ${WAIT_MODE_NAMES[x.mode]} with ${x.gate !== null ? 'a gate' : x.wait !== null ? `the record of ${x.wait.name}` : `a result ${String(x.result)}`} left over`);
  }
}
