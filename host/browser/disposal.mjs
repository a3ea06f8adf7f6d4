// Disposal (internal): results that are never delivered are released exactly
// once, by the disposers the embedder and the program gave, and drop
// functions of discarded tasks run; all of them synchronously, outside any
// task, with re-entry into the runtime refused.
import { isWaitOutsideTask, SnailError } from './errors.mjs';
import { isThenable } from './promises.mjs';

/**
 * What a disposer receives beside the result it releases.
 * @typedef {object} DisposeContext
 * @property {string} importName  the suspending import whose result is disposed
 * @property {import('./tasks.mjs').Task} task  the task that will not receive it
 * @property {(cleanup: PromiseLike<unknown>) => void} track  hands asynchronous
 *   cleanup (closing a descriptor) to the runtime; close() waits for it, and a
 *   cleanup that rejects is reported with the disposer failures
 */

/**
 * A disposer's or drop function's failure, as close() reports it.
 * @typedef {{ task: number, operation: string, error: unknown }} DisposerError
 */

/**
 * @typedef {object} DisposalHooks
 * @property {import('./words.mjs').SharedWords} words  the words of the suspension module
 * @property {() => void} revokeLease  the scheduler's: a disposer forbids waits, so no lease stands across it
 * @property {((task: import('./tasks.mjs').Task, operation: string) => void) | null} traceDispose  reports a
 *   disposal to the trace, when tracing
 */

export class Disposal {
  /** @param {DisposalHooks} hooks */
  constructor(hooks) {
    this.words = hooks.words;
    this.revokeLease = hooks.revokeLease;
    this.traceDispose = hooks.traceDispose;
    /** Set while a disposer or a drop function runs (what runs): the runtime may not be re-entered. */
    this.running = '';
    /** @type {Set<PromiseLike<unknown>>} asynchronous cleanup disposers handed over, until it settles */
    this.cleanups = new Set();
    /** @type {DisposerError[]} disposer and drop failures, and cleanups that rejected */
    this.errors = [];
    this.disposed = 0;
    this.failures = 0;
  }

  /**
   * Throws if a disposer or drop function tries to re-enter the runtime.
   * @param {string} what  what it tried ("rt.dispatch()")
   */
  refuseReentry(what) {
    if (this.running) {
      throw new SnailError(`${this.running} tried to use ${what}: disposers and drop functions are synchronous and may not suspend or re-enter snail-core`, { code: 'ERR_REENTRANT' });
    }
  }

  /**
   * Runs a disposer or drop function: synchronously, outside any task, with
   * re-entry refused. A failure is recorded and counted; it never stops the
   * task from unwinding.
   * @param {string} what @param {import('./tasks.mjs').Task} task @param {() => unknown} fn
   */
  run(what, task, fn) {
    const outer = this.running;
    this.revokeLease();
    this.running = what;
    // Outside any task: a wait the disposer tries is refused before the
    // suspension module saves anything into a task's slot.
    const current = this.words.current;
    this.words.setCurrent(0);
    try {
      const r = fn();
      if (isThenable(r)) {
        r.then(undefined, () => {});
        throw new SnailError(`${what} returned a Promise: disposers are synchronous; hand asynchronous cleanup to context.track()`, { code: 'ERR_REENTRANT' });
      }
    } catch (error) {
      this.failures++;
      let reported = error;
      if (isWaitOutsideTask(error)) {
        reported = new SnailError(`${what} tried to suspend: disposers and drop functions are synchronous and may not wait`, { code: 'ERR_REENTRANT', cause: error });
      }
      this.errors.push({ task: task.id, operation: what, error: reported });
    } finally {
      this.running = outer;
      this.words.setCurrent(current);
    }
  }

  /**
   * A successful result that will never be delivered: its disposers run,
   * exactly once (the wait path calls this once per wait at most).
   * @param {{ name: string, discard: ((result: unknown, context: DisposeContext) => void) | null,
   *           nativeDiscard: ((result: unknown) => void) | null }} spec  the wait's spec
   * @param {import('./tasks.mjs').Task} task @param {unknown} result
   */
  dispose(spec, task, result) {
    const { discard, nativeDiscard } = spec;
    if (discard === null && nativeDiscard === null) return;
    this.disposed++;
    this.traceDispose?.(task, spec.name);
    if (discard !== null) {
      const what = `the disposer of ${spec.name}`;
      /** @type {DisposeContext} */
      const context = { importName: spec.name, task, track: (cleanup) => this.track(cleanup, task, what) };
      this.run(what, task, () => discard(result, context));
    }
    if (nativeDiscard !== null) this.run(`the native disposer of ${spec.name}`, task, () => nativeDiscard(result));
  }

  /**
   * Asynchronous cleanup a disposer started: close() waits for it. A cleanup
   * that rejects is a disposer failure.
   * @param {PromiseLike<unknown>} cleanup @param {import('./tasks.mjs').Task} task @param {string} what  whose cleanup
   */
  track(cleanup, task, what) {
    if (!isThenable(cleanup)) {
      throw new SnailError('track() takes the Promise of the cleanup', { code: 'ERR_ARG' });
    }
    this.cleanups.add(cleanup);
    cleanup.then(() => { this.cleanups.delete(cleanup); }, (error) => {
      this.cleanups.delete(cleanup);
      this.failures++;
      this.errors.push({ task: task.id, operation: `the cleanup ${what} tracked`, error });
    });
  }
}
