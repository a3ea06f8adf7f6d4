// How a task ends (internal): a task that held the permit returned, exited,
// trapped or threw on its carrier, or could not enter Wasm at all. Its stack
// segment and register-file slot go back, it leaves the live set, and a
// failure is reported once it is finished (onFailure: Runtime.load's
// onTaskFailed). The bridge wires it (bridge.mjs); the carriers call it.
import { CancelledError, InternalError, ProgramExit, TaskFailedError } from './errors.mjs';
import { Execution } from './execution.mjs';
import { nearestNameable } from './task.mjs';
import { CANCELLED_LATER, S, TaskState } from './tasks.mjs';

/** @typedef {import('./tasks.mjs').Task} Task */

/**
 * @typedef {object} EndingHooks
 * @property {import('./tasks.mjs').Scheduler} scheduler
 * @property {import('./carrier-pool.mjs').CarrierPool} pool  the carriers and stack segments
 * @property {import('./linking.mjs').ProgramLink} linker  the register file and the stack registers
 * @property {import('./words.mjs').SharedWords} words
 * @property {(Task | undefined)[]} slotTasks  the task owning each register-file slot
 * @property {import('./shields.mjs').Shields} shields
 * @property {number} stackSize  the bytes of a task's stack segment
 * @property {((type: 'finish', task: Task, extra: Record<string, unknown>) => void) | null} emit
 *   reports the finish to the trace; null when not tracing
 */

export class Endings {
  /** @param {EndingHooks} hooks */
  constructor(hooks) {
    this.scheduler = hooks.scheduler;
    this.pool = hooks.pool;
    this.linker = hooks.linker;
    this.words = hooks.words;
    this.slotTasks = hooks.slotTasks;
    this.shields = hooks.shields;
    this.stackSize = hooks.stackSize;
    this.emit = hooks.emit;
    /** @type {((task: Task) => void) | null} receives every task that failed, once it is finished (Runtime.load's onTaskFailed) */
    this.onFailure = null;
    /** @type {import('./stack-use.mjs').StackMeter | null} measures each task's stack use (measureStacks) */
    this.meter = null;
  }

  /**
   * A task's entry returned on its carrier (the carrier installed the defaults).
   * @param {Task} task @param {number} result
   */
  returned(task, result) {
    if (task._cancelRequested) this.finishTask(task, TaskState.cancelled, result, CANCELLED_LATER);
    else this.finishTask(task, TaskState.returned, result, undefined);
  }

  /**
   * A carrier's promise rejected: the task on it, the permit holder, trapped
   * or threw.
   * @param {Task | null} task @param {unknown} error
   */
  carrierFailed(task, error) {
    if (task === null) {
      // Only the permit holder can be running Wasm, so only it can trap.
      throw new InternalError(`a carrier failed while no task held the permit: ${String(error)}`);
    }
    // The overflow hint reads the task's registers; then the defaults go back.
    const overflow = this.stackOverflowHint(task, error);
    this.linker.regs.install(0);
    if (error instanceof ProgramExit) {
      this.finishTask(task, task._cancelRequested ? TaskState.cancelled : TaskState.returned, error.code, undefined);
    } else if (error instanceof CancelledError && task._cancelRequested) {
      // The program chose rejection ('reject'): the cancellation unwound its Wasm.
      this.finishTask(task, TaskState.cancelled, undefined, error);
    } else {
      let message = error instanceof Error ? error.message : String(error);
      if (overflow) message += ` (${overflow})`;
      const failure = new TaskFailedError(`${task.toString().replace(/, \w+\)$/, ')')} failed: ${message}`, { cause: error, task });
      this.finishTask(task, TaskState.failed, undefined, failure);
    }
    this.scheduler.pump(true);
    if (this.onFailure !== null && task._s === S.failed) this.onFailure(task);
  }

  /**
   * Binaryen's stack-check traps with `unreachable` before a frame would cross
   * the segment's limit. The registers still hold the task's values here, so a
   * stack pointer close to the limit makes an overflow the likely cause.
   * @param {Task} task @param {unknown} error
   */
  stackOverflowHint(task, error) {
    if (!(error instanceof WebAssembly.RuntimeError) || !/unreachable/.test(error.message)) return '';
    const regs = this.linker.stackRegisters;
    if (!regs || this.pool.carriers.lowOf(task._slot) === 0) return '';
    const room = (regs.pointer.value >>> 0) - (regs.limit.value >>> 0);
    if (room < 0 || room > this.stackSize / 4) return '';
    return `probably a stack overflow: ${room} of its ${this.stackSize} stack bytes were left; raise the stackSize option`;
  }

  /**
   * A task that held the permit is done: its stack segment and slot returned,
   * and it leaves the live set. The registers hold the defaults already (its
   * carrier installed them, or carrierFailed() did).
   * @param {Task} task @param {'returned'|'failed'|'cancelled'} how
   * @param {number | undefined} value @param {unknown} error
   */
  finishTask(task, how, value, error) {
    // The segment is still the task's: its high-water mark is read first.
    if (this.meter !== null) this.meter.finished(task);
    if (task._shielded) this.shields.finished(task);
    const parent = task._parent;
    if (parent !== null && parent.finished) task._parent = nearestNameable(parent);
    this.pool.releaseStackOf(task);
    this.releaseSlot(task);
    task.value = value;
    task.error = error;
    const x = task._x;
    if (x instanceof Execution) {
      x.abort = null;
      x.signal = null;
    }
    this.scheduler.finish(task, how);
    this.words.setCurrent(0);
    if (this.emit !== null) this.emit('finish', task, { how });
  }

  /**
   * A granted start could not enter (no stack segment). The program's
   * allocator may have trapped with registers of its own in place: the
   * defaults go back in.
   * @param {Task} task @param {unknown} error
   */
  failBeforeEntry(task, error) {
    this.linker.regs.install(0);
    this.releaseSlot(task);
    task.error = error;
    task._parent = null;
    this.scheduler.finish(task, TaskState.failed);
    this.words.setCurrent(0);
    this.pool.queuePump();
    // Inside the scheduler's step: the report waits for a microtask.
    const report = this.onFailure;
    if (report !== null) queueMicrotask(() => report(task));
  }

  /** @param {Task} task */
  releaseSlot(task) {
    if (task._slot !== 0) {
      this.slotTasks[task._slot] = undefined;
      this.linker.regs.release(task._slot);
      task._slot = 0;
    }
  }
}
