// The Node platform of the runtime (host/browser/platform.mjs): reading a
// module from a file, the bounds on entered tasks that vm.max_map_count
// allows, and the process keep-alive token. host/node/root.mjs installs it;
// so does everything that imports snail-core under Node, Deno or Bun.
//
// This file must stay loadable by Node 20 (the CLI's inspect uses it).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { clearInterval, setInterval } from 'node:timers';

import { SnailError } from '../browser/errors.mjs';
import { setPlatform } from '../browser/platform.mjs';

/** Installs the Node platform for every runtime loaded from now on. */
export function installNodePlatform() {
  setPlatform({ readFile: readModuleFile, stackLimits, keepAlive: processKeepAlive });
}

// O_NONBLOCK makes the open of a FIFO return at once instead of waiting for a
// writer; on a regular file it changes nothing. Windows has no such flag and
// no FIFOs to open.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

const NOT_REGULAR = 'not a regular file; give the path of a .wasm file, or pass the bytes';

/** The least room made for a file that turns out longer than fstat said. */
const CHUNK = 64 * 1024;

/**
 * Reads a whole module file, refusing anything but a regular file and any
 * file larger than `maxBytes`. The checks are made on the opened descriptor
 * (fstat), so the file that is read is the file that was checked.
 * @param {string} path
 * @param {import('../browser/platform.mjs').ReadLimits} limits
 * @returns {Promise<Uint8Array>}
 */
export async function readModuleFile(path, { maxBytes, option }) {
  /** @param {string} why @param {unknown} [cause] */
  const refuse = (why, cause) => new SnailError(`cannot read the program ${path}: ${why}`, { cause, code: 'ERR_LOAD' });
  let handle;
  try {
    handle = await fsp.open(path, OPEN_FLAGS);
  } catch (error) {
    throw refuse(openFailure(error), error);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw refuse(stat.isDirectory() ? 'it is a directory' : `it is ${kindOf(stat)}, ${NOT_REGULAR}`);
    const limit = `the limit of the ${option} option`;
    if (stat.size > maxBytes) throw refuse(`it is ${stat.size} bytes, more than ${maxBytes}, ${limit}`);
    const grew = () => refuse(`it holds more than ${maxBytes} bytes (more than its size said when it was opened), ${limit}`);
    // The size fstat gave, and one byte more to see whether the file grew.
    let bytes = new Uint8Array(stat.size + 1);
    let length = 0;
    for (;;) {
      if (length === bytes.length) {
        if (length > maxBytes) throw grew();
        // Doubling: a file much longer than its size said (/proc's say 0) is copied a few times, not once per chunk.
        const grown = new Uint8Array(Math.min(maxBytes + 1, Math.max(length * 2, CHUNK)));
        grown.set(bytes);
        bytes = grown;
      }
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw grew();
    return bytes.subarray(0, length);
  } catch (error) {
    if (error instanceof SnailError) throw error;
    throw refuse(openFailure(error), error);
  } finally {
    await handle.close();
  }
}

/** What a failed open or read says to a user. @param {unknown} error */
function openFailure(error) {
  const code = /** @type {NodeJS.ErrnoException} */ (error)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  if (code === 'ENOTDIR') return 'a component of the path is not a directory';
  // What open() says of a Unix socket (and of a device file without its device).
  if (code === 'ENXIO') return `it is a socket or a device that is not there, ${NOT_REGULAR}`;
  return error instanceof Error ? error.message : String(error);
}

/** @param {fs.Stats} stat */
function kindOf(stat) {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The kernel's default vm.max_map_count. */
const DEFAULT_MAP_COUNT = 65530;

/**
 * How many tasks may have entered Wasm at once.
 *
 * Every task that has entered Wasm and not finished holds a JSPI stack, and
 * V8 maps each stack as two memory mappings (measured: 2.0 per suspended
 * stack). When the process reaches vm.max_map_count V8 aborts it
 * ("StackMemory::StackSegment Allocation failed"), uncatchably: at about
 * 32,600 suspended stacks with the default count of 65,530. The default hard
 * bound keeps a quarter of the map count for stacks; the soft bound (new
 * starts) stays lower so that joined children can still enter above it. An
 * explicit bound may go up to a third of the map count (the ceiling), which
 * leaves the rest to the process's heap, libraries and Wasm memories. Only
 * Linux has the limit; elsewhere the defaults are kept and no ceiling is known.
 * @returns {import('../browser/platform.mjs').StackLimits}
 */
export function stackLimits() {
  if (process.platform !== 'linux') return { soft: 10000, hard: 16382, ceiling: null };
  let maps = DEFAULT_MAP_COUNT;
  let which = 'the kernel default';
  try {
    const value = Number(fs.readFileSync('/proc/sys/vm/max_map_count', 'utf8').trim());
    if (Number.isSafeInteger(value) && value > 0) {
      maps = value;
      which = 'read from /proc/sys/vm/max_map_count';
    }
  } catch {
    // Not readable (a sandbox without /proc): keep the kernel's default.
  }
  const hard = Math.max(64, Math.floor(maps / 4));
  return {
    soft: Math.min(10000, hard),
    hard,
    ceiling: Math.max(hard, Math.floor(maps / 3)),
    advice: 'every task that has entered Wasm holds a JSPI stack of two memory mappings, and V8 aborts the process when its mappings '
      + `reach vm.max_map_count (${maps}, ${which}); a bound may be at most a third of it. `
      + 'Raise vm.max_map_count to allow more (as root: sysctl -w vm.max_map_count=262144), or keep the bound lower',
  };
}

/**
 * A token that keeps a Node process alive while tasks are live: unresolved
 * promises alone do not.
 * @returns {import('../browser/platform.mjs').KeepAlive}
 */
export function processKeepAlive() {
  // One timer for the runtime's life, referenced only while tasks are live:
  // toggling a reference is much cheaper than making a timer per interval.
  /** @type {NodeJS.Timeout | null} */
  let timer = null;
  return {
    hold() {
      if (timer === null) timer = setInterval(() => {}, 2 ** 30);
      else timer.ref();
    },
    release() {
      if (timer !== null) timer.unref();
    },
    dispose() {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}
