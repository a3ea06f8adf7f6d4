// The snail-core command line (host/cli/snail-core.mjs), run as a real child
// process: its commands, messages and exit codes.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';

import wabtInit from 'wabt';

import { program, root } from './helpers.mjs';

const cli = path.join(root, 'host/cli/snail-core.mjs');
const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
const systemNode = '/usr/bin/node';

// A program written against docs/abi.md that needs no imports beyond the ones
// the command provides (contracts.wasm imports module "test", which only the
// suites provide). Entries: nop(n) returns n; trap_after_dispatch(n) dispatches
// a child that sleeps and returns n, then traps; argc() returns the length of
// argv; sleep(ms) prints "sleeping" and sleeps.
const FIXTURE_WAT = `
(module
  (import "snail" "sleep" (func $sleep (param f64) (result i32)))
  (import "snail" "dispatch" (func $dispatch (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "sleeping\\n")
  (table (export "__indirect_function_table") 2 funcref)
  (elem (i32.const 1) $child)
  (func $child (param $n i32) (result i32)
    (drop (call $sleep (f64.const 1)))
    (local.get $n))
  (func (export "snail.entry.nop") (param $n i32) (result i32)
    (local.get $n))
  (func (export "snail.entry.trap_after_dispatch") (param $n i32) (result i32)
    (drop (call $dispatch (i32.const 1) (local.get $n) (i32.const 0)))
    (unreachable))
  (func (export "snail.entry.argc") (param i32) (result i32)
    (drop (call $args_sizes_get (i32.const 32) (i32.const 36)))
    (i32.load (i32.const 32)))
  (func (export "snail.entry.sleep") (param $ms i32) (result i32)
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 9))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (drop (call $sleep (f64.convert_i32_u (local.get $ms))))
    (i32.const 0)))
`;

/** @type {string} */
let tmp;
/** @type {{ fixture: string, empty: string, text: string }} */
const files = { fixture: '', empty: '', text: '' };

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-cli-'));
  const wabt = await wabtInit();
  const parsed = wabt.parseWat('fixture.wat', FIXTURE_WAT);
  files.fixture = path.join(tmp, 'fixture.wasm');
  fs.writeFileSync(files.fixture, parsed.toBinary({}).buffer);
  parsed.destroy();
  // A valid module with nothing in it: WebAssembly compiles it, the ABI has no entry.
  files.empty = path.join(tmp, 'empty.wasm');
  fs.writeFileSync(files.empty, Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00));
  files.text = path.join(tmp, 'notes.wasm');
  fs.writeFileSync(files.text, 'these are notes, not WebAssembly\n');
});

after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * Runs the command line and collects its output.
 * @param {string[]} args
 * @param {{ node?: string, command?: string[], onStdout?: (text: string, child: import('node:child_process').ChildProcess) => void }} [options]
 * @returns {Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string }>}
 */
function runCli(args, options = {}) {
  const [file, ...prefix] = options.command ?? [options.node ?? process.execPath, cli];
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...prefix, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (text) => {
      stdout += text;
      if (options.onStdout) options.onStdout(stdout, child);
    });
    child.stderr.on('data', (text) => { stderr += text; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Asserts that a run wrote no progress line: its stderr is not a terminal. @param {string} stderr */
function assertNoProgress(stderr) {
  assert.doesNotMatch(stderr, /\r|\x1b\[/, 'no progress line or escape sequence when stderr is not a TTY');
}

test('cli: help_prints_the_usage_commands_and_exit_codes_on_stdout', async () => {
  for (const flag of ['--help', '-h']) {
    const r = await runCli([flag]);
    assert.equal(r.code, 0, flag);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^Usage: snail-core <command>/);
    assert.match(r.stdout, /^ {2}run FILE\.wasm \[--entry NAME\] \[--arg N\] \[--stats\] \[--trace OUT\.json\] \[-- ARGS\.\.\.\]/m);
    assert.match(r.stdout, /^ {2}inspect FILE\.wasm \[--json\]$/m);
    assert.match(r.stdout, /^ {2}demo /m);
    for (const code of [0, 1, 2, 130]) assert.match(r.stdout, new RegExp(`^ {2}${code} +\\S`, 'm'), `exit code ${code} is documented`);
  }
});

test('cli: help_wins_over_every_other_argument_before_the_terminator', async () => {
  const help = (await runCli(['--help'])).stdout;
  for (const args of [
    ['run', 'missing.wasm', '--help'],
    ['run', 'app.wasm', '--bogus', '--help'],
    ['--help', '--bogus'],
    ['-h', 'launch', 'a', 'b'],
    ['inspect', '--stats', '-h'],
    ['run', 'app.wasm', '--arg', 'seven', '--entry', '--help'],
    ['-vh'],
    ['--version', '--help'],
    ['run', 'app.wasm', '--help', '--', '--bogus'],
  ]) {
    const r = await runCli(args);
    assert.deepEqual({ code: r.code, stdout: r.stdout, stderr: r.stderr }, { code: 0, stdout: help, stderr: '' }, args.join(' '));
  }
  // After -- the arguments are the program's: a --help there is not the command's.
  const r = await runCli(['run', files.fixture, '--entry', 'argc', '--', '--help', '-h']);
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.stdout, '');
  // Nor does it excuse a mistake before the --.
  const bad = await runCli(['--bogus', '--', '--help']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^snail-core: unknown option --bogus\n/);
});

test('cli: version_prints_the_package_version', async () => {
  for (const flag of ['--version', '-v']) {
    const r = await runCli([flag]);
    assert.equal(r.code, 0, flag);
    assert.equal(r.stdout, `${version}\n`);
    assert.equal(r.stderr, '');
  }
});

test('cli: no_command_prints_the_usage_on_stderr_and_exits_2', async () => {
  const r = await runCli([]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^Usage: snail-core <command>/);
});

test('cli: an_unknown_option_or_command_is_one_line_with_a_hint_and_exit_2', async () => {
  let r = await runCli(['run', program('hello'), '--frobnicate']);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^snail-core: unknown option --frobnicate\nhint: .*--help/);
  assert.equal(r.stderr.split('\n').length, 3, 'two lines and the final newline');

  r = await runCli(['launch', program('hello')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^snail-core: unknown command "launch"\nhint: the commands are run, inspect and demo/);

  r = await runCli(['run']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^snail-core: run needs the path of a \.wasm file\n/);

  r = await runCli(['run', program('hello'), '--entry']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^snail-core: option --entry needs a value\n/);

  r = await runCli(['run', files.fixture, '--entry', 'nop', '--arg', 'seven']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^snail-core: --arg takes a 32-bit integer, got "seven"\nhint: /);
});

test('cli: run_hello_prints_its_lines_and_exits_0', async () => {
  const r = await runCli(['run', program('hello')]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const lines = r.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 5, r.stdout);
  assert.equal(lines[0], '[root] hello from the root task');
  assert.equal(lines[4], '[root] children returned 1 and 2');
  const middle = lines.slice(1, 4).sort();
  assert.deepEqual(middle, [
    '[child b, rebound] child b bound its own printer',
    '[child b, rebound] child b still has it after a yield',
    "[root] child a woke up after 5 ms and still has the root's printer",
  ]);
});

test('cli: run_with_stats_prints_the_counters_on_stderr', async () => {
  const r = await runCli(['run', program('hello'), '--stats']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^snail-core: stats of hello\.wasm \(\d+ ms\)\n/);
  assert.match(r.stderr, /^ {2}tasks +3 dispatched, 3 started, 3 returned, 0 failed, 0 cancelled$/m);
  assert.match(r.stderr, /^ {2}permit +\d+ waits? kept it lent, \d+ taken back$/m);
  assert.doesNotMatch(r.stdout, /stats/, 'the stats stay off stdout');
  assertNoProgress(r.stderr);
});

test('cli: run_exits_with_the_value_the_entry_returned_modulo_256', async () => {
  for (const [arg, code] of [['7', 7], ['0', 0], ['300', 44], ['=-1', 255]]) {
    const args = arg.startsWith('=') ? [`--arg${arg}`] : ['--arg', arg];
    const r = await runCli(['run', files.fixture, '--entry', 'nop', ...args]);
    assert.equal(r.code, code, `nop ${arg}: ${r.stderr}`);
    assert.equal(r.stderr, '');
  }
});

test('cli: run_passes_the_arguments_after_the_terminator_to_the_program', async () => {
  const r = await runCli(['run', files.fixture, '--entry', 'argc', '--', 'one', '--two', 'three']);
  assert.equal(r.code, 4, 'argv is the file and the three arguments');
  const bare = await runCli(['run', files.fixture, '--entry', 'argc']);
  assert.equal(bare.code, 1, 'argv is only the file');
});

test('cli: run_of_an_entry_the_module_lacks_names_it_and_lists_the_entries', async () => {
  const r = await runCli(['run', program('hello'), '--entry', 'nope']);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^snail-core: .*hello\.wasm has no entry "nope"; its entries are: main\nhint: .*--entry NAME\n$/);
});

test('cli: a_missing_file_exits_2', async () => {
  const missing = path.join(tmp, 'missing.wasm');
  const r = await runCli(['run', missing]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^snail-core: cannot read the program .*missing\.wasm: no such file\nhint: /);
});

test('cli: a_file_that_is_not_wasm_exits_2', async () => {
  const r = await runCli(['run', files.text]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^snail-core: .*notes\.wasm is not a WebAssembly module \(it starts with 74 68 65 73, not 00 61 73 6d\)\nhint: /);
});

test('cli: a_module_that_does_not_follow_the_abi_exits_2_with_its_problems', async () => {
  let r = await runCli(['run', files.empty]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^snail-core: .*empty\.wasm does not follow the snail-core ABI/);
  assert.match(r.stderr, /^ {2}- it exports no entry/m);
  assert.match(r.stderr, /\nhint: [^\n]+\n$/);

});

test('cli: run_of_a_module_that_only_needs_user_imports_names_them_and_claims_no_abi_breach', async () => {
  // contracts.wasm imports module "test", which only the test suites provide;
  // cli_inspect.wasm imports env.lookup and has a native disposer for it,
  // which Runtime.load without imports counts as a problem too. inspect finds
  // that both follow the ABI, and run agrees.
  for (const [name, imports] of [['contracts', 'test.event, test.violation, test.pause'], ['cli_inspect', 'env.lookup']]) {
    const inspected = await runCli(['inspect', program(name)]);
    assert.equal(inspected.code, 0, inspected.stdout);
    const r = await runCli(['run', program(name)]);
    assert.equal(r.code, 2, name);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `snail-core: ${program(name)} needs imports that snail-core run cannot provide: ${imports}\n`
      + 'hint: run provides only the modules snail and wasi_snapshot_preview1; load the program from JavaScript with Runtime.load(file, { imports }), whose imports option provides the others (docs/api.md)\n');
    assert.doesNotMatch(r.stderr, /ABI/, 'needing user imports is no breach of the ABI');
  }
});

test('cli: a_task_that_fails_exits_1_after_its_children_finished', async () => {
  const r = await runCli(['run', files.fixture, '--entry', 'trap_after_dispatch', '--arg', '5', '--stats']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^snail-core: task #1 \(trap_after_dispatch\) failed: unreachable$/m);
  assert.match(r.stderr, /^ {2}tasks +2 dispatched, 2 started, 1 returned, 1 failed, 0 cancelled$/m, 'the child still ran');
  assertNoProgress(r.stderr);
});

/**
 * Runs cli_unwind.wasm (tests/cli/programs/unwind.cpp) and sends signals when
 * its stdout so far matches each of `triggers` in turn: SIGINT, or the
 * signals a trigger names (`[/computing/, ['SIGINT', 'SIGINT']]`).
 * @param {string[]} args @param {(RegExp | [RegExp, NodeJS.Signals[]])[]} triggers
 */
async function interrupt(args, triggers) {
  let next = 0;
  const r = await runCli(['run', program('cli_unwind'), ...args], {
    onStdout: (text, child) => {
      const trigger = triggers[next];
      const [pattern, signals] = Array.isArray(trigger) ? trigger : [trigger, /** @type {NodeJS.Signals[]} */ (['SIGINT'])];
      if (next < triggers.length && pattern.test(text)) {
        next++;
        for (const signal of signals) child.kill(signal);
      }
    },
  });
  return { ...r, sent: next };
}

test('cli: the_first_sigint_cancels_the_tasks_and_exits_130_after_they_unwound', async () => {
  const traceFile = path.join(tmp, 'interrupted.json');
  // Every child is asleep once each has printed, and main printed before them.
  const r = await interrupt(['--stats', '--trace', traceFile], [/(child \d: sleeping\n[^]*){3}/]);
  assert.equal(r.sent, 1);
  assert.equal(r.code, 130, `signal ${r.signal}: ${r.stderr}`);
  const lines = r.stdout.trimEnd().split('\n');
  // Before the interrupt: main's line and one line a child; after it, each
  // task unwinds: the sleeps return cancelled and every destructor runs.
  assert.deepEqual(lines.slice(0, 4).sort(), ['child 1: sleeping', 'child 2: sleeping', 'child 3: sleeping', 'main: waiting for 3 children']);
  assert.deepEqual(lines.slice(4).sort(), [
    'child 1: sleep returned cancelled', 'child 1: unwound',
    'child 2: sleep returned cancelled', 'child 2: unwound',
    'child 3: sleep returned cancelled', 'child 3: unwound',
    'main 0: unwound', 'main: 3 children did not return',
  ]);
  for (const k of [1, 2, 3]) {
    assert.ok(lines.indexOf(`child ${k}: sleep returned cancelled`) < lines.indexOf(`child ${k}: unwound`), 'the destructor runs as the task returns');
  }
  const err = r.stderr.split('\n');
  assert.equal(err[0], 'snail-core: interrupted; cancelling 4 live tasks and waiting for them to unwind (Ctrl-C again ends the process at once)');
  assert.match(r.stderr, /^ {2}tasks +4 dispatched, 4 started, 0 returned, 0 failed, 4 cancelled$/m);
  assert.match(r.stderr, /^ {2}at the end +0 live, /m);
  assert.equal(err.at(-2), 'snail-core: interrupted: 4 tasks cancelled, all have unwound');
  assertNoProgress(r.stderr);

  // The trace shows the cancellations and the resumptions they caused.
  const events = JSON.parse(fs.readFileSync(traceFile, 'utf8'));
  const cancels = events.filter((/** @type {any} */ e) => e.name === 'cancel').map((/** @type {any} */ e) => e.tid).sort();
  assert.deepEqual(cancels, [1, 2, 3, 4]);
  const finishes = events.filter((/** @type {any} */ e) => e.name === 'finish').map((/** @type {any} */ e) => [e.tid, e.args.how]).sort();
  assert.deepEqual(finishes, [[1, 'cancelled'], [2, 'cancelled'], [3, 'cancelled'], [4, 'cancelled']]);
  const woken = events.filter((/** @type {any} */ e) => e.ph === 'X' && e.cat === 'suspended' && e.args.cancelled === true).map((/** @type {any} */ e) => e.tid).sort();
  // A wait after the cancellation ends at once, but gives the permit up when
  // the turn's time is used up (a loaded machine): main may resume twice.
  assert.deepEqual([...new Set(woken)], [1, 2, 3, 4], 'each task resumed from its wait with the cancellation');
});

test('cli: a_second_sigint_ends_the_process_at_once_even_while_a_task_computes', async () => {
  const traceFile = path.join(tmp, 'stuck.json');
  // The child's destructor computes forever once the first SIGINT cancelled it.
  const r = await interrupt(['--entry', 'stuck', '--trace', traceFile], [/child 1: sleeping\n/, /child 1: cleanup spins\n/]);
  assert.equal(r.sent, 2);
  assert.equal(r.signal, 'SIGINT', `ended by the signal's default action (shells report 130), got code ${r.code}`);
  assert.equal(r.stdout, 'child 1: sleeping\nchild 1: cleanup spins\n');
  assert.equal(r.stderr, 'snail-core: interrupted; cancelling 2 live tasks and waiting for them to unwind (Ctrl-C again ends the process at once)\n');
  // The trace file lacks only its closing bracket, which the format allows.
  const text = fs.readFileSync(traceFile, 'utf8');
  assert.doesNotMatch(text, /\]\s*$/);
  const events = JSON.parse(`${text}]`);
  assert.deepEqual(events.filter((/** @type {any} */ e) => e.name === 'cancel').map((/** @type {any} */ e) => e.tid).sort(), [1, 2]);
});

test('cli: a_sigint_while_the_program_loads_ends_the_process_at_once', async () => {
  // The program's open never completes (fixtures/hold-open.mjs): a FIFO, which
  // once held the load, is refused before it is read.
  const held = path.join(tmp, 'slow.held.wasm');
  fs.copyFileSync(files.fixture, held);
  const preload = path.join(root, 'tests/node/fixtures/hold-open.mjs');
  const child = spawn(process.execPath, ['--import', preload, cli, 'run', held], { cwd: root, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (t) => { stderr += t; });
  const closed = new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
  // The command is loading, its listener installed, once the open began.
  await new Promise((resolve) => /** @type {import('node:stream').Readable} */ (child.stdio[3]).once('data', resolve));
  child.kill('SIGINT');
  const [code, signal] = await closed;
  assert.deepEqual([code, signal], [null, 'SIGINT'], `the signal ends it (shells report 130): ${stderr}`);
  assert.equal(stderr, 'snail-core: interrupted while loading the program\n');
});

// The task computes for 1.5 s without waiting: the command's listener cannot
// run until it ends, however many signals come. Three Ctrl-Cs count as one,
// acted on once the agent is free: the task had returned 0, and the command
// still exits 130 (it used to swallow them and exit 0).
test('cli: sigints_sent_while_a_task_computes_are_acted_on_when_it_ends_and_the_exit_status_is_130', async () => {
  const r = await interrupt(['--entry', 'compute', '--arg', '1500', '--stats'], [[/computing\n/, ['SIGINT', 'SIGINT', 'SIGINT']]]);
  assert.equal(r.sent, 1);
  assert.deepEqual([r.code, r.signal], [130, null], r.stderr);
  assert.equal(r.stdout, 'computing\ncomputed\n', 'the computation ran to its end');
  const err = r.stderr.split('\n');
  assert.equal(err[0], 'snail-core: interrupted after every task had finished');
  assert.match(r.stderr, /^ {2}tasks +1 dispatched, 1 started, 1 returned, 0 failed, 0 cancelled$/m);
  assert.doesNotMatch(r.stderr, /cancelled, (it has|all have) unwound/, 'nothing was left to cancel');
});

test('cli: a_sigint_sent_while_a_task_computes_cancels_it_at_its_next_wait', async () => {
  const r = await interrupt(['--entry', 'compute_then_sleep', '--arg', '1500'], [/computing\n/]);
  assert.deepEqual([r.code, r.signal], [130, null], r.stderr);
  assert.equal(r.stdout, 'computing\ncomputed\nslept: cancelled\nmain 0: unwound\n');
  assert.equal(r.stderr, 'snail-core: interrupted; cancelling 1 live task and waiting for it to unwind (Ctrl-C again ends the process at once)\n'
    + 'snail-core: interrupted: 1 task cancelled, it has unwound\n');
});

// SIGTERM is what `docker stop`, `kill` and CI timeouts send: the same
// unwinding as Ctrl-C, with the trace and the stats written, and 143.
test('cli: sigterm_cancels_the_tasks_writes_the_trace_and_stats_and_exits_143', async () => {
  const traceFile = path.join(tmp, 'terminated.json');
  const r = await interrupt(['--stats', '--trace', traceFile], [[/(child \d: sleeping\n[^]*){3}/, ['SIGTERM']]]);
  assert.deepEqual([r.code, r.signal], [143, null], r.stderr);
  assert.deepEqual(r.stdout.trimEnd().split('\n').slice(4).sort(), [
    'child 1: sleep returned cancelled', 'child 1: unwound',
    'child 2: sleep returned cancelled', 'child 2: unwound',
    'child 3: sleep returned cancelled', 'child 3: unwound',
    'main 0: unwound', 'main: 3 children did not return',
  ]);
  const err = r.stderr.split('\n');
  assert.equal(err[0], 'snail-core: terminated (SIGTERM); cancelling 4 live tasks and waiting for them to unwind (a second signal ends the process at once)');
  assert.match(r.stderr, /^ {2}tasks +4 dispatched, 4 started, 0 returned, 0 failed, 4 cancelled$/m);
  assert.equal(err.at(-2), 'snail-core: terminated: 4 tasks cancelled, all have unwound');
  // The whole trace, closing bracket included.
  const events = JSON.parse(fs.readFileSync(traceFile, 'utf8'));
  assert.deepEqual(events.filter((/** @type {any} */ e) => e.name === 'finish').map((/** @type {any} */ e) => e.args.how), ['cancelled', 'cancelled', 'cancelled', 'cancelled']);
  assert.deepEqual(events.at(-1).args, { interrupted: true, dispatched: 4, returned: 0, failed: 0, cancelled: 4 });
});

test('cli: a_second_signal_after_sigterm_ends_the_process_at_once_even_while_a_task_computes', async () => {
  // The child's destructor computes forever once SIGTERM cancelled it; a
  // SIGINT then has its default action back.
  const r = await interrupt(['--entry', 'stuck'], [[/child 1: sleeping\n/, ['SIGTERM']], [/child 1: cleanup spins\n/, ['SIGINT']]]);
  assert.equal(r.sent, 2);
  assert.deepEqual([r.code, r.signal], [null, 'SIGINT'], r.stderr);
  assert.equal(r.stderr, 'snail-core: terminated (SIGTERM); cancelling 2 live tasks and waiting for them to unwind (a second signal ends the process at once)\n');
});

test('cli: a_sigterm_while_the_program_loads_ends_the_process_by_the_signal', async () => {
  // A load held in its compilation (a program file is read at once: a FIFO
  // is refused), by a module the child imports first.
  const hold = path.join(tmp, 'hold-compile.mjs');
  fs.writeFileSync(hold, [
    "WebAssembly.compile = () => { process.stderr.write('compiling\\n'); return new Promise(() => {}); };",
    'setInterval(() => {}, 60_000); // as a slow compilation would, it keeps the process alive',
  ].join('\n'));
  const child = spawn(process.execPath, ['--import', pathToFileURL(hold).href, cli, 'run', files.fixture], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const compiling = new Promise((resolve) => {
    child.stderr.on('data', (t) => {
      stderr += t;
      if (stderr.includes('compiling\n')) resolve(undefined);
    });
  });
  const closed = new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
  await compiling;
  child.kill('SIGTERM');
  const [code, signal] = await closed;
  assert.deepEqual([code, signal], [null, 'SIGTERM'], `the signal ends it (shells report 143): ${stderr}`);
  assert.equal(stderr, 'compiling\nsnail-core: terminated (SIGTERM) while loading the program\n');
});

test('cli: trace_writes_chrome_trace_json_with_a_track_per_task_and_its_events', async () => {
  const traceFile = path.join(tmp, 'trace.json');
  const r = await runCli(['run', files.fixture, '--entry', 'trap_after_dispatch', '--arg', '5', '--trace', traceFile]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`^snail-core: wrote 8 task events to ${traceFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(Chrome trace format`, 'm'));
  /** @type {any[]} */
  const events = JSON.parse(fs.readFileSync(traceFile, 'utf8'));
  assert.ok(Array.isArray(events), 'the JSON Array Format');
  for (const e of events) {
    assert.equal(typeof e.name, 'string');
    assert.ok(['M', 'i', 'X', 's', 'f'].includes(e.ph), `phase ${e.ph}`);
    assert.equal(e.pid, 1);
    assert.equal(typeof e.tid, 'number');
    if (e.ph !== 'M') assert.ok(typeof e.ts === 'number' && e.ts >= 0, `ts of ${JSON.stringify(e)}`);
    if (e.ph === 'X') assert.ok(typeof e.dur === 'number' && e.dur >= 0, `dur of ${JSON.stringify(e)}`);
    if (e.ph === 'i') assert.equal(e.s, e.tid === 0 ? 'p' : 't', 'task instants belong to their track');
  }
  const track = (/** @type {number} */ tid) => events.filter((e) => e.tid === tid).map((e) => `${e.ph} ${e.name}`);
  assert.deepEqual(events.filter((e) => e.tid === 0).map((e) => [e.ph, e.name]), [['M', 'process_name'], ['i', 'end']]);
  assert.equal(events[0].args.name, `fixture.wasm (snail-core ${version})`);
  assert.deepEqual(events.at(-1).args, { interrupted: false, dispatched: 2, returned: 1, failed: 1, cancelled: 0 });
  assert.deepEqual(track(1), [
    'M thread_name', 'M thread_sort_index', 'i dispatch', 'X run', 'i finish', 's dispatch',
  ]);
  assert.deepEqual(track(2), [
    'M thread_name', 'M thread_sort_index', 'i dispatch', 'f dispatch', 'X run', 'X snail.sleep(1 ms)', 'X run', 'i finish',
  ]);
  assert.deepEqual(events.filter((e) => e.name === 'thread_name').map((e) => e.args.name), ['task #1 trap_after_dispatch', 'task #2 table[1]']);
  assert.deepEqual(events.filter((e) => e.name === 'finish').map((e) => [e.tid, e.args.how]), [[1, 'failed'], [2, 'returned']]);
  assert.deepEqual(events.filter((e) => e.ph === 'i' && e.name === 'dispatch').map((e) => [e.tid, e.args.parent]), [[1, 0], [2, 1]]);
  // The child's slices follow each other without gaps or overlaps; the arrow
  // leads from the parent's dispatch to the child's first slice.
  const slices = events.filter((e) => e.tid === 2 && e.ph === 'X');
  for (let i = 1; i < slices.length; i++) assert.ok(Math.abs(slices[i].ts - (slices[i - 1].ts + slices[i - 1].dur)) < 0.002, 'contiguous');
  const [from, to] = ['s', 'f'].map((ph) => events.find((e) => e.ph === ph));
  assert.equal(from.id, to.id);
  assert.ok(from.ts <= to.ts);
  assert.equal(to.ts, slices[0].ts);
  assert.equal(to.bp, 'e');
  const parentRun = events.find((e) => e.tid === 1 && e.ph === 'X');
  assert.ok(from.ts >= parentRun.ts && from.ts <= parentRun.ts + parentRun.dur, 'the dispatch lies in the parent\'s run slice');
});

test('cli: inspect_sorts_every_kind_of_import_of_a_program_and_exits_0', async () => {
  const r = await runCli(['inspect', program('cli_inspect'), '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const report = JSON.parse(r.stdout);
  assert.equal(report.follows, true);
  assert.deepEqual(report.problems, []);
  assert.equal(report.abiVersion, '1');
  assert.deepEqual(report.entries, ['main', 'worker']);
  assert.deepEqual(report.handlers, [{ name: 'config', type: 'i32' }, { name: 'depth', type: 'i32' }]);
  assert.deepEqual(report.stack, { pointer: true, base: true, limit: true });
  assert.deepEqual(report.waits, ['join', 'sleep', 'yield']);
  assert.deepEqual(report.services, ['storage_get']);
  assert.deepEqual(report.control, ['dispatch', 'release', 'result']);
  assert.deepEqual(report.unknown, []);
  assert.deepEqual(report.user, [{ module: 'env', name: 'lookup', kind: 'function', type: '(func (param i32) (result i32))' }]);
  assert.deepEqual(report.disposers, ['env.lookup']);
  assert.equal(report.runnable, false, 'snail-core run does not provide env.lookup');

  // The text report says the same, and why run cannot run it.
  const text = await runCli(['inspect', program('cli_inspect')]);
  assert.equal(text.code, 0);
  assert.match(text.stdout, /^ {2}user imports +env\.lookup \(func \(param i32\) \(result i32\)\)$/m);
  assert.match(text.stdout, /^snail-core run cannot run it: it imports env\.lookup; embed it with Runtime\.load/m);
});

test('cli: inspect_of_a_module_that_breaks_the_abi_lists_the_problems_and_exits_1', async () => {
  const r = await runCli(['inspect', files.empty]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^.*empty\.wasm: does not follow the snail-core ABI \(docs\/abi\.md\):\n {2}- it exports no entry/);
  // The problems are the runtime's own: loading the module reports the same lines.
  const run = await runCli(['run', files.empty]);
  const problems = (/** @type {string} */ text) => text.split('\n').filter((line) => line.startsWith('  - '));
  assert.deepEqual(problems(r.stdout), problems(run.stderr));
  assert.equal(problems(r.stdout).length, 1);
});

test('cli: a_long_run_without_a_terminal_prints_no_progress_line', async () => {
  // The task sleeps well past the 200 ms after which a terminal gets the line.
  const r = await runCli(['run', files.fixture, '--entry', 'sleep', '--arg', '600']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'sleeping\n');
  assert.equal(r.stderr, '');
});

test('cli: demo_runs_the_bundled_program_and_prints_its_stats', async () => {
  const r = await runCli(['demo']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^demo: dispatching \d+ workers/m);
  assert.match(r.stdout, /^demo: \d+ workers and \d+ grandchildren finished, 0 failed$/m);
  assert.match(r.stdout, /^demo: \d+ waits, \d+ binding and frame checks, 0 broken$/m);
  assert.match(r.stdout, /\ndemo: snail-core ran (\d+) tasks \(\1 returned, 0 failed\), at most \d+ live at once, in \d+ steps? and \d+ yields?\n$/);
  assert.match(r.stderr, /^snail-core: stats of demo\.wasm/);
  assertNoProgress(r.stderr);

  const extra = await runCli(['demo', '--entry', 'main']);
  assert.equal(extra.code, 2);
  assert.match(extra.stderr, /^snail-core: demo takes no option --entry\n/);
});

test('cli: a_terminal_gets_a_progress_line_that_is_cleared_at_the_end', async () => {
  assert.ok(fs.existsSync('/usr/bin/script'), '/usr/bin/script (bsdutils) is needed: it gives the command a pseudo-terminal');
  // script(1) gives the command a pseudo-terminal; the task sleeps well past the
  // 200 ms after which the line appears, and timers fire in order.
  const command = [process.execPath, cli, 'run', files.fixture, '--entry', 'sleep', '--arg', '600'].map((a) => `'${a}'`).join(' ');
  const r = await runCli([], { command: ['/usr/bin/script', '-qec', command, '/dev/null'] });
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /\rsnail-core: 1 live \(0 queued, 1 suspended\), 0 returned, 0 failed, [\d.]+ s\x1b\[K/);
  assert.match(r.stdout, /\r\x1b\[K\s*$/, 'the line is cleared at the end');
});

test('cli: a_node_without_jspi_explains_what_to_install', async (t) => {
  // The system's Node (which runs npm and tools/bootstrap.sh) is the Node
  // without JSPI this test needs: Debian's is older than 24.
  assert.ok(fs.existsSync(systemNode), `${systemNode} is needed: the system's Node runs the command without JSPI`);
  const systemVersion = spawnSync(systemNode, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const major = Number(systemVersion.replace(/^v/, '').split('.')[0]);
  if (major >= 24) {
    // Honest skip, not a pass: on a machine whose system Node has JSPI (25+)
    // or gets it by re-running itself (24) there is no Node without JSPI to
    // run the command with, so the message cannot be produced.
    t.skip(`${systemNode} is Node ${systemVersion}: Node 24 re-runs itself with --experimental-wasm-jspi, and 25 and newer have JSPI`);
    return;
  }
  const r = await runCli(['run', program('hello')], { node: systemNode });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  const lines = r.stderr.split('\n');
  assert.equal(lines.length, 3, r.stderr);
  assert.equal(lines[0], `snail-core: this Node (${systemVersion}) has no JSPI; snail-core needs Node 25 or newer`);
  assert.match(lines[1], /^hint: npm install node@26 /);
  assert.equal(lines[2], '');
  // Help and version need no JSPI.
  const v = await runCli(['--version'], { node: systemNode });
  assert.equal(v.code, 0);
  assert.equal(v.stdout, `${version}\n`);
});

test('cli: a_closed_standard_output_ends_the_command_quietly_with_141', async () => {
  // The demo writes for a while; the reader goes away after the first chunk.
  const child = spawn(process.execPath, [cli, 'demo'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)));
  assert.equal(code, 141, stderr);
  assert.doesNotMatch(stderr, /EPIPE|Error|\n\s+at .*:\d+:\d+/, 'no error report, no stack');
});

