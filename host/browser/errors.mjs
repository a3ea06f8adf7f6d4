// Error classes. Misuse errors carry advice; internal errors mean a bug in
// snail-core itself and are kept apart so that nobody catches them by accident.

/** Misuse of the API or a program that breaks the ABI; the message says what to do. */
export class SnailError extends Error {
  /** @param {string} message @param {{ cause?: unknown, code?: string }} [options] */
  constructor(message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SnailError';
    /** A stable machine-readable code, for example 'ERR_ABI' or 'ERR_CLOSED'. */
    this.code = options.code ?? 'ERR_SNAIL';
  }
}

/**
 * Refuses options a function does not have: a misspelt one (`timout`) would
 * otherwise be ignored without a word.
 * @param {string} fn  the function, for messages ("close()")
 * @param {unknown} options @param {readonly string[]} names  the options it has
 * @param {string} code  the error's code
 * @returns {asserts options is Record<string, unknown>}
 */
export function checkOptionKeys(fn, options, names, code) {
  if (options === null || typeof options !== 'object') {
    throw new SnailError(`the options of ${fn} must be an object, got ${options === null ? 'null' : typeof options}`, { code });
  }
  for (const key of Object.keys(options)) {
    if (!names.includes(key)) throw new SnailError(`${fn} has no option "${key}"; its options are ${names.join(', ')}`, { code });
  }
}

/**
 * Whether `error` is a wait refused because no task was waiting: the engine's
 * SuspendError (a suspension outside `promising`), or the runtime's own
 * refusal, which the suspension module makes before the engine can.
 * @param {unknown} error
 */
export function isWaitOutsideTask(error) {
  const SuspendError = /** @type {any} */ (WebAssembly).SuspendError;
  return (typeof SuspendError === 'function' && error instanceof SuspendError)
    || (error instanceof SnailError && error.code === 'ERR_NOT_IN_TASK');
}

/** A module that does not follow docs/abi.md. */
export class AbiError extends SnailError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor(message, options = {}) {
    super(message, { ...options, code: 'ERR_ABI' });
    this.name = 'AbiError';
  }
}

/** A task that trapped or threw; `task` is the failed task, `cause` the original error. */
export class TaskFailedError extends Error {
  /** @param {string} message @param {{ cause?: unknown, task: import('./tasks.mjs').Task }} options */
  constructor(message, options) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TaskFailedError';
    /** The task that failed. */
    this.task = options.task;
  }
}

/** The result of a task that was cancelled. */
export class CancelledError extends Error {
  /**
   * A CancelledError without a stack trace: cancellation happens in the
   * scheduler, so its stack would only show snail-core's internals, and
   * capturing one costs microseconds per task when thousands are cancelled.
   * @param {string} message @param {{ task: import('./tasks.mjs').Task }} options
   * @internal
   */
  static quick(message, options) {
    const g = /** @type {any} */ (Error);
    const limit = g.stackTraceLimit;
    g.stackTraceLimit = 0;
    try {
      return new CancelledError(message, options);
    } finally {
      g.stackTraceLimit = limit;
    }
  }

  /** @param {string} message @param {{ task: import('./tasks.mjs').Task }} options */
  constructor(message, options) {
    super(message);
    this.name = 'CancelledError';
    /** The task that was cancelled. */
    this.task = options.task;
  }
}

/**
 * The description of an engine's own failure that reached the scheduler (the
 * text of an error the engine threw, inside `message`), or null. Known:
 * JavaScriptCore's JSPI stack scan, which fails on Wasm frames it does not
 * know.
 * @param {string} message
 */
export function engineDefect(message) {
  if (!/JSPI stack scan failed/.test(message)) return null;
  return `the engine's JSPI failed to suspend a task (${message}): a defect of the engine, not of snail-core. `
    + 'At its first load the runtime suspends once through each path it uses (engine-probe.mjs) and takes one that works; '
    + 'this suspension took a shape the probes did not cover. Load with directWaits: false, and report the engine error to its makers';
}

/**
 * A broken invariant inside snail-core: always a bug, please report it. An
 * engine's own failure that breaks the scheduler is told apart (engineDefect):
 * it is named EngineError and says what failed.
 */
export class InternalError extends Error {
  /** @param {string} message */
  constructor(message) {
    const defect = engineDefect(message);
    super(defect ?? `snail-core internal error: ${message} (this is a bug in snail-core)`);
    this.name = defect === null ? 'InternalError' : 'EngineError';
  }
}

/** Thrown through a task's Wasm frames when the program calls WASI proc_exit. */
export class ProgramExit extends Error {
  /** @param {number} code */
  constructor(code) {
    super(`the program exited with code ${code}`);
    this.name = 'ProgramExit';
    this.code = code;
  }
}
