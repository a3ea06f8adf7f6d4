// The workers group of the benchmark suite (Node): throughput of CPU-bound
// tasks spread over 1, 2 and 4 worker_threads workers, each with its own
// runtime of build/programs/work.wasm, by the pool of examples/workers/. The
// ratios are each pool's throughput over the one-worker pool's, measured in
// interleaved rounds of the same run.
//
//   node bench/workers.mjs [--quick]     prints the rows (npm run bench includes them)
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { Pool } from '../examples/workers/pool.mjs';
import { median } from './suite.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROGRAM = pathToFileURL(path.join(root, 'build/programs/work.wasm'));
/** Rounds of the hash per task: some 20 ms of work on this machine. */
const ROUNDS = 400;
const SIZES = [1, 2, 4];

/**
 * @param {{ quick?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<import('./suite.mjs').Result[]>}
 */
export async function workersBench(options = {}) {
  const log = options.log ?? (() => {});
  const tasks = options.quick ? 8 : 16;
  const rounds = options.quick ? 3 : 7;
  const cores = os.availableParallelism();
  const pools = new Map();
  for (const size of SIZES) pools.set(size, await Pool.create({ size, program: PROGRAM }));
  try {
    // What each task must return, from one worker: every pool must agree.
    const inputs = Array.from({ length: tasks }, (_, i) => ROUNDS + (i % 4));
    const expected = (await Promise.all(inputs.map((n) => pools.get(1).run('work', n)))).map((o) => o.value);
    /** @type {Map<number, number[]>} tasks per second, round by round */
    const throughput = new Map(SIZES.map((s) => [s, []]));
    /** @type {Map<number, Set<number>>} the workers that ran tasks */
    const used = new Map(SIZES.map((s) => [s, new Set()]));
    for (let round = 0; round < rounds; round++) {
      for (const size of SIZES) {
        const started = performance.now();
        const outcomes = await Promise.all(inputs.map((n) => pools.get(size).run('work', n)));
        const ms = performance.now() - started;
        const wrong = outcomes.filter((o, i) => o.state !== 'returned' || o.value !== expected[i]);
        if (wrong.length) throw new Error(`workers: ${wrong.length} of ${tasks} tasks on ${size} worker(s) did not return what one worker computed`);
        for (const o of outcomes) used.get(size)?.add(o.worker);
        throughput.get(size)?.push((tasks * 1000) / ms);
      }
    }
    const base = /** @type {number[]} */ (throughput.get(1));
    return SIZES.map((size) => {
      const xs = /** @type {number[]} */ (throughput.get(size));
      const spread = { min: Math.round(Math.min(...xs)), median: Math.round(median(xs)), max: Math.round(Math.max(...xs)) };
      const ratio = median(xs.map((x, i) => x / base[i]));
      log(`workers: ${size} worker(s): ${spread.median} tasks/s (${ratio.toFixed(2)}x one worker)`);
      return {
        name: `workers: throughput with ${size} worker${size === 1 ? '' : 's'} on ${cores} cores (CPU-bound tasks)`,
        unit: 'task',
        subject: `${tasks} tasks of work(${ROUNDS}..${ROUNDS + 3}) spread over ${size} worker_threads worker(s), a runtime each`,
        value: spread,
        scale: 'tasks/s',
        baselineName: 'one worker',
        baseline: { min: Math.round(Math.min(...base)), median: Math.round(median(base)), max: Math.round(Math.max(...base)) },
        ratio,
        note: `throughput over one worker's (higher is better); this machine has ${cores} core${cores === 1 ? '' : 's'}, so more workers than that share them`,
        counters: { tasks: tasks * rounds, workersUsed: used.get(size)?.size ?? 0 },
      };
    });
  } finally {
    for (const pool of pools.values()) await pool.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await workersBench({ quick: process.argv.includes('--quick'), log: (line) => process.stderr.write(`bench: ${line}\n`) });
  for (const r of rows) process.stdout.write(`${r.name}: ${r.value.median} tasks/s, ${r.ratio?.toFixed(2)}x one worker (${r.note})\n`);
}
