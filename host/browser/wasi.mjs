// The WASI preview1 subset a C++ program needs for printing, clocks, random
// numbers, arguments, environment and exit, identical in Node and browsers.
// Output goes to sinks the embedder can replace; everything else a program may
// import answers ENOSYS (or EBADF for descriptors it does not have).
import { ProgramExit } from './errors.mjs';

const ERRNO = { success: 0, badf: 8, fault: 21, inval: 28, nosys: 52, spipe: 70 };
const FILETYPE_CHARACTER_DEVICE = 2;
const CLOCK = { realtime: 0, monotonic: 1, process: 2, thread: 3 };

/**
 * @typedef {object} WasiOptions
 * @property {string[]} [args]  argv, including the program name first
 * @property {Record<string, string>} [env]  environment variables the program sees
 * @property {(text: string) => void} [stdout]  receives decoded standard output
 * @property {(text: string) => void} [stderr]  receives decoded standard error
 * @property {(bytes: Uint8Array) => void} [randomFill]  fills with random bytes
 */

/** Default sinks: the process streams under Node, the console in a browser. */
export function defaultSink(/** @type {'stdout'|'stderr'} */ which) {
  const g = /** @type {any} */ (globalThis);
  const stream = g.process?.[which];
  if (stream && typeof stream.write === 'function') return (/** @type {string} */ text) => { stream.write(text); };
  // Browsers print whole lines to the console.
  let pending = '';
  const log = which === 'stdout' ? console.log : console.error;
  return (/** @type {string} */ text) => {
    pending += text;
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      log(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
  };
}

/** Whether a view is of a shared memory (a SharedArrayBuffer). @param {Uint8Array} view */
const isShared = (view) => typeof SharedArrayBuffer === 'function' ? view.buffer instanceof SharedArrayBuffer
  : Object.prototype.toString.call(view.buffer) === '[object SharedArrayBuffer]';

export class Wasi {
  /** @param {WasiOptions} [options] */
  constructor(options = {}) {
    this.args = options.args ?? ['program'];
    this.env = Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`);
    this.stdout = options.stdout ?? defaultSink('stdout');
    this.stderr = options.stderr ?? defaultSink('stderr');
    this.randomFill = options.randomFill ?? ((bytes) => {
      // getRandomValues fills at most 65536 bytes per call.
      for (let i = 0; i < bytes.length; i += 65536) crypto.getRandomValues(/** @type {Uint8Array<ArrayBuffer>} */ (bytes.subarray(i, i + 65536)));
    });
    this.decoders = [null, new TextDecoder(), new TextDecoder()];
    /** @type {WebAssembly.Memory | null} */
    this.memory = null;
    this.startTime = typeof performance !== 'undefined' ? performance.now() : 0;
  }

  /** Connects the instance's exported memory. @param {WebAssembly.Instance} instance */
  attach(instance) {
    const memory = instance.exports.memory;
    this.memory = memory instanceof WebAssembly.Memory ? memory : null;
  }

  view() {
    if (!this.memory) throw new Error('WASI call before the program memory was attached');
    return new DataView(this.memory.buffer);
  }

  bytes() {
    if (!this.memory) throw new Error('WASI call before the program memory was attached');
    return new Uint8Array(this.memory.buffer);
  }

  /**
   * The import object for module "wasi_snapshot_preview1", covering every name
   * the program imports.
   * @param {string[]} names
   */
  imports(names) {
    const known = this.functions();
    /** @type {Record<string, Function>} */
    const out = {};
    for (const name of names) out[name] = known[name] ?? (() => ERRNO.nosys);
    return out;
  }

  /** @returns {Record<string, Function>} */
  functions() {
    const encoder = new TextEncoder();
    /** @param {string[]} list @param {number} ptrs @param {number} buf */
    const writeStrings = (list, ptrs, buf) => {
      const view = this.view();
      const bytes = this.bytes();
      for (const s of list) {
        view.setUint32(ptrs, buf, true);
        ptrs += 4;
        const encoded = encoder.encode(s);
        bytes.set(encoded, buf);
        bytes[buf + encoded.length] = 0;
        buf += encoded.length + 1;
      }
      return ERRNO.success;
    };
    /** @param {string[]} list @param {number} countPtr @param {number} sizePtr */
    const sizes = (list, countPtr, sizePtr) => {
      const view = this.view();
      view.setUint32(countPtr, list.length, true);
      view.setUint32(sizePtr, list.reduce((n, s) => n + encoder.encode(s).length + 1, 0), true);
      return ERRNO.success;
    };
    return {
      args_get: (argv, buf) => writeStrings(this.args, argv, buf),
      args_sizes_get: (count, size) => sizes(this.args, count, size),
      environ_get: (envp, buf) => writeStrings(this.env, envp, buf),
      environ_sizes_get: (count, size) => sizes(this.env, count, size),
      clock_res_get: (id, resPtr) => {
        if (!Object.values(CLOCK).includes(id)) return ERRNO.inval;
        this.view().setBigUint64(resPtr, id === CLOCK.realtime ? 1000000n : 1000n, true);
        return ERRNO.success;
      },
      clock_time_get: (id, _precision, timePtr) => {
        let ns;
        if (id === CLOCK.realtime) ns = BigInt(Date.now()) * 1000000n;
        else if (Object.values(CLOCK).includes(id)) ns = BigInt(Math.round((performance.now() - this.startTime) * 1e6));
        else return ERRNO.inval;
        this.view().setBigUint64(timePtr, ns, true);
        return ERRNO.success;
      },
      fd_write: (fd, iovs, iovsLen, writtenPtr) => {
        if (fd !== 1 && fd !== 2) return ERRNO.badf;
        const view = this.view();
        const bytes = this.bytes();
        let written = 0;
        let text = '';
        const decoder = /** @type {TextDecoder} */ (this.decoders[fd]);
        for (let i = 0; i < iovsLen; i++) {
          const ptr = view.getUint32(iovs + i * 8, true);
          const len = view.getUint32(iovs + i * 8 + 4, true);
          const chunk = bytes.subarray(ptr, ptr + len);
          // Browsers' TextDecoder refuses views of a shared memory: decode a copy.
          text += decoder.decode(isShared(chunk) ? chunk.slice() : chunk, { stream: true });
          written += len;
        }
        if (text) (fd === 1 ? this.stdout : this.stderr)(text);
        view.setUint32(writtenPtr, written, true);
        return ERRNO.success;
      },
      fd_read: (fd, _iovs, _iovsLen, readPtr) => {
        if (fd !== 0) return ERRNO.badf;
        this.view().setUint32(readPtr, 0, true); // standard input is empty
        return ERRNO.success;
      },
      fd_close: (fd) => (fd <= 2 ? ERRNO.success : ERRNO.badf),
      fd_seek: (fd) => (fd <= 2 ? ERRNO.spipe : ERRNO.badf),
      fd_fdstat_get: (fd, statPtr) => {
        if (fd > 2) return ERRNO.badf;
        const view = this.view();
        view.setUint8(statPtr, FILETYPE_CHARACTER_DEVICE);
        view.setUint16(statPtr + 2, 0, true);
        view.setBigUint64(statPtr + 8, 0n, true);
        view.setBigUint64(statPtr + 16, 0n, true);
        return ERRNO.success;
      },
      fd_fdstat_set_flags: (fd) => (fd <= 2 ? ERRNO.success : ERRNO.badf),
      fd_prestat_get: () => ERRNO.badf,
      fd_prestat_dir_name: () => ERRNO.badf,
      random_get: (ptr, len) => {
        const target = this.bytes().subarray(ptr, ptr + len);
        if (isShared(target)) {
          // getRandomValues refuses views of a shared memory too.
          const copy = new Uint8Array(target.length);
          this.randomFill(copy);
          target.set(copy);
        } else {
          this.randomFill(target);
        }
        return ERRNO.success;
      },
      sched_yield: () => ERRNO.success,
      proc_exit: (code) => {
        throw new ProgramExit(code);
      },
    };
  }
}
