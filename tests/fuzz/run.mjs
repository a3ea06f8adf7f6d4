// The fuzzer's driver: runs a seeded series of cases (tests/fuzz/cases.mjs)
// and collects the failures. In-process cases (load, inspect, misuse) run in
// a worker thread that is stopped and replaced when a case hangs; command-line
// cases (run, inspect) run as child processes. Used by tests/node/fuzz.test.mjs
// (a bounded run inside npm test) and tools/fuzz.mjs (as long as one likes).
//
// A failure is: an error that is not a clear SnailError, an internal error,
// a stack trace or exit status 70 from the command, a crash, a hang, bytes
// that WebAssembly refuses accepted (the command exiting 0 or 1 on them), a
// runtime that does not close or keeps something after close(). A time-out
// is not the runtime's when the mutant's own code may loop (its code differs
// from the seed's) or the unmutated seed, run the same way, times out too.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

import { caseOf, loadSeeds, MISUSE_PROGRAM, root } from './cases.mjs';
import { mayLoop } from './mutate.mjs';

const cliPath = path.join(root, 'host/cli/snail-core.mjs');
const workerUrl = new URL('./worker.mjs', import.meta.url);

/** How long one in-process case may take before it counts as hung. */
const CASE_TIMEOUT_MS = 6_000;
/** How long `run` may take before it gets a SIGINT, and then before SIGKILL. */
const RUN_BUDGET_MS = 4_000;
const INTERRUPT_BUDGET_MS = 6_000;
/** In-process cases per worker before a fresh one takes over. */
const WORKER_CASES = 400;

/**
 * @typedef {object} Failure
 * @property {number} index
 * @property {string} target
 * @property {string} seedName
 * @property {string[]} mutations
 * @property {string[]} problems
 * @property {string} reproduce  the command that runs this case again
 * @property {string | null} saved  where the mutant was written, if it was
 */

/**
 * @param {object} options
 * @param {number} options.seed  the run's seed
 * @param {number} [options.cases]  how many cases (default 200)
 * @param {number} [options.seconds]  or: run cases until this many seconds passed
 * @param {number} [options.only]  run only case number `only`
 * @param {string} [options.save]  a directory to write each failing mutant to
 * @param {(line: string) => void} [options.log]  progress lines
 */
export async function fuzz(options) {
  const { seed, only, save, log = () => {} } = options;
  const started = Date.now();
  const deadline = options.seconds === undefined ? Infinity : started + options.seconds * 1000;
  const total = options.seconds === undefined ? options.cases ?? 200 : Infinity;
  const seeds = await loadSeeds();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-fuzz-'));
  /** @type {Failure[]} */
  const failures = [];
  /** @type {Record<string, number>} */
  const byTarget = {};
  /** @type {Record<string, Record<string, number>>} */
  const outcomes = {};
  /** Milliseconds each target's cases took, in all. @type {Record<string, number>} */
  const milliseconds = {};
  /** When each case started, by index. @type {Map<number, number>} */
  const began = new Map();
  let loops = 0;
  let valid = 0;
  let ran = 0;

  /** @param {number} index @param {string} outcome @param {string[]} problems */
  const record = (index, outcome, problems) => {
    const c = caseOf(seed, index, seeds);
    ran++;
    byTarget[c.target] = (byTarget[c.target] ?? 0) + 1;
    milliseconds[c.target] = (milliseconds[c.target] ?? 0) + Date.now() - (began.get(index) ?? Date.now());
    (outcomes[c.target] ??= {})[outcome] = (outcomes[c.target][outcome] ?? 0) + 1;
    if (c.target !== 'misuse' && WebAssembly.validate(/** @type {BufferSource} */ (c.bytes))) valid++;
    if (problems.length === 0) return;
    let saved = null;
    if (save) {
      saved = path.join(save, `snail-fuzz-${seed}-${index}.wasm`);
      fs.writeFileSync(saved, c.bytes);
    }
    const failure = {
      index, target: c.target, seedName: c.seed.name, mutations: c.mutations, problems,
      reproduce: `node tools/fuzz.mjs --seed ${seed} --case ${index}`, saved,
    };
    failures.push(failure);
    log(`FAIL case ${index} (${c.target} of ${c.seed.name}, ${c.mutations.join('+') || 'no mutation'}): ${problems.join('; ')}`);
  };

  /** The indices to run, in order, as they are asked for. */
  let nextIndex = only ?? 0;
  const takeIndex = () => {
    if (only !== undefined) return nextIndex === only ? nextIndex++ : null;
    if (nextIndex >= total || Date.now() >= deadline) return null;
    return nextIndex++;
  };
  /** @type {number[]} */
  const inProcess = [];
  /** @type {number[]} */
  const commandLine = [];
  let exhausted = false;
  /** Sorts indices into the two queues until `queue` has one, or none are left. @param {number[]} queue */
  const fill = (queue) => {
    while (queue.length === 0 && !exhausted) {
      const i = takeIndex();
      if (i === null) exhausted = true;
      else (caseOf(seed, i, seeds).target.startsWith('cli-') ? commandLine : inProcess).push(i);
    }
    return queue.length > 0;
  };

  /** Whether a seed, loaded the same way, times out by itself: cached. @type {Map<string, Promise<boolean>>} */
  const seedTimesOut = new Map();
  /** @param {string} name @param {string[]} entries */
  const seedHangs = (name, entries) => {
    const key = `${name}|${entries.join(',')}`;
    if (!seedTimesOut.has(key)) {
      seedTimesOut.set(key, new Promise((resolve) => {
        const worker = new Worker(workerUrl, { workerData: { seeds, misuseProgram: MISUSE_PROGRAM } });
        /** @type {any} */
        let timer = null;
        worker.on('message', (m) => {
          if (m.type === 'start') {
            timer = setTimeout(() => { worker.terminate(); resolve(true); }, CASE_TIMEOUT_MS);
          } else if (m.type === 'done') {
            clearTimeout(timer);
            worker.terminate();
            resolve(Boolean(m.stuck));
          }
        });
        worker.postMessage({ type: 'seed-load', name, entries });
      }));
    }
    return /** @type {Promise<boolean>} */ (seedTimesOut.get(key));
  };

  /**
   * A case that timed out (hung, or close() stuck): the program's own loop,
   * or a failure.
   * @param {number} index @param {string} what @param {string[]} entries
   */
  const timedOut = (index, what, entries) => {
    const c = caseOf(seed, index, seeds);
    const judged = (async () => {
      if (c.target === 'load' && (mayLoop(c.seed.bytes, c.bytes) || await seedHangs(c.seed.name, entries))) {
        loops++;
        record(index, `${what}: the program's own code`, []);
      } else {
        record(index, what, [`${what} (no code of the module's own could explain it)`]);
      }
    })();
    // The run is not over until every time-out is judged (the seed's own
    // check takes a worker and a time-out of its own).
    judging.add(judged);
    judged.finally(() => judging.delete(judged));
  };
  /** Time-outs still being judged. @type {Set<Promise<void>>} */
  const judging = new Set();

  // In-process cases: one worker at a time, replaced after a hang.
  const runInProcess = async () => {
    while (fill(inProcess)) {
      const batch = inProcess.splice(0, 50);
      await new Promise((resolve) => {
        const worker = new Worker(workerUrl, { workerData: { seeds, misuseProgram: MISUSE_PROGRAM } });
        /** @type {any} */
        let timer = null;
        let current = -1;
        /** @type {string[]} */
        let entries = [];
        let done = 0;
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          clearTimeout(timer);
          worker.terminate().then(resolve, resolve);
        };
        worker.on('message', (m) => {
          if (m.type === 'start') {
            current = m.index;
            began.set(m.index, Date.now());
            entries = [];
            timer = setTimeout(() => {
              // Stopping the worker stops even a loop in Wasm; the batch's
              // other cases go back to the queue.
              const hung = current;
              inProcess.unshift(...batch.slice(done + 1));
              finish();
              timedOut(hung, 'hung', entries);
            }, CASE_TIMEOUT_MS);
          } else if (m.type === 'done') {
            clearTimeout(timer);
            done++;
            if (m.stuck) {
              entries = m.entries;
              timedOut(m.index, 'close() stuck', m.entries);
            } else {
              record(m.index, m.outcome, m.problems);
            }
          } else if (m.type === 'entries') {
            entries = m.entries;
          } else if (m.type === 'idle') {
            finish();
          } else if (m.type === 'stray') {
            record(current, 'stray', [m.line]);
          }
        });
        worker.on('error', (e) => {
          record(current, 'worker error', [`the worker failed: ${e.message}`]);
          inProcess.unshift(...batch.slice(done + 1));
          finish();
        });
        worker.postMessage({ type: 'cases', seed, indices: batch });
      });
      if (ran % WORKER_CASES < 50) log(`${ran} cases, ${failures.length} failures`);
    }
  };

  // Command-line cases, one child process at a time.
  const runCommandLine = async () => {
    while (fill(commandLine)) {
      const index = /** @type {number} */ (commandLine.shift());
      const c = caseOf(seed, index, seeds);
      began.set(index, Date.now());
      const file = path.join(tmp, `case-${index}.wasm`);
      fs.writeFileSync(file, c.bytes);
      const r = await runCommand(c.target === 'cli-run' ? ['run', file] : ['inspect', file], tmp);
      fs.rmSync(file, { force: true });
      const isValid = WebAssembly.validate(/** @type {BufferSource} */ (c.bytes));
      if (r.killed) {
        if (c.target === 'cli-run' && mayLoop(c.seed.bytes, c.bytes)) {
          loops++;
          record(index, 'killed: the program\'s own code', []);
        } else {
          record(index, 'killed', ['it did not end after SIGINT (a hang)']);
        }
        continue;
      }
      /** @type {string[]} */
      const problems = [];
      if (r.signal && !(r.signal === 'SIGINT' && r.interrupted)) problems.push(`it was ended by ${r.signal}`);
      if (r.code === 70) problems.push('exit status 70: an internal error');
      const trace = /^\s+at .*(:\d+:\d+\)?|\(node:[^)]*\))$/m.exec(r.stderr);
      if (trace) problems.push(`a stack trace on stderr: ${trace[0].trim()}`);
      if (!isValid && r.code !== 2) problems.push(`exit status ${r.code ?? r.signal} on bytes WebAssembly refuses (expected 2)`);
      if (c.target === 'cli-inspect' && isValid && ![0, 1, 2].includes(/** @type {number} */ (r.code))) problems.push(`inspect exited ${r.code}`);
      record(index, r.signal ? `signal ${r.signal}` : `exit ${r.code}`, problems);
    }
  };

  try {
    await Promise.all([runInProcess(), runCommandLine()]);
    while (judging.size) await Promise.all(judging);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return { seed, cases: ran, byTarget, outcomes, milliseconds, failures, loops, valid, seeds: seeds.length, seconds: (Date.now() - started) / 1000 };
}

/**
 * Runs the command line; sends SIGINT after RUN_BUDGET_MS and SIGKILL after
 * INTERRUPT_BUDGET_MS more.
 * @param {string[]} args @param {string} cwd
 */
function runCommand(args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let interrupted = false;
    let killed = false;
    child.stdout.resume();
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (t) => { if (stderr.length < 65536) stderr += t; });
    const interrupt = setTimeout(() => {
      interrupted = true;
      child.kill('SIGINT');
    }, RUN_BUDGET_MS);
    const kill = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, RUN_BUDGET_MS + INTERRUPT_BUDGET_MS);
    child.on('close', (code, signal) => {
      clearTimeout(interrupt);
      clearTimeout(kill);
      resolve({ code, signal, stderr, interrupted, killed });
    });
  });
}
