// Event waits on EventEmitters and process signals, and lines of standard
// input (host/node/signals.mjs, host/node/stdin.mjs), from C++
// (tests/programs/node_host.cpp), in this process and in child processes, and
// the adapter contract for each wait.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';

import { adapterContract } from '../../host/browser/adapter-contract.mjs';
import {
  EventRegistry, LineReader, nodeHost, registerSignal, Runtime, Status,
} from '../../host/node/index.mjs';
import { until } from '../cases/support.mjs';
import { program, root, sink } from './helpers.mjs';

// These tests send this process SIGUSR2, which Node also uses to write a
// diagnostic report file when report-on-signal is on (the test runner may
// turn it on): no report files in the working tree.
process.report.reportOnSignal = false;

const child = path.join(root, 'tests/node/fixtures/signal-child.mjs');

/**
 * Loads node_host.wasm with argv `args` and the given host options.
 * @param {string[]} args @param {import('../../host/node/host.mjs').NodeHostOptions} [host]
 */
async function load(args, host = {}) {
  const out = sink();
  const rt = await Runtime.load(program('node_host'), { checkInvariants: true, stdout: out, args: ['node_host', ...args], ...nodeHost(host) });
  return { rt, text: out.text };
}

/** @param {import('../../host/node/index.mjs').Task} t */
const suspended = (t) => until(() => t.state === 'suspended', `task #${t.id} to wait`);

// ---------------------------------------------------------------------------
// Standard input

test('node stdin: lines_reach_the_program_in_order_and_the_end_is_closed', async () => {
  const input = new PassThrough();
  const { rt, text } = await load([], { stdin: input });
  const t = rt.dispatch('stdin_lines');
  await suspended(t);
  input.write('one\ntw');
  input.write('o\r\nthr');
  input.write(Buffer.from([0xc3])); // "é" split across two chunks
  input.write(Buffer.from([0xa9, 0x0a]));
  input.end('last without end of line');
  await t.done;
  await rt.close();
  assert.equal(text(), 'line [one]\nline [two]\nline [thré]\nline [last without end of line]\nstdin closed after 4 lines\n');
  assert.equal(t.value, 4);
});

test('node stdin: a_cancelled_line_read_loses_no_later_line', async () => {
  const input = new PassThrough();
  const { rt, text } = await load([], { stdin: input });
  const first = rt.dispatch('stdin_one');
  await suspended(first);
  assert.equal(input.listenerCount('data'), 1, 'the reader listens while a task waits');
  first.cancel();
  await first.done;
  assert.equal(first.state, 'cancelled');
  assert.equal(input.listenerCount('data'), 0, 'and stops when none does');
  assert.equal(input.isPaused(), true);
  // Two waits at once take the lines in the order they started waiting.
  const a = rt.dispatch('stdin_one');
  await suspended(a);
  const b = rt.dispatch('stdin_one');
  await suspended(b);
  input.write('first\nsecond\n');
  await Promise.all([a.done, b.done]);
  // A line that arrives while nobody waits is kept for the next wait.
  input.end('third\n');
  const rest = rt.dispatch('stdin_lines');
  await rest.done;
  await rt.close();
  assert.equal(text(), 'stdin cancelled []\nstdin ok [first]\nstdin ok [second]\nline [third]\nstdin closed after 1 lines\n');
});

test('node stdin: a_line_read_for_a_task_cancelled_before_it_got_it_goes_to_the_next_wait', async () => {
  const input = new PassThrough();
  const { rt, text } = await load([], { stdin: input });
  const first = rt.dispatch('stdin_one');
  await suspended(first);
  // Runs right after the reader handed "first" to the wait, before the task
  // could resume with it: the line was read but is never delivered.
  input.once('data', () => first.cancel());
  input.write('first\nsecond\n');
  await first.done;
  assert.equal(first.state, 'cancelled');
  const next = rt.dispatch('stdin_one');
  await next.done;
  await rt.close();
  assert.equal(text(), 'stdin cancelled []\nstdin ok [first]\n');
});

test('node stdin: an_error_while_no_task_waits_is_kept_and_fails_the_read_after_the_queued_lines', async () => {
  const input = new PassThrough();
  const { rt, text } = await load([], { stdin: input });
  // One chunk of two lines: the reader takes both and hands out the first.
  input.write('first\nsecond\n');
  const first = rt.dispatch('stdin_one');
  await first.done;
  // Nobody waits: the stream is paused and nothing that would read it is attached.
  assert.equal(input.isPaused(), true);
  assert.equal(input.listenerCount('data'), 0);
  assert.equal(input.listenerCount('end'), 0);
  input.write('not read ahead\n');
  assert.equal(input.readableLength, 'not read ahead\n'.length, 'the stream keeps what arrives while nobody waits');
  // Step by step: the stream fails (the error is emitted a tick later), then
  // the reads come. Without a listener of the reader the error would end the process.
  input.destroy(new Error('broken pipe'));
  await new Promise((resolve) => setImmediate(resolve));
  const second = rt.dispatch('stdin_one');
  await second.done;
  const third = rt.dispatch('stdin_one');
  await third.done;
  await rt.close();
  assert.equal(text(), 'stdin ok [first]\nstdin ok [second]\nstdin failed []\n');
  assert.deepEqual([second.value, third.value], [Status.ok, Status.failed]);
  assert.equal(input.listenerCount('error'), 0, 'the reader let go of the stream at its end');
});

test('node stdin: without_a_stream_stdin_is_denied', async () => {
  const { rt, text } = await load([]);
  const t = rt.dispatch('stdin_one');
  await t.done;
  await rt.close();
  assert.equal(text(), 'stdin denied []\n');
  assert.equal(t.value, Status.denied);
});

/** @type {{ stream: PassThrough, reader: LineReader }} */
const lines = { stream: new PassThrough(), reader: new LineReader(new PassThrough()) };
for (const c of adapterContract({
  name: 'node stdin: line',
  start: (signal) => lines.reader.line(signal),
  complete: () => { lines.stream.write('a line\n'); },
  armed: () => lines.reader.armed() + lines.stream.listenerCount('data'),
})) {
  test(c.name, async () => {
    lines.stream = new PassThrough();
    lines.reader = new LineReader(lines.stream);
    await c.run();
  });
}

// ---------------------------------------------------------------------------
// EventEmitters

test('node events: an_emitter_event_reaches_the_program_and_an_error_event_fails_the_wait', async () => {
  const emitter = new EventEmitter();
  const { rt, text } = await load(['job done']);
  rt.events.register('job done', emitter, 'done');
  const ok = rt.dispatch('event_argv', 1);
  await suspended(ok);
  emitter.emit('done', { id: 7 }, 'ignored');
  await ok.done;
  const failed = rt.dispatch('event_argv', 1);
  await suspended(failed);
  emitter.emit('error', new Error('broken'));
  await failed.done;
  await rt.close();
  assert.equal(text(), 'event ok [{"id":7}]\nevent failed []\n');
  assert.deepEqual([emitter.listenerCount('done'), emitter.listenerCount('error')], [0, 0]);
});

const emitterRegistry = new EventRegistry();
const ticker = new EventEmitter();
emitterRegistry.register('tick', ticker, 'tick');
for (const c of adapterContract({
  name: 'node events: emitter',
  start: (signal) => emitterRegistry.wait(signal, 'tick'),
  complete: () => { ticker.emit('tick', 1); },
  armed: () => ticker.listenerCount('tick') + ticker.listenerCount('error'),
})) {
  test(c.name, c.run);
}

// ---------------------------------------------------------------------------
// Signals, in this process

test('node signals: a_task_waits_for_a_signal_and_the_listener_exists_only_during_the_wait', async () => {
  const { rt, text } = await load(['signal:SIGUSR2']);
  // The test runner may listen for SIGUSR2 itself.
  const baseline = process.listenerCount('SIGUSR2');
  const unregister = registerSignal(rt, 'SIGUSR2');
  assert.deepEqual(rt.events.names(), ['signal:SIGUSR2']);
  assert.equal(process.listenerCount('SIGUSR2'), baseline, 'registering installs nothing');
  const t = rt.dispatch('event_argv', 1);
  await suspended(t);
  assert.equal(process.listenerCount('SIGUSR2'), baseline + 1);
  process.kill(process.pid, 'SIGUSR2');
  await t.done;
  assert.equal(process.listenerCount('SIGUSR2'), baseline);
  unregister();
  await rt.close();
  assert.equal(text(), 'event ok [SIGUSR2]\n');
  assert.throws(() => registerSignal(rt, 'SIGKILL'), /cannot be waited for/);
  assert.throws(() => registerSignal(rt, 'SIGNOPE'), /not a signal of this system/);
});

test('node signals: a_queued_signal_is_kept_for_the_next_wait_until_unregistered', async () => {
  const { rt, text } = await load(['signal:SIGUSR1']);
  const baseline = process.listenerCount('SIGUSR1');
  const unregister = registerSignal(rt, 'SIGUSR1', { queue: true });
  const source = /** @type {import('../../host/node/signals.mjs').QueuedSignal} */ (rt.events.sources.get('signal:SIGUSR1')?.source);
  assert.equal(process.listenerCount('SIGUSR1'), baseline + 1, 'caught for as long as it is registered');
  process.kill(process.pid, 'SIGUSR1');
  await until(() => source.pending === 1, 'the signal to be kept');
  const t = rt.dispatch('events_n', 2);
  await until(() => source.pending === 0 && t.state === 'suspended' && source.listenerCount('SIGUSR1') === 1, 'the second wait');
  assert.equal(text(), 'event 0 ok [SIGUSR1]\n');
  process.kill(process.pid, 'SIGUSR1');
  await t.done;
  assert.equal(text(), 'event 0 ok [SIGUSR1]\nevent 1 ok [SIGUSR1]\n');
  unregister();
  assert.equal(process.listenerCount('SIGUSR1'), baseline);
  assert.deepEqual(rt.events.names(), []);
  await rt.close();
});

// A registration after close() used to be accepted and never released: a
// queued signal stayed caught (its listener on process) for good.
test('node events: a_registration_after_close_is_refused_and_released_at_once', async () => {
  const { rt } = await load([]);
  const before = new EventEmitter();
  let releasedBefore = 0;
  rt.events.register('before', before, 'x', { release: () => { releasedBefore++; } });
  const closing = rt.close();
  // Refused from the moment close() is called.
  let released = 0;
  assert.throws(() => rt.events.register('late', new EventEmitter(), 'x', { release: () => { released++; } }),
    (e) => /** @type {any} */ (e).code === 'ERR_CLOSED' && /** @type {Error} */ (e).message === `events.register("late"): the runtime of ${rt.name} is closed`);
  assert.equal(released, 1, 'its release ran at once');
  await closing;
  assert.equal(releasedBefore, 1, 'close() released the earlier registration');
  const baseline = process.listenerCount('SIGUSR1');
  assert.throws(() => registerSignal(rt, 'SIGUSR1', { queue: true }), { code: 'ERR_CLOSED' });
  assert.throws(() => registerSignal(rt, 'SIGUSR1'), { code: 'ERR_CLOSED' });
  assert.equal(process.listenerCount('SIGUSR1'), baseline, 'the queued signal is not caught');
  assert.deepEqual(rt.events.names(), []);
  // A release that throws: the refusal is the error, the release's its cause.
  const boom = new Error('release failed');
  assert.throws(() => rt.events.register('late2', new EventEmitter(), 'x', { release: () => { throw boom; } }),
    (e) => /** @type {any} */ (e).code === 'ERR_CLOSED' && /** @type {any} */ (e).cause === boom);
});

// The default-mode contract needs a listener of its own while it runs: a
// completion after the abort sends SIGUSR2 when no wait listens, and SIGUSR2
// ends a process that has no listener.
// The listener stays until every signal sent has arrived: a signal a process
// sends itself arrives some turns later (more under Deno than under Node).
const signalRegistry = { events: new EventRegistry() };
registerSignal(signalRegistry, 'SIGUSR2');
let sent = 0;
let arrived = 0;
const guard = () => { arrived++; };
let guarded = 0;
for (const c of adapterContract({
  name: 'node signals: SIGUSR2',
  start: (signal) => signalRegistry.events.wait(signal, 'signal:SIGUSR2'),
  complete: () => {
    sent++;
    process.kill(process.pid, 'SIGUSR2');
  },
  armed: () => process.listenerCount('SIGUSR2') - guarded + process.listenerCount('error'),
})) {
  test(c.name, async () => {
    process.on('SIGUSR2', guard);
    guarded = process.listenerCount('SIGUSR2');
    try {
      await c.run();
    } finally {
      await until(() => arrived === sent, 'the signals sent to arrive');
      process.off('SIGUSR2', guard);
    }
  });
}

/** @type {{ events: EventRegistry, unregister: () => void }} */
const queued = { events: new EventRegistry(), unregister: () => {} };
let sent1 = 0;
let arrived1 = 0;
const guard1 = () => { arrived1++; };
for (const c of adapterContract({
  name: 'node signals: SIGUSR1 queued',
  start: (signal) => queued.events.wait(signal, 'signal:SIGUSR1'),
  complete: () => {
    sent1++;
    process.kill(process.pid, 'SIGUSR1');
  },
  armed: () => {
    const source = /** @type {any} */ (queued.events.sources.get('signal:SIGUSR1')?.source);
    return source.listenerCount('SIGUSR1') + source.listenerCount('error');
  },
})) {
  test(c.name, async () => {
    queued.events = new EventRegistry();
    queued.unregister = registerSignal(queued, 'SIGUSR1', { queue: true });
    // Counts what arrives, and keeps the default action (the end of the
    // process) away until every signal sent has arrived, as above.
    process.on('SIGUSR1', guard1);
    try {
      await c.run();
    } finally {
      await until(() => arrived1 === sent1, 'the signals sent to arrive');
      queued.unregister();
      process.off('SIGUSR1', guard1);
    }
  });
}

// ---------------------------------------------------------------------------
// Signals, in child processes

/**
 * Runs the signal child; `onLine` sees each line of its output.
 * @param {string[]} args @param {(line: string, child: import('node:child_process').ChildProcess) => void} [onLine]
 * @returns {Promise<{ code: number | null, signal: string | null, lines: string[], stderr: string }>}
 */
function runChild(args, onLine) {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [child, program('node_host'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {string[]} */
    const lines = [];
    let partial = '';
    let stderr = '';
    c.stderr.setEncoding('utf8').on('data', (s) => { stderr += s; });
    c.stdout.setEncoding('utf8').on('data', (chunk) => {
      const parts = (partial + chunk).split('\n');
      partial = /** @type {string} */ (parts.pop());
      for (const line of parts) {
        lines.push(line);
        onLine?.(line, c);
      }
    });
    c.on('close', (code, signal) => resolve({ code, signal, lines, stderr }));
  });
}

test('node signals: a_child_process_waiting_for_a_signal_gets_it_and_exits_by_itself', { timeout: 60_000 }, async () => {
  const r = await runChild(['wait', 'SIGUSR2'], (line, c) => { if (line === 'waiting') c.kill('SIGUSR2'); });
  assert.deepEqual([r.code, r.signal], [0, null], r.stderr);
  assert.deepEqual(r.lines, ['waiting', 'event ok [SIGUSR2]', 'task returned 0 listeners 0']);
});

test('node signals: a_registered_signal_nobody_waits_for_keeps_its_default_action', { timeout: 60_000 }, async () => {
  // A listener left on SIGTERM would keep the child alive: end it at once then.
  const r = await runChild(['default', 'SIGTERM'], (line, c) => c.kill(line === 'ready listeners 0' ? 'SIGTERM' : 'SIGKILL'));
  assert.equal(r.signal, 'SIGTERM', `the child was not ended by SIGTERM: ${JSON.stringify(r)}`);
  assert.deepEqual(r.lines, ['ready listeners 0']);
});

test('node signals: a_registered_signal_does_not_keep_the_process_alive', { timeout: 60_000 }, async () => {
  // A hang fails at the test's timeout.
  const r = await runChild(['idle', 'SIGUSR2']);
  assert.deepEqual([r.code, r.signal], [0, null], r.stderr);
  assert.deepEqual(r.lines, ['registered listeners 1', 'exit 0']);
});
