// nodeHost(): everything the Node host grants a program, as options for
// Runtime.load (docs/node.md).
//
//   const rt = await Runtime.load('app.wasm', nodeHost({ dirs: ['data'], allowNet: ['example.com'], env: ['HOME'] }));
//
// Nothing is granted by default: no directory, no network host, no
// environment variable, no standard input; storage lives in memory unless a
// directory is given.
import { checkOptionKeys, SnailError } from '../browser/errors.mjs';
import { checkNetGrants, MemoryStorage } from '../browser/services.mjs';
import { GrantedFiles } from './files.mjs';
import { LineReader } from './stdin.mjs';
import { DirectoryStorage } from './storage.mjs';

/**
 * @typedef {object} NodeHostOptions
 * @property {import('./files.mjs').DirGrant[]} [dirs]  directories the program may read and
 *   write files in (see docs/node.md for how its paths map to them)
 * @property {string[]} [allowNet]  hosts (host or host:port, '*' for any) snail.fetch may reach
 * @property {string[] | Record<string, string>} [env]  variable names to copy from this
 *   process's environment, or the variables themselves
 * @property {string} [storageDir]  a directory for durable storage (default: in memory)
 * @property {boolean | NodeJS.ReadableStream} [stdin]  true for process.stdin, or a stream
 *   whose lines snail::stdin_line reads (default: none, stdin_line is denied)
 * @property {string} [cwd]  what relative directory paths resolve against (default: process.cwd())
 */

/**
 * The `services`, `permissions` and `env` options of Runtime.load for a
 * program run under Node with the given grants.
 * @param {NodeHostOptions} [options]
 * @returns {{ services: import('../browser/index.mjs').HostServices,
 *             permissions: import('../browser/index.mjs').Permissions,
 *             env: Record<string, string> }}
 */
export function nodeHost(options = {}) {
  checkOptionKeys('nodeHost()', options, ['dirs', 'allowNet', 'env', 'storageDir', 'stdin', 'cwd'], 'ERR_OPTION');
  const files = new GrantedFiles(options.dirs ?? [], { cwd: options.cwd });
  const allowNet = checkNetGrants(options.allowNet ?? [], 'nodeHost(): allowNet');
  const storage = options.storageDir === undefined ? new MemoryStorage() : new DirectoryStorage(options.storageDir);
  /** @type {import('../browser/index.mjs').HostServices} */
  const services = { storage, files: files.service() };
  const stdin = options.stdin;
  if (stdin !== undefined && typeof stdin !== 'boolean' && !(stdin !== null && typeof stdin === 'object' && typeof /** @type {any} */ (stdin).on === 'function')) {
    throw new SnailError(`nodeHost(): stdin must be true, false or a readable stream, got ${stdin === null ? 'null' : typeof stdin}`, { code: 'ERR_OPTION' });
  }
  if (stdin) services.stdin = readerOf(stdin).service();
  return { services, permissions: { net: [...allowNet] }, env: environment(options.env) };
}

/** The reader of process.stdin, made when a host first grants it. @type {LineReader | null} */
let processStdin = null;
/** @type {WeakMap<NodeJS.ReadableStream, LineReader>} */
const readers = new WeakMap();

/**
 * The one reader of a stream, shared by every host that grants it: runtimes
 * that read the same input one after another (or at once) take its lines in
 * turn, and a line one reader read ahead is never stranded in a runtime that
 * closed, nor does each runtime add a listener to the stream.
 * @param {true | NodeJS.ReadableStream} stdin
 */
function readerOf(stdin) {
  if (stdin === true) return (processStdin ??= new LineReader(() => process.stdin));
  let reader = readers.get(stdin);
  if (reader === undefined) {
    reader = new LineReader(stdin);
    readers.set(stdin, reader);
  }
  return reader;
}

/**
 * @param {string[] | Record<string, string> | undefined} env
 * @returns {Record<string, string>}
 */
function environment(env) {
  /** @type {Record<string, string>} */
  const out = {};
  if (env === undefined) return out;
  if (Array.isArray(env)) {
    for (const name of env) {
      if (typeof name !== 'string' || name === '' || name.includes('=')) {
        throw new SnailError(`nodeHost(): env takes variable names, got ${JSON.stringify(name)}`, { code: 'ERR_OPTION' });
      }
      // A variable this process does not have stays unset for the program.
      const value = process.env[name];
      if (value !== undefined) out[name] = value;
    }
    return out;
  }
  if (env === null || typeof env !== 'object') throw new SnailError('nodeHost(): env takes a list of names or an object', { code: 'ERR_OPTION' });
  for (const [k, v] of Object.entries(env)) {
    if (k === '' || k.includes('=') || typeof v !== 'string') throw new SnailError(`nodeHost(): env.${k} must be a string under a name without "="`, { code: 'ERR_OPTION' });
    out[k] = v;
  }
  return out;
}
