// The --trace file of the snail-core command: the runtime's task events (the
// `trace` option of Runtime.load) in the Chrome trace-event format, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open.
//
// Every task is a track (a "thread" of one process): its time running Wasm and
// its time suspended are slices, named "run" and after what the task waits on;
// dispatch, cancel, discard, dispose and finish are instant events on it; an
// arrow (a flow event) leads from the parent's dispatch to the child's start.
//
// The file is in the JSON Array Format, written as the run goes: when the
// process is killed before close() (a second Ctrl-C), it lacks only its closing
// bracket, which the format allows, and the slices that were still open.
//
// This file must stay loadable by Node 20 (see snail-core.mjs).
import fs from 'node:fs';

/** The one process of the trace. */
const PID = 1;
/** Characters of JSON collected before they are written at once. */
const FLUSH_AT = 1 << 20;

/**
 * @typedef {{ type: string, time: number, task: number, entry: string, [key: string]: unknown }} TaskEvent
 * @typedef {{ name: string, cat: string, start: number, args: Record<string, unknown> }} OpenSlice
 */

/**
 * Writes a Chrome trace file while a program runs. Events go to the file once
 * per event-loop turn (or when a megabyte has gathered), so a long run does not
 * keep them in memory, and close() finishes the file synchronously.
 */
export class ChromeTrace {
  /**
   * Opens (creates or truncates) the file; throws the fs error if it cannot.
   * @param {string} file
   * @param {{ program: string, version: string, origin: number }} info  origin: the
   *   runtime clock's reading that becomes time 0 of the trace
   */
  constructor(file, info) {
    this.file = file;
    this.fd = fs.openSync(file, 'w');
    this.origin = info.origin;
    /** Trace events written so far, metadata included. */
    this.count = 0;
    /** Task events received from the runtime. */
    this.taskEvents = 0;
    this.closed = false;
    this.buffer = '';
    this.lastTs = 0;
    /** @type {Map<number, OpenSlice>} the open slice of each task */
    this.open = new Map();
    /** @type {Map<number, { parent: number, ts: number }>} dispatches whose child has not started */
    this.pendingFlows = new Map();
    /** @type {Set<number>} tasks that have a named track */
    this.named = new Set();
    /** @type {ReturnType<typeof setImmediate> | null} */
    this.flushing = null;
    this.buffer = '[\n';
    this.first = true;
    this.push({ name: 'process_name', ph: 'M', pid: PID, tid: 0, args: { name: `${info.program} (snail-core ${info.version})` } });
  }

  /**
   * The runtime's trace callback: maps one task event to trace events.
   * @param {TaskEvent} e
   */
  event(e) {
    if (this.closed) return;
    this.taskEvents++;
    const ts = this.ts(e.time);
    const tid = e.task;
    this.nameTrack(tid, e.entry);
    const { type, time: _time, task: _task, entry: _entry, ...details } = e;
    switch (type) {
      case 'dispatch': {
        const parent = typeof e.parent === 'number' ? e.parent : 0;
        this.instant(tid, ts, 'dispatch', { entry: e.entry, parent });
        if (parent > 0) this.pendingFlows.set(tid, { parent, ts });
        break;
      }
      case 'start': {
        this.endSlice(tid, ts);
        this.beginSlice(tid, ts, 'run', 'task', { entry: e.entry });
        const flow = this.pendingFlows.get(tid);
        if (flow) {
          this.pendingFlows.delete(tid);
          this.push({ name: 'dispatch', cat: 'dispatch', ph: 's', id: tid, pid: PID, tid: flow.parent, ts: flow.ts });
          this.push({ name: 'dispatch', cat: 'dispatch', ph: 'f', bp: 'e', id: tid, pid: PID, tid, ts });
        }
        break;
      }
      case 'suspend':
        this.endSlice(tid, ts);
        this.beginSlice(tid, ts, String(e.waitingOn ?? 'suspended'), 'suspended', { waitingOn: e.waitingOn ?? null });
        break;
      case 'resume':
        this.endSlice(tid, ts, { cancelled: e.cancelled === true });
        this.beginSlice(tid, ts, 'run', 'task', { entry: e.entry });
        break;
      case 'finish':
        this.endSlice(tid, ts);
        this.instant(tid, ts, 'finish', details);
        break;
      case 'discard':
        this.pendingFlows.delete(tid);
        this.endSlice(tid, ts);
        this.instant(tid, ts, 'discard', details);
        break;
      default:
        // cancel, dispose, and whatever event a newer runtime adds.
        this.instant(tid, ts, type, details);
    }
  }

  /**
   * Ends the open slices at the last event's time, writes the end of the file
   * and closes it. Synchronous, and safe to call more than once.
   * @param {Record<string, unknown>} [summary]  added as an instant event "end" on the process
   */
  close(summary) {
    if (this.closed) return;
    for (const tid of [...this.open.keys()]) this.endSlice(tid, this.lastTs, { unfinished: true });
    if (summary) this.push({ name: 'end', ph: 'i', s: 'p', pid: PID, tid: 0, ts: this.lastTs, args: summary });
    this.buffer += '\n]\n';
    this.closed = true;
    this.flush();
    fs.closeSync(this.fd);
  }

  /** @param {number} time  milliseconds on the runtime's clock @returns {number} microseconds */
  ts(time) {
    const us = Math.max(0, Math.round((time - this.origin) * 1e6) / 1e3);
    if (us > this.lastTs) this.lastTs = us;
    return us;
  }

  /** @param {number} tid @param {string} entry */
  nameTrack(tid, entry) {
    if (this.named.has(tid)) return;
    this.named.add(tid);
    this.push({ name: 'thread_name', ph: 'M', pid: PID, tid, args: { name: `task #${tid} ${entry}` } });
    this.push({ name: 'thread_sort_index', ph: 'M', pid: PID, tid, args: { sort_index: tid } });
  }

  /** @param {number} tid @param {number} ts @param {string} name @param {Record<string, unknown>} args */
  instant(tid, ts, name, args) {
    this.push({ name, cat: 'task', ph: 'i', s: 't', pid: PID, tid, ts, args });
  }

  /** @param {number} tid @param {number} ts @param {string} name @param {string} cat @param {Record<string, unknown>} args */
  beginSlice(tid, ts, name, cat, args) {
    this.open.set(tid, { name, cat, start: ts, args });
  }

  /**
   * Writes the task's open slice as a complete event ("X"), which needs no
   * matching end event and so stays valid whatever order the tools sort in.
   * @param {number} tid @param {number} ts @param {Record<string, unknown>} [extra]
   */
  endSlice(tid, ts, extra) {
    const slice = this.open.get(tid);
    if (!slice) return;
    this.open.delete(tid);
    const dur = Math.max(0, Math.round((ts - slice.start) * 1e3) / 1e3);
    this.push({ name: slice.name, cat: slice.cat, ph: 'X', pid: PID, tid, ts: slice.start, dur, args: { ...slice.args, ...extra } });
  }

  /** @param {Record<string, unknown>} event */
  push(event) {
    this.buffer += (this.first ? '' : ',\n') + JSON.stringify(event);
    this.first = false;
    this.count++;
    if (this.buffer.length >= FLUSH_AT) {
      this.flush();
    } else if (this.flushing === null && !this.closed) {
      this.flushing = setImmediate(() => this.flush());
      this.flushing.unref();
    }
  }

  /** Writes what has gathered. Synchronous. */
  flush() {
    if (this.flushing !== null) clearImmediate(this.flushing);
    this.flushing = null;
    if (this.buffer.length === 0) return;
    fs.writeSync(this.fd, this.buffer);
    this.buffer = '';
  }
}
