// The program of the benchmark's realistic rows (bench/programs/kv.c, a
// B+tree and a value log per block device) and its devices
// (bench/realistic.mjs): what the rows rely on to prove that they ran right.
// The benchmark itself is not a test.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Runtime } from '../../host/browser/index.mjs';
import { BLOCK_SIZE, Devices, diskImports, kvArg } from '../../bench/realistic.mjs';
import { programs } from './helpers.mjs';

const PROGRAM = `${programs}/bench/bench_kv.wasm`;
const KV_IO = -1;
const KV_MISMATCH = -3;

/**
 * A runtime of kv.c over `devices`, closed after the test.
 * @param {import('node:test').TestContext} t @param {Devices} devices @param {object} [options]
 */
async function load(t, devices, options = {}) {
  const rt = await Runtime.load(PROGRAM, { imports: { disk: diskImports(devices) }, ...options });
  devices.memory = /** @type {WebAssembly.Memory} */ (rt.instance.exports.memory);
  t.after(() => rt.close());
  return rt;
}

/**
 * Runs one task per device at once; what each returned.
 * @param {Runtime} rt @param {'run_async' | 'run_sync'} entry @param {number} count @param {number} keys @param {number} mixed
 */
async function runAll(rt, entry, count, keys, mixed) {
  const tasks = Array.from({ length: count }, (_, d) => rt.dispatch(entry, kvArg(d, keys, mixed)));
  const values = [];
  for (const t of tasks) values.push(await t.result);
  return values;
}

/** The superblock of a device: its root, depth and first free block. @param {Devices} devices @param {number} device */
function superblock(devices, device) {
  const words = new Uint32Array(devices.blocks[device][0].buffer, 0, 6);
  return { magic: words[0], root: words[1], depth: words[2], nextFree: words[3] };
}

test('bench kv: every_value_reads_back_the_same_through_either_backend', async (t) => {
  const devices = new Devices(8);
  const rt = await load(t, devices, { checkInvariants: true });
  const outcome = /** @type {Record<string, { values: unknown[], reads: number, writes: number, switches: number }>} */ ({});
  for (const entry of /** @type {const} */ (['run_sync', 'run_async'])) {
    devices.reset();
    const values = await runAll(rt, entry, 8, 176, 128);
    outcome[entry] = { values, reads: devices.reads, writes: devices.writes, switches: devices.switches };
  }
  const { run_sync: sync, run_async: async } = outcome;
  assert.ok(sync.values.every((v) => typeof v === 'number' && v >= 0), `checksums, not errors: ${sync.values}`);
  assert.equal(new Set(sync.values).size, 8, 'each device holds its own values');
  assert.deepEqual(async.values, sync.values);
  assert.ok(sync.reads > 0 && sync.writes > 0);
  assert.deepEqual([async.reads, async.writes], [sync.reads, sync.writes]);
  // 176 keys split the first leaf: the tree has two levels.
  assert.equal(superblock(devices, 0).depth, 2);
  // Synchronous I/O never suspends, so each task runs to its end; with
  // suspensions the tasks take turns at (nearly) every block operation.
  assert.equal(sync.switches, 8);
  assert.ok(async.switches > 0.9 * (async.reads + async.writes), `${async.switches} switches in ${async.reads + async.writes} operations`);
});

test('bench kv: a_tree_of_three_levels_splits_its_root', async (t) => {
  const devices = new Devices(1);
  const rt = await load(t, devices);
  // Some 300 leaves of at most 170 keys: more children than a root of 204 entries holds.
  const [value] = await runAll(rt, 'run_sync', 1, 32000, 640);
  assert.ok(typeof value === 'number' && value >= 0, `a checksum, not an error: ${value}`);
  const sb = superblock(devices, 0);
  assert.equal(sb.magic, 0x31564b53);
  assert.equal(sb.depth, 3);
});

test('bench kv: a_device_that_returns_other_bytes_is_detected', async (t) => {
  // Block 2 is the log's first block: the first key's first value is there,
  // its bytes from offset 24 on (after the record's header).
  class Flipping extends Devices {
    /** @param {number} device @param {number} block @param {number} pointer */
    read(device, block, pointer) {
      const status = super.read(device, block, pointer);
      if (block === 2) this.view(pointer)[30] ^= 1;
      return status;
    }
  }
  const devices = new Flipping(1);
  const rt = await load(t, devices);
  for (const entry of /** @type {const} */ (['run_sync', 'run_async'])) {
    devices.reset();
    assert.deepEqual(await runAll(rt, entry, 1, 64, 0), [KV_MISMATCH], entry);
  }
});

test('bench kv: a_refused_block_operation_fails_the_store', async (t) => {
  // Room for the superblock, a leaf and three log blocks: 176 keys need more.
  class Small extends Devices {
    /** @param {number} device @param {number} block @param {number} pointer */
    write(device, block, pointer) {
      return block < 5 ? super.write(device, block, pointer) : -1;
    }
  }
  const devices = new Small(1);
  const rt = await load(t, devices);
  for (const entry of /** @type {const} */ (['run_sync', 'run_async'])) {
    devices.reset();
    assert.deepEqual(await runAll(rt, entry, 1, 176, 0), [KV_IO], entry);
  }
  // A read of a block this round never wrote is refused too.
  devices.reset();
  assert.equal(devices.read(0, 0, 0), -1);
});

test('bench kv: the_devices_copy_through_a_view_made_at_each_access', async (t) => {
  // Fifty stores of some 40 KiB each, allocated while other tasks wait in
  // their block operations: the memory grows during the run, which detaches
  // the buffer of any view made before.
  const devices = new Devices(50);
  const rt = await load(t, devices);
  const before = devices.memory?.buffer.byteLength ?? 0;
  const values = await runAll(rt, 'run_async', 50, 64, 64);
  assert.ok((devices.memory?.buffer.byteLength ?? 0) > before, 'the memory grew');
  assert.ok(values.every((v) => typeof v === 'number' && v >= 0), `checksums, not errors: ${values}`);
  assert.equal(devices.view(0).length, BLOCK_SIZE);
});
