// The wait path (internal): what happens between a task's call of a
// suspending import and the moment its Wasm goes on. It is the hot part of
// the runtime. The functions the imports call, which begin a wait and call
// on this, are in wait-functions.mjs; the wait modes it moves a task's
// execution record through are in execution.mjs, the lent permit and its
// take in Wasm in lending.mjs, and the checks of what JSPI converts in
// conversions.mjs.
//
// At a wait the task's registers are saved and the defaults installed (by its
// suspension wrapper, in Wasm), the permit is given back (or kept, lent,
// when nothing else wants it) and the operation starts with the task's
// AbortSignal. The operation's one Promise covers the operation and its
// cleanup; its settlement only makes a resumption ready. When the scheduler
// grants the resumption the permit, the wait path decides what Wasm receives
// (the result, or the cancellation when it was requested: then an undelivered
// result is disposed, exactly once), installs the task's registers and
// settles its gate. The task keeps the permit until its Wasm suspends again
// or returns: settling the gate does not mean Wasm has run.
import { CancelledError, InternalError, SnailError } from './errors.mjs';
import { converts, mayBeConversion, unconvertible } from './conversions.mjs';
import { checkWaitMove, Execution, gateOf, Outcome, resolvedStatus, W, WAIT_MODE_NAMES } from './execution.mjs';
import { identity, REJECT, Rejection } from './imports.mjs';
import { Lending } from './lending.mjs';
import { S } from './task.mjs';
import { isThenable } from './promises.mjs';

/** @typedef {import('./tasks.mjs').Task} Task */
/** @typedef {import('./imports.mjs').WaitSpec} WaitSpec */

/**
 * A wait's record as takeWait() took it: valid until the next takeWait().
 * @typedef {{ spec: WaitSpec, args: any[] | null, outcome: number, result: unknown }} TakenWait
 */

/**
 * @typedef {object} WaitHooks
 * @property {import('./tasks.mjs').Scheduler} scheduler
 * @property {import('./words.mjs').SharedWords} words
 * @property {(Task | undefined)[]} slotTasks  the task owning each register-file slot
 * @property {{ readonly regs: import('./wasm/registers.mjs').RegisterFile }} files  the program's current register file
 * @property {import('./disposal.mjs').Disposal} disposal
 * @property {import('./shields.mjs').Shields} shields  opens and ends the shield of a shielded import's wait
 * @property {((type: 'suspend' | 'resume', task: Task, extra: Record<string, unknown>) => void) | null} emit
 *   reports a task event to the trace; null when not tracing (a trace sees every
 *   suspension, so a traced wait never lends)
 * @property {(fn: () => void) => void} guard  runs a callback from the event loop; an exception is a
 *   bug that breaks the runtime down
 */

export class Waits {
  /** @param {WaitHooks} hooks */
  constructor(hooks) {
    this.sched = hooks.scheduler;
    this.words = hooks.words;
    this.slotTasks = hooks.slotTasks;
    this.files = hooks.files;
    this.disposal = hooks.disposal;
    this.shields = hooks.shields;
    this.emit = hooks.emit;
    this.guard = hooks.guard;
    /** Check every move of a wait, and the records where waits begin and end. */
    this.check = this.sched.checkInvariants;
    /** The lent permit and the take in Wasm. */
    this.lending = new Lending({
      scheduler: this.sched,
      words: this.words,
      slotTasks: this.slotTasks,
      guard: this.guard,
      takeWait: (task, x) => this.takeWait(task, x),
    });
    /** Whether ready resumptions may be released to wake again (a benchmark's anatomy turns it off). */
    this.releasesAllowed = true;
    /**
     * Parks: wrappers that woke at the end of their task's wait and parked
     * on a gate (the permit was busy, the turn's budget used up, or a
     * failure was looked into), where a take or a claim would have gone on.
     */
    this.parks = 0;
    /** @type {TakenWait} reused by takeWait() */
    this.taken = { spec: /** @type {any} */ (null), args: null, outcome: Outcome.pending, result: undefined };
  }

  /**
   * Takes note of a take in Wasm, if there was one since the JavaScript side
   * last ran: a task whose wait ended took the permit from the task it was
   * lent to (the permit was open, wasm/gates.mjs). Every entry into the
   * runtime calls this first (the wait path's, the carriers', the imports of
   * module "snail", the Runtime's and Task's methods): until then the
   * scheduler still sees the loser holding the permit and the taker waiting.
   * Under checkInvariants a take left unseen breaks the invariants. While the
   * JavaScript side has not opened the permit since it last saw it closed,
   * no take can have happened, and this reads no memory (words.mjs).
   */
  sync() {
    if (this.words.taken !== 0) this.lending.syncTake();
  }

  /**
   * The task's waits are cancelled now (its cancellation was requested, or
   * its shield expired or ended): its wait, if it waits, may not end in Wasm
   * (it delivers the cancellation).
   * @param {Task} task
   */
  cancelled(task) {
    this.words.mayTake(task._slot, false);
  }

  /**
   * The end of a lent wait's JavaScript, once its operation started.
   * @param {Task} task @param {WaitSpec} spec @param {unknown} operation
   */
  lentTail(task, spec, operation) {
    const sched = this.sched;
    const lending = this.lending;
    if (sched.lent === task) {
      /** @type {Execution} */ (task._x).op = /** @type {PromiseLike<unknown>} */ (operation);
      // While it waits, a task whose wait ends may take the permit in
      // Wasm, with the lease's next step.
      // (None may while no other task waits: none can begin to while this one waits lent.)
      if (sched.lease === task) {
        if (sched.byState[S.suspended] !== 0) {
          if (sched.turn.steps < sched.leaseEnd && lending.takesAllowed) this.words.open();
        } else lending.again = spec;
      }
      return operation;
    }
    // The operation itself took the permit back (it cancelled a task).
    return this.waitOn(task, spec, true, /** @type {PromiseLike<unknown>} */ (operation));
  }

  /**
   * Moves a task's wait to mode `to` (checked against the legal moves under checkInvariants).
   * @param {Task} task @param {Execution} x @param {number} to
   */
  move(task, x, to) {
    if (this.check) checkWaitMove(task, x.mode, to);
    x.mode = to;
  }

  /**
   * The task that begins a wait gives the permit up: its registers saved
   * (under a wrapper, the wrapper saved them already), the wait recorded for
   * observers and for its resumption, the permit free.
   * @param {Task} task @param {WaitSpec} spec @param {any[]} args @param {boolean} direct
   */
  giveUp(task, spec, args, direct) {
    if (direct) this.words.clearLent();
    else this.files.regs.suspend(task._slot);
    const x = task._exec;
    x.wait = spec;
    x.waitArgs = spec.keepsArgs ? args : null;
    this.sched.suspend(task);
    this.words.setCurrent(0);
    if (this.emit !== null) this.emit('suspend', task, { waitingOn: task.waitingOn });
  }

  /**
   * What a suspended task's wait hands JSPI once its operation started,
   * unless the task kept the permit lent.
   * @param {Task} task @param {WaitSpec} spec @param {boolean} direct @param {unknown} operation
   */
  waitOn(task, spec, direct, operation) {
    const x = task._exec;
    if (!isThenable(operation)) {
      // Completed already (yield): the resumption queues behind the work that is ready now.
      x.outcome = Outcome.fulfilled;
      x.result = operation;
      return this.ready(task, x);
    }
    if (direct) {
      // JSPI parks the task on the operation's own promise: one hop. The
      // value JSPI hands the wrapper is converted to the import's type; these
      // reactions, registered first, keep the original and run just before
      // JSPI's. (A reclaim during the operation made the wait direct already.)
      if (x.mode !== W.direct) this.move(task, x, W.direct);
      x.op = operation;
      // A wait that delivers what JSPI converts may end in Wasm.
      this.words.mayTake(task._slot, spec.lendable && !task._cancelNow);
      if (spec.keepsResults) operation.then(x.onOk ??= this.onOk(task), x.onErr ??= this.onErr(task));
      this.sched.pump(false);
      return operation;
    }
    // The continuation makes the task ready before Wasm resumes: two hops.
    this.move(task, x, W.chained);
    this.sched.pump(false);
    return operation.then(x.onOk ??= this.onOk(task), x.onErr ??= this.onErr(task));
  }

  /**
   * The task's operation settled (or none runs): its resumption joins the
   * ready queue, and what the continuation hands JSPI is the delivery, if the
   * scheduler granted the task at once, else a gate.
   * @param {Task} task @param {Execution} x
   */
  ready(task, x) {
    this.move(task, x, W.gated);
    this.sched.readyTask(task);
    this.sched.pump(false);
    return this.delivered(task, x);
  }

  /**
   * The wrapper's `after`/`fail`: the task's Wasm is running again. A final
   * value passes through. A directly awaited operation has settled: the task
   * takes the permit here and now when nothing is ahead of it and the turn
   * has budget left; otherwise it becomes ready, and the wrapper is told to
   * park it.
   * @param {number} slot @param {number} outcome  Outcome.fulfilled or rejected
   * @param {unknown} value @param {unknown} zero  what the wrapper returns when it parks
   */
  land(slot, outcome, value, zero) {
    this.sync();
    const task = this.slotTasks[slot];
    if (task === undefined) {
      // Not a task's wait: a misuse error thrown by the wait itself.
      if (outcome === Outcome.rejected) throw value;
      return value;
    }
    const x = task._exec;
    const mode = x.mode;
    if (mode === W.lent) return this.endLend(task, x, outcome, value, zero);
    if (mode !== W.direct && mode !== W.settled) {
      // A final value, or an exception that did not come from an operation
      // (a misuse error thrown by the wait itself): pass it on.
      if (mode !== W.none) this.move(task, x, W.none);
      if (outcome === Outcome.rejected) throw value;
      return value;
    }
    if (mode === W.direct) {
      // No reaction stored the operation's own outcome (the wait keeps no
      // results, or its operation is a foreign thenable): take what JSPI
      // delivered.
      x.outcome = outcome;
      x.result = value;
      this.words.mayTake(slot, false);
      if (outcome === Outcome.rejected && mayBeConversion(value, x.op)) return this.checkFailure(task, x, value, zero);
    }
    if (!task._cancelNow && this.sched.claim(task)) {
      // Nothing is ahead and the turn has budget (a permit lent to a task
      // that still waits is taken back for it): the task takes the permit
      // here, without the ready queue.
      this.move(task, x, W.none);
      const taken = this.takeWait(task, x);
      // The wrapper installs the registers when it goes on; a delivery that
      // calls into the program needs them now.
      if (taken.spec.accept !== identity) this.files.regs.install(slot);
      this.words.setCurrent(slot);
      if (this.emit !== null) this.emit('resume', task, { cancelled: false });
      const delivery = this.deliver(task, taken);
      if (delivery instanceof Rejection) throw delivery.error;
      return delivery;
    }
    // Its wrapper parks it. A wait whose delivery is the value JSPI handed
    // the wrapper may be released to wake again (release()).
    this.move(task, x, mode === W.direct && outcome === Outcome.fulfilled && !task._cancelNow && /** @type {WaitSpec} */ (x.wait).lendable ? W.parked : W.gated);
    try {
      this.sched.readyTask(task);
      this.sched.pump(false);
    } catch (error) {
      this.guard(() => { throw error; });
    }
    if (x.mode === W.delivered) return this.takeDelivery(task, x);
    this.askPark();
    return zero;
  }

  /**
   * The engine's release: a parked task whose delivery is the value JSPI
   * handed its wrapper leaves the ready queue, while the task that holds
   * the permit begins a wait. Its gate settles with that value, so that its
   * wrapper wakes again as at the end of its wait: it takes the permit in
   * Wasm when it is open (the waiting task lends it), or asks for it. Its
   * wrapper tells a released park from a granted one by the CURRENT word,
   * which a grant sets to the task's slot (wasm/gates.mjs).
   * @param {Task} task  a releasable task (releasable())
   */
  release(task) {
    const x = task._exec;
    const gate = /** @type {(v: unknown) => void} */ (x.gate);
    if (this.check && !this.releasable(task)) throw new InternalError(`release() of ${task}, which is not releasable`);
    x.gate = null;
    x.gateReject = null;
    const value = x.result;
    x.result = undefined;
    x.outcome = Outcome.pending;
    this.move(task, x, W.direct);
    this.words.mayTake(task._slot, true);
    gate(value);
  }

  /**
   * The engine's releasable: the task parked with the value JSPI handed its
   * wrapper, its gate is made, and nothing keeps it from waking again by
   * itself (a cancellation delivers instead; a benchmark's anatomy may turn
   * releases off).
   * @param {Task} task
   */
  releasable(task) {
    const x = task._x;
    return x instanceof Execution && x.mode === W.parked && x.gate !== null && !task._cancelNow && this.releasesAllowed;
  }

  /**
   * A task whose permit was lent for its wait calls back: its operation
   * rejected (a fulfilled one goes on in Wasm). It still holds the permit.
   * @param {Task} task @param {Execution} x @param {number} outcome @param {unknown} value
   * @param {unknown} zero  what the wrapper returns when it parks
   */
  endLend(task, x, outcome, value, zero) {
    this.sched.endLend(task);
    this.words.clearLent();
    if (outcome === Outcome.rejected && mayBeConversion(value, x.op)) {
      // The task gives up the permit while the failure is looked into: its
      // wrapper installed its registers for `fail`, and the defaults go back.
      this.files.regs.suspend(task._slot);
      this.sched.suspend(task);
      this.words.setCurrent(0);
      x.outcome = outcome;
      x.result = value;
      return this.checkFailure(task, x, value, zero);
    }
    this.move(task, x, W.none);
    x.outcome = outcome;
    x.result = value;
    const delivery = this.deliver(task, this.takeWait(task, x));
    if (delivery instanceof Rejection) throw delivery.error;
    return delivery;
  }

  /**
   * A wait under a wrapper failed with what may be JSPI's own error: the
   * operation fulfilled with a value that does not convert to the import's
   * result type (a Number for an i64), or the operation rejected with an
   * error of that kind. Which one only the operation's promise knows: the
   * task parks until it said, and then fails with ERR_ADAPTER, or receives
   * the operation's failure as usual.
   * @param {Task} task @param {Execution} x @param {unknown} error @param {unknown} zero
   */
  checkFailure(task, x, error, zero) {
    const spec = /** @type {WaitSpec} */ (x.wait);
    const op = /** @type {PromiseLike<unknown>} */ (x.op);
    this.move(task, x, W.gated);
    const ready = (/** @type {unknown} */ failure) => this.guard(() => {
      x.result = failure;
      this.sched.readyTask(task);
      this.sched.pump(true);
    });
    op.then(
      (fulfilled) => ready(unconvertible(spec, fulfilled, error)),
      (reason) => ready(reason === error ? error : unconvertible(spec, reason, error)),
    );
    this.askPark();
    return zero;
  }

  /** Tells the wrapper whose `after` or `fail` runs to park its task on a gate, and counts the park. */
  askPark() {
    this.parks++;
    this.words.askPark();
  }

  /**
   * The wrapper's `park`: a gate the scheduler settles with the delivery when
   * the task's turn comes.
   * @param {number} slot
   */
  park(slot) {
    return gateOf(/** @type {Task} */ (this.slotTasks[slot])._exec);
  }

  /**
   * The reactions to a task's operations, made once per task. A directly
   * awaited operation's outcome is kept for land(); any other continues the
   * operation (two hops) and arrives.
   * @param {Task} task
   */
  onOk(task) {
    return (/** @type {unknown} */ value) => (task._exec.mode === W.direct ? this.store(task, Outcome.fulfilled, value) : this.arrive(task, Outcome.fulfilled, value));
  }

  /** @param {Task} task */
  onErr(task) {
    return (/** @type {unknown} */ error) => (task._exec.mode === W.direct ? this.store(task, Outcome.rejected, error) : this.arrive(task, Outcome.rejected, error));
  }

  /**
   * Keeps a directly awaited operation's outcome for land().
   * @param {Task} task @param {number} outcome @param {unknown} value
   */
  store(task, outcome, value) {
    const x = task._exec;
    x.outcome = outcome;
    x.result = value;
    this.move(task, x, W.settled);
  }

  /**
   * The operation of a suspended task settled: it becomes ready. Nothing is
   * delivered yet; the suspension owns a successful result until resume().
   * If the scheduler grants the task at once, the delivery is returned (and
   * JSPI resumes the task one hop later); otherwise a gate that resume()
   * settles when the task's turn comes.
   * @param {Task} task @param {number} outcome @param {unknown} value
   */
  arrive(task, outcome, value) {
    const x = task._exec;
    try {
      x.outcome = outcome;
      x.result = value;
      this.move(task, x, W.gated);
      this.sched.readyTask(task);
      this.sched.pump(true);
    } catch (error) {
      this.guard(() => { throw error; });
    }
    return this.delivered(task, x);
  }

  /**
   * What a ready task's continuation hands to JSPI: the delivery, if resume()
   * already produced it, else a gate for resume() to settle.
   * @param {Task} task @param {Execution} x
   */
  delivered(task, x) {
    return x.mode === W.delivered ? this.takeDelivery(task, x) : gateOf(x);
  }

  /**
   * The delivery resume() left in the record, taken by the continuation.
   * @param {Task} task @param {Execution} x
   */
  takeDelivery(task, x) {
    const delivery = x.result;
    x.result = undefined;
    this.move(task, x, W.none);
    if (delivery instanceof Rejection) throw delivery.error;
    return delivery;
  }

  /** A delivery handed to JSPI at once. @param {unknown} delivery */
  deliverNow(delivery) {
    if (delivery instanceof Rejection) return Promise.reject(delivery.error);
    return typeof delivery === 'number' ? resolvedStatus(delivery) : Promise.resolve(delivery);
  }

  /** What a cancelled task's wait delivers. @param {WaitSpec} spec @param {Task} task */
  cancelDelivery(spec, task) {
    if (spec.cancelled === REJECT) return new Rejection(CancelledError.quick(`${task} was cancelled while waiting on ${spec.name}`, { task }));
    return spec.cancelled;
  }

  /**
   * The task's wait ends: its record (the spec, its arguments, the
   * operation's outcome and result) is taken out and cleared.
   * @param {Task} task @param {Execution} x
   * @returns {TakenWait} valid until the next takeWait()
   */
  takeWait(task, x) {
    const spec = x.wait;
    if (spec === null) throw new InternalError(`${task} ends a wait it has no record of (mode ${WAIT_MODE_NAMES[x.mode]})`);
    const taken = this.taken;
    taken.spec = spec;
    taken.args = x.waitArgs;
    taken.outcome = x.outcome;
    taken.result = x.result;
    x.wait = null;
    x.waitArgs = null;
    x.op = null;
    x.outcome = Outcome.pending;
    x.result = undefined;
    if (spec.shield !== null) this.shields.endWait(task, spec.name);
    return taken;
  }

  /**
   * What Wasm receives for a wait that ends with its operation's outcome, the
   * task holding the permit and its registers installed: the accepted
   * result, the failure's delivery, or a rejection (a broken adapter, whose
   * error is a bug to fix rather than a status to handle, or a delivery that
   * threw: a backend that returned the wrong kind of value).
   * @param {Task} task @param {TakenWait} taken
   */
  deliver(task, taken) {
    const { spec, args, result } = taken;
    try {
      if (taken.outcome === Outcome.fulfilled) {
        const delivery = spec.accept(result, task, /** @type {any[]} */ (args));
        // What Wasm receives must convert to the import's result type: JSPI
        // would throw its own error into the task, or deliver a failure.
        if (spec.resultType !== null && !converts(spec.resultType, delivery) && !(delivery instanceof Rejection)) {
          return new Rejection(unconvertible(spec, delivery, null));
        }
        return delivery;
      }
      if (result instanceof SnailError && result.code === 'ERR_ADAPTER') return new Rejection(result);
      return spec.failed(result, task, args);
    } catch (error) {
      return new Rejection(error);
    }
  }

  /**
   * The engine's resume: the resumption was granted the permit. Decides what
   * Wasm receives, installs the task's registers and settles its gate. This
   * is where the suspension hands a successful result over, or, when
   * cancellation was requested, disposes it.
   * @param {Task} task
   */
  resume(task) {
    const x = task._exec;
    if (x.mode !== W.gated && x.mode !== W.parked) throw new InternalError(`${task} was resumed in wait mode ${WAIT_MODE_NAMES[x.mode]}, not gated or parked`);
    const gate = x.gate;
    const reject = x.gateReject;
    x.gate = null;
    x.gateReject = null;
    // Read before the wait ends: a shielded import's shield ends with it.
    const cancelled = task._cancelNow;
    const taken = this.takeWait(task, x);
    let delivery;
    if (cancelled) {
      // Sticky: even a result that was already queued resumes as cancelled.
      // Disposers run outside any task, on the defaults.
      if (taken.outcome === Outcome.fulfilled) this.disposal.dispose(taken.spec, task, taken.result);
      delivery = this.cancelDelivery(taken.spec, task);
      this.files.regs.install(task._slot);
      this.words.setCurrent(task._slot);
    } else {
      // The task's registers first: accepting a result may call into the
      // program (to allocate the memory it is delivered in), on its stack.
      this.files.regs.install(task._slot);
      this.words.setCurrent(task._slot);
      delivery = this.deliver(task, taken);
    }
    if (this.emit !== null) this.emit('resume', task, { cancelled });
    if (gate === null || reject === null) {
      // Granted before its continuation made a gate: the continuation takes
      // the delivery from the record.
      this.move(task, x, W.delivered);
      x.result = delivery;
    } else {
      this.move(task, x, W.none);
      if (delivery instanceof Rejection) reject(delivery.error);
      else gate(delivery);
    }
  }

  /**
   * The AbortSignal a task's waits receive; it aborts when the task's
   * cancellation is requested.
   * @param {Task} task
   */
  signalOf(task) {
    const x = task._exec;
    if (x.signal === null) {
      x.abort = new AbortController();
      // Kept: in browsers the `signal` accessor is a call into the embedder.
      x.signal = x.abort.signal;
    }
    return x.signal;
  }
}
