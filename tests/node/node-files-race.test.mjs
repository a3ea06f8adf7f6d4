// The file grant against a concurrent attacker (docs/node.md, "Another
// process changing the granted directories"): a second process swaps a
// granted subdirectory and a granted file for links to an outside directory
// in a loop while this one writes and reads through them. Nothing outside is
// ever created, renamed, removed, replaced or read. A longer run:
// `node tools/race-files.mjs --operations 200000`.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { descriptorWalks, GrantedFiles } from '../../host/node/files.mjs';
import { raceGrant } from './files-race.mjs';

const OPERATIONS = Number(process.env.SNAIL_RACE_OPERATIONS ?? 4000);

test(`node files race: a_swapping_attacker_gets_nothing_created_renamed_removed_or_read_outside_the_grant (${OPERATIONS} writes and reads)`, {
  skip: descriptorWalks ? false : 'no /proc/self/fd: walks go by names, which does not hold against another process (the next test shows it)',
}, async (t) => {
  const r = await raceGrant({ operations: OPERATIONS });
  t.diagnostic(`${r.rounds} attacker rounds; ${JSON.stringify(r.outcomes)}`);
  assert.deepEqual(r.outsideEvents, [], 'no entry was made or removed outside, even for a moment');
  assert.equal(r.outsideChanged, null, 'the outside directory is as it was');
  assert.deepEqual(r.wrongReads, [], 'no read returned what is outside');
  assert.deepEqual(r.unexpected, [], 'every failure was a status');
  assert.deepEqual(r.leftovers, [], 'no temporary file was left inside either');
  assert.deepEqual(r.armed, { descriptors: 0, tempFiles: 0 });
  // The attacker raced: the walk met its links (denied) and its renames
  // (not_found), and between them writes and reads went through.
  assert.ok(r.rounds > 100, `the attacker made ${r.rounds} rounds`);
  const count = (/** @type {RegExp} */ re) => Object.entries(r.outcomes).filter(([k]) => re.test(k)).reduce((n, [, v]) => n + v, 0);
  assert.ok(count(/^write data\/sub\/f\.txt denied$/) > 10, 'writes through the swapped directory met the link');
  assert.ok(count(/^read data\/sub\/f\.txt denied$/) > 10, 'reads through the swapped directory met the link');
  assert.ok(count(/^write .* ok$/) > 10 && count(/^read .* ok$/) > 10, 'writes and reads went through between the swaps');
});

// Where /proc/self/fd is missing (macOS, the BSDs), walks go by names: the
// program alone cannot escape (no service makes links), but another process
// can redirect a walk between its checks and its use. This is the control
// that shows the attacker above is effective: the same race with walks by
// names gets temporary files created outside.
test('node files race: walks_by_names_do_not_hold_against_the_attacker_as_documented', async (t) => {
  const r = await raceGrant({
    operations: OPERATIONS,
    files: (grant) => new GrantedFiles([{ path: grant, as: 'data' }], { descriptorWalks: false }),
  });
  t.diagnostic(`${r.rounds} attacker rounds; ${r.outsideEvents.length} entries made or removed outside`);
  assert.ok(r.outsideEvents.length > 0, 'the attacker got the by-name walk to create files outside');
  assert.deepEqual(r.unexpected, []);
  assert.deepEqual(r.armed, { descriptors: 0, tempFiles: 0 });
});
