// The `files` service under Node: whole-file reads and writes confined to the
// directories the embedder granted (docs/node.md, "Files and permissions").
//
// A program names files with *guest paths*. Every granted directory has a guest
// name: the path as the embedder or the command line wrote it, normalised
// ("--dir data" is "data", "--dir ." is ".", "--dir /srv/in" is "/srv/in"), or
// the name given with `{ path, as }`. A guest path belongs to the grant whose
// guest name is its longest leading run of whole components, so that paths
// typed next to "--dir" on the command line reach the same files inside the
// program. Nothing else is reachable:
//   - a path that no grant's name begins is denied (absolute paths included);
//   - `..` after the grant's name is denied, wherever it would lead;
//   - symbolic links are followed only while they stay inside the grant's real
//     directory; one that leads outside (or an absolute target that does not
//     start with that directory's real path) is denied.
// The checks walk the path one component at a time with lstat before anything
// is opened, and the final component is opened with O_NOFOLLOW. On Linux the
// opened descriptor's path (/proc/self/fd) is checked again, which closes the
// window in which another process could swap a component for a link.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

import { checkOptionKeys, SnailError } from '../browser/errors.mjs';
import { ServiceError } from '../browser/services.mjs';
import { Status } from '../browser/status.mjs';
import {
  asService, check, readAll, replaceFile, tempSuffix, withHandle, writeAll,
} from './fsutil.mjs';

/**
 * A directory the program may use: a path (its guest name is the path as
 * written) or `{ path, as }` to give it another guest name.
 * @typedef {string | { path: string, as?: string }} DirGrant
 */

/**
 * @typedef {object} Grant
 * @property {string} guest  the normalised guest name ("data", ".", "/srv/in")
 * @property {boolean} absolute  whether the guest name is absolute
 * @property {string[]} components  the guest name's components ([] for ".")
 * @property {string} host  the directory's real path on the host
 * @property {string} path  the host path as the grant gave it, for messages
 */

const { O_RDONLY } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
/** Where Linux shows the path of each open descriptor. */
const procFd = process.platform === 'linux' && fs.existsSync('/proc/self/fd');
/** Symbolic links followed in one path before it is refused, as Linux does. */
const MAX_LINKS = 40;

/** @param {string} p */
function splitPath(p) {
  return p.split('/').filter((c) => c !== '' && c !== '.');
}

/**
 * The guest name of a grant named `name`, normalised: "./data/" is "data",
 * "./" is ".", "/srv//in" is "/srv/in".
 * @param {string} name
 */
function guestName(name) {
  return (name.startsWith('/') ? '/' : '') + splitPath(name).join('/') || '.';
}

/** Whether `p` is `root` or inside it (both real, absolute). @param {string} root @param {string} p */
export function isInside(root, p) {
  if (p === root) return true;
  return p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** @param {string} why */
function denied(why) {
  return new ServiceError(Status.denied, why);
}

/**
 * The directories a program may use, and the file operations on them.
 */
export class GrantedFiles {
  /**
   * @param {DirGrant[]} [dirs]  the granted directories; they must exist
   * @param {{ cwd?: string }} [options]  what relative host paths resolve against
   */
  constructor(dirs = [], options = {}) {
    const cwd = options.cwd ?? process.cwd();
    /** @type {Grant[]} @internal */
    this.grants = [];
    if (!Array.isArray(dirs)) {
      // A string would be granted letter by letter.
      throw new SnailError(`the granted directories must be a list (of paths or { path, as }), got ${typeof dirs === 'string' ? JSON.stringify(dirs) : typeof dirs}; write dirs: [${typeof dirs === 'string' ? JSON.stringify(dirs) : '...'}]`, { code: 'ERR_OPTION' });
    }
    if (options.cwd !== undefined && typeof options.cwd !== 'string') {
      throw new SnailError(`cwd must be a directory path (a string), got ${typeof options.cwd}`, { code: 'ERR_OPTION' });
    }
    for (const d of dirs) {
      if (d !== null && typeof d === 'object') checkOptionKeys(`the granted directory ${JSON.stringify(d.path)}`, d, ['path', 'as'], 'ERR_OPTION');
      const hostPath = typeof d === 'string' ? d : d?.path;
      if (typeof hostPath !== 'string' || hostPath === '') {
        throw new SnailError(`a granted directory needs a path, got ${JSON.stringify(d)}`, { code: 'ERR_OPTION' });
      }
      const name = typeof d === 'string' || d.as === undefined ? hostPath : d.as;
      if (typeof name !== 'string' || name === '' || name.includes('\0')) {
        throw new SnailError(`the guest name of granted directory ${hostPath} must be a non-empty path, got ${JSON.stringify(name)}`, { code: 'ERR_OPTION' });
      }
      let real;
      try {
        real = fs.realpathSync(path.resolve(cwd, hostPath));
      } catch (error) {
        const code = /** @type {NodeJS.ErrnoException} */ (error).code;
        const why = code === 'ENOENT' ? 'it does not exist' : code === 'EACCES' ? 'permission denied' : /** @type {Error} */ (error).message;
        throw new SnailError(`cannot grant directory ${hostPath}: ${why}`, { code: 'ERR_OPTION', cause: error });
      }
      if (!fs.statSync(real).isDirectory()) {
        throw new SnailError(`cannot grant ${hostPath}: it is not a directory`, { code: 'ERR_OPTION' });
      }
      const guest = guestName(name);
      const absolute = name.startsWith('/');
      const components = splitPath(name);
      const earlier = this.grants.find((g) => g.guest === guest);
      if (earlier) {
        // The two paths as given go with the error, for a command line's own
        // message: there the same name always means the same directory.
        const error = new SnailError(`two granted directories have the guest name "${guest}"; give one another name with { path, as }`, { code: 'ERR_OPTION' });
        throw Object.assign(error, { sameGuest: { guest, paths: [earlier.path, hostPath] } });
      }
      this.grants.push({ guest, absolute, components, host: real, path: hostPath });
    }
  }

  /**
   * The grant a guest path belongs to and the components after its name.
   * Throws a ServiceError (invalid or denied) for a path the program may not use.
   * @param {string} guestPath
   * @returns {{ grant: Grant, rest: string[] }}
   * @internal
   */
  locate(guestPath) {
    if (guestPath === '' || guestPath.includes('\0')) {
      throw new ServiceError(Status.invalid, `"${guestPath.replaceAll('\0', '\\0')}" is not a path`);
    }
    if (this.grants.length === 0) {
      throw denied(`no directory was granted, so "${guestPath}" is out of reach (grant one with --dir PATH, or nodeHost({ dirs }))`);
    }
    const absolute = guestPath.startsWith('/');
    const components = splitPath(guestPath);
    /** @type {Grant | null} */
    let best = null;
    for (const g of this.grants) {
      if (g.absolute !== absolute || g.components.length > components.length) continue;
      if (!g.components.every((c, i) => components[i] === c)) continue;
      if (!best || g.components.length > best.components.length) best = g;
    }
    if (!best) {
      throw denied(`"${guestPath}" is outside every granted directory (${this.grants.map((g) => g.guest).join(', ')})`);
    }
    const rest = components.slice(best.components.length);
    if (rest.includes('..')) throw denied(`"${guestPath}" uses ".." inside granted directory "${best.guest}"; paths may not climb`);
    return { grant: best, rest };
  }

  /**
   * Follows `rest` inside the grant, component by component, with every
   * symbolic link resolved and kept inside the grant's real directory.
   * @param {Grant} grant @param {string[]} rest
   * @returns {Promise<{ file: string, stat: fs.Stats | null }>}  the real path; stat null if it does not exist
   * @internal
   */
  async resolveInside(grant, rest) {
    const root = grant.host;
    let current = root;
    const queue = [...rest];
    let links = 0;
    /** @type {fs.Stats | null} */
    let stat = await fsp.lstat(root);
    while (queue.length > 0) {
      const c = /** @type {string} */ (queue.shift());
      if (c === '' || c === '.') continue;
      if (c === '..') {
        // Only a link's target brings ".." here: the program's path has none.
        current = path.dirname(current);
        if (!isInside(root, current)) throw denied(`a symbolic link leads out of granted directory "${grant.guest}"`);
        stat = await fsp.lstat(current);
        continue;
      }
      const next = path.join(current, c);
      try {
        stat = await fsp.lstat(next);
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT' && queue.every((q) => q === '' || q === '.')) {
          return { file: next, stat: null };
        }
        throw error;
      }
      if (stat.isSymbolicLink()) {
        if (++links > MAX_LINKS) throw denied(`too many symbolic links in a path under "${grant.guest}"`);
        const target = await fsp.readlink(next);
        if (target.startsWith('/')) {
          // An absolute target counts only if it starts with the grant's real
          // path; the rest of it is walked like any other path.
          const prefix = root.endsWith('/') ? root : `${root}/`;
          if (target !== root && !target.startsWith(prefix)) throw denied(`a symbolic link leads out of granted directory "${grant.guest}"`);
          current = root;
          queue.unshift(...target.slice(prefix.length - 1).split('/'));
        } else {
          queue.unshift(...target.split('/'));
        }
        stat = await fsp.lstat(current);
        continue;
      }
      current = next;
      if (!stat.isDirectory() && queue.some((q) => q !== '' && q !== '.')) {
        throw Object.assign(new Error(`${next} is not a directory`), { code: 'ENOTDIR' });
      }
    }
    return { file: current, stat };
  }

  /**
   * Checks, where the system shows it, that an open descriptor is inside the grant.
   * @param {Grant} grant @param {import('node:fs/promises').FileHandle} handle
   * @internal
   */
  async confirm(grant, handle) {
    if (!procFd) return;
    const opened = await fsp.readlink(`/proc/self/fd/${handle.fd}`);
    if (!isInside(grant.host, opened)) throw denied(`a path under "${grant.guest}" changed to lead outside it`);
  }

  /**
   * Reads a whole file. The descriptor is closed before the promise settles,
   * also when the signal aborts.
   * @param {AbortSignal} signal @param {string} guestPath
   * @returns {Promise<Uint8Array>}
   */
  read(signal, guestPath) {
    return asService(signal, `reading "${guestPath}"`, async () => {
      check(signal);
      const { grant, rest } = this.locate(guestPath);
      const { file, stat } = await this.resolveInside(grant, rest);
      if (!stat) throw new ServiceError(Status.not_found, `"${guestPath}" does not exist`);
      if (!stat.isFile()) throw new ServiceError(Status.failed, `"${guestPath}" is not a regular file`);
      check(signal);
      // O_NONBLOCK: a file swapped for a FIFO meanwhile must not block the open.
      return withHandle(signal, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, async (handle) => {
        await this.confirm(grant, handle);
        const opened = await handle.stat();
        if (!opened.isFile()) throw new ServiceError(Status.failed, `"${guestPath}" is not a regular file`);
        return readAll(signal, handle, opened.size);
      });
    });
  }

  /**
   * Writes a whole file, atomically: the data goes to a temporary file in the
   * same directory, which is renamed over the file. Until the rename (the
   * commit point) an abort leaves the old file; the temporary file is removed
   * before the promise settles. Not flushed to disk (durable storage does that).
   * @param {AbortSignal} signal @param {string} guestPath @param {Uint8Array} data
   * @returns {Promise<void>}
   */
  write(signal, guestPath, data) {
    return asService(signal, `writing "${guestPath}"`, async () => {
      check(signal);
      const { grant, rest } = this.locate(guestPath);
      if (rest.length === 0) throw new ServiceError(Status.failed, `"${guestPath}" is a granted directory, not a file`);
      const { file, stat } = await this.resolveInside(grant, rest);
      if (stat && !stat.isFile()) throw new ServiceError(Status.failed, `"${guestPath}" is not a regular file`);
      const dir = path.dirname(file);
      const temp = path.join(dir, `.${path.basename(file)}.snail-${tempSuffix()}.tmp`);
      check(signal);
      await replaceFile(signal, temp, file, 0o666, async (handle) => {
        await this.confirm(grant, handle);
        if (stat) await handle.chmod(stat.mode & 0o7777);
        await writeAll(signal, handle, data);
      });
    });
  }

  /** The `files` service of HostServices. */
  service() {
    return {
      read: (/** @type {AbortSignal} */ signal, /** @type {string} */ p) => this.read(signal, p),
      write: (/** @type {AbortSignal} */ signal, /** @type {string} */ p, /** @type {Uint8Array} */ data) => this.write(signal, p, data),
    };
  }
}
