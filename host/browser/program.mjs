// Loading a program's module from a path, URL, bytes, Response or Module.
import { isNode } from './capabilities.mjs';
import { SnailError } from './errors.mjs';

/**
 * @typedef {string | URL | ArrayBuffer | ArrayBufferView | Response | WebAssembly.Module} ProgramSource
 * @typedef {{ module: WebAssembly.Module, bytes: Uint8Array | null, name: string }} LoadedModule
 */

const g = /** @type {any} */ (globalThis);

/**
 * @param {ProgramSource} source
 * @param {{ name?: string }} [options]
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
      const bytes = await readFile(path);
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

/** @param {string | URL} source @returns {URL | null} */
function asUrl(source) {
  if (source instanceof URL) return source;
  if (isNode) {
    // Under Node a plain string is a file path unless it carries a URL scheme.
    return /^(https?|file|data|blob):/i.test(source) ? new URL(source) : null;
  }
  const base = g.document?.baseURI ?? g.location?.href;
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

/** @param {string} path */
async function readFile(path) {
  if (!isNode) throw new SnailError(`cannot read the file ${path} outside Node; pass a URL or bytes`, { code: 'ERR_LOAD' });
  // process.getBuiltinModule (Node 22.3+), not import(): bundlers leave it alone.
  const fs = g.process.getBuiltinModule('node:fs/promises');
  try {
    return new Uint8Array(await fs.readFile(path));
  } catch (error) {
    const code = /** @type {any} */ (error)?.code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : errorMessage(error);
    throw new SnailError(`cannot read the program ${path}: ${why}`, { cause: error, code: 'ERR_LOAD' });
  }
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
