// The functions a program's suspending imports call (internal): the first
// half of the wait path (waits.mjs has the rest). The common wait, a
// suspend() import of up to four arguments under a wrapper while nothing
// else wants the permit, is one function (lentWait) that keeps the permit
// lent; a wait the lease answers (snail.yield) is another; every other wait
// goes the general way (waitWith), which records the wait, gives the
// permit up or lends it, and starts the operation.
import { SnailError } from './errors.mjs';
import { argList, assertWaitBegins, NO_ARGS, Outcome, resolvedStatus, W } from './execution.mjs';
import { ownCopy } from './own-code.mjs';
import { isThenable } from './promises.mjs';

/** @typedef {import('./tasks.mjs').Task} Task */
/** @typedef {import('./imports.mjs').WaitSpec} WaitSpec */
/** @typedef {import('./waits.mjs').Waits} Waits */
/** @typedef {import('./execution.mjs').Execution} Execution */

/** The refusal of a wait begun outside any task. @param {string} name  the import */
export const outsideTask = (name) => new SnailError(`${name} was called outside a task (from the program's initialisation, or an export called directly); waits are only allowed in tasks`, { code: 'ERR_NOT_IN_TASK' });

/**
 * The JavaScript side of a wait of import `spec`. `direct`: it runs under a
 * wrapper of the suspension module, and returns the operation's own promise
 * to JSPI; the wrapper's `after` claims the permit when the task wakes.
 * Otherwise it returns the operation continued by arrive(), which claims it
 * first. The common waits, the lent wait of a suspend() import and the wait
 * the lease answers, run on code of their own (own-code.mjs): each import of
 * each runtime has a copy, which the engine compiles for that runtime and
 * that import's operation alone. Every other wait goes the general way
 * (generalWait()), which is shared.
 * @param {Waits} waits @param {WaitSpec} spec @param {boolean} direct
 * @param {number} [arity]  how many arguments the import takes, if known
 * @param {boolean} [ownCode]  false: the common waits on the shared code too (the ownCode option)
 */
export function waitFunction(waits, spec, direct, arity = -1, ownCode = true) {
  const waitWith = generalWait(waits, spec, direct);
  if (direct && arity >= 0 && arity <= 4 && spec.operationOf !== null && spec.lendable && !spec.keepsArgs && !spec.prepare && !spec.now) {
    return ownCopy(lentWaitOf, ownCode)(waits, spec, arity, waitWith, argList);
  }
  if (direct && arity === 0 && spec.leased !== null && !spec.prepare) {
    return ownCopy(leasedWaitOf, ownCode)(waits, spec, resolvedStatus(spec.leased), waitWith, NO_ARGS);
  }
  // An import of no arguments (snail.yield) needs no argument list of its own.
  if (arity === 0) return () => waitWith(NO_ARGS);
  return function wait(/** @type {any[]} */ ...raw) {
    return waitWith(raw);
  };
}

/**
 * The common wait in one piece: a suspend() import of up to four arguments,
 * while nothing else wants the permit, takes it lent without building an
 * argument list; anything else goes the general way (`waitWith`). Copied for
 * each import (waitFunction()): it reads its parameters alone.
 * @param {Waits} waits @param {WaitSpec} spec @param {number} arity
 * @param {(raw: any[]) => unknown} waitWith  the general way
 * @param {typeof import('./execution.mjs').argList} argList
 */
function lentWaitOf(waits, spec, arity, waitWith, argList) {
  const sched = waits.sched;
  const disposal = waits.disposal;
  const lending = waits.lending;
  const check = waits.check;
  const operate = /** @type {NonNullable<WaitSpec['operationOf']>} */ (spec.operationOf)(arity);
  // An operation that cannot read its signal gets none, and none is made.
  const seesSignal = spec.seesSignal;
  return function lentWait(/** @type {unknown} */ a, /** @type {unknown} */ b, /** @type {unknown} */ c, /** @type {unknown} */ d) {
    // The same wait again under the lease, with nothing changed since the
    // last one (Lending.again): the lease's step, and the operation.
    const same = lending.again === spec ? sched.leaseStep() : null;
    if (same !== null) {
      if (check) lending.assertAgain(same, spec);
      const x = /** @type {Execution} */ (same._x);
      const operation = operate(/** @type {AbortSignal} */ (x.signal), same, a, b, c, d);
      if (lending.again !== spec) return waits.lentTail(same, spec, operation);
      x.op = /** @type {PromiseLike<unknown>} */ (operation);
      return operation;
    }
    const words = waits.words;
    const taken = words.taken;
    if (taken !== 0) {
      // The caller took the permit in Wasm (the common way of tasks
      // whose waits settle in turn): one step ends its last wait and
      // begins this one lent, under the lease, which passed to it with
      // the permit.
      if (taken === words.current) lending.takeAndLend(spec);
      else lending.syncTake();
    }
    let task = sched.leaseStep();
    let signal;
    if (task !== null) {
      // Nothing that mayLend() checks changed since the lease was granted
      // (it is revoked when anything does), and the step is counted by
      // the turn. The task waited lent last time, and its wait record
      // stands (of this import or another); or the lease passed to it as
      // it took the permit in Wasm, and it lends again. The wrapper put
      // the task's slot in the LENT word as it called here.
      const x = /** @type {Execution} */ (task._x);
      if (sched.lent !== task) lending.relend(task, spec);
      else if (x.wait !== spec) x.wait = spec;
      else if (check) lending.assertLease(task, spec);
      if (seesSignal) signal = x.signal ?? waits.signalOf(task);
    } else {
      task = sched.holder;
      if (task === null || disposal.running || waits.emit !== null || task._cancelNow || !sched.mayLend()) return waitWith(argList(arity, a, b, c, d));
      const x = lending.lendAcross(task, spec, null);
      if (seesSignal) signal = x.signal ?? waits.signalOf(task);
    }
    const operation = operate(/** @type {AbortSignal} */ (signal), task, a, b, c, d);
    if (sched.lent === task && sched.lease !== task) sched.grantLease(task);
    return waits.lentTail(task, spec, operation);
  };
}

/**
 * A wait that the lease answers (snail.yield): under the lease the task
 * keeps its permit lent across it without a check, as for the lent wait,
 * and what `now` would say is known (`delivery`). Copied for each import
 * (waitFunction()), as lentWaitOf() is.
 * @param {Waits} waits @param {WaitSpec} spec @param {unknown} delivery
 * @param {(raw: any[]) => unknown} waitWith  the general way
 * @param {any[]} noArgs  NO_ARGS
 */
function leasedWaitOf(waits, spec, delivery, waitWith, noArgs) {
  const sched = waits.sched;
  const lending = waits.lending;
  return function leasedWait() {
    lending.again = null;
    waits.sync();
    const task = sched.leaseStep();
    if (task === null) return waitWith(noArgs);
    const x = /** @type {Execution} */ (task._x);
    if (sched.lent !== task) lending.relend(task, spec);
    else if (x.wait !== spec) x.wait = spec;
    else if (waits.check) lending.assertLease(task, spec);
    return delivery;
  };
}

/**
 * The general way of a wait of import `spec` (see waitFunction()): it
 * records the wait, gives the permit up or lends it, and starts the
 * operation. Shared by the copies of every runtime.
 * @param {Waits} waits @param {WaitSpec} spec @param {boolean} direct
 * @returns {(raw: any[]) => unknown}
 */
function generalWait(waits, spec, direct) {
  const sched = waits.sched;
  const disposal = waits.disposal;
  const lending = waits.lending;
  const leased = spec.leased;
  return waitWith;
  /** @param {any[]} raw */
  function waitWith(raw) {
    lending.again = null;
    waits.sync();
    const task = sched.holder;
    if (task === null) throw outsideTask(spec.name);
    sched.revokeLease();
    const x = task._exec;
    if (waits.check) assertWaitBegins(task, x);
    // From here on what the wrapper's `after` receives is final, unless the
    // operation's own promise goes to JSPI below. Under a wrapper, the LENT
    // word says the task keeps the permit (its wrapper goes on without
    // `after`) unless it gives it up below: the wrapper put the task's slot
    // there as it called here, after it saved the task's registers and
    // installed the defaults. It installs the registers again when the task
    // goes on.
    waits.move(task, x, W.begun);
    disposal.refuseReentry(spec.name);
    // A shielded import's wait runs in a shield of its own.
    if (spec.shield !== null) waits.shields.beginWait(task, spec.shield, spec.name);
    // A cancelled task's later waits end at once (outside a shield that
    // holds the cancellation off); it keeps the permit. Each
    // counts as a step of the turn: once the budget is used up, the wait
    // gives the permit up and its resumption (cancelled) comes after the
    // event loop's turn, or a program that loops on waits without looking
    // at their status would starve the event loop.
    if (task._cancelNow) {
      if (sched.takeStep()) {
        waits.move(task, x, W.none);
        return waits.deliverNow(waits.cancelDelivery(spec, task));
      }
      waits.giveUp(task, spec, raw, direct);
      // No operation ran, so nothing is disposed: the resumption delivers the cancellation.
      x.outcome = Outcome.rejected;
      return waits.ready(task, x);
    }
    let args = raw;
    if (spec.prepare) {
      try {
        args = spec.prepare(raw);
      } catch (error) {
        waits.move(task, x, W.none);
        return waits.deliverNow(spec.failed(error, task, null));
      }
    }
    if (spec.now) {
      const delivery = spec.now(task, args);
      if (delivery !== undefined) {
        // The task keeps the permit across the resumption JSPI makes of a
        // settled promise; under a wrapper it keeps it lent, so the wrapper
        // goes on without calling back.
        if (direct && waits.emit === null) {
          lending.lendAcross(task, spec, args);
          // Its next waits that the lease answers need no checks.
          if (delivery === leased && sched.lease !== task) sched.grantLease(task);
        } else {
          waits.move(task, x, W.none);
        }
        return resolvedStatus(/** @type {number} */ (delivery));
      }
    }
    // Nothing else wants the permit: the task keeps it for this wait, and
    // its wrapper goes on without calling back (unless something reclaims
    // it meanwhile, the operation itself included).
    const lend = direct && spec.lendable && waits.emit === null && sched.mayLend();
    if (lend) {
      lending.lendAcross(task, spec, args);
    } else {
      waits.giveUp(task, spec, args, direct);
    }
    let operation;
    try {
      operation = spec.operation(spec.seesSignal ? waits.signalOf(task) : /** @type {any} */ (undefined), task, args);
    } catch (error) {
      operation = Promise.reject(error);
    }
    if (lend && sched.lent === task) {
      if (isThenable(operation)) {
        x.op = operation;
        return operation;
      }
      // A value ready now: the task becomes an ordinary suspended one and
      // its resumption queues behind the work that is ready.
      sched.reclaim();
    }
    return waits.waitOn(task, spec, direct, operation);
  }
}
