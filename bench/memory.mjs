#!/usr/bin/env node
// One memory measurement in a fresh process, so that pages freed by earlier
// work cannot hide what is measured (resident memory does not shrink, and
// freed pages are reused):
//
//   node --expose-gc bench/memory.mjs raw|suspended|queued N
//   deno run -A --v8-flags=--expose-gc bench/memory.mjs ...    bun bench/memory.mjs ...
//
// Prints the resident bytes per item as JSON.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';

import { Runtime, suspend } from '../host/node/root.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const program = (/** @type {string} */ name) => path.join(root, 'build/programs/bench', `${name}.wasm`);
const [what, count] = process.argv.slice(2);
const n = Number(count);
const g = /** @type {any} */ (globalThis);
// Bun collects through its own API; V8 engines need --expose-gc.
const gc = typeof g.gc === 'function' ? g.gc : g.Bun ? () => g.Bun.gc(true) : null;
if (typeof gc !== 'function') throw new Error('run with --expose-gc');
const turn = () => new Promise((r) => setImmediate(r));
const settle = async () => { for (let i = 0; i < 3; i++) { gc(); await turn(); } };
const rss = () => process.memoryUsage().rss;

/** @type {(() => void)[]} */
const holds = [];
const hold = () => new Promise((r) => { holds.push(() => r(0)); });
let perItem = 0;
let checked = 0;

// Before the baseline reading, the code paths under measurement run hot in
// small batches, so that the engine's one-time costs (optimizing compilers on
// worker threads, whose memory their allocator keeps) are not counted per
// item. A batch is small against n, so that the pages it frees hide little.
const WARM_ROUNDS = 200;
const WARM_BATCH = 16;
/** @param {(i: number) => Promise<unknown>} start @param {number} [size] */
const warm = async (start, size = WARM_BATCH) => {
  for (let r = 0; r < WARM_ROUNDS; r++) {
    const batch = Array.from({ length: size }, (_, i) => start(i));
    while (holds.length < size) await turn();
    for (const h of holds.splice(0)) h();
    await Promise.all(batch);
  }
};

if (what === 'raw') {
  // The floor: a bare promising call parked at a Suspending import.
  const raw = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(program('bench_raw'))), {
    bench: { op: new WebAssembly.Suspending(hold) },
  });
  const once = WebAssembly.promising(/** @type {any} */ (raw.exports).op_once);
  await warm(once);
  await settle();
  const before = rss();
  const calls = Array.from({ length: n }, (_, i) => once(i));
  await settle();
  perItem = (rss() - before) / n;
  checked = holds.length;
  for (const h of holds) h();
  await Promise.all(calls);
} else {
  const suspended = what === 'suspended';
  const rt = await Runtime.load(program('bench'), {
    stdout: () => {},
    // An operation that may read its signal, as one on I/O does: each task
    // that waits makes its AbortController (an arrow function of no
    // parameters would make none).
    imports: { bench: { op: suspend((/** @type {AbortSignal} */ _signal) => hold()) } },
    maxEntered: suspended ? n + 10 : 1,
    hardMaxEntered: suspended ? n + 10 : 1,
  });
  await warm((i) => rt.dispatch('op_once', i).done, suspended ? WARM_BATCH : 1);
  if (!suspended) {
    // ...and the path of a queued task: dispatched while the entry is taken.
    for (let r = 0; r < WARM_ROUNDS; r++) {
      const taken = rt.dispatch('op_once', 0);
      while (holds.length < 1) await turn();
      const batch = Array.from({ length: WARM_BATCH }, (_, i) => rt.dispatch('nop', i).done);
      for (const h of holds.splice(0)) h();
      await Promise.all([taken.done, ...batch]);
    }
  }
  // One task stays parked, so that the runtime's one-time costs are not counted.
  const first = rt.dispatch('op_once', 0);
  while (rt.stats().suspended < 1) await turn();
  await settle();
  const before = rss();
  const tasks = Array.from({ length: n }, (_, i) => rt.dispatch(suspended ? 'op_once' : 'nop', i));
  if (suspended) while (rt.stats().suspended < n + 1) await turn();
  await settle();
  perItem = (rss() - before) / n;
  checked = suspended ? rt.stats().suspended - 1 : rt.stats().queued;
  for (const h of holds.splice(0)) h();
  while (holds.length || rt.stats().live) {
    for (const h of holds.splice(0)) h();
    await turn();
  }
  if (!tasks.every((t) => t.state === 'returned') || first.state !== 'returned') throw new Error('tasks did not finish');
  await rt.close();
}
process.stdout.write(`${JSON.stringify({ what, n, perItem, checked })}\n`);
