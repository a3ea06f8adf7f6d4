// The realistic group of the benchmark suite: a program with a real I/O
// pattern, bench/programs/kv.c (a B+tree index and a value log per block
// device), run by 50 tasks, each on its own device, once with block I/O
// through a suspending import whose promise is already resolved and once
// through a plain import doing the same copy. Both backends share the
// devices below, so that they differ only in how the program reaches them.
// The same store built without snail-core (kv_raw.c), run as 50 concurrent
// raw JSPI calls, is the engine's floor beside it.
import { Runtime, suspend } from '../host/browser/index.mjs';
import { internals } from '../host/browser/debug.mjs';
import { spread } from './samples.mjs';

/** The bytes of a block, as kv.c has them. */
export const BLOCK_SIZE = 4096;
/** Tasks of a round, each on a device of its own. */
export const TASKS = 50;
/** Blocks a device holds; a store of the benchmark's size uses some 60. */
const DEVICE_BLOCKS = 4096;
/** What a block operation returns: done, or refused (a bad device or block, a block never written). */
const DONE = 0;
const REFUSED = -1;

/**
 * Block devices in JavaScript memory: each block a buffer of its own, kept
 * from round to round; a block counts as written only in the round that
 * wrote it, so that a read of a block the round never wrote is refused.
 */
export class Devices {
  /** @param {number} count */
  constructor(count) {
    /** @type {Uint8Array[][]} */
    this.blocks = Array.from({ length: count }, () => []);
    /** The round that last wrote each block. @type {Uint32Array[]} */
    this.written = Array.from({ length: count }, () => new Uint32Array(DEVICE_BLOCKS));
    this.round = 1;
    this.reads = 0;
    this.writes = 0;
    /** Block operations whose device differs from the previous operation's. */
    this.switches = 0;
    this.last = -1;
    /** The program's memory, once it is loaded. @type {WebAssembly.Memory | null} */
    this.memory = null;
  }

  /** A new round: every block unwritten, every counter zero. */
  reset() {
    this.round++;
    this.reads = 0;
    this.writes = 0;
    this.switches = 0;
    this.last = -1;
  }

  /**
   * The `size` bytes at `pointer` in the program's memory, in a view made
   * now: growing the memory detaches the buffer an older view was made on.
   * A pointer out of bounds throws a RangeError.
   * @param {number} pointer
   */
  view(pointer) {
    if (!this.memory) throw new Error('the devices have no memory yet');
    return new Uint8Array(this.memory.buffer, pointer >>> 0, BLOCK_SIZE);
  }

  /** @param {number} device @param {number} block */
  valid(device, block) {
    if (!(device >= 0 && device < this.blocks.length && block >= 0 && block < DEVICE_BLOCKS)) return false;
    if (device !== this.last) {
      this.switches++;
      this.last = device;
    }
    return true;
  }

  /** Copies block `block` of `device` to `pointer`. @param {number} device @param {number} block @param {number} pointer */
  read(device, block, pointer) {
    if (!this.valid(device, block) || this.written[device][block] !== this.round) return REFUSED;
    this.view(pointer).set(this.blocks[device][block]);
    this.reads++;
    return DONE;
  }

  /** Copies the block at `pointer` to block `block` of `device`. @param {number} device @param {number} block @param {number} pointer */
  write(device, block, pointer) {
    if (!this.valid(device, block)) return REFUSED;
    const stored = (this.blocks[device][block] ??= new Uint8Array(BLOCK_SIZE));
    stored.set(this.view(pointer));
    this.written[device][block] = this.round;
    this.writes++;
    return DONE;
  }
}

/**
 * The imports of kv.c over `devices`: disk.read and disk.write suspend the
 * calling task at every call on an already resolved promise (the copy is
 * made when the call is), disk.read_sync and disk.write_sync are plain
 * imports that make the same copy.
 * @param {Devices} devices
 */
export function diskImports(devices) {
  const done = Promise.resolve(DONE);
  const refused = Promise.resolve(REFUSED);
  return {
    read: suspend((_signal, device, block, pointer) => (devices.read(device, block, pointer) === DONE ? done : refused)),
    write: suspend((_signal, device, block, pointer) => (devices.write(device, block, pointer) === DONE ? done : refused)),
    read_sync: (/** @type {number} */ device, /** @type {number} */ block, /** @type {number} */ pointer) => devices.read(device, block, pointer),
    write_sync: (/** @type {number} */ device, /** @type {number} */ block, /** @type {number} */ pointer) => devices.write(device, block, pointer),
  };
}

/**
 * The imports of kv_raw.c over `devices`: the same operations, disk.read and
 * disk.write made suspending by the engine alone.
 * @param {Devices} devices
 */
export function rawDiskImports(devices) {
  const done = Promise.resolve(DONE);
  const refused = Promise.resolve(REFUSED);
  /** @type {(device: number, block: number, pointer: number) => number} */
  const read = (device, block, pointer) => devices.read(device, block, pointer);
  /** @type {(device: number, block: number, pointer: number) => number} */
  const write = (device, block, pointer) => devices.write(device, block, pointer);
  return {
    read: new WebAssembly.Suspending((/** @type {number} */ device, /** @type {number} */ block, /** @type {number} */ pointer) => (read(device, block, pointer) === DONE ? done : refused)),
    write: new WebAssembly.Suspending((/** @type {number} */ device, /** @type {number} */ block, /** @type {number} */ pointer) => (write(device, block, pointer) === DONE ? done : refused)),
    read_sync: read,
    write_sync: write,
  };
}

/**
 * The argument of kv.c's entries: device, keys and mixed operations.
 * @param {number} device @param {number} keys  a multiple of 16 @param {number} mixed  a multiple of 64
 */
export function kvArg(device, keys, mixed) {
  return device | ((keys / 16) << 8) | ((mixed / 64) << 20);
}

/**
 * The realistic rows.
 * @param {object} options
 * @param {import('./suite.mjs').BenchHost} options.host
 * @param {number} options.rounds
 * @param {(pairs: Record<string, (n: number) => Promise<number>>, n: number, rounds: number) => Promise<Record<string, import('./samples.mjs').Spread>>} options.interleaved
 *   the suite's interleaved rounds (two warm-up rounds, then alternating order)
 * @param {<T>(inside: ReturnType<typeof internals>, fn: () => Promise<T>) => Promise<T>} options.withBudgetLifted
 *   runs a round with the runtime's turn budget lifted (the suite's)
 * @returns {Promise<import('./suite.mjs').Result[]>}
 */
export async function realisticRows({ host, rounds, interleaved, withBudgetLifted }) {
  const keys = host.quick ? 256 : 512;
  const mixed = host.quick ? 256 : 512;
  const devices = new Devices(TASKS);
  const rt = await Runtime.load(host.program('bench_kv'), { stdout: () => {}, imports: { disk: diskImports(devices) } });
  const inside = internals(rt);
  devices.memory = /** @type {WebAssembly.Memory} */ (rt.instance.exports.memory);
  const rawDevices = new Devices(TASKS);
  const raw = new WebAssembly.Instance(await WebAssembly.compile(/** @type {BufferSource} */ (await host.bytes('bench_kv_raw'))), { disk: rawDiskImports(rawDevices) });
  /** @type {any} */ const rawExports = raw.exports;
  rawExports._initialize();
  rawDevices.memory = rawExports.memory;
  /** @type {(arg: number) => Promise<number>} */
  const rawAsync = WebAssembly.promising(rawExports.run_async);
  /** @type {(arg: number) => number} */
  const rawSync = rawExports.run_sync;

  /** What every round must reproduce: each device's checksum and the block operations. @type {{ checksums: number[], reads: number, writes: number } | null} */
  let reference = null;
  /** What the last round of each mode counted. @type {Record<string, { switches: number, lends: number, steps: number, releases: number, yields: number, parks: number }>} */
  const seen = {};
  /**
   * Checks a round's results against the reference (or makes them the
   * reference).
   * @param {number[]} values @param {Devices} on @param {string} mode
   */
  const check = (values, on, mode) => {
    const bad = values.findIndex((v) => !(v >= 0));
    if (bad >= 0) throw new Error(`realistic: the store of device ${bad} failed (${mode}): ${values[bad]}`);
    reference ??= { checksums: values, reads: on.reads, writes: on.writes };
    const differs = values.findIndex((v, d) => v !== reference?.checksums[d]);
    if (differs >= 0) throw new Error(`realistic: device ${differs} read back other values (${mode}): checksum ${values[differs]}, ${reference.checksums[differs]} before`);
    if (on.reads !== reference.reads || on.writes !== reference.writes) {
      throw new Error(`realistic: ${on.reads} reads and ${on.writes} writes (${mode}), ${reference.reads} and ${reference.writes} before`);
    }
  };
  /**
   * One round: every task on a fresh device, all dispatched at once or one
   * after the other; checks what they returned and what the devices did.
   * @param {'run_async' | 'run_sync'} entry @param {boolean} together @param {string} mode
   */
  const round = async (entry, together, mode) => {
    devices.reset();
    const before = rt.stats();
    const t0 = performance.now();
    /** @type {number[]} */
    const values = [];
    if (together) {
      const tasks = Array.from({ length: TASKS }, (_, d) => rt.dispatch(entry, kvArg(d, keys, mixed)));
      for (const t of tasks) values.push(/** @type {number} */ (await t.result));
    } else {
      for (let d = 0; d < TASKS; d++) values.push(/** @type {number} */ (await rt.dispatch(entry, kvArg(d, keys, mixed)).result));
    }
    const ms = performance.now() - t0;
    const after = rt.stats();
    check(values, devices, mode);
    seen[mode] = { switches: devices.switches, lends: after.lends - before.lends, steps: after.steps - before.steps, releases: after.releases - before.releases, yields: after.yields - before.yields, parks: after.parks - before.parks };
    return ms;
  };
  /**
   * One round of the raw build: 50 concurrent promising calls, 50 promising
   * calls one after the other, or 50 plain calls.
   * @param {'rawAsync' | 'rawAsync1' | 'rawSync'} mode
   */
  const rawRound = async (mode) => {
    rawDevices.reset();
    const t0 = performance.now();
    /** @type {number[]} */
    let values = [];
    if (mode === 'rawAsync') values = await Promise.all(Array.from({ length: TASKS }, (_, d) => rawAsync(kvArg(d, keys, mixed))));
    else if (mode === 'rawAsync1') for (let d = 0; d < TASKS; d++) values.push(await rawAsync(kvArg(d, keys, mixed)));
    else values = Array.from({ length: TASKS }, (_, d) => rawSync(kvArg(d, keys, mixed)));
    const ms = performance.now() - t0;
    check(values, rawDevices, mode);
    seen[mode] = { switches: rawDevices.switches, lends: 0, steps: 0, releases: 0, yields: 0, parks: 0 };
    return ms;
  };

  // A first round sets the reference and the count of block operations.
  await round('run_sync', true, 'sync');
  const ref = /** @type {{ checksums: number[], reads: number, writes: number }} */ (/** @type {unknown} */ (reference));
  const ops = ref.reads + ref.writes;
  const s = await interleaved({
    async: () => round('run_async', true, 'async'),
    // The same, with ready resumptions left in the ready queue for their
    // grants (the release off): what releasing them saves.
    held: async () => {
      inside.allowReleases(false);
      try {
        return await round('run_async', true, 'held');
      } finally {
        inside.allowReleases(true);
      }
    },
    // The same with the turn budget lifted: what the event-loop turns the
    // scheduler yields for fairness add, which raw JSPI never yields.
    unbounded: () => withBudgetLifted(inside, () => round('run_async', true, 'unbounded')),
    sync: () => round('run_sync', true, 'sync'),
    async1: () => round('run_async', false, 'async1'),
    sync1: () => round('run_sync', false, 'sync1'),
    rawAsync: () => rawRound('rawAsync'),
    rawAsync1: () => rawRound('rawAsync1'),
    rawSync: () => rawRound('rawSync'),
  }, ops, rounds);
  const stats = rt.stats();
  await rt.close();
  const ran = ref.reads > 0 && ref.writes > 0 && stats.returned === TASKS * (6 * (rounds + 2) + 1) && stats.failed === 0
    && seen.async.switches > 0 && seen.async.steps > 0 && seen.rawAsync.switches > 0 && seen.held.releases === 0
    && seen.async.yields > 0 && seen.unbounded.yields === 0;
  if (!ran) throw new Error('benchmark subject did not run: the realistic rounds');

  /** @param {any} x @returns {number[]} */
  const per = (x) => x.rounds;
  const ms = (/** @type {number} */ ns) => (ns * ops) / 1e6;
  const perSecond = (/** @type {number} */ ns) => Math.round(1e9 / ns).toLocaleString('en');
  /** The extra time of a block operation in (a), round by round. */
  const extra = per(s.async).map((a, i) => a - per(s.sync)[i]);
  const extra1 = per(s.async1).map((a, i) => a - per(s.sync1)[i]);
  const extraRaw = per(s.rawAsync).map((a, i) => a - per(s.rawSync)[i]);
  const extraRaw1 = per(s.rawAsync1).map((a, i) => a - per(s.rawSync)[i]);
  const ratioRaw1 = spread(per(s.rawAsync1).map((a, i) => a / per(s.rawSync)[i]));
  const range = (/** @type {number[]} */ xs) => { const x = spread(xs); return `${x.median.toFixed(0)} ns (${x.min.toFixed(0)}..${x.max.toFixed(0)})`; };
  const whole = (/** @type {import('./samples.mjs').Spread} */ x) => `${ms(x.median).toFixed(1)} ms (${ms(x.min).toFixed(1)}..${ms(x.max).toFixed(1)})`;
  const subject = `${TASKS} tasks, each on its own device: ${keys} puts, ${mixed} mixed gets and puts, ${keys} gets of values in a log behind a B+tree; ${ops.toLocaleString('en')} block operations of 4 KiB a round`;
  const counters = (/** @type {string} */ mode) => ({
    tasks: TASKS, blockReads: ref.reads, blockWrites: ref.writes,
    switches: seen[mode].switches, lends: seen[mode].lends, steps: seen[mode].steps, releases: seen[mode].releases,
  });
  return [
    {
      name: `realistic: key-value store, ${TASKS} tasks, immediate asynchronous vs synchronous block I/O`,
      unit: 'block operation',
      subject: `${subject}; every block operation a suspension, all tasks at once`,
      value: s.async, scale: 'ns', baselineName: 'its synchronous run', baseline: s.sync,
      goal: '<= 1.15x its synchronous run',
      note: `whole run ${whole(s.async)} against ${whole(s.sync)}; ${perSecond(s.async.median)} block operations per second against ${perSecond(s.sync.median)}`,
      counters: counters('async'),
    },
    {
      name: 'realistic: raw JSPI, the same store without snail-core, immediate asynchronous vs synchronous block I/O (context)',
      unit: 'block operation',
      subject: `${subject}; the store built without snail-core (kv_raw.c), ${TASKS} concurrent promising calls against ${TASKS} plain calls`,
      value: s.rawAsync, scale: 'ns', baselineName: 'its synchronous run', baseline: s.rawSync,
      note: `the engine's floor for the row above; whole run ${whole(s.rawAsync)} against ${whole(s.rawSync)}`,
      counters: { calls: TASKS, blockReads: ref.reads, blockWrites: ref.writes, switches: seen.rawAsync.switches },
    },
    {
      name: `realistic: key-value store, ${TASKS} tasks through snail-core vs ${TASKS} raw JSPI calls, asynchronous block I/O (context)`,
      unit: 'block operation',
      subject: `${subject}; the program's tasks against the raw build's concurrent promising calls, the same suspending backend`,
      value: s.async, scale: 'ns', baselineName: 'raw JSPI', baseline: s.rawAsync,
      note: 'what the runtime adds to a suspension of this program, as the interleaved-waits rows measure it for a bare wait',
      counters: counters('async'),
    },
    {
      name: `realistic: key-value store, ${TASKS} tasks through snail-core with no turn budget vs ${TASKS} raw JSPI calls (context)`,
      unit: 'block operation',
      subject: `${subject}; the row above with maxSteps and maxTimeMs lifted for the round, on the same runtime`,
      value: s.unbounded, scale: 'ns', baselineName: 'raw JSPI', baseline: s.rawAsync,
      note: `what the runtime adds without the event-loop turns it yields for fairness, which raw JSPI never does: with the budget, a round yielded ${seen.async.yields.toLocaleString('en')} times and ${seen.async.parks.toLocaleString('en')} waits parked on a gate (${(seen.async.parks / ops).toFixed(3)} a block operation); lifted, ${seen.unbounded.yields} yields and ${seen.unbounded.parks.toLocaleString('en')} parks`,
      counters: counters('unbounded'),
    },
    {
      name: `realistic: key-value store, ${TASKS} tasks, with the release of ready resumptions off (context)`,
      unit: 'block operation',
      subject: `${subject}; as the first row, with every resumption made ready granted from the ready queue`,
      value: s.held, scale: 'ns', baselineName: 'its synchronous run', baseline: s.sync,
      note: 'against the first row: what releasing ready resumptions to take the permit in Wasm saves',
      counters: counters('held'),
    },
    {
      name: `realistic: key-value store, one task at a time, immediate asynchronous vs synchronous block I/O (context)`,
      unit: 'block operation',
      subject: `${subject}; the tasks one after the other, so that every wait keeps the permit lent`,
      value: s.async1, scale: 'ns', baselineName: 'its synchronous run', baseline: s.sync1,
      note: `whole run ${whole(s.async1)} against ${whole(s.sync1)}; raw JSPI, one promising call at a time: ${ratioRaw1.median.toFixed(2)}x its synchronous run (${ratioRaw1.min.toFixed(2)}..${ratioRaw1.max.toFixed(2)})`,
      counters: counters('async1'),
    },
    {
      name: 'realistic: what a suspension adds to a block operation (context)',
      unit: 'suspension',
      subject: `the asynchronous run's time per block operation less the synchronous run's, ${TASKS} tasks at once, round by round`,
      value: spread(extra), scale: 'ns',
      note: `raw JSPI, ${TASKS} calls at once: ${range(extraRaw)}; snail-core, one task at a time: ${range(extra1)}; raw JSPI, one call at a time: ${range(extraRaw1)}`,
      counters: { suspensions: ops, switches: seen.async.switches },
    },
  ];
}
