// What the Node file and storage adapters share: descriptors that are counted
// and always closed before an operation settles, cooperative cancellation at
// step boundaries, and the mapping of file-system errors to statuses.
//
// File-system calls run on libuv's thread pool and cannot be interrupted once
// issued. The adapters therefore check their AbortSignal between steps: an
// abort takes effect at the next step boundary, after at most one call in
// flight, and every descriptor the operation opened is closed (and every
// temporary file removed) before its promise settles.
import fs from 'node:fs';
import fsp from 'node:fs/promises';

import { ServiceError } from '../browser/index.mjs';
import { Status } from '../browser/status.mjs';

// Written only here; nodeArmed is their read-only face.
const COUNTS = { descriptors: 0, tempFiles: 0, abandoned: 0 };

/**
 * Counters of the Node adapters, across the process. `descriptors` (open file
 * handles the adapters hold) and `tempFiles` (temporary files not yet renamed
 * or removed) return to zero when every operation has settled; `abandoned`
 * counts operations that stopped because their signal aborted after they had
 * opened something.
 */
export const nodeArmed = /** @type {{ readonly descriptors: number, readonly tempFiles: number, readonly abandoned: number }} */ (COUNTS);

/** Bytes read or written per call, so that an abort is seen between chunks. */
export const CHUNK = 64 * 1024;

/** Throws the signal's reason if it has aborted. @param {AbortSignal} signal */
export function check(signal) {
  signal.throwIfAborted();
}

/**
 * Opens `file`, runs `fn` with the handle and closes it before returning,
 * however `fn` ends. An open that completes after an abort is closed too.
 * @template T
 * @param {AbortSignal} signal @param {string} file @param {string | number} flags
 * @param {(handle: import('node:fs/promises').FileHandle) => Promise<T>} fn
 * @param {number} [mode]
 * @returns {Promise<T>}
 */
export async function withHandle(signal, file, flags, fn, mode) {
  check(signal);
  const handle = await fsp.open(file, flags, mode);
  COUNTS.descriptors++;
  try {
    return await fn(handle);
  } catch (error) {
    if (signal.aborted) COUNTS.abandoned++;
    throw error;
  } finally {
    // FileHandle.close() waits for calls still in flight on the handle.
    try {
      await handle.close();
    } finally {
      COUNTS.descriptors--;
    }
  }
}

/**
 * Opens a directory for an operation to work relative to, without following a
 * link in its last component; counted with the other descriptors. Close it
 * with closeDirectory().
 * @param {string} dir
 */
export async function openDirectory(dir) {
  const handle = await fsp.open(dir, fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) | (fs.constants.O_NOFOLLOW ?? 0));
  COUNTS.descriptors++;
  return handle;
}

/** @param {import('node:fs/promises').FileHandle} handle  one openDirectory() gave */
export async function closeDirectory(handle) {
  try {
    await handle.close();
  } finally {
    COUNTS.descriptors--;
  }
}

/**
 * Replaces `file` as a whole: `fill(handle)` writes a new temporary file beside
 * it (created exclusively, not following links), which is renamed over `file`
 * if the signal has not aborted by then; otherwise, or on any failure, the
 * temporary file is removed and `file` keeps its old content.
 * @param {AbortSignal} signal @param {string} temp @param {string} file @param {number} mode
 * @param {(handle: import('node:fs/promises').FileHandle) => Promise<void>} fill
 */
export async function replaceFile(signal, temp, file, mode, fill) {
  let committed = false;
  COUNTS.tempFiles++;
  try {
    await withHandle(signal, temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, fill, mode);
    // The last moment an abort leaves the old content: the rename commits.
    check(signal);
    await fsp.rename(temp, file);
    committed = true;
  } finally {
    // unlink, never a recursive removal: whatever is at the name now, it is
    // removed only if it is a file (or a link), where the temporary file was.
    if (!committed) await fsp.unlink(temp).catch(() => {});
    COUNTS.tempFiles--;
  }
}

/** A signal that never aborts: for steps after an operation's commit point. */
export const NEVER = new AbortController().signal;

/**
 * Flushes a directory's entries (a rename, a new file, an unlink in it) to
 * stable storage. It completes a commit, so it does not abort.
 * @param {string} dir
 */
export async function syncDirectory(dir) {
  await withHandle(NEVER, dir, fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0), (h) => h.sync());
}

/**
 * Reads a whole open file in chunks, checking the signal between them.
 * @param {AbortSignal} signal @param {import('node:fs/promises').FileHandle} handle
 * @param {number} [sizeHint]
 */
export async function readAll(signal, handle, sizeHint = 0) {
  let buffer = new Uint8Array(Math.max(sizeHint, 0) + 1);
  let length = 0;
  for (;;) {
    check(signal);
    if (length === buffer.length) {
      const grown = new Uint8Array(buffer.length * 2);
      grown.set(buffer);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, length, Math.min(CHUNK, buffer.length - length), null);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  check(signal);
  return buffer.slice(0, length);
}

/**
 * Writes all of `data` to an open file in chunks, checking the signal between them.
 * @param {AbortSignal} signal @param {import('node:fs/promises').FileHandle} handle @param {Uint8Array} data
 */
export async function writeAll(signal, handle, data) {
  let offset = 0;
  while (offset < data.length) {
    check(signal);
    const { bytesWritten } = await handle.write(data, offset, Math.min(CHUNK, data.length - offset), null);
    offset += bytesWritten;
  }
  check(signal);
}

/**
 * Runs an operation and turns its file-system errors into the statuses a
 * program sees; an aborted operation rejects with the signal's reason.
 * @template T
 * @param {AbortSignal} signal @param {string} what  the operation, for messages
 * @param {() => Promise<T>} operation
 * @returns {Promise<T>}
 */
export async function asService(signal, what, operation) {
  let value;
  try {
    value = await operation();
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw serviceErrorOf(error, what);
  }
  // An operation that ran past its commit point when the abort came has taken
  // effect; it still rejects, like every aborted operation.
  if (signal.aborted) throw signal.reason;
  return value;
}

/**
 * The status a file-system error means to a program.
 * @param {unknown} error @param {string} what  the operation, for the message
 */
export function serviceErrorOf(error, what) {
  if (error instanceof ServiceError) return error;
  const e = /** @type {NodeJS.ErrnoException} */ (error);
  switch (e?.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new ServiceError(Status.not_found, `${what}: no such file or directory`);
    case 'EACCES':
    case 'EPERM':
    case 'ELOOP':
      return new ServiceError(Status.denied, `${what}: the operating system refused it (${e.code})`);
    default:
      return new ServiceError(Status.failed, `${what}: ${e?.message ?? String(error)}`);
  }
}

/** A unique suffix for temporary files of this process. */
let tempCounter = 0;
export function tempSuffix() {
  tempCounter = (tempCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${process.pid}-${tempCounter}-${Math.random().toString(36).slice(2, 8)}`;
}
