// The benchmark commands' own command line (bench/args.mjs): --help, and a
// clear refusal of an unknown option or group instead of a stack trace or a
// run of nothing. The benchmarks themselves are not tests.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { GROUPS } from '../../bench/args.mjs';
import { root } from './helpers.mjs';

/** @param {string} script @param {string[]} args */
const run = (script, args) => spawnSync(process.execPath, [path.join(root, 'bench', script), ...args], { encoding: 'utf8', timeout: 30_000 });

test('bench args: help_prints_the_usage_and_every_group', () => {
  for (const script of ['run.mjs', 'browser.mjs']) {
    const r = run(script, ['--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^usage: node .*bench\/(run|browser)\.mjs \[--quick\] \[--only GROUP\[,GROUP\.\.\.\]\] \[--out FILE\]/);
    for (const g of GROUPS) assert.ok(r.stdout.includes(g), `${script} --help names ${g}`);
  }
});

test('bench args: an_unknown_group_or_option_is_refused_with_exit_2', () => {
  const group = run('run.mjs', ['--only', 'switch,swtich']);
  assert.equal(group.status, 2);
  assert.equal(group.stderr, `bench: no group "swtich"; the groups are ${GROUPS.join(', ')}\n`);
  const option = run('browser.mjs', ['--rounds', '3']);
  assert.equal(option.status, 2);
  assert.match(option.stderr, /^bench: Unknown option '--rounds'/);
});

test('bench args: the_groups_are_those_the_suite_runs', () => {
  const suite = fs.readFileSync(path.join(root, 'bench/suite.mjs'), 'utf8');
  const used = [...new Set([...suite.matchAll(/want\('([a-z]+)'\)/g)].map((m) => m[1]))];
  assert.deepEqual([...used].sort(), [...GROUPS].sort());
});
