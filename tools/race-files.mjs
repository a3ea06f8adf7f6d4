#!/usr/bin/env node
// A long run of the file-grant race of tests/node/node-files-race.test.mjs:
// another process swaps granted directories and files for links to an
// outside directory while this one writes and reads through them.
//
//   node tools/race-files.mjs [--operations N] [--concurrency N]
//
// Exits 1 (and says what) if anything outside was made, removed, changed or
// read, or a temporary file was left behind; 0 otherwise.
import { parseArgs } from 'node:util';

import { descriptorWalks } from '../host/node/files.mjs';
import { raceGrant } from '../tests/node/files-race.mjs';

const { values } = parseArgs({
  options: { operations: { type: 'string', default: '200000' }, concurrency: { type: 'string', default: '8' } },
});
const operations = Number(values.operations);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(operations) || operations <= 0 || !Number.isInteger(concurrency) || concurrency <= 0) {
  process.stderr.write('race-files: --operations and --concurrency take positive integers\n');
  process.exit(2);
}
if (!descriptorWalks) process.stderr.write('race-files: no /proc/self/fd here: walks go by names, which does not hold against another process (docs/node.md)\n');
const started = Date.now();
const r = await raceGrant({ operations, concurrency });
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(`race-files: ${operations} writes and reads against ${r.rounds} attacker rounds in ${seconds} s\n`);
for (const [k, v] of Object.entries(r.outcomes).sort()) process.stdout.write(`  ${k.padEnd(32)} ${v}\n`);
const problems = [
  ...r.outsideEvents.map((e) => `outside: ${e}`),
  ...(r.outsideChanged ? ['the outside directory changed'] : []),
  ...r.wrongReads.map((w) => `read outside content: ${w}`),
  ...r.leftovers.map((l) => `left behind: ${l}`),
  ...r.unexpected.map((e) => `not a status: ${e instanceof Error ? e.stack : String(e)}`),
  ...(r.armed.descriptors || r.armed.tempFiles ? [`still armed: ${JSON.stringify(r.armed)}`] : []),
];
for (const p of problems.slice(0, 50)) process.stdout.write(`FAIL ${p}\n`);
if (problems.length) {
  process.stdout.write(`race-files: ${problems.length} problems\n`);
  process.exit(1);
}
process.stdout.write('race-files: nothing outside the grant was touched\n');
