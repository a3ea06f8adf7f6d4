// Loading a program's module from a path, URL, bytes, Response or Module.
// Paths are read by the platform (host/node/ installs Node's); where nothing
// can read files, a path is refused with advice.
import { SnailError } from './errors.mjs';
import { platform } from './platform.mjs';

/**
 * @typedef {string | URL | ArrayBuffer | ArrayBufferView | Response | WebAssembly.Module} ProgramSource
 * @typedef {{ module: WebAssembly.Module, bytes: Uint8Array | null, name: string }} LoadedModule
 */

const g = /** @type {any} */ (globalThis);

/**
 * The largest module file read by default: V8's own limit for a module
 * (1 GiB), so a larger file could not compile anyway.
 */
export const DEFAULT_MAX_MODULE_BYTES = 2 ** 30;

/**
 * @param {ProgramSource} source
 * @param {{ name?: string, maxBytes?: number }} [options]  `maxBytes`: the largest
 *   file read from a path (default DEFAULT_MAX_MODULE_BYTES; option maxModuleBytes)
 * @returns {Promise<LoadedModule>}
 */
export async function loadModule(source, options = {}) {
  if (source instanceof WebAssembly.Module) {
    return { module: source, bytes: null, name: options.name ?? 'the program' };
  }
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    const bytes = toBytes(source);
    const name = options.name ?? 'the program';
    return { module: await compile(bytes, name), bytes, name };
  }
  if (typeof g.Response === 'function' && source instanceof g.Response) {
    const response = /** @type {Response} */ (source);
    return fromResponse(response, options.name ?? (response.url || 'the program'));
  }
  if (typeof source === 'string' || source instanceof URL) {
    const url = asUrl(source);
    if (url === null || url.protocol === 'file:') {
      const path = url ? decodeURIComponent(url.pathname) : /** @type {string} */ (source);
      const bytes = await readFile(path, options.maxBytes ?? DEFAULT_MAX_MODULE_BYTES);
      const name = options.name ?? path;
      return { module: await compile(bytes, name), bytes, name };
    }
    let response;
    try {
      response = await fetch(url);
    } catch (error) {
      throw new SnailError(`cannot fetch the program ${url.href}: ${errorMessage(error)}`, { cause: error, code: 'ERR_LOAD' });
    }
    if (!response.ok) {
      throw new SnailError(`cannot fetch the program ${url.href}: HTTP ${response.status} ${response.statusText}`, { code: 'ERR_LOAD' });
    }
    return fromResponse(response, options.name ?? url.href);
  }
  throw new SnailError(`cannot load a program from ${describe(source)}; pass a path, URL, bytes, a Response or a WebAssembly.Module`, { code: 'ERR_LOAD' });
}

/** A string that carries a URL scheme rather than being a path. */
const URL_SCHEME = /^(https?|file|data|blob):/i;

/**
 * Where a string or URL source is: a URL, or null for a file path.
 * @param {string | URL} source @returns {URL | null}
 */
function asUrl(source) {
  if (source instanceof URL) return source;
  // Where files can be read (Node), a plain string is a path unless it carries a URL scheme.
  if (platform().readFile !== null) return URL_SCHEME.test(source) ? new URL(source) : null;
  const base = g.document?.baseURI ?? g.location?.href;
  if (base === undefined && !URL_SCHEME.test(source)) return null;
  return new URL(source, base);
}

/** @param {Response} response @param {string} name */
async function fromResponse(response, name) {
  const type = response.headers.get('content-type') ?? '';
  if (typeof WebAssembly.compileStreaming === 'function' && type.startsWith('application/wasm')) {
    // Streaming compilation, with a copy of the bytes for the ABI's type checks.
    const copy = response.clone();
    try {
      const [module, buffer] = await Promise.all([WebAssembly.compileStreaming(response), copy.arrayBuffer()]);
      return { module, bytes: new Uint8Array(buffer), name };
    } catch (error) {
      throw invalidModule(name, error);
    }
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { module: await compile(bytes, name), bytes, name };
}

/** @param {string} path @param {number} maxBytes */
async function readFile(path, maxBytes) {
  const read = platform().readFile;
  if (read === null) {
    throw new SnailError(`cannot read the file ${path}: this is the environment-neutral entry of snail-core, which reads no files; `
      + "pass a URL or the bytes, or under Node, Deno or Bun import 'snail-core' (its node export) or 'snail-core/node'", { code: 'ERR_LOAD' });
  }
  return read(path, { maxBytes, option: 'maxModuleBytes' });
}

/** @param {Uint8Array} bytes @param {string} name */
async function compile(bytes, name) {
  if (bytes.length < 8 || bytes[0] !== 0x00 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new SnailError(`${name} is not a WebAssembly module (it starts with ${head || 'nothing'}, not 00 61 73 6d)`, { code: 'ERR_NOT_WASM' });
  }
  try {
    return await WebAssembly.compile(/** @type {BufferSource} */ (bytes));
  } catch (error) {
    throw invalidModule(name, error);
  }
}

/** @param {string} name @param {unknown} error */
function invalidModule(name, error) {
  return new SnailError(`${name} is not a valid WebAssembly module: ${errorMessage(error)}`, { cause: error, code: 'ERR_NOT_WASM' });
}

/** @param {ArrayBuffer | ArrayBufferView} source */
function toBytes(source) {
  if (source instanceof Uint8Array) return source;
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  return new Uint8Array(source);
}

/** @param {unknown} error */
function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

/** @param {unknown} v */
function describe(v) {
  if (v === null) return 'null';
  if (typeof v === 'object') return `a ${v.constructor?.name ?? 'object'}`;
  return `a ${typeof v}`;
}
