#!/usr/bin/env node
// The snail-core command: runs a program built for snail-core under Node.
//
//   snail-core run FILE.wasm [--entry NAME] [--arg N] [--stats] [--trace OUT.json] [-- ARGS...]
//   snail-core inspect FILE.wasm [--json]
//   snail-core demo [--trace OUT.json]
//
// docs/cli.md is its reference; tests/cli/ holds its golden-output cases.
//
// This file must stay loadable by Node releases without JSPI (Node 20 and up),
// so that they can print why they cannot run programs: it uses no newer syntax
// and imports the runtime only after the JSPI check.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { hasJspi } from '../browser/capabilities.mjs';
import { CliError, grantsOf, parseCommand, USAGE } from './args.mjs';

/** @typedef {import('./args.mjs').Command} Command */

/** The package root: host/cli is two directories below it. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The exit codes the help text documents. */
const EXIT = Object.freeze({ ok: 0, failed: 1, usage: 2, internal: 70, interrupted: 130, brokenPipe: 141, terminated: 143 });

// A reader that goes away (`snail-core run app.wasm | head`) ends the command
// quietly with 141, the status a shell reports for a C program SIGPIPE ended.
process.stdout.on('error', (error) => {
  if (/** @type {NodeJS.ErrnoException} */ (error).code === 'EPIPE') process.exit(EXIT.brokenPipe);
  throw error;
});

/** How long a run lasts before the progress line appears, and its refresh period. */
const PROGRESS_DELAY_MS = 200;
const PROGRESS_PERIOD_MS = 100;

/** @returns {string} */
function packageVersion() {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return String(pkg.version);
}

/**
 * Writes an error: one line, then the details and a hint.
 * @param {string} message @param {{ hint?: string, details?: string[] }} [extra]
 */
function printError(message, extra = {}) {
  let text = `snail-core: ${message}\n`;
  for (const line of extra.details ?? []) text += `${line}\n`;
  if (extra.hint) text += `hint: ${extra.hint}\n`;
  process.stderr.write(text);
}

/**
 * Without JSPI: Node 24 has it behind a flag, so this process re-runs itself
 * with the flag; other releases cannot run programs at all.
 * @returns {Promise<number> | null}  the exit code of the re-run, or null when this Node has JSPI
 */
function ensureJspi() {
  if (hasJspi) return null;
  const version = process.versions.node;
  const major = Number(version.split('.')[0]);
  const flag = '--experimental-wasm-jspi';
  if (major === 24 && !process.execArgv.includes(flag)) return rerunWith(flag);
  printError(`this Node (v${version}) has no JSPI; snail-core needs Node 25 or newer`, {
    hint: 'npm install node@26 puts Node 26 in node_modules/.bin; run snail-core through npx or an npm script, which put it first on PATH',
  });
  return Promise.resolve(EXIT.usage);
}

/**
 * Runs this script again in a child Node with `flag`, sharing the terminal.
 * @param {string} flag
 * @returns {Promise<number>}
 */
function rerunWith(flag) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, flag, process.argv[1], ...process.argv.slice(2)], { stdio: 'inherit' });
    // The terminal sends Ctrl-C to the child as well; it decides how to end.
    const ignore = () => {};
    process.on('SIGINT', ignore);
    child.on('error', (error) => {
      process.off('SIGINT', ignore);
      printError(`cannot re-run Node with ${flag}: ${error.message}`);
      resolve(EXIT.usage);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', ignore);
      if (signal) resolve(128 + (os.constants.signals[signal] ?? 0));
      else resolve(code ?? EXIT.internal);
    });
  });
}

/**
 * A progress line on a terminal, shown once a run lasts longer than
 * PROGRESS_DELAY_MS. Never active when stderr is not a TTY, so captured output
 * stays clean.
 * @param {() => Record<string, number> | null} sample  the runtime's stats, once loaded
 */
function createProgress(sample) {
  const enabled = process.stderr.isTTY === true;
  const started = Date.now();
  let visible = false;
  // Program output that ended mid-line: drawing now would overwrite it.
  let midLine = false;
  /** @type {ReturnType<typeof setInterval> | null} */
  let interval = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let delay = null;

  const draw = () => {
    const s = sample();
    if (!s || midLine) return;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const line = `snail-core: ${s.live} live (${s.queued} queued, ${s.suspended} suspended), ${s.returned} returned, ${s.failed} failed, ${seconds} s`;
    const width = process.stderr.columns || 80;
    process.stderr.write(`\r${line.slice(0, width - 1)}\x1b[K`);
    visible = true;
  };
  const clear = () => {
    if (visible) process.stderr.write('\r\x1b[K');
    visible = false;
  };

  return {
    start() {
      if (!enabled) return;
      delay = setTimeout(() => {
        draw();
        interval = setInterval(draw, PROGRESS_PERIOD_MS);
        interval.unref();
      }, PROGRESS_DELAY_MS);
      // The runtime keeps the process alive while tasks are live; the progress
      // line must never do so on its own.
      delay.unref();
    },
    /** Clears the line before the program writes to the terminal. @param {string} text */
    output(text) {
      if (!enabled) return;
      clear();
      if (text.length > 0) midLine = !text.endsWith('\n');
    },
    clear,
    stop() {
      if (delay) clearTimeout(delay);
      if (interval) clearInterval(interval);
      delay = null;
      interval = null;
      clear();
    },
  };
}

/** @param {number} n @param {string} one @param {string} [many] */
function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The --stats summary.
 * @param {string} name @param {Record<string, number>} s @param {number} ms
 */
function formatStats(name, s, ms) {
  return [
    `snail-core: stats of ${name} (${ms.toFixed(0)} ms)`,
    `  tasks       ${s.dispatched} dispatched, ${s.started} started, ${s.returned} returned, ${s.failed} failed, ${s.cancelled} cancelled`,
    `  at most     ${s.peakLive} live, ${s.peakEntered} entered Wasm, ${count(s.peakCarriers, 'carrier')} (${count(s.carrierReuses, 'reuse')})`,
    `  scheduler   ${count(s.steps, 'step')}, ${count(s.yields, 'yield')} to the event loop, ${count(s.intervals, 'drain interval')}`,
    `  permit      ${count(s.lends, 'wait')} kept it lent, ${s.reclaims} taken back`,
    `  at the end  ${s.live} live, ${count(s.handles, 'handle')}, ${count(s.stacksInUse, 'stack')} and ${count(s.slotsInUse, 'register slot')} in use`,
  ].join('\n') + '\n';
}

/**
 * The hint for a runtime error, by its code.
 * @param {{ code?: string, message: string }} error @param {Command} command
 * @returns {string | undefined}
 */
function hintFor(error, command) {
  switch (error.code) {
    case 'ERR_LOAD':
      if (command.name === 'demo') return 'build the programs first: npm run build';
      return /no such file/.test(error.message) ? `check the path; it is relative to ${process.cwd()}` : 'give the path of a readable .wasm file';
    case 'ERR_INIT':
      if (/outside a task/.test(error.message)) {
        return 'the initialisation (C++ static constructors, _initialize) runs before any task: move waits and dispatches into an entry';
      }
      return / failed (in its start function|while it was instantiated|while its data)/.test(error.message)
        ? 'the module\'s start function (its start section, which instantiation runs) failed before any task ran'
        : 'the initialisation (C++ static constructors, _initialize) trapped before any task ran';
    case 'ERR_NOT_WASM':
      return 'snail-core runs WebAssembly modules (.wasm) built for the snail-core ABI, for example with the C++ headers in core/include';
    case 'ERR_ABI':
      if (/nobody provides/.test(error.message)) {
        return 'snail-core run provides only the snail and wasi_snapshot_preview1 imports; embed a program that needs more with Runtime.load(file, { imports })';
      }
      return 'C++ programs follow the ABI by including <snail/snail.hpp> (core/include) and declaring entries with SNAIL_ENTRY';
    case 'ERR_NO_ENTRY':
      return 'choose one with --entry NAME';
    case 'ERR_LINK':
      return 'the module needs imports snail-core run does not provide; embed it with Runtime.load(file, { imports })';
    default:
      return undefined;
  }
}

/**
 * Turns an error from loading or dispatching into a message and an exit code.
 * @param {unknown} error @param {Command} command @param {Function} SnailError
 */
function reportRuntimeError(error, command, SnailError) {
  if (error instanceof SnailError) {
    const e = /** @type {Error & { code?: string }} */ (error);
    // AbiError lists one problem a line after its first line.
    const [first, ...details] = e.message.split('\n');
    printError(first, { details, hint: hintFor(e, command) });
    return e.code === 'ERR_INIT' ? EXIT.failed : EXIT.usage;
  }
  return reportInternal(error);
}

/** @param {unknown} error */
function reportInternal(error) {
  const e = error instanceof Error ? error : new Error(String(error));
  printError(`internal error: ${e.message.split('\n')[0]}`, {
    details: (e.stack ?? '').split('\n').slice(1),
    hint: 'this is a bug in snail-core; please report it with the lines above',
  });
  return EXIT.internal;
}

/** How many failed tasks a run reports one by one; it counts the others. */
const MAX_REPORTED_FAILURES = 10;

/**
 * The frames of a failed task's stack that are the program's own named
 * functions, as `at NAME (wasm-function[N]:0xOFFSET)`: a program built with
 * its names (a debug build) shows where it failed. The runtime's generated
 * modules have no names, so their frames are left out, like the JavaScript.
 * @param {unknown} error  the task's error
 * @returns {string[]}
 */
function namedWasmFrames(error) {
  const cause = /** @type {{ cause?: { stack?: unknown } } | null | undefined} */ (error)?.cause;
  const stack = typeof cause?.stack === 'string' ? cause.stack : '';
  const frames = [];
  for (const line of stack.split('\n')) {
    const m = /^\s*at (.+?) \(wasm:\/\/wasm\/(.+?):(wasm-function\[\d+\]:0x[0-9a-f]+)\)$/.exec(line);
    if (!m) continue;
    // The engine shows MODULE.FUNCTION when the name section names the module.
    const module = m[2].replace(/-[0-9a-f]+$/, '');
    const name = m[1].startsWith(`${module}.`) ? m[1].slice(module.length + 1) : m[1];
    frames.push(`    at ${name} (${m[3]})`);
  }
  return frames;
}

/**
 * Prints why a task failed: its message, then where, for a program with names.
 * @param {import('../browser/index.mjs').Task} task @param {string} [hint]
 */
function printFailure(task, hint) {
  const error = /** @type {{ message?: string } | undefined} */ (task.error);
  const why = error && error.message ? error.message : `${task} ended as ${task.state}`;
  printError(why, { details: namedWasmFrames(task.error), hint });
}

/**
 * Prints the tasks other than the root that failed, the first
 * MAX_REPORTED_FAILURES of them one by one, and how many more failed.
 * @param {{ shown: import('../browser/index.mjs').Task[], more: number }} failures
 */
function reportFailures(failures) {
  for (const task of failures.shown) printFailure(task);
  if (failures.more > 0) {
    process.stderr.write(`snail-core: ${count(failures.more, 'more task')} failed (the first ${MAX_REPORTED_FAILURES} are above; --stats counts them all)\n`);
  }
}

/**
 * Loads the program, runs its entry as a root task until every task finished,
 * and returns the exit code.
 * @param {Command} command
 * @returns {Promise<number>}
 */
async function runProgram(command) {
  const file = /** @type {string} */ (command.file);
  const entry = /** @type {string} */ (command.entry);
  const { Runtime, SnailError } = await import('../node/root.mjs');
  const { nodeHost } = await import('../node/host.mjs');
  const { Interrupts } = await import('../node/signals.mjs');

  /** @type {import('../browser/index.mjs').Runtime | null} */
  let rt = null;
  /** @type {import('./trace.mjs').ChromeTrace | null} */
  let trace = null;
  if (command.trace !== undefined) {
    const { ChromeTrace } = await import('./trace.mjs');
    try {
      trace = new ChromeTrace(command.trace, { program: path.basename(file), version: packageVersion(), origin: performance.now() });
    } catch (error) {
      const e = /** @type {NodeJS.ErrnoException} */ (error);
      printError(`cannot write the trace file ${command.trace}: ${e.code === 'ENOENT' ? 'its directory does not exist' : e.code === 'EISDIR' ? 'it is a directory' : e.code === 'EACCES' ? 'permission denied' : e.message}`, {
        hint: 'give --trace the path of a file to create, for example --trace trace.json',
      });
      return EXIT.usage;
    }
  }
  const progress = createProgress(() => (rt ? rt.stats() : null));
  /** @type {import('../browser/index.mjs').Task | null} */
  let rootTask = null;
  /** Every failed task but the root, reported after the run. */
  const failures = { shown: /** @type {import('../browser/index.mjs').Task[]} */ ([]), more: 0 };
  const onTaskFailed = (/** @type {import('../browser/index.mjs').Task} */ t) => {
    if (t === rootTask) return;
    if (failures.shown.length < MAX_REPORTED_FAILURES) failures.shown.push(t);
    else failures.more++;
  };
  /** @type {Promise<import('../browser/index.mjs').CloseReport> | null} */
  let closing = null;
  const closeOnce = () => (closing ??= /** @type {import('../browser/index.mjs').Runtime} */ (rt).close());
  // The first SIGINT (Ctrl-C) or SIGTERM cancels every live task and lets
  // them unwind, as rt.close() does. It also gives both signals back their
  // default actions, so that a second one ends the process at once, even
  // while Wasm code runs and no listener could be called (a task whose
  // cleanup never ends). One that arrives while a task computes is acted on
  // once the agent is free (Interrupts in host/node/signals.mjs).
  const interrupts = new Interrupts((signal) => {
    progress.stop();
    // On a terminal, the line after the echoed ^C.
    const nl = process.stderr.isTTY && signal === 'SIGINT' ? '\n' : '';
    const what = signal === 'SIGINT' ? 'interrupted' : `terminated (${signal})`;
    if (rt === null) {
      // Nothing to unwind. The signal's default action ends the process even
      // when a read of the program blocks (a pipe): process.exit() would wait
      // for that read.
      process.stderr.write(`${nl}snail-core: ${what} while loading the program\n`);
      if (trace) trace.close({ interrupted: true });
      process.kill(process.pid, signal);
      return;
    }
    const live = rt.stats().live;
    if (live === 0) {
      // It arrived while the last task computed, and was acted on only after.
      process.stderr.write(`${nl}snail-core: ${what} after every task had finished\n`);
    } else {
      const again = signal === 'SIGINT' ? 'Ctrl-C again ends the process at once' : 'a second signal ends the process at once';
      process.stderr.write(`${nl}snail-core: ${what}; cancelling ${count(live, 'live task')} and waiting for ${live === 1 ? 'it' : 'them'} to unwind (${again})\n`);
    }
    // runProgram awaits it; a rejection must not count as unhandled meanwhile.
    closeOnce().catch(() => {});
    // The cancellations are in the trace file before any task unwinds.
    if (trace) trace.flush();
  });
  const started = Date.now();
  progress.start();
  try {
    try {
      rt = await Runtime.load(file, {
        trace: trace ? (event) => /** @type {import('./trace.mjs').ChromeTrace} */ (trace).event(event) : undefined,
        onTaskFailed,
        args: [file, ...(command.programArgs ?? [])],
        // Files, network, environment and storage as granted; standard input as lines.
        ...nodeHost({ ...grantsOf(command.grants), stdin: true }),
        stdout: (text) => { progress.output(text); process.stdout.write(text); },
        stderr: (text) => { progress.output(text); process.stderr.write(text); },
      });
    } catch (error) {
      if (trace) {
        trace.close();
        fs.rmSync(trace.file, { force: true });
      }
      // nodeHost() advises renaming one of two grants of the same guest name
      // with { path, as }, which the command line cannot do: the same name as
      // written means the same directory.
      const twice = /** @type {{ sameGuest?: { guest: string, paths: string[] } }} */ (error).sameGuest;
      if (twice) {
        printError(`--dir ${twice.paths[0]} and --dir ${twice.paths[1]} grant the same directory, "${twice.guest}", twice`, {
          hint: 'grant each directory with a single --dir',
        });
        return EXIT.usage;
      }
      const needs = error instanceof SnailError && /** @type {{ code?: string }} */ (error).code === 'ERR_ABI'
        ? await userImportsOnly(file, SnailError)
        : null;
      if (needs) {
        printError(`${needs.name} needs imports that snail-core run cannot provide: ${needs.imports.join(', ')}`, {
          hint: 'run provides only the modules snail and wasi_snapshot_preview1; load the program from JavaScript with Runtime.load(file, { imports }), whose imports option provides the others (docs/api.md)',
        });
        return EXIT.usage;
      }
      return reportRuntimeError(error, command, SnailError);
    }
    /** @type {import('../browser/index.mjs').Task | null} */
    let task = null;
    if (interrupts.received === null) {
      try {
        task = rt.dispatch(entry, command.arg ?? 0);
        rootTask = task;
      } catch (error) {
        interrupts.dispose();
        await rt.close();
        if (trace) {
          trace.close();
          fs.rmSync(trace.file, { force: true });
        }
        return reportRuntimeError(error, command, SnailError);
      }
      await rt.drain();
    }
    // A signal sent while the last task computed reaches its listener only now.
    await interrupts.settled();
    const report = await closeOnce();
    // From here on a signal has its default action: it ends the process.
    interrupts.dispose();
    const interrupted = interrupts.received;
    progress.stop();

    const stats = rt.stats();
    if (command.stats) process.stderr.write(formatStats(path.basename(file), stats, Date.now() - started));
    if (trace) {
      trace.close({ interrupted: interrupted !== null, dispatched: stats.dispatched, returned: stats.returned, failed: stats.failed, cancelled: stats.cancelled });
      process.stderr.write(`snail-core: wrote ${count(trace.taskEvents, 'task event')} to ${trace.file} (Chrome trace format: open it in https://ui.perfetto.dev or chrome://tracing)\n`);
    }
    reportFailures(failures);
    if (interrupted !== null) {
      const unwound = report.cancelled.length;
      if (unwound > 0 || report.disposerErrors.length) {
        let line = `snail-core: ${interrupted === 'SIGINT' ? 'interrupted' : 'terminated'}: ${count(unwound, 'task')} cancelled, ${unwound === 1 ? 'it has' : 'all have'} unwound`;
        if (report.disposerErrors.length) line += `; ${count(report.disposerErrors.length, 'disposer')} failed`;
        process.stderr.write(`${line}\n`);
      }
      return interrupted === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
    }
    task = /** @type {import('../browser/index.mjs').Task} */ (task);
    if (command.name === 'demo') {
      process.stdout.write(`demo: snail-core ran ${count(stats.dispatched, 'task')} (${stats.returned} returned, ${stats.failed} failed), `
        + `at most ${stats.peakLive} live at once, in ${count(stats.steps, 'step')} and ${count(stats.yields, 'yield')}\n`);
    }
    if (task.state === 'returned') return /** @type {number} */ (task.value) & 255;
    const message = /** @type {{ message?: string } | undefined} */ (task.error)?.message ?? '';
    printFailure(task, / unreachable$/.test(message)
      ? 'the program executed unreachable: in C++, std::abort(), __builtin_trap() or a failed assert()'
      : /uncaught WebAssembly exception/.test(message)
        ? 'a WebAssembly exception (a throw instruction, or C++ built with -fwasm-exceptions) left the entry uncaught'
        : 'the task trapped or an import threw; the other tasks ran on (--stats counts them)');
    return EXIT.failed;
  } finally {
    progress.stop();
    interrupts.dispose();
  }
}

/**
 * The user imports of a module that Runtime.load refused, when they are all
 * that keeps run from running it: needing them is no breach of the ABI, and
 * inspect's verdict, which assumes an embedder provides them, finds no
 * problem. Their absence also makes a native disposer of one of them a
 * problem for Runtime.load, which inspect's verdict sets aside too.
 * @param {string} file @param {Function} SnailError
 * @returns {Promise<{ name: string, imports: string[] } | null>}  null for a module with other problems
 */
async function userImportsOnly(file, SnailError) {
  const loadModule = await nodeLoadModule();
  const { inspectModule } = await import('./inspect.mjs');
  let result;
  try {
    result = inspectModule(await loadModule(file));
  } catch (error) {
    // The file changed since Runtime.load read it: its own error stands.
    if (error instanceof SnailError) return null;
    throw error;
  }
  if (!result.follows || result.user.length === 0) return null;
  return { name: result.file, imports: result.user.map((u) => `${u.module}.${u.name}`) };
}

/** The runtime's module loader, reading files as the Node platform does (regular files only, bounded). */
async function nodeLoadModule() {
  const { installNodePlatform } = await import('../node/platform.mjs');
  installNodePlatform();
  return (await import('../browser/program.mjs')).loadModule;
}

/**
 * `inspect`: reads and compiles the module (no JSPI needed), prints what it
 * declares and whether it follows the ABI.
 * @param {Command} command
 * @returns {Promise<number>}
 */
async function inspectProgram(command) {
  const file = /** @type {string} */ (command.file);
  const loadModule = await nodeLoadModule();
  const { SnailError } = await import('../browser/errors.mjs');
  const { formatInspection, inspectModule } = await import('./inspect.mjs');
  let loaded;
  try {
    loaded = await loadModule(file);
  } catch (error) {
    return reportRuntimeError(error, command, SnailError);
  }
  const result = inspectModule(loaded);
  process.stdout.write(command.json ? `${JSON.stringify(result, null, 2)}\n` : formatInspection(result));
  return result.follows ? EXIT.ok : EXIT.failed;
}

/**
 * @param {string[]} argv
 * @returns {Promise<number>}
 */
async function main(argv) {
  /** @type {Command} */
  let command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    printError(error.message, { hint: error.hint });
    return EXIT.usage;
  }
  if (command.name === 'help') {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (command.name === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (command.name === 'none') {
    process.stderr.write(USAGE);
    return EXIT.usage;
  }
  // Inspecting reads the module and needs no JSPI.
  if (command.name === 'inspect') return inspectProgram(command);
  const rerun = ensureJspi();
  if (rerun) return rerun;
  return runProgram(command);
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => {
    const code = reportInternal(error);
    // A broken runtime may still hold live tasks that keep the process alive;
    // exit once stderr has taken the report.
    process.stderr.write('', () => process.exit(code));
  },
);
