// bench/pairs.mjs, the same-process pairs of two checkouts: its figures are
// well-formed ratios of work that ran (against this checkout itself here),
// and a bad command line is refused with exit 2 and a reason.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { root } from './helpers.mjs';

/** @param {string[]} args */
const pairs = (args) => spawnSync(process.execPath, [path.join(root, 'bench/pairs.mjs'), ...args], { encoding: 'utf8', timeout: 120_000 });

test('bench pairs: every row prints a ratio inside its middle half, and the JSON says the same', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-pairs-'));
  const out = path.join(dir, 'pairs.json');
  const r = pairs([root, '--chunks', '4', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /OTHER is this checkout/);
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines.map((l) => l.split(/\s+/)[0]), ['switch', 'yield', 'start', 'interleaved', 'interleaved-64', 'interleaved-512', 'interleaved-macrotask', 'one-task', 'one-task-macrotask']);
  const json = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.equal(json.results.length, lines.length);
  for (const [i, line] of lines.entries()) {
    const m = /^[\w-]+ +(\d+\.\d{3})x \(middle half (\d+\.\d{3})\.\.(\d+\.\d{3})\) {2}this (\d+) ns, \S+ (\d+) ns a (\w+)$/.exec(line);
    assert.ok(m, `line ${JSON.stringify(line)}`);
    const [ratio, p25, p75, mine, theirs] = m.slice(1, 6).map(Number);
    assert.ok(ratio > 0 && p25 <= ratio && ratio <= p75, line);
    assert.ok(mine > 0 && theirs > 0, line);
    const row = json.results[i];
    assert.equal(row.ratio.toFixed(3), m[1]);
    assert.equal(row.pairs, 4);
    assert.equal(row.unit, m[6]);
  }
  // 8 tasks each waited on operations the shuffled settler settled: 16,000 a chunk, 14 chunks a side.
  assert.ok(json.results[3].settled >= 16000 * 14, `settled ${json.results[3].settled}`);
  // So did those of the macrotask batches, 8,000 a chunk (each settler counts its own).
  assert.ok(json.results[4].settled >= 8000 * 14, `settled ${json.results[4].settled}`);
  assert.ok(json.results[5].settled >= 8000 * 14, `settled ${json.results[5].settled}`);
  // 20,000 switches a chunk take longer than a turn's 0.5 ms: each runtime gave way to the event loop.
  assert.equal(json.budget, true);
  assert.ok(json.results[0].yields.this > 0 && json.results[0].yields.other > 0, JSON.stringify(json.results[0].yields));
  // Without the budget, neither did.
  const lifted = pairs([root, '--chunks', '4', '--rows', 'switch', '--no-budget', '--out', out]);
  assert.equal(lifted.status, 0, lifted.stderr);
  const unbudgeted = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.equal(unbudgeted.budget, false);
  assert.deepEqual(unbudgeted.results[0].yields, { this: 0, other: 0 });
  fs.rmSync(dir, { recursive: true });
});

test('bench pairs: a bad command line is refused with exit 2 and why', () => {
  const none = pairs([]);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /^pairs: name one other checkout \(got 0 arguments\)/);
  const row = pairs([root, '--rows', 'switch,swich']);
  assert.equal(row.status, 2);
  assert.equal(row.stderr, 'pairs: no row "swich"; the rows are switch, yield, start, interleaved, interleaved-64, interleaved-512, interleaved-macrotask, one-task, one-task-macrotask\n');
  const chunks = pairs([root, '--chunks', '2']);
  assert.equal(chunks.status, 2);
  assert.match(chunks.stderr, /--chunks takes an integer of at least 4, got "2"/);
  const missing = pairs([path.join(root, 'no-such-checkout')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no-such-checkout is not a directory/);
  const notBuilt = pairs([path.join(root, 'docs')]);
  assert.equal(notBuilt.status, 2);
  assert.match(notBuilt.stderr, /docs is not a checkout of snail-core/);
  const help = pairs(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: node --expose-gc bench\/pairs\.mjs OTHER/);
});
