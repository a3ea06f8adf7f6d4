// How failures read (internal): an uncaught WebAssembly exception named by its
// tag and payload, a trap while a module is instantiated (its start function),
// and the embedder's onTaskFailed callback, which sees every failed task.
import { isWaitOutsideTask, SnailError, TaskFailedError } from './errors.mjs';
import { Reader } from './wasm/binary.mjs';

/** What String() makes of an exception; the bridge puts it in a failure's message. */
const OPAQUE = '[object WebAssembly.Exception]';

/** A payload value as a message shows it. @param {unknown} v */
function showValue(v) {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number') return String(v);
  if (v === null) return 'null';
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'object') return v instanceof Error ? `${v.name}: ${v.message}` : 'an object';
  return String(v);
}

/**
 * The tags an exception of the program can be read with: those it exports,
 * those the embedder gave it, and JavaScript's own.
 * @param {WebAssembly.Instance} instance @param {Record<string, Record<string, unknown>>} importObject
 * @returns {Map<object, string>} each tag and its name
 */
export function programTags(instance, importObject) {
  /** @type {Map<object, string>} */
  const tags = new Map();
  const Tag = /** @type {any} */ (WebAssembly).Tag;
  if (typeof Tag !== 'function') return tags;
  for (const [name, value] of Object.entries(instance.exports)) {
    if (value instanceof Tag) tags.set(value, name);
  }
  for (const [module, fields] of Object.entries(importObject)) {
    for (const [name, value] of Object.entries(fields ?? {})) {
      if (value instanceof Tag && !tags.has(/** @type {object} */ (value))) tags.set(/** @type {object} */ (value), `${module}.${name}`);
    }
  }
  const JSTag = /** @type {any} */ (WebAssembly).JSTag;
  if (JSTag instanceof Tag) tags.set(JSTag, 'WebAssembly.JSTag');
  return tags;
}

/**
 * Whether `error` is a WebAssembly exception (WebAssembly.Exception), which
 * is no Error and says nothing when made a string.
 * @param {unknown} error
 */
export function isWasmException(error) {
  const Exception = /** @type {any} */ (WebAssembly).Exception;
  return typeof Exception === 'function' && error instanceof Exception;
}

/**
 * An uncaught WebAssembly exception in words: its tag, where one of `tags`
 * is it, and its payload, which only the tag can read.
 * @param {unknown} exception  a WebAssembly.Exception
 * @param {Map<object, string>} tags
 */
export function describeWasmException(exception, tags) {
  const e = /** @type {any} */ (exception);
  for (const [tag, name] of tags) {
    if (!e.is(tag)) continue;
    // The tag's type says how many values it carries, where the engine has
    // type reflection; otherwise read until there are no more.
    const reflect = /** @type {any} */ (tag).type;
    const count = typeof reflect === 'function' ? reflect.call(tag).parameters.length : 64;
    const values = [];
    for (let i = 0; i < count; i++) {
      try {
        values.push(showValue(e.getArg(tag, i)));
      } catch (error) {
        if (error instanceof RangeError) break;
        throw error;
      }
    }
    return `uncaught WebAssembly exception of tag ${name} (payload: ${values.length ? values.join(', ') : 'none'})`;
  }
  return 'uncaught WebAssembly exception of a tag the program neither exports nor imports, so its payload cannot be read (export the tag to see it)';
}

/**
 * Whether a module has a start function (a start section), which
 * instantiation runs.
 * @param {Uint8Array | null | undefined} bytes
 * @returns {boolean | null} null when the bytes are not at hand
 */
function hasStartFunction(bytes) {
  if (!bytes || bytes.length < 8) return null;
  try {
    const r = new Reader(bytes);
    r.pos = 8;
    while (r.pos < bytes.length) {
      const id = r.byte();
      const size = r.u32();
      if (id === 8) return true;
      r.pos += size;
    }
    return false;
  } catch {
    return null;
  }
}

/**
 * The error of a failed instantiation: a link failure (ERR_LINK), or the
 * module's own code failing while it was instantiated, in its start function
 * or placing its data and element segments (ERR_INIT, as a failing
 * _initialize).
 * @param {string} name  the program's name
 * @param {Uint8Array | null | undefined} bytes
 * @param {unknown} error  what WebAssembly.instantiate threw
 * @param {Map<object, string>} tags
 */
export function instantiationError(name, bytes, error, tags) {
  if (error instanceof WebAssembly.LinkError || error instanceof WebAssembly.CompileError) {
    return new SnailError(`${name} could not be instantiated: ${error.message}`, { cause: error, code: 'ERR_LINK' });
  }
  const start = hasStartFunction(bytes);
  // The runtime's own refusal says which import; the engine's does not.
  const why = error instanceof SnailError ? error.message
    : isWaitOutsideTask(error) ? 'it called a suspending snail import outside a task; waits are only allowed in tasks'
    : isWasmException(error) ? describeWasmException(error, tags)
      : error instanceof Error ? error.message : String(error);
  const where = start === true ? 'in its start function'
    : start === false && error instanceof WebAssembly.RuntimeError ? 'while its data and element segments were placed'
      : 'while it was instantiated (in its start function, or placing its data and element segments)';
  return new SnailError(`${name} failed ${where}: ${why}`, { cause: error, code: 'ERR_INIT' });
}

/**
 * What the bridge calls for every task that fails (Bridge.onFailure): a
 * failure that came from an uncaught WebAssembly exception gets its tag and
 * payload in its message, and what is known of the task's stack use
 * (`stackNote(task, message)`), then `onTaskFailed` receives the task. Only
 * failures pay for this: a task that returns costs nothing more.
 * @param {{ tags: () => Map<object, string>, onTaskFailed?: (task: import('./tasks.mjs').Task) => void,
 *           stackNote: (task: import('./tasks.mjs').Task, message: string) => string | null }} options
 * @returns {(task: import('./tasks.mjs').Task) => void}
 */
export function taskFailureReporter({ tags, onTaskFailed, stackNote }) {
  return (task) => {
    const error = task.error;
    if (error instanceof TaskFailedError) {
      let message = error.message;
      if (isWasmException(error.cause) && message.endsWith(OPAQUE)) {
        message = `${message.slice(0, -OPAQUE.length)}${describeWasmException(error.cause, tags())}`;
      }
      const note = stackNote(task, message);
      if (note !== null) message += ` (${note})`;
      if (message !== error.message) task.error = new TaskFailedError(message, { cause: error.cause, task });
    }
    if (!onTaskFailed) return;
    try {
      onTaskFailed(task);
    } catch (thrown) {
      // The embedder's bug, reported as an uncaught exception is, apart from
      // the runtime's own work.
      queueMicrotask(() => { throw thrown; });
    }
  };
}
