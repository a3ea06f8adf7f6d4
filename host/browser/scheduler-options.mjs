// What a Scheduler (tasks.mjs) is made with (internal): the engine it drives,
// with every callback it must have, and its options, with their checks.
import { InternalError, SnailError } from './errors.mjs';

/** @typedef {import('./task.mjs').Task} Task */

/**
 * What the scheduler asks of its engine (the JSPI bridge; a fake one in the
 * scheduler's unit tests). Every callback is given at construction.
 * @typedef {object} SchedulerEngine
 * @property {(task: Task, fromTopLevel: boolean) => void} enter  start a granted task's Wasm
 * @property {(task: Task) => void} resume  a granted resumption: deliver to the task's Wasm
 * @property {(task: Task) => boolean} lendParked  whether the task the permit is lent to
 *   still waits (its Wasm did not take the permit back yet)
 * @property {(task: Task) => void} reclaimed  the lent permit was taken back from this
 *   task, which still waits: it becomes an ordinary suspended task on the engine's side
 * @property {() => void} exclusiveEnded  the last exclusive section ended: grants may resume
 *   (resumptions made ready meanwhile wait for a pump)
 * @property {() => string | null} registersOffDefaults  for the invariant check: which
 *   register does not hold its default now, or null
 * @property {() => string | null} engineProblem  for the invariant check: what breaks the
 *   engine's own invariants now (a step it took that the scheduler has not seen), or null
 * @property {() => void} leaseEnded  the lease ended: whatever the engine lets the lease's
 *   waits and wakes do without the scheduler stops
 * @property {(task: Task) => boolean} releasable  whether the engine can let a ready
 *   resumption wake again by itself (its Wasm takes the permit when it is open, or asks for it)
 * @property {(task: Task) => void} release  lets a releasable resumption at the head of the
 *   ready order wake again by itself, while the executing task begins a wait; the task leaves
 *   the ready queue
 * @property {(start: Task) => void} admissionBlocked  nothing can be granted and the hard
 *   bound on entered tasks keeps this joined start out: if no entered task can ever go on
 *   (each waits for a start, directly or through the tasks it joins), fail it (failQueued())
 */

/**
 * The scheduler's options beside its turn budget's (TurnOptions).
 * @typedef {object} AdmissionOptions
 * @property {number} [maxEntered]  tasks that may enter Wasm (soft bound for new starts)
 * @property {number} [hardMaxEntered]  absolute bound, joined children included
 * @property {{ hold: () => void, release: () => void, dispose?: () => void }} [keepAlive]  held while tasks are live
 * @property {boolean} [checkInvariants]  run assertInvariants() after every step
 *
 * @typedef {import('./turn.mjs').TurnOptions & AdmissionOptions} SchedulerOptions
 */

/** Every callback a SchedulerEngine has. */
const ENGINE_CALLBACKS = Object.freeze(/** @type {const} */ (['enter', 'resume', 'lendParked', 'reclaimed', 'exclusiveEnded', 'registersOffDefaults', 'engineProblem', 'leaseEnded', 'releasable', 'release', 'admissionBlocked']));

/**
 * Refuses an engine without one of the callbacks the scheduler calls.
 * @param {SchedulerEngine} engine
 */
export function checkEngine(engine) {
  for (const callback of ENGINE_CALLBACKS) {
    if (typeof engine?.[callback] !== 'function') throw new InternalError(`the scheduler's engine has no ${callback}()`);
  }
}

/** @param {unknown} v @param {string} name */
export function positiveInteger(v, name) {
  if (!Number.isInteger(v) || /** @type {number} */ (v) <= 0) {
    throw new SnailError(`option ${name} must be a positive integer, got ${String(v)}`, { code: 'ERR_OPTION' });
  }
  return /** @type {number} */ (v);
}

/** @param {unknown} v @param {string} name */
export function positiveNumber(v, name) {
  if (typeof v !== 'number' || !(v > 0)) {
    throw new SnailError(`option ${name} must be a positive number, got ${String(v)}`, { code: 'ERR_OPTION' });
  }
  return v;
}
