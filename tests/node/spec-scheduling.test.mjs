// Sentences of the specification (docs/specification.md, "Scheduling and
// suspension" and "Handler bindings") that need Node: the command line, the
// Node host, and programs written in WebAssembly text for the occasion. The
// cases both hosts run are in tests/cases/spec-scheduling.cases.mjs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import workerThreads from 'node:worker_threads';

import { nodeHost, Runtime, suspend } from '../../host/node/index.mjs';
import { Scheduler } from '../../host/browser/tasks.mjs';
import { closeQuiet, nextTurn, until } from '../cases/support.mjs';
import { program, root } from './helpers.mjs';
import { wat } from './wat.mjs';
import { internals } from '../../host/browser/debug.mjs';

const cli = path.join(root, 'host/cli/snail-core.mjs');

/** @type {string} */
let tmp;

before(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'snail-spec-scheduling-')));
});

after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * Runs the command line in the temporary directory with `input` on its standard input.
 * @param {string[]} args @param {string} input
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function runCli(args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: tmp, env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text) => { stdout += text; });
    child.stderr.setEncoding('utf8').on('data', (text) => { stderr += text; });
    child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The events of task #1 in a Chrome trace the command wrote: "PHASE NAME".
 * @param {string} file
 */
function firstTaskTrack(file) {
  /** @type {{ ph: string, name: string, tid: number }[]} */
  const events = JSON.parse(fs.readFileSync(file, 'utf8'));
  return events.filter((e) => e.tid === 1 && e.ph !== 'M').map((e) => `${e.ph} ${e.name}`);
}

test('scheduling: the_cli_runs_storage_and_input_waits_as_suspensions_of_its_tasks', async () => {
  // The trace records what the scheduler does with a task: each slice of
  // Wasm ("run") ends at a suspension, and the wait lasts until the scheduler
  // grants the resumption.
  const storage = await runCli(['run', program('node_host'), '--entry', 'storage_count', '--storage', 'store', '--trace', 'storage.json'], '');
  assert.equal(storage.code, 0, storage.stderr);
  assert.equal(storage.stdout, 'count 1 ok\n');
  assert.deepEqual(firstTaskTrack(path.join(tmp, 'storage.json')), [
    'i dispatch', 'X run', 'X snail.storage_get("cli", "runs")', 'X run', 'X snail.storage_put("cli", "runs", 1 bytes)', 'X run', 'i finish',
  ]);
  const input = await runCli(['run', program('node_host'), '--entry', 'stdin_one', '--trace', 'input.json'], 'hello\n');
  assert.equal(input.code, 0, input.stderr);
  assert.equal(input.stdout, 'stdin ok [hello]\n');
  assert.deepEqual(firstTaskTrack(path.join(tmp, 'input.json')), ['i dispatch', 'X run', 'X snail.stdin_line()', 'X run', 'i finish']);
});

test('scheduling: a_node_host_runtime_parks_its_waits_in_the_scheduler_and_starts_no_worker_thread', async () => {
  const OriginalWorker = workerThreads.Worker;
  let workers = 0;
  // Every way the runtime could reach it sees this one.
  workerThreads.Worker = /** @type {any} */ (class extends OriginalWorker {
    /** @param {any[]} args */
    constructor(...args) {
      workers++;
      super(.../** @type {[any]} */ (args));
    }
  });
  syncBuiltinESMExports();
  try {
    const stdin = new PassThrough();
    const rt = await Runtime.load(program('node_host'), {
      checkInvariants: true,
      stdout: () => {},
      ...nodeHost({ storageDir: path.join(tmp, 'node-host-store'), stdin }),
    });
    const scheduler = internals(rt).scheduler;
    assert.ok(scheduler instanceof Scheduler, 'the Node host runs its tasks on the Scheduler of tasks.mjs');
    const reader = rt.dispatch('stdin_one');
    const counters = Array.from({ length: 5 }, () => rt.dispatch('storage_count'));
    await until(() => reader.state === 'suspended', 'the line read to begin');
    assert.equal(reader.waitingOn, 'snail.stdin_line()');
    assert.ok(scheduler.live.has(reader), 'the waiting task is in the scheduler\'s live set');
    stdin.end('a line\n');
    await rt.drain();
    assert.equal(reader.value, 0);
    assert.deepEqual(counters.map((t) => t.state), Array(5).fill('returned'));
    assert.ok(rt.stats().steps >= 16, 'every wait was a grant of the scheduler');
    await closeQuiet(rt);
    assert.equal(workers, 0, 'no worker thread was started');
  } finally {
    workerThreads.Worker = OriginalWorker;
    syncBuiltinESMExports();
  }
});

// Entry "main"(n) binds handler "log" to the one implementation the host
// gives (test.implementation) and "level" to n, dispatches three children
// (10n + 1 .. 10n + 3) it lets go, sets its own level to -1 and uses the
// implementation around a yield. Each child first uses the implementation
// with the level it inherited (n: the parent's -1 came after the dispatch),
// then sets its level to its argument and uses it around a yield and a sleep.
// test.use(impl, who, level) records each use.
const SHARED_WAT = `(module
  (import "snail" "sleep" (func $sleep (param f64) (result i32)))
  (import "snail" "yield" (func $yield (result i32)))
  (import "snail" "dispatch" (func $dispatch (param i32 i32 i32) (result i32)))
  (import "snail" "release" (func $release (param i32)))
  (import "test" "implementation" (func $implementation (result externref)))
  (import "test" "use" (func $use (param externref i32 i32)))
  (global $log (export "snail.handler.log") (mut externref) (ref.null extern))
  (global $level (export "snail.handler.level") (mut i32) (i32.const 0))
  (table (export "__indirect_function_table") 2 funcref)
  (elem (i32.const 1) $child)
  (func $child (param $k i32) (result i32)
    (call $use (global.get $log) (local.get $k) (global.get $level))
    (global.set $level (local.get $k))
    (call $use (global.get $log) (local.get $k) (global.get $level))
    (drop (call $yield))
    (call $use (global.get $log) (local.get $k) (global.get $level))
    (drop (call $sleep (f64.const 1)))
    (call $use (global.get $log) (local.get $k) (global.get $level))
    (i32.const 0))
  (func (export "snail.entry.main") (param $n i32) (result i32)
    (local $i i32)
    (global.set $log (call $implementation))
    (global.set $level (local.get $n))
    (loop $children
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (call $release (call $dispatch (i32.const 1) (i32.add (i32.mul (local.get $n) (i32.const 10)) (local.get $i)) (i32.const 0)))
      (br_if $children (i32.lt_u (local.get $i) (i32.const 3))))
    (global.set $level (i32.const -1))
    (call $use (global.get $log) (local.get $n) (global.get $level))
    (drop (call $yield))
    (call $use (global.get $log) (local.get $n) (global.get $level))
    (i32.const 0)))`;

test('scheduling: one_handler_implementation_serves_many_tasks_at_once_while_each_keeps_its_own_vector', async () => {
  const implementation = { uses: 0 };
  /** @type {{ who: number, level: number, shared: boolean }[]} */
  const uses = [];
  const rt = await Runtime.load(wat(SHARED_WAT), {
    name: 'shared-handler.wasm',
    checkInvariants: true,
    maxSteps: 2,
    imports: {
      test: {
        implementation: () => implementation,
        use: (/** @type {unknown} */ impl, /** @type {number} */ who, /** @type {number} */ level) => {
          if (impl === implementation) implementation.uses++;
          uses.push({ who, level, shared: impl === implementation });
        },
      },
    },
  });
  const roots = [1, 2, 3].map((n) => rt.dispatch('main', n));
  const parentsDone = /** @type {number[]} */ ([]);
  for (const r of roots) r.done.then(() => { parentsDone.push(uses.length); });
  await rt.drain();
  assert.deepEqual(roots.map((t) => t.value), [0, 0, 0]);
  assert.equal(rt.stats().returned, 12, 'three parents and nine children');
  assert.equal(uses.length, 3 * 2 + 9 * 4);
  assert.ok(uses.every((u) => u.shared), 'every task used the very implementation its root bound');
  assert.equal(implementation.uses, uses.length);
  // Each task saw its own level: a parent its -1; a child first the parent's
  // level when it dispatched it (its copy of the vector, made then), then the
  // value it set.
  const first = new Set();
  for (const u of uses) {
    const expected = u.who < 10 ? -1 : first.has(u.who) ? u.who : Math.floor(u.who / 10);
    first.add(u.who);
    assert.equal(u.level, expected, `task ${u.who} saw level ${u.level}`);
  }
  // The uses of different tasks interleave, and children go on using the
  // implementation after their parents returned.
  const switches = uses.filter((u, i) => i > 0 && u.who !== uses[i - 1].who).length;
  assert.ok(switches >= 15, `${switches} switches between tasks`);
  assert.ok(Math.max(...parentsDone) < uses.length, 'children used it after every parent returned');
  await closeQuiet(rt);
});

// Handler "a" starts at 42 (its initialiser) and "b" at 7 (set by
// _initialize): those are the defaults. Entry "main"(n) checks that it starts
// with them, binds a = n and b = 3n, waits twice on test.op and checks its
// bindings after each wait; it returns 0 or the number of the failed check.
const DEFAULTS_WAT = `(module
  (import "test" "op" (func $op (param i32) (result i32)))
  (global $a (export "snail.handler.a") (mut i32) (i32.const 42))
  (global $b (export "snail.handler.b") (mut i32) (i32.const 0))
  (func (export "_initialize") (global.set $b (i32.const 7)))
  (func $mine (param $n i32) (result i32)
    (i32.and (i32.eq (global.get $a) (local.get $n)) (i32.eq (global.get $b) (i32.mul (local.get $n) (i32.const 3)))))
  (func (export "snail.entry.main") (param $n i32) (result i32)
    (if (i32.ne (global.get $a) (i32.const 42)) (then (return (i32.const 1))))
    (if (i32.ne (global.get $b) (i32.const 7)) (then (return (i32.const 2))))
    (global.set $a (local.get $n))
    (global.set $b (i32.mul (local.get $n) (i32.const 3)))
    (if (i32.ne (call $op (local.get $n)) (local.get $n)) (then (return (i32.const 3))))
    (if (i32.eqz (call $mine (local.get $n))) (then (return (i32.const 4))))
    (if (i32.ne (call $op (local.get $n)) (local.get $n)) (then (return (i32.const 5))))
    (if (i32.eqz (call $mine (local.get $n))) (then (return (i32.const 6))))
    (i32.const 0)))`;

test('scheduling: root_tasks_start_from_the_defaults_initialisation_left_and_every_wait_puts_them_back', async () => {
  /** @type {{ n: number, a: number, b: number, executing: number }[]} */
  const atWait = [];
  /** @type {Runtime} */
  let rt;
  const globals = () => {
    const x = /** @type {any} */ (rt.instance.exports);
    return [x['snail.handler.a'].value, x['snail.handler.b'].value];
  };
  rt = await Runtime.load(wat(DEFAULTS_WAT), {
    name: 'defaults.wasm',
    checkInvariants: true,
    // A trace callback makes every wait give the permit back (docs/abi.md, section 6).
    trace: () => {},
    imports: {
      test: {
        op: suspend((_signal, n) => {
          const [a, b] = globals();
          atWait.push({ n, a, b, executing: rt.stats().executing });
          return nextTurn().then(() => n);
        }),
      },
    },
  });
  assert.deepEqual(globals(), [42, 7], 'the defaults are the values after _initialize');
  const first = Array.from({ length: 20 }, (_, i) => rt.dispatch('main', 100 + i));
  await until(() => atWait.length >= 20, 'every task to wait once');
  // Started while the others hold bindings of their own.
  const later = Array.from({ length: 20 }, (_, i) => rt.dispatch('main', 200 + i));
  await rt.drain();
  for (const t of [...first, ...later]) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  assert.equal(atWait.length, 80);
  for (const w of atWait) assert.deepEqual([w.a, w.b, w.executing], [42, 7, 0], `at a wait of task ${w.n}`);
  assert.deepEqual(globals(), [42, 7]);
  await closeQuiet(rt);
});
