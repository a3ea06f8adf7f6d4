// A bounded run of the fuzzer (tests/fuzz/): seeded mutants of every program
// through Runtime.load, inspect and the command's run and inspect, and random
// misuse of the API. No failure: no error other than a clear SnailError, no
// internal error, stack trace, crash or hang, no garbage accepted, nothing
// held after close(). `node tools/fuzz.mjs` runs it for longer, with a seed
// of its own; a failure prints the command that replays it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { caseOf, loadSeeds } from '../fuzz/cases.mjs';
import { fuzz } from '../fuzz/run.mjs';

const SEED = Number(process.env.SNAIL_FUZZ_SEED ?? 20261201);
const CASES = Number(process.env.SNAIL_FUZZ_CASES ?? 120);

test(`fuzz: ${CASES}_seeded_cases_find_no_failure (seed ${SEED})`, async (t) => {
  const r = await fuzz({ seed: SEED, cases: CASES });
  t.diagnostic(`${r.cases} cases in ${r.seconds.toFixed(1)} s, ${r.valid} valid mutants, ${r.loops} loops of the programs' own; ${JSON.stringify(r.byTarget)}`);
  const report = r.failures.map((f) => `case ${f.index} (${f.target} of ${f.seedName}, ${f.mutations.join('+')}): ${f.problems.join('; ')}; replay: ${f.reproduce}`);
  assert.deepEqual(report, [], 'failures');
  assert.equal(r.cases, CASES);
  // Every target ran, and the mutants reached past the engine's validation.
  for (const target of ['load', 'inspect', 'misuse', 'cli-run', 'cli-inspect']) assert.ok(r.byTarget[target] > 0, `no ${target} case ran`);
  assert.ok(r.valid >= CASES / 10, `only ${r.valid} valid mutants`);
  const loaded = Object.entries(r.outcomes.load).filter(([o]) => o.startsWith('loaded')).reduce((n, [, k]) => n + k, 0);
  assert.ok(loaded > 0, 'some mutants loaded and ran');
});

test('fuzz: a_case_is_a_function_of_the_seed_and_its_number', async () => {
  const seeds = await loadSeeds();
  const a = caseOf(7, 42, seeds);
  const b = caseOf(7, 42, seeds);
  assert.deepEqual([a.target, a.seed.name, a.mutations, a.bytes], [b.target, b.seed.name, b.mutations, b.bytes]);
  const others = [caseOf(8, 42, seeds), caseOf(7, 43, seeds)];
  assert.ok(others.every((c) => c.seed.name !== a.seed.name || c.mutations.join() !== a.mutations.join() || c.bytes.join() !== a.bytes.join()), 'another seed or number is another case');
});
