#!/usr/bin/env node
// The fuzzer, for as long as one likes (npm test runs a bounded run of it in
// tests/node/fuzz.test.mjs): seeded mutants of every program under
// build/programs and tests/ through `inspect`, `run` and Runtime.load, and
// random misuse of the API (tests/fuzz/).
//
//   node tools/fuzz.mjs [--seed N] [--cases N | --seconds S]
//   node tools/fuzz.mjs --seed N --case K      runs case K of seed N again
//
// Without --seed a seed is drawn and printed. Each failure is printed with the
// command that replays it, and its mutant is written to the temporary
// directory. Exits 1 if anything failed, 0 otherwise.
import os from 'node:os';
import { parseArgs } from 'node:util';

import { fuzz } from '../tests/fuzz/run.mjs';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    cases: { type: 'string' },
    seconds: { type: 'string' },
    case: { type: 'string' },
  },
});
/** @param {string | undefined} text @param {string} option */
const count = (text, option) => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`fuzz: ${option} takes a whole number, got "${text}"\n`);
    process.exit(2);
  }
  return n;
};
const seed = count(values.seed, '--seed') ?? (Math.random() * 2 ** 32) >>> 0;
const only = count(values.case, '--case');
const seconds = count(values.seconds, '--seconds');
const cases = count(values.cases, '--cases') ?? (seconds === undefined ? 1000 : undefined);
if (only !== undefined && values.seed === undefined) {
  process.stderr.write('fuzz: --case replays a case of a seed: give --seed too\n');
  process.exit(2);
}

process.stdout.write(`fuzz: seed ${seed}${only !== undefined ? `, case ${only}` : seconds !== undefined ? `, ${seconds} s` : `, ${cases} cases`}\n`);
const r = await fuzz({
  seed, cases, seconds, only, save: os.tmpdir(),
  log: (line) => process.stdout.write(`fuzz: ${line}\n`),
});
process.stdout.write(`fuzz: ${r.cases} cases in ${r.seconds.toFixed(1)} s from ${r.seeds} seeds (${r.valid} mutants were valid WebAssembly, ${r.loops} time-outs were the programs' own loops)\n`);
for (const [target, n] of Object.entries(r.byTarget).sort()) {
  const outcomes = Object.entries(r.outcomes[target] ?? {}).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([o, k]) => `${o} ${k}`).join(', ');
  process.stdout.write(`  ${target.padEnd(12)} ${String(n).padStart(6)}  ${outcomes}\n`);
}
for (const f of r.failures) {
  process.stdout.write(`FAIL case ${f.index}: ${f.target} of ${f.seedName} (${f.mutations.join(' + ') || 'no mutation'})\n`);
  for (const p of f.problems) process.stdout.write(`  ${p}\n`);
  process.stdout.write(`  replay: ${f.reproduce}${f.saved ? `; the mutant: ${f.saved}` : ''}\n`);
}
process.stdout.write(r.failures.length ? `fuzz: ${r.failures.length} failures (seed ${seed})\n` : `fuzz: no failures (seed ${seed})\n`);
process.exitCode = r.failures.length ? 1 : 0;
