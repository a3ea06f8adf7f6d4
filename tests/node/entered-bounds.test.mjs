// The bounds on tasks that have entered Wasm, as Runtime.load takes them
// under Node: each option checked by its own name, and an explicit bound
// above what vm.max_map_count allows refused before V8 could abort the
// process (at about half the map count of suspended JSPI stacks).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { Runtime, SnailError } from '../../host/node/root.mjs';
import { program, programs, root } from './helpers.mjs';

const linux = process.platform === 'linux';
const maps = linux ? Number(fs.readFileSync('/proc/sys/vm/max_map_count', 'utf8')) : 0;
const ceiling = Math.floor(maps / 3);
const onlyLinux = { skip: !linux && 'vm.max_map_count is Linux' };

/** @param {import('../../host/node/root.mjs').RuntimeOptions} options */
async function limitsWith(options) {
  const rt = await Runtime.load(program('hello'), { stdout: () => {}, ...options });
  await rt.close();
  return rt.limits;
}

test('bounds: the_defaults_come_from_vm_max_map_count', onlyLinux, async () => {
  const hard = Math.floor(maps / 4);
  const { maxEntered, hardMaxEntered } = await limitsWith({});
  assert.deepEqual({ maxEntered, hardMaxEntered }, { maxEntered: Math.min(10000, hard), hardMaxEntered: hard });
});

test('bounds: an_explicit_bound_above_a_third_of_vm_max_map_count_is_refused_with_how_to_raise_it', onlyLinux, async () => {
  for (const key of ['maxEntered', 'hardMaxEntered']) {
    await assert.rejects(Runtime.load(program('hello'), { [key]: ceiling + 1 }), (e) => {
      assert.ok(e instanceof SnailError);
      assert.equal(e.code, 'ERR_OPTION');
      assert.equal(e.message, `option ${key} (${ceiling + 1}) is above ${ceiling}, the most this platform allows: `
        + 'every task that has entered Wasm holds a JSPI stack of two memory mappings, and V8 aborts the process when its mappings '
        + `reach vm.max_map_count (${maps}, read from /proc/sys/vm/max_map_count); a bound may be at most a third of it. `
        + 'Raise vm.max_map_count to allow more (as root: sysctl -w vm.max_map_count=262144), or keep the bound lower');
      return true;
    });
  }
  // The case that aborted V8 with the kernel's default map count.
  if (maps === 65530) await assert.rejects(Runtime.load(program('hello'), { maxEntered: 34000 }), /maxEntered \(34000\) is above 21843/);
});

test('bounds: a_bound_at_the_ceiling_is_taken_and_a_soft_bound_above_the_default_hard_one_raises_it', onlyLinux, async () => {
  const { maxEntered, hardMaxEntered } = await limitsWith({ maxEntered: ceiling });
  assert.deepEqual({ maxEntered, hardMaxEntered }, { maxEntered: ceiling, hardMaxEntered: ceiling });
  const both = await limitsWith({ maxEntered: 10, hardMaxEntered: ceiling });
  assert.deepEqual([both.maxEntered, both.hardMaxEntered], [10, ceiling]);
});

test('options: each_entered_bound_is_checked_under_its_own_name', async () => {
  for (const key of ['maxEntered', 'hardMaxEntered']) {
    for (const [value, shown] of [['x', '"x"'], [0, 'number 0'], [-3, 'number -3'], [2.5, 'number 2.5'], [NaN, 'number NaN'], [null, 'null'], [[8], 'an array']]) {
      await assert.rejects(Runtime.load(program('hello'), { [key]: value }), (e) => e instanceof SnailError && e.code === 'ERR_OPTION'
        && e.message === `option ${key} must be a positive integer, got ${shown}`, `${key}: ${String(value)}`);
    }
  }
  // The soft bound may not exceed an explicit hard one.
  await assert.rejects(Runtime.load(program('hello'), { maxEntered: 50, hardMaxEntered: 9 }), /maxEntered \(50\) is above hardMaxEntered \(9\)/);
});

test('bounds: as_many_tasks_as_the_ceiling_suspended_at_once_do_not_abort_the_process', onlyLinux, () => {
  // In a child process: were the ceiling too high, V8's abort would end only it.
  const bench = path.join(programs, 'bench/bench.wasm');
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
import { Runtime, suspend } from ${JSON.stringify(pathToFileURL(path.join(root, 'host/node/root.mjs')).href)};
const n = ${ceiling};
const holds = [];
const rt = await Runtime.load(${JSON.stringify(bench)}, {
  stdout: () => {}, stackSize: 1024, maxEntered: n, hardMaxEntered: n,
  imports: { bench: { op: suspend(() => new Promise((resolve) => holds.push(resolve))) } },
});
const tasks = Array.from({ length: n }, (_, i) => rt.dispatch('op_once', i));
while (rt.stats().suspended < n) await new Promise((resolve) => setImmediate(resolve));
const peak = rt.stats().suspended;
for (const release of holds) release(0);
await rt.drain();
await rt.close();
console.log(JSON.stringify({ peak, returned: tasks.filter((t) => t.state === 'returned').length }));
`], { encoding: 'utf8', timeout: 240_000 });
  assert.equal(r.error, undefined);
  assert.equal(r.status, 0, r.stderr.slice(0, 2000));
  assert.deepEqual(JSON.parse(r.stdout), { peak: ceiling, returned: ceiling });
});
