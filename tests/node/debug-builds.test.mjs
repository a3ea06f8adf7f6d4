// Debug builds and failure reports: tests/programs/debug_names.c built with
// DEBUG (debug_names.wasm) keeps its names and DWARF through the post-link
// step, built without (debug_names_release.wasm) it does not; failed tasks
// reach onTaskFailed, their stacks and labels name the program's functions
// where it has names, and an uncaught WebAssembly exception or a trapping
// start function says what it was.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { Runtime, SnailError, Status, TaskFailedError } from '../../host/browser/index.mjs';
import { readNames } from '../../host/browser/names.mjs';
import { program, root } from './helpers.mjs';
import { wat } from './wat.mjs';

const cli = path.join(root, 'host/cli/snail-core.mjs');
const sections = (/** @type {string} */ file) => {
  const m = new WebAssembly.Module(fs.readFileSync(file));
  return ['name', '.debug_info', '.debug_line'].filter((s) => WebAssembly.Module.customSections(m, s).length > 0);
};

test('debug builds: DEBUG keeps the name section and DWARF through the post-link step, a release build strips them', () => {
  assert.deepEqual(sections(program('debug_names')), ['name', '.debug_info', '.debug_line']);
  // The release build's only name is the one the post-link step gives the stack pointer for Binaryen.
  const release = readNames(fs.readFileSync(program('debug_names_release')));
  assert.deepEqual([release.names, release.dwarf], [false, false]);
  assert.ok(!sections(program('debug_names_release')).includes('.debug_info'));
  const debug = readNames(fs.readFileSync(program('debug_names')));
  assert.deepEqual([debug.names, debug.dwarf], [true, true]);
  assert.ok(debug.table.includes('worker') && debug.table.includes('napper'), debug.table.join(', '));
});

/**
 * Runs `main(depth)` of a build and returns the failed child, reported by
 * onTaskFailed, and the root.
 * @param {string} name
 */
async function failedChild(name) {
  /** @type {import('../../host/browser/index.mjs').Task[]} */
  const failed = [];
  const rt = await Runtime.load(program(name), { onTaskFailed: (t) => { failed.push(t); } });
  const root = rt.dispatch('main', 3);
  await rt.drain();
  await rt.close();
  return { failed, root };
}

test('debug builds: a failed child reaches onTaskFailed once, and its stack names its functions in a debug build', async () => {
  const debug = await failedChild('debug_names');
  assert.equal(debug.root.state, 'returned');
  assert.equal(debug.root.value, Status.failed, 'the parent joined a failed child');
  assert.equal(debug.failed.length, 1);
  const [child] = debug.failed;
  assert.equal(child.state, 'failed');
  assert.equal(child.entry, 'worker', 'named after the function it runs');
  assert.ok(child.error instanceof TaskFailedError);
  const stack = String(/** @type {any} */ (child.error).cause.stack);
  // (The post-link step's optimisation may inline deepest() into descend().)
  assert.match(stack, /^RuntimeError: unreachable\n\s+at \S*descend \(wasm:\/\/wasm\/[\s\S]*\n\s+at \S*worker \(wasm:\/\/wasm\//, stack);

  const release = await failedChild('debug_names_release');
  assert.equal(release.failed.length, 1);
  assert.match(release.failed[0].entry, /^table\[\d+\]$/, 'a release build has no names: the table index');
  assert.doesNotMatch(String(/** @type {any} */ (release.failed[0].error).cause.stack), /deepest|descend|worker/);
});

test('debug builds: trace events and rt.tasks() name a live child by its function', async () => {
  /** @type {string[]} */
  const names = [];
  const rt = await Runtime.load(program('debug_names'), { trace: (e) => { if (e.type === 'dispatch') names.push(e.entry); } });
  // The child sleeps long enough to be seen live on a busy machine; a
  // deadline, not a number of turns, bounds the look for it.
  const root = rt.dispatch('nap', 200);
  const giveUp = performance.now() + 10_000;
  while (rt.tasks().length < 2) {
    if (performance.now() > giveUp || root.finished) assert.fail(`the child napper was never seen live: ${rt.tasks().map((t) => t.entry).join(', ') || 'no task'} live`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(rt.tasks().map((t) => t.entry), ['nap', 'napper']);
  await rt.drain();
  assert.equal(root.value, Status.ok);
  assert.deepEqual(names, ['nap', 'napper']);
  await rt.close();
});

test('debug builds: the command shows the named frames of every failed task, none of a release build', () => {
  const run = (/** @type {string} */ name) => spawnSync(process.execPath, [cli, 'run', program(name), '--arg', '3'], { encoding: 'utf8' });
  const debug = run('debug_names');
  assert.equal(debug.status, Status.failed, 'main returned the status of its join');
  const lines = debug.stderr.split('\n');
  assert.equal(lines[0], 'snail-core: task #2 (worker) failed: unreachable');
  assert.match(lines[1], /^ {4}at descend \(wasm-function\[\d+\]:0x[0-9a-f]+\)$/);
  assert.ok(lines.some((l) => /^ {4}at worker \(wasm-function\[\d+\]:0x[0-9a-f]+\)$/.test(l)), debug.stderr);
  assert.ok(lines.every((l) => !/bridge\.mjs|wasm:\/\//.test(l)), 'neither the runtime\'s JavaScript nor raw engine frames');
  const release = run('debug_names_release');
  assert.match(release.stderr, /^snail-core: task #2 \(table\[\d+\]\) failed: unreachable\n$/);
});

test('failures: an uncaught webassembly exception names its tag and payload, where the program or the embedder has the tag', async () => {
  const given = new WebAssembly.Tag({ parameters: ['f64'] });
  /** @type {number[]} */
  const reported = [];
  const rt = await Runtime.load(wat(`(module
    (import "env" "given" (tag $given (param f64)))
    (tag $boom (export "boom") (param i32 i64))
    (tag $hidden (param i32))
    (func (export "snail.entry.main") (param $n i32) (result i32)
      (if (i32.eq (local.get $n) (i32.const 1)) (then (throw $boom (i32.const 42) (i64.const -7))))
      (if (i32.eq (local.get $n) (i32.const 2)) (then (throw $given (f64.const 2.5))))
      (if (i32.eq (local.get $n) (i32.const 3)) (then (throw $hidden (i32.const 1))))
      (i32.const 0)))`, { exceptions: true }), { name: 'thrower.wasm', imports: { env: { given } }, onTaskFailed: (t) => { reported.push(t.id); } });
  const tasks = [1, 2, 3].map((n) => rt.dispatch('main', n));
  await rt.drain();
  assert.deepEqual(tasks.map((t) => /** @type {Error} */ (t.error).message), [
    'task #1 (main) failed: uncaught WebAssembly exception of tag boom (payload: 42, -7n)',
    'task #2 (main) failed: uncaught WebAssembly exception of tag env.given (payload: 2.5)',
    'task #3 (main) failed: uncaught WebAssembly exception of a tag the program neither exports nor imports, so its payload cannot be read (export the tag to see it)',
  ]);
  assert.ok(tasks.every((t) => t.error instanceof TaskFailedError && /** @type {any} */ (t.error).cause instanceof WebAssembly.Exception && /** @type {any} */ (t.error).task === t));
  assert.deepEqual(reported, [1, 2, 3]);
  await rt.close();
});

test('failures: a trapping start function fails the load with ERR_INIT, not as a link failure', async () => {
  const load = (/** @type {string} */ text, /** @type {any} */ options = {}) => Runtime.load(wat(text), { name: 'start.wasm', ...options });
  await assert.rejects(load(`(module (func $s (unreachable)) (start $s) (func (export "snail.entry.main") (param i32) (result i32) (i32.const 0)))`),
    (/** @type {any} */ e) => e instanceof SnailError && e.code === 'ERR_INIT' && e.message === 'start.wasm failed in its start function: unreachable' && e.cause instanceof WebAssembly.RuntimeError);
  // An import the start function calls throws: that is the start function's failure too.
  await assert.rejects(load(`(module (import "env" "boom" (func $boom)) (start $boom) (func (export "snail.entry.main") (param i32) (result i32) (i32.const 0)))`,
    { imports: { env: { boom: () => { throw new RangeError('no room'); } } } }),
  (/** @type {any} */ e) => e.code === 'ERR_INIT' && e.message === 'start.wasm failed in its start function: no room');
  // A link failure stays one.
  await assert.rejects(load(`(module (import "env" "f" (func $f (param i32))) (func (export "snail.entry.main") (param i32) (result i32) (i32.const 0)))`,
    { imports: { env: { f: 5 } } }),
  (/** @type {any} */ e) => e.code === 'ERR_LINK' && /could not be instantiated/.test(e.message));
});

test('failures: a throwing onTaskFailed is reported as uncaught and the runtime goes on', () => {
  // In a process of its own: the test runner counts an uncaught exception as a failure.
  const script = `
    import { Runtime } from ${JSON.stringify(path.join(root, 'host/node/root.mjs'))};
    const uncaught = [];
    process.on('uncaughtException', (e) => { uncaught.push(e.message); });
    const rt = await Runtime.load(${JSON.stringify(program('debug_names_release'))}, { onTaskFailed: () => { throw new Error('a bug in the callback'); } });
    const first = rt.dispatch('main', 3);
    await rt.drain();
    const second = rt.dispatch('nap', 1);
    await rt.drain();
    await rt.close();
    console.log(JSON.stringify({ values: [first.value, second.value], uncaught }));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { values: [Status.failed, Status.ok], uncaught: ['a bug in the callback'] });
});

test('debug builds: inspect names the task functions of a debug build and says a release build has no names', () => {
  const inspect = (/** @type {string} */ name) => JSON.parse(spawnSync(process.execPath, [cli, 'inspect', program(name), '--json'], { encoding: 'utf8' }).stdout);
  const debug = inspect('debug_names');
  assert.deepEqual(debug.debug, { names: true, dwarf: true });
  const byName = Object.fromEntries(debug.taskFunctions.map((/** @type {any} */ f) => [f.name, f.index]));
  assert.ok(byName.worker > 0 && byName.napper > 0, JSON.stringify(debug.taskFunctions));
  const release = inspect('debug_names_release');
  assert.deepEqual(release.debug, { names: false, dwarf: false });
  assert.deepEqual(release.taskFunctions.map((/** @type {any} */ f) => f.index), debug.taskFunctions.map((/** @type {any} */ f) => f.index), 'the same table');
  assert.ok(release.taskFunctions.every((/** @type {any} */ f) => f.name === null));
  const text = spawnSync(process.execPath, [cli, 'inspect', program('debug_names')], { encoding: 'utf8' }).stdout;
  assert.match(text, /^debug info {7}function names and DWARF \(a debug build\)$/m);
  assert.match(text, new RegExp(`^task functions {3}.*table\\[${byName.worker}\\] worker, table\\[${byName.napper}\\] napper`, 'm'));
});
