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
// The checks walk the path one component at a time before anything is
// opened. On Linux every directory on the way is held open as a descriptor and
// the next component is looked up in it through /proc/self/fd/N/NAME, never
// by a path from the root, so another process that swaps a directory for a
// link meanwhile cannot redirect the walk: the file opened, the temporary file
// created, the rename and the removal all happen in a directory the walk
// reached inside the grant (Node has no openat(); this is its equivalent).
// Where /proc/self/fd is missing the same walk goes by names, which holds
// against the program alone but not against such a process (docs/node.md).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

import { checkOptionKeys, SnailError } from '../browser/errors.mjs';
import { ServiceError } from '../browser/services.mjs';
import { Status } from '../browser/status.mjs';
import {
  asService, check, closeDirectory, openDirectory, readAll, replaceFile, tempSuffix, withHandle, writeAll,
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
 * @property {{ dev: bigint, ino: bigint }} identity  the directory's device and
 *   inode when it was granted: a directory put in its place later is not it
 */

/**
 * A directory a walk reached: held open, and named through its descriptor
 * (/proc/self/fd/N), or, where the system cannot do that, named by its path.
 * `at(dir, name)` names an entry in it.
 * @typedef {{ path: string, handle: import('node:fs/promises').FileHandle | null }} Dir
 */

/**
 * Where a walk ended: the entry `name` of directory `dir` and what lstat saw
 * there (null: nothing); `name` null when the path is a directory it walked into.
 * @typedef {{ dir: Dir, name: string | null, stat: fs.Stats | null }} Place
 */

const { O_RDONLY } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
/**
 * Whether paths can start at a held directory descriptor (/proc/self/fd/N/NAME,
 * Linux): then no component of a path is ever looked up again by name.
 */
export const descriptorWalks = process.platform === 'linux' && fs.existsSync('/proc/self/fd');
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

/** The entry `name` of a directory a walk reached. @param {Dir} dir @param {string} name */
const at = (dir, name) => `${dir.path}/${name}`;

/** @param {unknown} error @param {string} code */
const isCode = (error, code) => /** @type {NodeJS.ErrnoException} */ (error)?.code === code;

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
   * @param {{ cwd?: string, descriptorWalks?: boolean }} [options]  `cwd`: what relative
   *   host paths resolve against; `descriptorWalks: false` walks by names even
   *   where descriptors could be held (for tests of systems without /proc)
   */
  constructor(dirs = [], options = {}) {
    const cwd = options.cwd ?? process.cwd();
    /** Whether walks hold directories open (see descriptorWalks). @internal */
    this.held = descriptorWalks && options.descriptorWalks !== false;
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
      const st = fs.statSync(real, { bigint: true });
      if (!st.isDirectory()) {
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
      this.grants.push({ guest, absolute, components, host: real, path: hostPath, identity: { dev: st.dev, ino: st.ino } });
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
   * Walks `rest` inside the grant and runs `fn` on where it ended, with every
   * directory on the way still held; closes them all before returning,
   * however `fn` ends.
   * @template T
   * @param {AbortSignal} signal @param {Grant} grant @param {string[]} rest
   * @param {(place: Place) => Promise<T>} fn
   * @returns {Promise<T>}
   * @internal
   */
  async within(signal, grant, rest, fn) {
    /** @type {import('node:fs/promises').FileHandle[]} */
    const held = [];
    try {
      const root = await this.enterGrant(grant, held);
      return await fn(await this.walk(signal, grant, root, rest, held));
    } finally {
      for (const handle of held.reverse()) await closeDirectory(handle);
    }
  }

  /**
   * The grant's directory, if it is still the one granted.
   * @param {Grant} grant @param {import('node:fs/promises').FileHandle[]} held
   * @returns {Promise<Dir>}
   * @internal
   */
  async enterGrant(grant, held) {
    /** @type {fs.BigIntStats} */
    let st;
    /** @type {Dir} */
    let dir;
    if (this.held) {
      const handle = await openDirectory(grant.host);
      held.push(handle);
      st = await handle.stat({ bigint: true });
      dir = { path: `/proc/self/fd/${handle.fd}`, handle };
    } else {
      st = await fsp.lstat(grant.host, { bigint: true });
      dir = { path: grant.host, handle: null };
    }
    if (!st.isDirectory() || st.dev !== grant.identity.dev || st.ino !== grant.identity.ino) {
      throw denied(`granted directory "${grant.guest}" (${grant.path}) was replaced since it was granted`);
    }
    return dir;
  }

  /**
   * The directory `name` in `dir`, held open, or null when it is no longer a
   * directory (another process swapped it for a link since lstat saw it).
   * @param {Dir} dir @param {string} name @param {import('node:fs/promises').FileHandle[]} held
   * @returns {Promise<Dir | null>}
   * @internal
   */
  async enter(dir, name, held) {
    if (!this.held) return { path: path.join(dir.path, name), handle: null };
    let handle;
    try {
      handle = await openDirectory(at(dir, name));
    } catch (error) {
      // O_NOFOLLOW | O_DIRECTORY: a link is ENOTDIR (or ELOOP), never followed.
      if (isCode(error, 'ENOTDIR') || isCode(error, 'ELOOP')) return null;
      throw error;
    }
    held.push(handle);
    return { path: `/proc/self/fd/${handle.fd}`, handle };
  }

  /**
   * Follows `rest` from the grant's directory, component by component, with
   * every symbolic link resolved and kept inside the grant. Each directory is
   * entered from the one before it, never by a path from the root.
   * @param {AbortSignal} signal @param {Grant} grant @param {Dir} root @param {string[]} rest
   * @param {import('node:fs/promises').FileHandle[]} held
   * @returns {Promise<Place>}
   * @internal
   */
  async walk(signal, grant, root, rest, held) {
    /** The directories entered, the grant's first: ".." from a link goes back one. */
    const stack = [root];
    const queue = [...rest];
    let links = 0;
    const outOfGrant = () => denied(`a symbolic link leads out of granted directory "${grant.guest}"`);
    const tooMany = () => denied(`too many symbolic links in a path under "${grant.guest}"`);
    while (queue.length > 0) {
      check(signal);
      const c = /** @type {string} */ (queue.shift());
      if (c === '' || c === '.') continue;
      const last = queue.every((q) => q === '' || q === '.');
      const dir = stack[stack.length - 1];
      if (c === '..') {
        // Only a link's target brings ".." here: the program's path has none.
        if (stack.length === 1) throw outOfGrant();
        stack.pop();
        continue;
      }
      /** @type {fs.Stats} */
      let stat;
      try {
        stat = await fsp.lstat(at(dir, c));
      } catch (error) {
        if (isCode(error, 'ENOENT') && last) return { dir, name: c, stat: null };
        throw error;
      }
      if (stat.isSymbolicLink()) {
        if (++links > MAX_LINKS) throw tooMany();
        let target;
        try {
          target = await fsp.readlink(at(dir, c));
        } catch (error) {
          // No longer a link (EINVAL): another process swapped it back; look again.
          if (!isCode(error, 'EINVAL')) throw error;
          queue.unshift(c);
          continue;
        }
        if (target.startsWith('/')) {
          // An absolute target counts only if it starts with the grant's real
          // path; the rest of it is walked from the grant's directory, held.
          const prefix = grant.host.endsWith('/') ? grant.host : `${grant.host}/`;
          if (target !== grant.host && !target.startsWith(prefix)) throw outOfGrant();
          stack.length = 1;
          queue.unshift(...target.slice(prefix.length - 1).split('/'));
        } else {
          queue.unshift(...target.split('/'));
        }
        continue;
      }
      if (last) return { dir, name: c, stat };
      if (!stat.isDirectory()) throw Object.assign(new Error(`${c} is not a directory`), { code: 'ENOTDIR' });
      const child = await this.enter(dir, c, held);
      if (child === null) {
        // Changed since lstat: look again (a link now), within the link bound.
        if (++links > MAX_LINKS) throw tooMany();
        queue.unshift(c);
        continue;
      }
      stack.push(child);
    }
    // The path names a directory: the grant itself, or one a link led to.
    return { dir: stack[stack.length - 1], name: null, stat: null };
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
      return this.within(signal, grant, rest, async ({ dir, name, stat }) => {
        if (name !== null && !stat) throw new ServiceError(Status.not_found, `"${guestPath}" does not exist`);
        if (name === null || !stat?.isFile()) throw new ServiceError(Status.failed, `"${guestPath}" is not a regular file`);
        check(signal);
        // O_NOFOLLOW: a file swapped for a link meanwhile is refused (ELOOP);
        // O_NONBLOCK: one swapped for a FIFO must not block the open.
        return withHandle(signal, at(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK, async (handle) => {
          const opened = await handle.stat();
          if (!opened.isFile()) throw new ServiceError(Status.failed, `"${guestPath}" is not a regular file`);
          return readAll(signal, handle, opened.size);
        });
      });
    });
  }

  /**
   * Writes a whole file, atomically: the data goes to a temporary file in the
   * same directory, which is renamed over the file. Until the rename (the
   * commit point) an abort leaves the old file; the temporary file is removed
   * before the promise settles. The temporary file is created, renamed and
   * removed in the directory the walk holds. Not flushed to disk (durable
   * storage does that).
   * @param {AbortSignal} signal @param {string} guestPath @param {Uint8Array} data
   * @returns {Promise<void>}
   */
  write(signal, guestPath, data) {
    return asService(signal, `writing "${guestPath}"`, async () => {
      check(signal);
      const { grant, rest } = this.locate(guestPath);
      if (rest.length === 0) throw new ServiceError(Status.failed, `"${guestPath}" is a granted directory, not a file`);
      await this.within(signal, grant, rest, async ({ dir, name, stat }) => {
        if (name === null || (stat && !stat.isFile())) throw new ServiceError(Status.failed, `"${guestPath}" is not a regular file`);
        const temp = at(dir, `.${name}.snail-${tempSuffix()}.tmp`);
        check(signal);
        await replaceFile(signal, temp, at(dir, name), 0o666, async (handle) => {
          if (stat) await handle.chmod(stat.mode & 0o7777);
          await writeAll(signal, handle, data);
        });
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
