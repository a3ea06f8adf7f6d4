#!/usr/bin/env node
// Same-process pairs: this checkout's runtime against another checkout's, in
// one Node process, for before-and-after figures that the machine's noise
// does not decide.
//
//   node --expose-gc bench/pairs.mjs OTHER [--rows ROW[,ROW...]] [--chunks N] [--no-budget] [--out FILE]
//
// OTHER is another checkout of snail-core, built (its build/programs/bench/
// bench.wasm exists): an older commit in a git worktree, say. Both runtimes
// load the same benchmark program, and each row runs short chunks of work on
// one and then the other (ABBA order), so that both meet the same modes of a
// shared machine (bench/analysis.md, *Noise*). A row's figure is the median,
// over the chunks, of this checkout's time divided by the other's in the same
// pair of chunks: below 1 means this checkout is faster.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { quantile } from './samples.mjs';
import { shuffledSettler } from './suite.mjs';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A row of `tasks` tasks whose operations settle in shuffled order, in a
 * microtask or a macrotask batch (the suite's interleaved waits), `per`
 * waits a chunk (a multiple of `tasks`; at least 100 waits a task, so that
 * the starts do not count).
 * @param {number} tasks @param {'microtask' | 'macrotask'} batch
 * @param {number} [per]
 */
function interleavedRow(tasks, batch, per = batch === 'microtask' ? 16000 : 8000) {
  return {
    unit: 'suspension',
    what: `${tasks === 1 ? 'one task' : `${tasks} tasks`} whose operations settle in shuffled order in a ${batch} batch`,
    per,
    batch,
    run: async (/** @type {Side} */ side, /** @type {number} */ per) => {
      const settler = side.settlers[batch];
      const k = per / tasks;
      settler.begin(tasks);
      const all = [];
      for (let i = 0; i < tasks; i++) all.push(side.rt.dispatch('op_loop', k).done.then(() => settler.finished()));
      await Promise.all(all);
    },
  };
}

/**
 * The rows: what one chunk runs on a runtime, and in what unit it counts.
 * @type {Record<string, { unit: string, what: string, per: number, batch?: 'microtask' | 'macrotask', run: (side: Side, per: number) => Promise<void> }>}
 */
const ROWS = {
  switch: {
    unit: 'suspension',
    what: 'one task waiting on a resolved operation',
    per: 20000,
    run: async (side, per) => { await side.rt.dispatch('op_loop', per).done; },
  },
  yield: {
    unit: 'yield',
    what: 'one task yielding with nothing else ready',
    per: 20000,
    run: async (side, per) => { await side.rt.dispatch('yield_loop', per).done; },
  },
  start: {
    unit: 'task',
    what: 'a task started and finished, one at a time',
    per: 2000,
    run: async (side, per) => { for (let i = 0; i < per; i++) await side.rt.dispatch('nop', i).done; },
  },
  interleaved: interleavedRow(8, 'microtask'),
  'interleaved-64': interleavedRow(64, 'microtask'),
  'interleaved-512': interleavedRow(512, 'microtask', 51200),
  'interleaved-macrotask': interleavedRow(8, 'macrotask'),
  'one-task': interleavedRow(1, 'microtask'),
  'one-task-macrotask': interleavedRow(1, 'macrotask'),
};

const usage = `usage: node --expose-gc bench/pairs.mjs OTHER [--rows ROW[,ROW...]] [--chunks N] [--no-budget] [--out FILE]

Runs this checkout's runtime and the one in OTHER (another checkout of
snail-core, built) in one process, in alternating chunks, and prints for each
row this checkout's time over OTHER's: the median of the pairs of chunks, with
the middle half of the pairs' ratios. Below 1 means this checkout is faster.

  --rows ROWS  the rows to run (default all): ${Object.keys(ROWS).join(', ')}
  --chunks N   pairs of chunks per row (default 150; at least 4)
  --no-budget  both runtimes without the turn budget (maxSteps and maxTimeMs
               out of reach), as the suite's context rows: what a wait costs
               without the event-loop turns the budget gives way to
  --out FILE   also write the figures there as JSON
  --help       print this
`;

/** @param {string} message */
function refuse(message) {
  process.stderr.write(`pairs: ${message}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      rows: { type: 'string', multiple: true, default: [] },
      chunks: { type: 'string', default: '150' },
      'no-budget': { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
} catch (error) {
  process.stderr.write(`pairs: ${/** @type {Error} */ (error).message}\n\n${usage}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (positionals.length !== 1) refuse(`name one other checkout (got ${positionals.length} arguments)\n\n${usage}`);
const other = path.resolve(positionals[0]);
const rows = values.rows.flatMap((r) => r.split(',')).filter((r) => r !== '');
const unknown = rows.filter((r) => !(r in ROWS));
if (unknown.length) refuse(`no row ${unknown.map((r) => JSON.stringify(r)).join(', ')}; the rows are ${Object.keys(ROWS).join(', ')}`);
const chunks = Number(values.chunks);
if (!Number.isInteger(chunks) || chunks < 4) refuse(`--chunks takes an integer of at least 4, got ${JSON.stringify(values.chunks)}`);

/** @typedef {{ name: string, rt: import('../host/browser/index.mjs').Runtime, settlers: Record<'microtask' | 'macrotask', ReturnType<typeof shuffledSettler>>, batch: 'microtask' | 'macrotask' | null }} Side */
// batch: the running row is an interleaved one, whose waits alone wait on pending operations, settled in such batches.

/**
 * A checkout's runtime with the benchmark program, its settlers for the interleaved rows.
 * @param {string} root @param {string} name
 * @returns {Promise<Side>}
 */
async function load(root, name) {
  const entry = path.join(root, 'host/browser/index.mjs');
  const program = path.join(root, 'build/programs/bench/bench.wasm');
  if (!fs.existsSync(entry)) refuse(`${root} is not a checkout of snail-core (it has no host/browser/index.mjs)`);
  if (!fs.existsSync(program)) refuse(`${root} is not built (it has no build/programs/bench/bench.wasm; run npm run build there)`);
  /** @type {any} */
  let m;
  try {
    m = await import(pathToFileURL(entry).href);
  } catch (error) {
    refuse(`${root}'s runtime does not load: ${error instanceof Error ? error.message : String(error)}`);
  }
  const settlers = { microtask: shuffledSettler('microtask'), macrotask: shuffledSettler('macrotask') };
  const P1 = Promise.resolve(1);
  /** @type {Side} */
  const side = { name, rt: /** @type {any} */ (null), settlers, batch: null };
  try {
    side.rt = await m.Runtime.load(new Uint8Array(fs.readFileSync(program)), {
      stdout: () => {},
      ...(values['no-budget'] ? { maxSteps: 2 ** 30, maxTimeMs: 2 ** 30 } : {}),
      imports: { bench: { op: m.suspend(() => (side.batch !== null ? settlers[side.batch].op() : P1)) } },
    });
  } catch (error) {
    // No JSPI in this Node, or a program the other checkout does not take.
    process.stderr.write(`pairs: ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  return side;
}

if (!fs.existsSync(other) || !fs.statSync(other).isDirectory()) refuse(`${other} is not a directory (name another checkout of snail-core)`);
if (fs.realpathSync(other) === fs.realpathSync(here)) {
  process.stderr.write('pairs: OTHER is this checkout: the figures say how much two copies of the same runtime differ here\n');
}
const self = await load(here, 'this');
const them = await load(other, path.basename(other));

const results = [];
for (const name of rows.length ? rows : Object.keys(ROWS)) {
  const row = ROWS[name];
  for (const side of [self, them]) side.batch = row.batch ?? null;
  // What each side's settler of the row's batch had settled before it (the macrotask rows share one).
  const settledBefore = row.batch !== undefined ? [self.settlers[row.batch].settled, them.settlers[row.batch].settled] : [0, 0];
  /** @param {Side} side */
  const chunk = async (side) => {
    const t0 = performance.now();
    await row.run(side, row.per);
    return performance.now() - t0;
  };
  // Warm-up: both runtimes' paths compiled before the first pair counts.
  for (let w = 0; w < 10; w++) { await chunk(self); await chunk(them); }
  // The turns each runtime gave way to the event loop in the counted pairs (none without the budget).
  const yields0 = [self.rt.stats().yields, them.rt.stats().yields];
  const mine = [];
  const theirs = [];
  for (let c = 0; c < chunks; c++) {
    if (c % 2 === 0) {
      mine.push(await chunk(self));
      theirs.push(await chunk(them));
    } else {
      theirs.push(await chunk(them));
      mine.push(await chunk(self));
    }
    if ((c + 1) % 50 === 0) process.stderr.write(`pairs: ${name}: ${c + 1} of ${chunks} pairs\n`);
  }
  // Every wait of an interleaved row waited on an operation its settler settled.
  const batch = row.batch;
  const settled = batch !== undefined ? Math.min(self.settlers[batch].settled - settledBefore[0], them.settlers[batch].settled - settledBefore[1]) : null;
  if (settled !== null && settled < row.per * (chunks + 10)) {
    process.stderr.write(`pairs: the ${name} row's operations settled ${settled} times, fewer than its ${row.per * (chunks + 10)} waits\n`);
    process.exit(1);
  }
  const yields = { this: self.rt.stats().yields - yields0[0], other: them.rt.stats().yields - yields0[1] };
  const ratios = mine.map((t, i) => t / theirs[i]);
  const ns = (/** @type {number[]} */ ts) => quantile(ts, 0.5) * 1e6 / row.per;
  const r = { row: name, what: row.what, unit: row.unit, ratio: quantile(ratios, 0.5), p25: quantile(ratios, 0.25), p75: quantile(ratios, 0.75), thisNs: ns(mine), otherNs: ns(theirs), pairs: chunks, settled, yields };
  results.push(r);
  process.stdout.write(`${name.padEnd(21)} ${r.ratio.toFixed(3)}x (middle half ${r.p25.toFixed(3)}..${r.p75.toFixed(3)})  this ${r.thisNs.toFixed(0)} ns, ${them.name} ${r.otherNs.toFixed(0)} ns a ${row.unit}\n`);
}
for (const side of [self, them]) await side.rt.close();
if (values.out) {
  fs.writeFileSync(values.out, `${JSON.stringify({ this: here, other, date: new Date().toISOString(), node: process.versions.node, budget: !values['no-budget'], results }, null, 2)}\n`);
}
