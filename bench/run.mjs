#!/usr/bin/env node
// Runs the benchmark suite under Node and writes bench/results/node.json.
//
//   node --expose-gc bench/run.mjs [--quick] [--only GROUP[,GROUP...]] [--out FILE]
//
// --only runs some groups (control, switch, anatomy, start, fanout, asyncify,
// memory, scale, fairness, collection, cancellation, workers), for working on one figure; the
// report wants a whole run.
//
// `npm run bench` builds first and runs this, then the same suite in Chromium.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

// The suite imports the environment-neutral entry, as it runs in Chromium
// too; under Node it gets the Node platform, as 'snail-core' gives it.
import '../host/node/root.mjs';
import { benchArgs } from './args.mjs';
import { runSuite } from './suite.mjs';
import { formatTable, machine } from './table.mjs';
import { workersBench } from './workers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const values = benchArgs('node --expose-gc bench/run.mjs', 'Runs the benchmark suite under Node and writes bench/results/node.json\n(node-partial.json with --only); node bench/report.mjs makes the report.');

// A partial run does not replace the whole run's results, which the report reads.
const out = values.out ?? path.join(root, 'bench/results', values.only.length ? 'node-partial.json' : 'node.json');
const gc = /** @type {any} */ (globalThis).gc;
if (typeof gc !== 'function') {
  process.stderr.write('bench: run with --expose-gc (npm run bench does) so that the cancellation rounds start from a collected heap\n');
}

const program = (/** @type {string} */ name) => path.join(root, 'build/programs/bench', `${name}.wasm`);
const started = Date.now();
const { results } = await runSuite({
  env: 'node',
  quick: values.quick,
  only: values.only,
  program,
  bytes: async (name) => new Uint8Array(fs.readFileSync(program(name))),
  gc: typeof gc === 'function' ? () => gc() : undefined,
  minorGc: typeof gc === 'function' ? () => gc({ type: 'minor' }) : undefined,
  memory: async (what, n) => {
    const r = spawnSync(process.execPath, ['--expose-gc', path.join(root, 'bench/memory.mjs'), what, String(n)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench/memory.mjs ${what} failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  },
  loopDelay: () => {
    const h = monitorEventLoopDelay({ resolution: 1 });
    // The young-generation collections meanwhile, which decide the p99.
    let young = 0;
    let longest = 0;
    /** @param {PerformanceEntry[]} entries */
    const count = (entries) => {
      for (const e of entries) {
        if (/** @type {any} */ (e).detail?.kind !== perfConstants.NODE_PERFORMANCE_GC_MINOR) continue;
        young++;
        longest = Math.max(longest, e.duration);
      }
    };
    const observer = new PerformanceObserver((list) => count(list.getEntries()));
    return {
      start: () => {
        observer.observe({ entryTypes: ['gc'] });
        h.enable();
      },
      stop: () => {
        h.disable();
        count(observer.takeRecords());
        observer.disconnect();
        return { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6, samples: h.count, youngCollections: { count: young, longestMs: longest } };
      },
    };
  },
  log: (line) => process.stderr.write(`bench: ${line}\n`),
  workers: workersBench,
});

const report = { env: `Node ${process.versions.node} (V8 ${process.versions.v8})`, machine: machine(), date: new Date(started).toISOString(), quick: values.quick, results };
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`${formatTable(report)}\n`);
process.stdout.write(`\nwritten to ${path.relative(process.cwd(), out)}\n`);
