// Durable storage under Node: the StorageBackend of host/browser/services.mjs
// (get, put, delete, list) kept in a directory, one file per key
// (docs/node.md, "Durable storage").
//
// Layout:   ROOT/s-<store>/k-<key>      one record per key
//           ROOT/h-<sha256 of store>/h-<sha256 of key>   for names too long to encode
//           ROOT/<store dir>/.tmp-<pid>-<n>-<random>     a put in progress
// Names are encoded so that any string is safe on any POSIX file system,
// including case-insensitive ones: a-z, 0-9, "-", "_" and "." stay as they are;
// an upper-case letter becomes "^" and the letter in lower case; every other
// UTF-8 byte becomes "~" and two lower-case hex digits. The "k-"/"s-" prefix
// keeps "", "." and ".." from being names. An encoded name longer than
// MAX_ENCODED is replaced by "h-" and the SHA-256 of the name in hex; the
// record holds the key itself, so list() can read it back.
//
// A record is: "SNAILKV1", u32 key length, key (UTF-8), u32 value length,
// value, u32 CRC-32 of everything before it (little-endian).
//
// A put writes the record to a temporary file in the store's directory,
// flushes it (fsync), renames it over the key's file (the commit point) and
// flushes the directory. A process killed at any moment leaves every key
// with its old record or its new one, never a mixture; a put that resolved
// survives a crash of the process and, as far as the disk honours fsync, of
// the machine. An abort before the rename leaves the old value and removes
// the temporary file; a put whose rename had begun completes and still rejects.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';

import { SnailError } from '../browser/errors.mjs';
import { ServiceError } from '../browser/services.mjs';
import { Status } from '../browser/status.mjs';
import {
  asService, check, readAll, replaceFile, syncDirectory, tempSuffix, withHandle, writeAll,
} from './fsutil.mjs';

/** Encoded names longer than this (in bytes) are hashed; file names may have 255. */
export const MAX_ENCODED = 200;
const MAGIC = new TextEncoder().encode('SNAILKV1');
const TEMP_PREFIX = '.tmp-';
const { O_RDONLY } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The file-name form of a store name or key (without its prefix).
 * @param {string} name
 */
export function encodeName(name) {
  let out = '';
  for (const b of encoder.encode(name)) {
    if ((b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x5f || b === 0x2e) {
      out += String.fromCharCode(b);
    } else if (b >= 0x41 && b <= 0x5a) {
      out += `^${String.fromCharCode(b + 0x20)}`;
    } else {
      out += `~${b.toString(16).padStart(2, '0')}`;
    }
  }
  return out;
}

/**
 * The name encodeName() encoded, or null if `encoded` is not such a form.
 * @param {string} encoded
 * @returns {string | null}
 */
export function decodeName(encoded) {
  /** @type {number[]} */
  const bytes = [];
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded[i];
    if (/[a-z0-9._-]/.test(c)) bytes.push(c.charCodeAt(0));
    else if (c === '^' && /[a-z]/.test(encoded[i + 1] ?? '')) bytes.push(encoded.charCodeAt(++i) - 0x20);
    else if (c === '~' && /^[0-9a-f]{2}$/.test(encoded.slice(i + 1, i + 3))) {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else return null;
  }
  try {
    return decoder.decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
}

/**
 * The file name of a store or key: `prefix` and the encoded name, or "h-" and
 * its hash when that would be too long.
 * @param {string} prefix @param {string} name
 */
export function fileNameOf(prefix, name) {
  const encoded = encodeName(name);
  if (encoded.length <= MAX_ENCODED) return `${prefix}${encoded}`;
  return `h-${createHash('sha256').update(name, 'utf8').digest('hex')}`;
}

/** @param {string} key @param {Uint8Array} value */
export function encodeRecord(key, value) {
  const k = encoder.encode(key);
  const record = new Uint8Array(MAGIC.length + 4 + k.length + 4 + value.length + 4);
  const view = new DataView(record.buffer);
  record.set(MAGIC, 0);
  let at = MAGIC.length;
  view.setUint32(at, k.length, true);
  record.set(k, at + 4);
  at += 4 + k.length;
  view.setUint32(at, value.length, true);
  record.set(value, at + 4);
  at += 4 + value.length;
  view.setUint32(at, crc32(record.subarray(0, at)), true);
  return record;
}

/**
 * The key and value of a record; throws a ServiceError (failed) for bytes
 * that are not a whole, intact record.
 * @param {Uint8Array} record @param {string} where  for messages
 */
export function decodeRecord(record, where) {
  const corrupt = (/** @type {string} */ why) => new ServiceError(Status.failed, `${where} is not an intact storage record: ${why}`);
  if (record.length < MAGIC.length + 12 || !MAGIC.every((b, i) => record[i] === b)) throw corrupt('no header');
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  const keyLength = view.getUint32(MAGIC.length, true);
  const valueAt = MAGIC.length + 4 + keyLength;
  if (valueAt + 8 > record.length) throw corrupt('truncated');
  const valueLength = view.getUint32(valueAt, true);
  const end = valueAt + 4 + valueLength;
  if (end + 4 !== record.length) throw corrupt('wrong length');
  if (view.getUint32(end, true) !== crc32(record.subarray(0, end))) throw corrupt('checksum mismatch');
  let key;
  try {
    key = decoder.decode(record.subarray(MAGIC.length + 4, valueAt));
  } catch {
    throw corrupt('the key is not UTF-8');
  }
  return { key, value: record.slice(valueAt + 4, end) };
}

/**
 * The key of the record in an open file, from its header alone.
 * @param {import('node:fs/promises').FileHandle} handle @param {string} where
 */
async function readKey(handle, where) {
  const head = new Uint8Array(MAGIC.length + 4);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  if (bytesRead !== head.length || !MAGIC.every((b, i) => head[i] === b)) {
    throw new ServiceError(Status.failed, `${where} is not an intact storage record: no header`);
  }
  const keyLength = new DataView(head.buffer).getUint32(MAGIC.length, true);
  const key = new Uint8Array(keyLength);
  const r = await handle.read(key, 0, keyLength, head.length);
  try {
    if (r.bytesRead !== keyLength) throw new Error('truncated');
    return decoder.decode(key);
  } catch {
    throw new ServiceError(Status.failed, `${where} is not an intact storage record: bad key`);
  }
}

/** @param {number} pid */
function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

/**
 * Storage in a directory, durable and atomic per put: a StorageBackend
 * (host/browser/services.mjs). One process should use a directory at a time:
 * the backend takes no lock.
 */
export class DirectoryStorage {
  /** @param {string} root  the directory; created if missing */
  constructor(root) {
    if (typeof root !== 'string' || root === '') {
      throw new SnailError('DirectoryStorage needs the path of a directory', { code: 'ERR_OPTION' });
    }
    /** @internal */
    this.root = path.resolve(root);
    let first;
    try {
      first = fs.mkdirSync(this.root, { recursive: true });
      if (!fs.statSync(this.root).isDirectory()) throw new Error('it is not a directory');
    } catch (error) {
      throw new SnailError(`cannot use ${root} for storage: ${/** @type {Error} */ (error).message}`, { code: 'ERR_OPTION', cause: error });
    }
    // Directories created here become durable with their parents' entries.
    if (first !== undefined) {
      for (let d = this.root; ; d = path.dirname(d)) {
        const fd = fs.openSync(path.dirname(d), 'r');
        try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
        if (d === first) break;
      }
    }
    /** Store directories known to exist. @type {Set<string>} @internal */
    this.made = new Set();
    /** Store directories swept of stale temporary files. @type {Set<string>} @internal */
    this.swept = new Set();
  }

  /** @param {string} store @internal */
  storeDir(store) {
    return path.join(this.root, fileNameOf('s-', store));
  }

  /** @param {string} store @param {string} key @internal */
  keyFile(store, key) {
    return path.join(this.storeDir(store), fileNameOf('k-', key));
  }

  /**
   * On this backend's first use of a store, by any operation, removes the
   * temporary files that processes no longer running left in its directory.
   * A store without a directory has none; reading it does not create it.
   * @param {string} dir
   * @internal
   */
  async sweep(dir) {
    if (this.swept.has(dir)) return;
    let names;
    try {
      names = await fsp.readdir(dir);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return;
      throw error;
    }
    for (const name of names) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const pid = Number(name.slice(TEMP_PREFIX.length).split('-')[0]);
      if (Number.isInteger(pid) && pid !== process.pid && !processAlive(pid)) await fsp.rm(path.join(dir, name), { force: true });
    }
    this.swept.add(dir);
  }

  /**
   * Makes the store's directory exist, durably, and sweeps it.
   * @param {string} dir
   * @internal
   */
  async prepare(dir) {
    if (!this.made.has(dir)) {
      try {
        await fsp.mkdir(dir);
        await syncDirectory(this.root);
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
      }
      this.made.add(dir);
    }
    await this.sweep(dir);
  }

  /**
   * @param {AbortSignal} signal @param {string} store @param {string} key
   * @returns {Promise<Uint8Array | undefined>}
   */
  get(signal, store, key) {
    return asService(signal, `storage get "${key}" in "${store}"`, async () => {
      check(signal);
      const file = this.keyFile(store, key);
      await this.sweep(this.storeDir(store));
      check(signal);
      let record;
      try {
        record = await withHandle(signal, file, O_RDONLY | O_NOFOLLOW, async (h) => readAll(signal, h, (await h.stat()).size));
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return undefined;
        throw error;
      }
      const r = decodeRecord(record, file);
      // A hashed name that belongs to another key is no match.
      return r.key === key ? r.value : undefined;
    });
  }

  /**
   * @param {AbortSignal} signal @param {string} store @param {string} key @param {Uint8Array} value
   * @returns {Promise<void>}
   */
  put(signal, store, key, value) {
    return asService(signal, `storage put "${key}" in "${store}"`, async () => {
      check(signal);
      const dir = this.storeDir(store);
      const file = this.keyFile(store, key);
      const record = encodeRecord(key, value);
      await this.prepare(dir);
      check(signal);
      const temp = path.join(dir, `${TEMP_PREFIX}${tempSuffix()}`);
      await replaceFile(signal, temp, file, 0o644, async (h) => {
        await writeAll(signal, h, record);
        await h.sync();
      });
      await syncDirectory(dir);
    });
  }

  /**
   * @param {AbortSignal} signal @param {string} store @param {string} key
   * @returns {Promise<boolean>}  true if the key existed
   */
  delete(signal, store, key) {
    return asService(signal, `storage delete "${key}" in "${store}"`, async () => {
      check(signal);
      const dir = this.storeDir(store);
      const file = this.keyFile(store, key);
      await this.sweep(dir);
      check(signal);
      if (fileNameOf('k-', key).startsWith('h-')) {
        // A hashed name could be another key's; delete only our own.
        const existing = await this.get(signal, store, key);
        if (existing === undefined) return false;
      }
      check(signal);
      try {
        await fsp.unlink(file);
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return false;
        throw error;
      }
      await syncDirectory(dir);
      return true;
    });
  }

  /**
   * @param {AbortSignal} signal @param {string} store @param {string} prefix
   * @returns {Promise<string[]>}  the keys starting with `prefix`, sorted
   */
  list(signal, store, prefix) {
    return asService(signal, `storage list "${prefix}" in "${store}"`, async () => {
      check(signal);
      const dir = this.storeDir(store);
      await this.sweep(dir);
      check(signal);
      let names;
      try {
        names = await fsp.readdir(dir);
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return [];
        throw error;
      }
      /** @type {string[]} */
      const keys = [];
      for (const name of names) {
        check(signal);
        /** @type {string | null} */
        let key = null;
        if (name.startsWith('k-')) key = decodeName(name.slice(2));
        else if (name.startsWith('h-')) {
          try {
            key = await withHandle(signal, path.join(dir, name), O_RDONLY | O_NOFOLLOW, (h) => readKey(h, path.join(dir, name)));
          } catch (error) {
            // Deleted meanwhile.
            if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') throw error;
          }
        }
        if (key !== null && key.startsWith(prefix)) keys.push(key);
      }
      return keys.sort();
    });
  }
}
