#!/usr/bin/env node
// Runs the benchmark suite on every host, one after another (never two at a
// time: they would measure each other), then makes the report:
//
//   node bench/all.mjs [--quick] [--only GROUP[,GROUP...]]
//
// Node (bench/run.mjs), Chromium and Firefox (bench/browser.mjs), Deno and
// Bun (bench/engine.mjs); each writes bench/results/HOST.json.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { benchArgs } from './args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const values = benchArgs('node bench/all.mjs', 'Runs the benchmark suite under Node, in Chromium and Firefox, and under Deno and Bun,\none host after another, then node bench/report.mjs (with a whole run).');
if (values.out !== undefined) {
  process.stderr.write('bench: all.mjs writes each host\'s own file in bench/results/; --out is for one host\n');
  process.exit(2);
}
const bin = (/** @type {string} */ name) => path.join(root, 'node_modules/.bin', name);
const pass = [...(values.quick ? ['--quick'] : []), ...(values.only.length ? ['--only', values.only.join(',')] : [])];
const hosts = [
  ['Node', process.execPath, ['--expose-gc', 'bench/run.mjs']],
  ['Chromium', process.execPath, ['bench/browser.mjs', '--browser', 'chromium']],
  ['Firefox', process.execPath, ['bench/browser.mjs', '--browser', 'firefox']],
  ['Deno', bin('deno'), ['run', '-A', '--v8-flags=--expose-gc', 'bench/engine.mjs']],
  ['Bun', bin('bun'), ['bench/engine.mjs']],
];
const failed = [];
for (const [name, command, args] of /** @type {[string, string, string[]][]} */ (hosts)) {
  process.stderr.write(`\nbench: == ${name}\n`);
  const started = Date.now();
  const r = spawnSync(command, [...args, ...pass], { cwd: root, stdio: 'inherit' });
  process.stderr.write(`bench: ${name} took ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  if (r.status !== 0) failed.push(name);
}
if (values.only.length === 0 && failed.length === 0) spawnSync(process.execPath, ['bench/report.mjs'], { cwd: root, stdio: 'inherit' });
if (failed.length) {
  process.stderr.write(`bench: failed on ${failed.join(', ')}\n`);
  process.exit(1);
}
