// Lines of a readable stream (standard input) as the `stdin` service
// (docs/node.md, "Standard input").
//
// The reader pulls from the stream only while a task waits for a line: with
// nobody waiting the stream is paused, has no 'data' or 'end' listener of ours
// and is unref()ed if it can be, so it neither keeps the process alive nor
// buffers without bound. From its first read until the end of input the reader
// keeps one 'error' listener, which neither reads nor holds the process: an
// error that comes while nobody waits is kept for the next read instead of
// ending the process as an unhandled 'error' event. Lines are split at "\n"
// (a "\r" before it is dropped); a last line without an end of line counts. A
// wait that is aborted leaves the reader's queue as it was: the next line goes
// to the next wait, so cancelling a pending read never loses a line.
import { StringDecoder } from 'node:string_decoder';

import { adapter } from '../browser/adapters.mjs';
import { ServiceError } from '../browser/services.mjs';
import { Status } from '../browser/status.mjs';

/**
 * @typedef {{ resolve: (line: string | null) => void, reject: (error: unknown) => void }} Waiter
 */

export class LineReader {
  /**
   * @param {NodeJS.ReadableStream | (() => NodeJS.ReadableStream)} stream  a byte or text
   *   stream, for example process.stdin, or a function that returns it when the first
   *   line is wanted (process.stdin is created on first use)
   */
  constructor(stream) {
    /** @internal */
    this.source = stream;
    /** Complete lines read and not yet taken. @type {string[]} @internal */
    this.lines = [];
    /** The text after the last end of line. @internal */
    this.partial = '';
    /** The stream has ended (or failed); after the queued lines, every read is at the end. @internal */
    this.ended = false;
    /** @type {unknown} @internal */
    this.error = null;
    /** Waits in the order they started. @type {Waiter[]} @internal */
    this.waiters = [];
    /** The 'data' and 'end' listeners are on the stream (a task waits). @internal */
    this.listening = false;
    /** The 'error' listener is on the stream (from the first read to the end). @internal */
    this.watching = false;
    /** @internal */
    this.decoder = new StringDecoder('utf8');
    /** @internal */
    this.onData = (/** @type {Buffer | string} */ chunk) => this.take(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    /** @internal */
    this.onEnd = () => this.finish(null);
    /** @internal */
    this.onError = (/** @type {unknown} */ error) => this.finish(error);
  }

  /** The stream, created on first use. @returns {NodeJS.ReadableStream} @internal */
  get stream() {
    if (typeof this.source === 'function') this.source = this.source();
    return this.source;
  }

  /**
   * The next line without its end of line, or null at the end of the stream.
   * An adapter: the wait is removed however it ends.
   * @param {AbortSignal} signal
   * @returns {Promise<string | null>}
   */
  line(signal) {
    return adapter(signal, ({ resolve, reject, onCleanup }) => {
      /** @type {Waiter} */
      const waiter = { resolve, reject };
      this.waiters.push(waiter);
      onCleanup(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        if (this.waiters.length === 0) this.stop();
      });
      this.serve();
      if (this.waiters.includes(waiter)) this.start();
    });
  }

  /**
   * Puts a line back at the head of the queue (for a line that was read but
   * never delivered).
   * @param {string} line
   */
  unread(line) {
    this.lines.unshift(line);
    this.serve();
  }

  /** Hands queued lines, then the end, to the waits in order. @internal */
  serve() {
    while (this.waiters.length > 0 && this.lines.length > 0) {
      const w = /** @type {Waiter} */ (this.waiters.shift());
      w.resolve(/** @type {string} */ (this.lines.shift()));
    }
    if (this.ended && this.lines.length === 0) {
      for (const w of this.waiters.splice(0)) {
        if (this.error) w.reject(new ServiceError(Status.failed, `standard input failed: ${message(this.error)}`));
        else w.resolve(null);
      }
    }
    if (this.waiters.length === 0) this.stop();
  }

  /** @param {string} text @internal */
  take(text) {
    const parts = (this.partial + text).split('\n');
    this.partial = /** @type {string} */ (parts.pop());
    for (const p of parts) this.lines.push(p.endsWith('\r') ? p.slice(0, -1) : p);
    this.serve();
  }

  /** @param {unknown} error @internal */
  finish(error) {
    if (this.ended) return;
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest !== '') this.lines.push(rest.endsWith('\r') ? rest.slice(0, -1) : rest);
    this.ended = true;
    this.error = error;
    this.stop();
    if (this.watching) {
      this.watching = false;
      /** @type {any} */ (this.stream).off('error', this.onError);
    }
    this.serve();
  }

  /** @internal */
  start() {
    if (this.listening || this.ended) return;
    const s = /** @type {any} */ (this.stream);
    if (s.readableEnded || s.destroyed) {
      this.finish(s.errored ?? null);
      return;
    }
    if (!this.watching) {
      this.watching = true;
      s.on('error', this.onError);
    }
    this.listening = true;
    s.on('data', this.onData);
    s.on('end', this.onEnd);
    s.resume();
  }

  /** @internal */
  stop() {
    if (!this.listening) return;
    this.listening = false;
    const s = /** @type {any} */ (this.stream);
    // Pause first: a flowing stream without a data listener would drop chunks.
    s.pause();
    s.off('data', this.onData);
    s.off('end', this.onEnd);
    // A paused stream still reads ahead up to its high-water mark, so the
    // handle of a pipe or socket behind it stays active and would hold the
    // process. While a task waits, the runtime's keep-alive token holds it.
    s.unref?.();
  }

  /**
   * Waits pending and the listeners this reader holds for them, for tests
   * (the 'error' listener it keeps between reads is not counted).
   */
  armed() {
    return this.waiters.length + (this.listening ? 2 : 0);
  }

  /** The `stdin` service of HostServices. */
  service() {
    return {
      line: (/** @type {AbortSignal} */ signal) => this.line(signal),
      unread: (/** @type {string} */ line) => this.unread(line),
    };
  }
}

/** @param {unknown} e */
function message(e) {
  return e instanceof Error ? e.message : String(e);
}
