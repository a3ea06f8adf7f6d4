#!/usr/bin/env node
// Runs the benchmark suite under Deno or Bun, whichever runs this file, and
// writes bench/results/deno.json or bun.json:
//
//   deno run -A --v8-flags=--expose-gc bench/engine.mjs [--quick] [--only GROUP[,GROUP...]] [--out FILE]
//   bun bench/engine.mjs [--quick] [--only GROUP[,GROUP...]] [--out FILE]
//
// The same workloads as under Node (bench/run.mjs), each engine against its
// own raw JSPI. Memory is measured in fresh processes of the same engine.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

// The suite imports the environment-neutral entry; the Node platform (which
// Deno and Bun get as the package root's node condition) reads the programs.
import '../host/node/root.mjs';
import { benchArgs } from './args.mjs';
import { runSuite } from './suite.mjs';
import { formatTable, machine } from './table.mjs';

const g = /** @type {any} */ (globalThis);
const engine = g.Deno ? 'deno' : g.Bun ? 'bun' : null;
if (engine === null) {
  process.stderr.write('bench: run this under Deno or Bun; under Node run bench/run.mjs\n');
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const usage = engine === 'deno' ? 'deno run -A --v8-flags=--expose-gc bench/engine.mjs' : 'bun bench/engine.mjs';
const values = benchArgs(usage, `Runs the benchmark suite under ${engine === 'deno' ? 'Deno' : 'Bun'} and writes bench/results/${engine}.json\n(${engine}-partial.json with --only); node bench/report.mjs makes the report.`);
const out = values.out ?? path.join(root, 'bench/results', values.only.length ? `${engine}-partial.json` : `${engine}.json`);

/** Forces a full collection: V8's gc() under Deno (with --expose-gc), Bun.gc under Bun. */
const gc = typeof g.gc === 'function' ? () => g.gc() : engine === 'bun' ? () => g.Bun.gc(true) : undefined;
if (gc === undefined) process.stderr.write('bench: run Deno with --v8-flags=--expose-gc so that rounds start from a collected heap\n');
const minorGc = engine === 'deno' && typeof g.gc === 'function' ? () => g.gc({ type: 'minor' }) : undefined;
/** This engine, as the memory probes' fresh processes run it. */
const self = engine === 'deno' ? [process.execPath, 'run', '-A', '--v8-flags=--expose-gc'] : [process.execPath];

const program = (/** @type {string} */ name) => path.join(root, 'build/programs/bench', `${name}.wasm`);
const started = Date.now();
const { results } = await runSuite({
  env: engine,
  quick: values.quick,
  only: values.only,
  program,
  bytes: async (name) => new Uint8Array(fs.readFileSync(program(name))),
  gc,
  minorGc,
  memory: async (what, n) => {
    const r = spawnSync(self[0], [...self.slice(1), path.join(root, 'bench/memory.mjs'), what, String(n)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench/memory.mjs ${what} failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  },
  loopDelay: () => {
    const h = monitorEventLoopDelay({ resolution: 1 });
    return {
      start: () => h.enable(),
      stop: () => {
        h.disable();
        return { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6, samples: h.count };
      },
    };
  },
  log: (line) => process.stderr.write(`bench: ${line}\n`),
});

const env = engine === 'deno'
  ? `Deno ${g.Deno.version.deno} (V8 ${g.Deno.version.v8})`
  : `Bun ${g.Bun.version} (JavaScriptCore)`;
const report = { env, machine: machine(), date: new Date(started).toISOString(), quick: values.quick, results };
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`${formatTable(report)}\n`);
process.stdout.write(`\nwritten to ${path.relative(process.cwd(), out)}\n`);
