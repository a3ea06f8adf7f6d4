// The benchmark suite, environment-neutral: Node (bench/run.mjs) and Chromium
// (bench/browser.mjs) run the same workloads. Every benchmark measures its
// subject and its baseline in interleaved rounds, reports min/median/max per
// operation and, against the baseline, the median of the rounds' ratios, and
// checks that its subject really ran (counters above zero). Nothing here
// decides pass or fail on a time.
import { Runtime, suspend } from '../host/browser/index.mjs';
import { bestMacrotask } from '../host/browser/capabilities.mjs';
import { internals } from '../host/browser/debug.mjs';
import { probeDirectWaits } from '../host/browser/engine-probe.mjs';
import { ownCopy } from '../host/browser/own-code.mjs';
import { createGates, createWrappers, CURRENT, INSTALL, LOSER, OPEN, TAKEN, WORDS_END } from '../host/browser/wasm/gates.mjs';
import { createRegisterFile } from '../host/browser/wasm/registers.mjs';
import { realisticRows } from './realistic.mjs';
import { median, spread } from './samples.mjs';

export { median, spread };

/**
 * What a host gives the suite.
 * @typedef {object} BenchHost
 * @property {string} env  'node' or 'chromium'
 * @property {(name: string) => any} program  a source for Runtime.load / WebAssembly.compile
 * @property {(name: string) => Promise<Uint8Array>} bytes  the bytes of a program
 * @property {(options: { quick?: boolean, log?: (line: string) => void }) => Promise<Result[]>} [workers]
 *   the workers group's rows, where the host can start workers
 * @property {() => void} [gc]  forces a garbage collection, if the host can
 * @property {() => void} [minorGc]  forces a young-generation collection, if the host can
 * @property {number} [cancellationRounds]  measured rounds of the cancellation group (3 by default)
 * @property {() => { start: () => void, stop: () => { p50: number, p99: number, max: number, samples: number, youngCollections?: { count: number, longestMs: number } } }} loopDelay
 *   an event-loop delay probe (milliseconds), with the young-generation
 *   collections meanwhile if the host can observe them
 * @property {(what: string, n: number) => Promise<{ perItem: number, checked: number, n: number }>} [memory]
 *   a memory measurement in a fresh process (bench/memory.mjs)
 * @property {boolean} quick  fewer rounds and smaller sizes
 * @property {number[]} [fanoutBatches]  the fan-out batch sizes (default 64, 256 and 1,024)
 * @property {number[]} [interleavedTasks]  the task counts of the interleaved-waits rows (default 1, 8, 64 and 512)
 * @property {string[]} [only]  run only the groups named (control, switch, interleaved, anatomy, start,
 *   fanout, asyncify, realistic, memory, scale, fairness, collection, cancellation); all by default
 * @property {string[]} [skip]  leave out the groups named
 * @property {(line: string) => void} log  progress output
 */

/** @typedef {import('./samples.mjs').Spread} Spread */

/**
 * @typedef {object} Result
 * @property {string} name
 * @property {string} unit  what one operation is ("switch", "task", ...)
 * @property {string} subject  what was measured
 * @property {Spread} value  per operation, in `scale`
 * @property {string} scale  'ns', 'bytes', 'ms', ...
 * @property {string} [baselineName]
 * @property {Spread} [baseline]
 * @property {number} [ratio]  subject median / baseline median
 * @property {string} [goal]  the goal this result is held to
 * @property {boolean} [met]  whether the goal is met (informational)
 * @property {Record<string, number>} [counters]  proof the subject ran
 * @property {string} [note]
 */

const now = () => performance.now();
const P1 = Promise.resolve(1);

/** @param {boolean} condition @param {string} what */
function ran(condition, what) {
  if (!condition) throw new Error(`benchmark subject did not run: ${what}`);
}

/** @param {() => void} cb */
function macrotask(cb) {
  if (typeof setImmediate === 'function') setImmediate(cb);
  else setTimeout(cb, 0);
}
const turn = () => new Promise((r) => macrotask(() => r(undefined)));

/**
 * The macrotask a macrotask batch settles from: the best the host has
 * (setImmediate, or a MessageChannel in a page), as the runtime's own turns
 * use. Not setTimeout: nested timers are clamped to 4 ms in browsers, which
 * would measure the clamp.
 */
const settleMacrotask = bestMacrotask().schedule;

/**
 * Measures `pairs` (name -> async fn(n) returning elapsed ms for n operations)
 * in interleaved rounds; returns ns per operation for each.
 * @param {Record<string, (n: number) => Promise<number>>} pairs @param {number} n @param {number} rounds
 */
async function interleaved(pairs, n, rounds) {
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries(Object.keys(pairs).map((k) => [k, []]));
  // Two warm-up rounds of full size, not recorded: the engines tier up the
  // generated modules and the wait path only after many calls.
  for (let w = 0; w < 2; w++) for (const fn of Object.values(pairs)) await fn(n);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? Object.keys(pairs) : Object.keys(pairs).reverse();
    for (const k of order) samples[k].push((await pairs[k](n)) * 1e6 / n);
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, spread(v)]));
}

/** A pure JavaScript control workload: its time tracks how busy the machine is. */
function control(n) {
  const t0 = now();
  let x = 0;
  for (let i = 0; i < n * 50; i++) x = (x * 31 + i) | 0;
  if (x === 42) console.log(x);
  return now() - t0;
}

/**
 * A host operation whose promises settle in an order nobody chose: every call
 * returns a pending promise; once every waiter that is still running waits
 * (`active` of them), all pending promises are settled together, in an order
 * shuffled by a fixed-seed generator, from one microtask or one macrotask.
 * @param {'microtask' | 'macrotask'} batch
 */
export function shuffledSettler(batch) {
  /** @type {((v: number) => void)[]} */
  let pending = [];
  let active = 0;
  let scheduled = false;
  let seed = 0x2545f491;
  let settled = 0;
  const random = () => {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const flush = () => {
    scheduled = false;
    const now = pending;
    pending = [];
    for (let i = now.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      const t = now[i]; now[i] = now[j]; now[j] = t;
    }
    settled += now.length;
    for (const resolve of now) resolve(1);
  };
  const due = () => {
    if (scheduled || pending.length === 0 || pending.length < active) return;
    scheduled = true;
    if (batch === 'microtask') queueMicrotask(flush);
    else settleMacrotask(flush);
  };
  return {
    /** A pending promise that settles with the next batch. @returns {Promise<number>} */
    op: () => {
      const p = new Promise((resolve) => { pending.push(resolve); });
      due();
      return p;
    },
    /** A round of `n` waiters begins. @param {number} n */
    begin: (n) => { active = n; },
    /** A waiter finished: the others may all be waiting already. */
    finished: () => { active--; due(); },
    get settled() { return settled; },
  };
}

/**
 * One round of `n` waiters on a shuffled settler: starts them all, waits for
 * every one (each, as it finishes, lets the settler settle the others' next
 * batch), and returns the milliseconds it took.
 * @param {ReturnType<typeof shuffledSettler>} settler @param {number} n
 * @param {() => Promise<unknown>} start  one waiter
 * @param {(value: unknown) => void} [check]  looks at what a waiter returned
 */
async function settledRound(settler, n, start, check) {
  settler.begin(n);
  const t0 = now();
  await Promise.all(Array.from({ length: n }, () => start().then((v) => {
    check?.(v);
    settler.finished();
  })));
  return now() - t0;
}

/**
 * Runs `fn` with the runtime's turn budget lifted (maxSteps and maxTimeMs out
 * of reach), and puts the budget back after it.
 * @template T
 * @param {ReturnType<typeof internals>} inside @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function withBudgetLifted(inside, fn) {
  const budget = inside.setTurnBudget({ maxSteps: 1e9, maxTimeMs: 1e9 });
  try {
    return await fn();
  } finally {
    inside.setTurnBudget(budget);
  }
}

/** A mutable i32 register for the raw modules that keep registers. @param {number} v */
const register = (v) => new WebAssembly.Global({ value: 'i32', mutable: true }, v);

/**
 * The runtime's own suspension modules (wasm/gates.mjs: stubs, wrappers,
 * the shared words and a register file of three registers, as the benchmark
 * program has) around `op`, with the least JavaScript side a wait of many
 * tasks can have: the wait notes a take of the permit in Wasm, marks its
 * task's slot as one that may take it when its own wait ends, opens the
 * permit and starts the operation. No scheduler: what the Wasm of a wait and
 * of the take costs, apart from the scheduler's JavaScript and its state.
 * Each task runs in its own slot, 1 to `n` in turn, as CURRENT when it starts.
 *
 * With `bookkeeping`, the wait also keeps the state the runtime's contracts
 * read, and nothing more (BareTask): the take is recorded on both tasks and
 * on the holder, the wait counts a step of the turn against its budget (never
 * reached: the floor of the rows with no turn budget), records which import
 * it waits in, lent, and keeps the operation's promise, and the operation
 * gets the task's signal and has its result checked to be a promise. No
 * lease, no cancellation, no invariant checks: the least JavaScript a
 * scheduler with these contracts and its state in JavaScript can run for a
 * wait of many tasks.
 * @param {WebAssembly.Module} rawModule @param {(i: number) => Promise<number>} op @param {number} n
 * @param {boolean} [bookkeeping]
 * @returns {{ start: (k: number) => Promise<unknown>, counts: { takes: number, afters: number }, steps: () => number }}
 *   `steps`: the waits counted as steps of the turn (with bookkeeping)
 */
function bareSuspension(rawModule, op, n, bookkeeping = false) {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const registers = ['stack_pointer', 'stack_base', 'stack_limit'].map((role, i) => ({
    name: `bench.r${i}`, module: 'bench', type: 'i32', role: /** @type {any} */ (role), global: register(0),
  }));
  const file = createRegisterFile({ registers, memory, base: WORDS_END });
  const { layout } = file;
  const waitWord = (layout.base + layout.waitWord) >> 2;
  const stride = layout.stride >> 2;
  const counts = { takes: 0, afters: 0 };
  const tasks = Array.from({ length: n + 1 }, (_, slot) => new BareTask(slot));
  const sched = { holder: /** @type {BareTask | null} */ (null), steps: 0, stepsEnd: Infinity };
  // Code of its own, as the runtime's waits have (own-code.mjs).
  const begin = bookkeeping
    ? ownCopy(bookkeptWait)(memory, op, counts, waitWord, stride, tasks, sched, { BareTask, CURRENT, LOSER, OPEN, TAKEN })
    : ownCopy(bareWait)(memory, op, counts, waitWord, stride, { CURRENT, LOSER, OPEN, TAKEN });
  const gates = createGates([{ key: 'bench.op', params: ['i32'], results: ['i32'] }], {
    begin: () => begin,
    // A task that woke before the permit was opened to it (the first of a round).
    after: (slot, value) => {
      counts.afters++;
      if (bookkeeping) {
        gates.setCurrent(slot);
        sched.holder = tasks[slot];
      }
      return value;
    },
    fail: (_slot, error) => { throw error; },
    park: () => { throw new Error('the bare suspension modules never park'); },
    foreign: () => { throw new Error('a bare wait outside its slot'); },
  }, memory);
  gates.registers.set(INSTALL, file.install);
  createWrappers(gates, file);
  if (n + 1 > (memory.buffer.byteLength - layout.base) / layout.stride) throw new Error(`no room for ${n} slots`);
  const loop = WebAssembly.promising(/** @type {any} */ (new WebAssembly.Instance(rawModule, { bench: { op: gates.wrappers['bench.op'] } }).exports).op_loop);
  let next = 0;
  return {
    start: (k) => {
      next = (next % n) + 1;
      gates.setCurrent(next);
      sched.holder = null;
      return loop(k);
    },
    counts,
    steps: () => sched.steps,
  };
}

/**
 * The JavaScript side of a wait of bareSuspension() without bookkeeping: it
 * notes a take of the permit in Wasm, marks its task's slot as one that may
 * take it when its own wait ends, opens the permit and starts the operation.
 * A factory each use copies (ownCopy()): it reads its parameters alone (the
 * shared words' offsets among them, `names`).
 * @param {WebAssembly.Memory} memory @param {(i: number) => Promise<number>} op
 * @param {{ takes: number }} counts @param {number} waitWord @param {number} stride
 * @param {{ CURRENT: number, LOSER: number, OPEN: number, TAKEN: number }} names
 */
function bareWait(memory, op, counts, waitWord, stride, names) {
  const { CURRENT, LOSER, OPEN, TAKEN } = names;
  /** @type {Int32Array | null} the words, viewed at the first wait (the memory grew for the modules) */
  let words = null;
  return (/** @type {number} */ i) => {
    words ??= new Int32Array(memory.buffer);
    if (words[TAKEN >> 2] !== 0) {
      counts.takes++;
      words[TAKEN >> 2] = 0;
      words[LOSER >> 2] = 0;
    }
    words[waitWord + words[CURRENT >> 2] * stride] = 1;
    words[OPEN >> 2] = 1;
    return op(i);
  };
}

/**
 * The JavaScript side of a wait of bareSuspension() with bookkeeping (see
 * there), copied as bareWait() is.
 * @param {WebAssembly.Memory} memory @param {(i: number) => Promise<number>} op
 * @param {{ takes: number }} counts @param {number} waitWord @param {number} stride
 * @param {BareTask[]} tasks  the task of each slot
 * @param {{ holder: BareTask | null, steps: number, stepsEnd: number }} sched
 * @param {{ BareTask: typeof BareTask, CURRENT: number, LOSER: number, OPEN: number, TAKEN: number }} names
 */
function bookkeptWait(memory, op, counts, waitWord, stride, tasks, sched, names) {
  const { BareTask, CURRENT, LOSER, OPEN, TAKEN } = names;
  /** @type {Int32Array | null} the words, viewed at the first wait (the memory grew for the modules) */
  let words = null;
  const spec = { name: 'bench.op' };
  /** @param {AbortSignal | null} _signal @param {number} i */
  const operation = (_signal, i) => op(i);
  return (/** @type {number} */ i) => {
    words ??= new Int32Array(memory.buffer);
    const taken = words[TAKEN >> 2];
    if (taken !== 0) {
      // The take in Wasm, noted: the loser waits on as an ordinary
      // suspended task that may take the permit when its wait ends, and the
      // taker holds the permit, its last wait ended.
      const loser = tasks[words[LOSER >> 2]];
      const taker = tasks[taken];
      counts.takes++;
      words[TAKEN >> 2] = 0;
      words[LOSER >> 2] = 0;
      loser.state = BareTask.suspended;
      loser.mode = BareTask.direct;
      words[waitWord + loser.slot * stride] = 1;
      taker.state = BareTask.executing;
      taker.mode = BareTask.none;
      words[waitWord + taker.slot * stride] = 0;
      sched.holder = taker;
    }
    const task = sched.holder ?? (sched.holder = tasks[words[CURRENT >> 2]]);
    if (++sched.steps >= sched.stepsEnd) throw new Error('the bare turn never ends');
    task.mode = BareTask.lent;
    task.wait = spec;
    const p = operation(task.signal, i);
    if (typeof p?.then !== 'function') throw new Error('not a promise');
    task.op = p;
    words[waitWord + task.slot * stride] = 1;
    words[OPEN >> 2] = 1;
    return p;
  };
}

/** A task's record in bareSuspension() with bookkeeping: one shape for all. */
class BareTask {
  static executing = 1;
  static suspended = 2;
  static none = 0;
  static lent = 1;
  static direct = 2;
  /** @param {number} slot */
  constructor(slot) {
    this.slot = slot;
    this.state = BareTask.executing;
    /** how the task waits (none, lent, direct) */
    this.mode = BareTask.none;
    /** @type {{ name: string } | null} the import it waits in */
    this.wait = null;
    /** @type {PromiseLike<unknown> | null} its operation's promise */
    this.op = null;
    /** @type {AbortSignal | null} */
    this.signal = null;
  }
}

/**
 * Runs the suite.
 * @param {BenchHost} host
 * @returns {Promise<{ env: string, results: Result[] }>}
 */
export async function runSuite(host) {
  const rounds = host.quick ? 5 : 15;
  const want = (/** @type {string} */ group) => !host.skip?.includes(group) && (!host.only || host.only.length === 0 || host.only.includes(group));
  /** @type {Result[]} */
  const results = [];
  const add = (/** @type {Result} */ r) => {
    // A subject and its baseline measured round by round, side by side: the
    // ratio is the median of the rounds' ratios, so that a slow stretch of the
    // machine, which both sides of a round share, does not decide it.
    /** @type {any} */ const v = r.value;
    /** @type {any} */ const b = r.baseline;
    if (b && r.ratio === undefined) {
      r.ratio = v.rounds && b.rounds && v.rounds.length === b.rounds.length
        ? median(v.rounds.map((/** @type {number} */ x, /** @type {number} */ i) => x / b.rounds[i]))
        : v.median / b.median;
    }
    /** @param {any} x @returns {Spread} */
    const bare = (x) => ({ min: x.min, median: x.median, max: x.max });
    r.value = bare(v);
    if (b) r.baseline = bare(b);
    results.push(r);
    host.log(`${r.name}: ${r.value.median.toFixed(r.scale === 'ns' ? 0 : 2)} ${r.scale}${r.ratio !== undefined ? ` (${r.ratio.toFixed(2)}x ${r.baselineName})` : ''}`);
  };

  const rawModule = await WebAssembly.compile(/** @type {BufferSource} */ (await host.bytes('bench_raw')));
  /** @type {Promise<WebAssembly.Module> | null} */
  let registersCompiled = null;
  /** The raw module with a suspension wrapper and registers, compiled once, when a group first wants it. */
  const rawRegisters = () => (registersCompiled ??= (async () => WebAssembly.compile(/** @type {BufferSource} */ (await host.bytes('bench_raw_registers'))))());
  const benchSource = host.program('bench');
  /** A runtime of the benchmark program with bench.op resolving at once. */
  const load = (/** @type {object} */ options = {}) => Runtime.load(benchSource, {
    stdout: () => {},
    imports: { bench: { op: suspend(() => P1) } },
    ...options,
  });

  /**
   * `n` tasks, each waiting `k` times on an operation whose promises the
   * shuffled settler settles in batches, against `n` concurrent raw
   * promising calls of the same module doing the same waits, and `n` plain
   * async functions awaiting the same operation (context, in the note).
   * @param {number} n @param {'microtask' | 'macrotask'} batch
   * @returns {Promise<Result>}
   */
  const interleavedWaits = async (n, batch) => {
    // Enough waits per task that its start does not count.
    const k = Math.max(100, Math.ceil((host.quick ? 20000 : 200000) / n));
    const settler = shuffledSettler(batch);
    const raw = new WebAssembly.Instance(rawModule, { bench: { op: new WebAssembly.Suspending(settler.op) } });
    const rawLoop = WebAssembly.promising(/** @type {any} */ (raw.exports).op_loop);
    const rt = await Runtime.load(benchSource, { stdout: () => {}, imports: { bench: { op: suspend(settler.op) } } });
    const inside = internals(rt);
    // The floor of the contracts: the runtime's suspension modules with the
    // least JavaScript that keeps the state they read, where this engine runs them.
    const floor = (await probeDirectWaits()).ok ? bareSuspension(rawModule, settler.op, n, true) : null;
    let wrong = 0;
    /** @param {() => Promise<unknown>} start */
    const round = (start) => settledRound(settler, n, start, (v) => { if (v !== k) wrong++; });
    const task = () => round(() => rt.dispatch('op_loop', k).result);
    /**
     * A round of the runtime's tasks that adds what it changed of one of the
     * runtime's counters to `add`.
     * @param {'parks' | 'yields'} counter @param {(delta: number) => void} add
     */
    const counted = (counter, add) => async () => {
      const from = rt.stats()[counter];
      try {
        return await task();
      } finally {
        add(rt.stats()[counter] - from);
      }
    };
    let yieldsLifted = 0;
    // The waits of the budgeted rounds that parked on a gate: where the
    // turn budget's time goes (a wait that wakes in a paused turn parks).
    let budgetedParks = 0;
    let budgetedRounds = 0;
    const before = rt.stats();
    const s = await interleaved({
      raw: () => round(() => rawLoop(k)),
      ...(floor === null ? {} : { floor: () => round(() => floor.start(k)) }),
      task: counted('parks', (d) => { budgetedParks += d; budgetedRounds++; }),
      // The same runtime with its turn budget lifted for the round: what
      // the event-loop turns it yields for fairness add.
      unbounded: () => withBudgetLifted(inside, counted('yields', (d) => { yieldsLifted += d; })),
      js: () => round(async () => {
        let sum = 0;
        for (let i = 0; i < k; i++) sum += await settler.op();
        return sum;
      }),
    }, n * k, rounds);
    const st = rt.stats();
    ran(st.returned >= n && settler.settled > 0 && wrong === 0 && (floor === null || floor.steps() > 0), `interleaved waits of ${n} tasks`);
    await rt.close();
    const what = `${n} task${n === 1 ? '' : 's'}, settled in a ${batch} batch`;
    const counters = { tasks: st.returned, steps: st.steps, lends: st.lends - before.lends, takes: st.takes - before.takes, reclaims: st.reclaims - before.reclaims, yields: st.yields - before.yields, parks: st.parks - before.parks, releases: st.releases - before.releases };
    const parksPerWait = budgetedRounds > 0 ? budgetedParks / (budgetedRounds * n * k) : 0;
    const budgetCost = s.task.median - s.unbounded.median;
    // What a park costs is read only where parks are frequent enough (one
    // wait in a hundred) that the budget's cost is theirs, not the noise's.
    const perPark = parksPerWait >= 0.01 && budgetCost > 0 ? `; the budget adds ${budgetCost.toFixed(0)} ns a wait at ${parksPerWait.toFixed(3)} parks a wait (a wait that wakes in a paused turn parks on a gate): about ${(budgetCost / parksPerWait).toFixed(0)} ns a park` : `; ${parksPerWait.toFixed(3)} parks a wait with the budget`;
    return [
      {
        name: `interleaved waits: ${what}`,
        unit: 'suspension',
        subject: `${n} task${n === 1 ? '' : 's'} each waiting ${k} times on an operation settled in shuffled order, all pending ones in one ${batch}`,
        value: s.task, scale: 'ns', baselineName: 'raw JSPI', baseline: s.raw, goal: '<= 1.3x raw JSPI',
        note: `plain JavaScript async functions doing the same waits: ${s.js.median.toFixed(0)} ns`,
        counters,
      },
      {
        name: `interleaved waits with no turn budget (context): ${what}`,
        unit: 'suspension',
        subject: 'the row above with maxSteps and maxTimeMs lifted for the round, on the same runtime',
        value: s.unbounded, scale: 'ns', baselineName: 'raw JSPI', baseline: s.raw,
        note: `what the waits cost without the event-loop turns the scheduler yields for fairness, which raw JSPI never does${perPark}`,
        counters: { yieldsWithBudgetLifted: yieldsLifted },
      },
      ...(floor === null ? [] : [{
        name: `interleaved waits, the contracts' floor (context): ${what}`,
        unit: 'suspension',
        subject: 'the runtime\'s suspension modules (stubs, wrappers, shared words, the take of the permit in Wasm) under the least JavaScript that keeps what the runtime\'s contracts read: the take recorded on both tasks and the holder, a step of the turn counted, the wait\'s import, mode and operation\'s promise recorded on the task, the operation given the task\'s signal and its result checked to be a promise',
        value: s.floor, scale: 'ns', baselineName: 'raw JSPI', baseline: s.raw,
        note: `the least a scheduler with these contracts and its state in JavaScript adds on these suspension modules (no lease, cancellation, budget or checks): against the row with no turn budget; ${floor.counts.takes} takes, ${floor.counts.afters} calls of after`,
      }]),
    ];
  };

  /**
   * Where the time of interleaved waits goes: the same shape (8 tasks, a
   * shuffled microtask batch) through raw JSPI plus one piece of the
   * runtime's wait at a time, and through the runtime with the take of the
   * permit in Wasm turned off.
   */
  const interleavedAnatomy = async () => {
    const n = 8;
    const k = Math.ceil((host.quick ? 20000 : 200000) / n);
    const settler = shuffledSettler('microtask');
    const raw = new WebAssembly.Instance(rawModule, { bench: { op: new WebAssembly.Suspending(settler.op) } });
    const rawLoop = WebAssembly.promising(/** @type {any} */ (raw.exports).op_loop);
    const hopped = new WebAssembly.Instance(rawModule, { bench: { op: new WebAssembly.Suspending(() => settler.op().then((v) => v)) } });
    const hopLoop = WebAssembly.promising(/** @type {any} */ (hopped.exports).op_loop);
    // The wait's JavaScript side as the runtime calls it: a function that
    // calls the operation with a signal and checks that it got a promise.
    const signal = new AbortController().signal;
    const operation = (/** @type {AbortSignal} */ _signal, /** @type {number} */ _i) => settler.op();
    const layered = new WebAssembly.Instance(rawModule, {
      bench: {
        op: new WebAssembly.Suspending((/** @type {number} */ i) => {
          const p = operation(signal, i);
          if (typeof p?.then !== 'function') throw new Error('not a promise');
          return p;
        }),
      },
    });
    const layerLoop = WebAssembly.promising(/** @type {any} */ (layered.exports).op_loop);
    let afterCalls = 0;
    const pieces = new WebAssembly.Instance(await rawRegisters(), {
      bench: {
        op: new WebAssembly.Suspending(settler.op),
        after: (/** @type {number} */ _i, /** @type {number} */ v) => { afterCalls++; return v; },
        sp: register(65536), base: register(65536), limit: register(0),
      },
    });
    const x = /** @type {any} */ (pieces.exports);
    const wrapped = new WebAssembly.Instance(rawModule, { bench: { op: x.wrapped_op } });
    const wrappedLoop = WebAssembly.promising(/** @type {any} */ (wrapped.exports).op_loop);
    const afterLoop = WebAssembly.promising(x.after_loop);
    const rt = await Runtime.load(benchSource, { stdout: () => {}, imports: { bench: { op: suspend(settler.op) } } });
    const inside = internals(rt);
    // The runtime's suspension modules with no scheduler, where this engine runs them.
    const bare = (await probeDirectWaits()).ok ? bareSuspension(rawModule, settler.op, n) : null;
    /** @param {(k: number) => Promise<unknown>} start */
    const round = (start) => settledRound(settler, n, () => start(k));
    let takesOff = -1;
    const s = await interleaved({
      raw: () => round(rawLoop),
      hop: () => round(hopLoop),
      layer: () => round(layerLoop),
      wrapper: () => round(wrappedLoop),
      after: () => round(afterLoop),
      ...(bare === null ? {} : { bare: () => round((j) => bare.start(j)) }),
      noTakes: async () => {
        inside.allowTakes(false);
        const before = rt.stats().takes;
        try {
          return await round((j) => rt.dispatch('op_loop', j).result);
        } finally {
          inside.allowTakes(true);
          takesOff = Math.max(takesOff, rt.stats().takes - before);
        }
      },
    }, n * k, rounds);
    ran(afterCalls > 0 && takesOff === 0 && rt.stats().returned > 0 && (bare === null || bare.counts.takes > 0), 'the interleaved anatomy');
    await rt.close();
    const shape = '8 tasks, shuffled microtask batches';
    const row = (/** @type {string} */ name, /** @type {string} */ subject, /** @type {Spread} */ value, /** @type {string} */ note) => ({
      name: `interleaved anatomy: ${name}`, unit: 'suspension', subject: `${subject} (${shape})`, value, scale: 'ns', baselineName: 'raw JSPI', baseline: s.raw, note,
    });
    return [
      row('raw JSPI with one more promise hop', 'a Suspending import returning operation.then(v => v)', s.hop, 'what a wait pays when its delivery goes through a continuation of the operation (the runtime without its suspension module)'),
      row('raw JSPI through a JavaScript layer', 'the operation called from a function that gives it a signal and checks its promise', s.layer, 'the JavaScript side of every wait, before the scheduler\'s part'),
      row('raw JSPI through a suspension wrapper with three registers', 'a stub tail-calling a Wasm wrapper that saves and installs three registers', s.wrapper, 'what every wait pays in Wasm'),
      row('raw JSPI with one more call into JavaScript', 'a JavaScript import called after each resumption', s.after, 'what a wait pays when the task that wakes takes the permit from JavaScript'),
      ...(bare === null ? [] : [row('the runtime\'s suspension modules with no scheduler', 'the stubs, wrappers, shared words and a register file of three registers the runtime makes, the take of the permit in Wasm included, under a JavaScript side that only notes the take, opens the permit and starts the operation', s.bare, `what the Wasm of a wait and of the take costs, apart from the scheduler's JavaScript and its state: against the interleaved-waits row of 8 tasks; ${bare.counts.takes} takes, ${bare.counts.afters} calls of after`)]),
      row('the scheduler with the take of the permit in Wasm off', 'every task whose wait ends calls into JavaScript to take the permit from the task it is lent to', s.noTakes, 'against the interleaved-waits row of 8 tasks: what taking the permit in Wasm saves'),
    ];
  };

  /**
   * The floor of fairness for `n` tasks in shuffled microtask batches: raw
   * JSPI that gives the event loop a turn as the scheduler's turn budget does
   * (after 0.5 ms or 4,096 resumptions, every resumption until the host's
   * macrotask ran suspends once more, on a promise that macrotask settles),
   * against the same raw JSPI never giving one; and, in the same rounds, the
   * runtime with its budget against the same runtime with it lifted. Raw
   * JSPI's turns cost what parking the resumptions already queued costs the
   * engine, and nothing else: the least a budget of this length can cost.
   * @param {number} n
   */
  const fairnessFloor = async (n) => {
    const k = Math.max(100, Math.ceil((host.quick ? 20000 : 200000) / n));
    const settler = shuffledSettler('microtask');
    const maxTimeMs = 0.5;
    const maxSteps = 4096;
    // The raw turn: its steps, its start, whether it is used up, and the
    // resumptions parked until the macrotask that ends it.
    let steps = 0;
    let start = 0;
    let paused = false;
    let turns = 0;
    let parks = 0;
    /** @type {(() => void)[]} */
    let parked = [];
    const endTurn = () => {
      paused = false;
      steps = 0;
      turns++;
      const wake = parked;
      parked = [];
      for (const resolve of wake) resolve();
    };
    /** Called after each resumption: whether it goes on now, or parks until the turn's end. @param {number} _i @param {number} v */
    const yielding = (_i, v) => {
      if (!paused) {
        if (steps === 0) start = now();
        steps++;
        if (steps >= maxSteps || ((steps & 15) === 0 && now() - start >= maxTimeMs)) {
          paused = true;
          settleMacrotask(endTurn);
        } else {
          return v;
        }
      }
      parks++;
      return new Promise((resolve) => { parked.push(() => resolve(v)); });
    };
    const piecesModule = await rawRegisters();
    /** A raw module whose waits call `after` once they resumed. @param {(i: number, v: number) => unknown} after */
    const rawWith = (after) => {
      const x = /** @type {any} */ (new WebAssembly.Instance(piecesModule, {
        bench: { op: new WebAssembly.Suspending(settler.op), after: new WebAssembly.Suspending(after), sp: register(0), base: register(0), limit: register(0) },
      }).exports);
      return WebAssembly.promising(x.after_loop);
    };
    const never = rawWith((_i, v) => v);
    const turning = rawWith(yielding);
    const rt = await Runtime.load(benchSource, { stdout: () => {}, imports: { bench: { op: suspend(settler.op) } } });
    const inside = internals(rt);
    let wrong = 0;
    /** @param {(k: number) => Promise<unknown>} start */
    const round = (start) => settledRound(settler, n, () => start(k), (v) => { if (v !== k) wrong++; });
    const task = (/** @type {number} */ j) => /** @type {Promise<unknown>} */ (rt.dispatch('op_loop', j).result);
    let rtYields = 0;
    let turningRounds = 0;
    const s = await interleaved({
      never: () => round(never),
      turning: () => {
        turningRounds++;
        return round(turning);
      },
      task: async () => {
        const y = rt.stats().yields;
        const t = await round(task);
        rtYields += rt.stats().yields - y;
        return t;
      },
      lifted: () => withBudgetLifted(inside, () => round(task)),
    }, n * k, rounds);
    ran(turns > 0 && parks > 0 && rtYields > 0 && wrong === 0 && paused === false, `the fairness floor of ${n} tasks`);
    await rt.close();
    const shape = `${n} tasks, shuffled microtask batches`;
    return [
      {
        name: `interleaved anatomy: raw JSPI giving the event loop turns as the budget does, ${n} tasks`,
        unit: 'suspension',
        subject: `raw JSPI whose resumptions park once 0.5 ms or 4,096 of them have passed, until the host's macrotask (${shape})`,
        value: s.turning, scale: 'ns', baselineName: 'the same raw JSPI never giving one', baseline: s.never,
        note: `the floor of the turn budget's cost: ${(parks / turns).toFixed(0)} resumptions parked a turn, ${Math.round(turns / turningRounds)} turns a round`,
        counters: { turns, parks },
      },
      {
        name: `interleaved anatomy: the scheduler's turn budget, ${n} tasks`,
        unit: 'suspension',
        subject: `the runtime with its default budget against the same runtime with it lifted, in the rounds of the row above (${shape})`,
        value: s.task, scale: 'ns', baselineName: 'the budget lifted', baseline: s.lifted,
        note: 'what the event-loop turns cost the scheduler, against the floor above',
        counters: { yields: rtYields },
      },
    ];
  };

  // --- control
  if (want('control')) {
    const s = await interleaved({ control: async (n) => control(n) }, 20000, rounds);
    add({ name: 'control (plain JavaScript loop)', unit: 'iteration', subject: 'a JavaScript loop', value: s.control, scale: 'ns', note: 'tracks machine noise; compare across runs' });
  }

  // --- 1. suspend -> resume round trip
  if (want('switch')) {
    const raw = new WebAssembly.Instance(rawModule, { bench: { op: new WebAssembly.Suspending(() => P1) } });
    const rawLoop = WebAssembly.promising(/** @type {any} */ (raw.exports).op_loop);
    const rt = await load();
    const inside = internals(rt);
    const n = host.quick ? 20000 : 300000;
    const s = await interleaved({
      raw: async (k) => { const t0 = now(); await rawLoop(k); return now() - t0; },
      op: async (k) => { const t0 = now(); const t = rt.dispatch('op_loop', k); await t.done; return now() - t0; },
      yield: async (k) => { const t0 = now(); const t = rt.dispatch('yield_loop', k); await t.done; return now() - t0; },
      // The same runtime with its turn budget lifted for the round (a second
      // runtime would make the shared code see two of everything): what the
      // event-loop turns it yields for fairness add to a switch.
      unbounded: (k) => withBudgetLifted(inside, async () => {
        const yields = rt.stats().yields;
        const t0 = now();
        await rt.dispatch('op_loop', k).done;
        const t = now() - t0;
        if (rt.stats().yields !== yields) throw new Error('a turn ended with the budget lifted');
        return t;
      }),
      js: async (k) => {
        const t0 = now();
        let sum = 0;
        for (let i = 0; i < k; i++) sum += await P1;
        if (sum !== k) throw new Error('js loop');
        return now() - t0;
      },
    }, n, rounds);
    const st = rt.stats();
    ran(st.returned > 0 && st.steps > 0, 'op_loop/yield_loop tasks');
    add({ name: 'switch: suspend -> resume through the scheduler', unit: 'switch', subject: 'a task waiting on an already resolved host operation', value: s.op, scale: 'ns', baselineName: 'raw JSPI', baseline: s.raw, goal: '<= 1.2x raw JSPI', counters: { tasks: st.returned, steps: st.steps, lends: st.lends } });
    add({ name: 'switch: yield (nothing else ready)', unit: 'switch', subject: 'snail.yield in a loop', value: s.yield, scale: 'ns', baselineName: 'raw JSPI', baseline: s.raw });
    add({ name: 'switch: with no turn budget (context)', unit: 'switch', subject: 'the suspend -> resume row with maxSteps and maxTimeMs lifted', value: s.unbounded, scale: 'ns', baselineName: 'raw JSPI', baseline: s.raw, note: 'the switch less the event-loop turns the scheduler yields for fairness, which raw JSPI never does' });
    add({ name: 'switch: plain JavaScript await (context)', unit: 'await', subject: 'await of a resolved promise', value: s.js, scale: 'ns', baselineName: 'raw JSPI', baseline: s.raw });
    await rt.close();
  }

  // --- 1c. interleaved waits: many tasks whose operations settle out of order
  if (want('interleaved')) {
    for (const n of host.interleavedTasks ?? (host.quick ? [1, 64] : [1, 8, 64, 512])) {
      for (const batch of /** @type {const} */ (['microtask', 'macrotask'])) {
        for (const r of await interleavedWaits(n, batch)) add(r);
      }
    }
    for (const r of await interleavedAnatomy()) add(r);
    for (const r of await fairnessFloor(host.quick ? 64 : 512)) add(r);
  }

  // --- 1b. what a switch is made of: engine primitives measured in the same run
  if (want('anatomy')) {
    const P2 = Promise.resolve(2);
    let mode = 'raw';
    const raw = new WebAssembly.Instance(rawModule, {
      bench: {
        op: new WebAssembly.Suspending(() => (mode === 'raw' ? P1 : mode === 'hop' ? P1.then((v) => v) : P2)),
      },
    });
    const rawLoop = WebAssembly.promising(/** @type {any} */ (raw.exports).op_loop);
    const n = host.quick ? 20000 : 300000;
    const s = await interleaved({
      raw: async (k) => { mode = 'raw'; const t0 = now(); await rawLoop(k); return now() - t0; },
      hop: async (k) => { mode = 'hop'; const t0 = now(); await rawLoop(k); return now() - t0; },
    }, n, rounds);
    add({ name: 'switch anatomy: raw JSPI with one more promise hop', unit: 'switch', subject: 'a Suspending import returning promise.then(v => v)', value: s.hop, scale: 'ns', baselineName: 'raw JSPI', baseline: s.raw, note: 'the price of one microtask hop between an operation and the resumption' });

    // The suspension wrapper's part, reached through a stub as the runtime's
    // are, saving and installing three registers in its own code; and one
    // call into JavaScript after each resumption, which a wait with a lent
    // permit does without.
    let afterCalls = 0;
    const pieces = new WebAssembly.Instance(await rawRegisters(), {
      bench: {
        op: new WebAssembly.Suspending(() => P1),
        after: (/** @type {number} */ _i, /** @type {number} */ v) => { afterCalls++; return v; },
        sp: register(65536), base: register(65536), limit: register(0),
      },
    });
    const x = /** @type {any} */ (pieces.exports);
    const wrapped = new WebAssembly.Instance(rawModule, { bench: { op: x.wrapped_op } });
    const wrappedLoop = WebAssembly.promising(/** @type {any} */ (wrapped.exports).op_loop);
    const afterLoop = WebAssembly.promising(x.after_loop);
    const p = await interleaved({
      raw: async (k) => { mode = 'raw'; const t0 = now(); await rawLoop(k); return now() - t0; },
      saved: async (k) => { const t0 = now(); await wrappedLoop(k); return now() - t0; },
      after: async (k) => { const t0 = now(); await afterLoop(k); return now() - t0; },
    }, n, rounds);
    ran(afterCalls > 0, 'after_loop');
    add({ name: 'switch anatomy: raw JSPI through a suspension wrapper with three registers', unit: 'switch', subject: 'a stub tail-calling a Wasm wrapper that saves three registers, installs their defaults, waits and installs them again', value: p.saved, scale: 'ns', baselineName: 'raw JSPI', baseline: p.raw, note: 'what every switch through the scheduler pays in Wasm, for a program with a shadow stack and no handler globals' });
    add({ name: 'switch anatomy: raw JSPI with one more call into JavaScript', unit: 'switch', subject: 'a JavaScript import called after each resumption', value: p.after, scale: 'ns', baselineName: 'raw JSPI', baseline: p.raw, note: 'what a wait pays when its permit is claimed from JavaScript; a lent permit avoids it' });
  }

  // --- 2. task start -> finish without suspension, sequential
  if (want('start')) {
    const raw = new WebAssembly.Instance(rawModule, { bench: { op: new WebAssembly.Suspending(() => P1) } });
    const rawNop = WebAssembly.promising(/** @type {any} */ (raw.exports).nop);
    const rt = await load();
    // What a start through a parked carrier is made of: a stack that waits,
    // resumed from JavaScript and parked again (one promise each way).
    /** @type {((v: number) => void)[]} */
    const parks = [];
    /** @type {((resolve: (v: number) => void) => void) | null} */
    let onPark = null;
    const parkedStack = new WebAssembly.Instance(rawModule, {
      bench: {
        op: new WebAssembly.Suspending(() => new Promise((resolve) => {
          if (onPark) {
            const f = onPark;
            onPark = null;
            f(resolve);
          } else {
            parks.push(resolve);
          }
        })),
      },
    });
    const parkLoop = WebAssembly.promising(/** @type {any} */ (parkedStack.exports).op_loop);
    let resumptions = 0;
    let deferredStarts = 0;
    // Rounds of 50,000 starts (about 50 ms), so that the collector's pauses
    // fall evenly on both sides rather than decide single rounds.
    const n = host.quick ? 5000 : 50000;
    const s = await interleaved({
      raw: async (k) => { const t0 = now(); for (let i = 0; i < k; i++) await rawNop(i); return now() - t0; },
      parked: async (k) => {
        const done = parkLoop(k);
        const t0 = now();
        for (let i = 0; i < k; i++) {
          const resume = parks.shift() ?? await new Promise((r) => { onPark = r; });
          resume(1);
          resumptions++;
        }
        const ms = now() - t0;
        await done;
        return ms;
      },
      // The least a start that is still queued when dispatch() returns can
      // cost: a raw promising call made from a microtask, which settles a
      // promise of its own that the caller awaits (the task's `done`).
      deferred: async (k) => {
        const t0 = now();
        for (let i = 0; i < k; i++) {
          /** @type {(v: number) => void} */
          let settle = () => {};
          const done = new Promise((r) => { settle = r; });
          P1.then(() => { rawNop(i); settle(i); });
          deferredStarts += await done === i ? 1 : 0;
        }
        return now() - t0;
      },
      task: async (k) => { const t0 = now(); for (let i = 0; i < k; i++) await rt.dispatch('nop', i).done; return now() - t0; },
      js: async (k) => {
        const f = async (/** @type {number} */ x) => x;
        const t0 = now();
        for (let i = 0; i < k; i++) await f(i);
        return now() - t0;
      },
    }, n, rounds);
    ran(rt.stats().returned > 0, 'nop tasks');
    add({ name: 'start: task start -> finish, one at a time', unit: 'task', subject: 'dispatch of an entry that returns at once, awaited', value: s.task, scale: 'ns', baselineName: 'raw promising call', baseline: s.raw, goal: '<= 1.2x raw promising', counters: { tasks: rt.stats().returned } });
    add({ name: 'start: plain JavaScript async call (context)', unit: 'call', subject: 'an async function called and awaited', value: s.js, scale: 'ns', baselineName: 'raw promising call', baseline: s.raw });
    ran(deferredStarts > 0, 'the deferred promising calls');
    add({ name: 'start anatomy: a raw promising call deferred to a microtask', unit: 'call', subject: 'a promising call made from a microtask, settling a promise that is awaited', value: s.deferred, scale: 'ns', baselineName: 'raw promising call', baseline: s.raw, note: 'the floor for a start that is still queued (and can be cancelled) when dispatch() returns' });
    ran(resumptions > 0, 'the parked stack');
    add({ name: 'start anatomy: a parked stack resumed and parked again', unit: 'resumption', subject: 'what a start on a parked carrier pays in stack switches', value: s.parked, scale: 'ns', baselineName: 'raw promising call', baseline: s.raw, note: 'a start through the scheduler resumes a parked carrier and parks it again when the task returns' });
    await rt.close();
  }

  // --- 3. fan-out: batches started while other tasks are suspended
  for (const batch of !want('fanout') ? [] : host.fanoutBatches ?? (host.quick ? [64, 1024] : [64, 256, 1024])) {
    const background = 1000;
    /** @type {((v: number) => void)[]} */
    const holds = [];
    const hold = () => new Promise((r) => { holds.push(r); });
    // Raw: `background` promising calls parked on promises that stay pending,
    // then batches of promising calls that each suspend once.
    let rawParked = true;
    const raw = new WebAssembly.Instance(rawModule, { bench: { op: new WebAssembly.Suspending(() => (rawParked ? hold() : P1)) } });
    const rawOnce = WebAssembly.promising(/** @type {any} */ (raw.exports).op_once);
    const rawLoop = WebAssembly.promising(/** @type {any} */ (raw.exports).op_loop);
    const parkedRaw = Array.from({ length: background }, (_, i) => rawOnce(i));
    let floorCalls = 0;
    rawParked = false;
    // Scheduler: the same, as tasks.
    let parked = true;
    const rt = await Runtime.load(benchSource, {
      stdout: () => {},
      imports: { bench: { op: suspend(() => (parked ? hold() : P1)) } },
    });
    const parkedTasks = Array.from({ length: background }, (_, i) => rt.dispatch('op_once', i));
    while (rt.stats().suspended < background) await turn();
    parked = false;
    const s = await interleaved({
      raw: async (k) => {
        const t0 = now();
        for (let done = 0; done < k; done += batch) {
          const calls = [];
          for (let i = 0; i < batch; i++) calls.push(rawOnce(i));
          await Promise.all(calls);
        }
        return now() - t0;
      },
      task: async (k) => {
        const t0 = now();
        for (let done = 0; done < k; done += batch) {
          const tasks = [];
          for (let i = 0; i < batch; i++) tasks.push(rt.dispatch('op_once', i).done);
          await Promise.all(tasks);
        }
        return now() - t0;
      },
      // The least a task of such a batch can cost: it is still queued when
      // dispatch() returns (a promising call made from a microtask, settling
      // a promise that is awaited, as a task's `done`), and its wait, which
      // ends while the batch's starts queued before it have yet to run,
      // suspends once more (first in, first out): two waits a call.
      floor: async (k) => {
        const t0 = now();
        for (let done = 0; done < k; done += batch) {
          const calls = [];
          for (let i = 0; i < batch; i++) {
            calls.push(new Promise((settle) => { P1.then(() => rawLoop(2).then(settle)); }));
          }
          for (const v of await Promise.all(calls)) floorCalls += v === 2 ? 1 : 0;
        }
        return now() - t0;
      },
    }, Math.max(batch * 8, host.quick ? 2048 : 8192), rounds);
    ran(rt.stats().returned >= batch, 'fan-out tasks');
    add({ name: `fan-out: batches of ${batch} starts beside ${background} suspended`, unit: 'task', subject: `${batch} tasks that each suspend once, started together`, value: s.task, scale: 'ns', baselineName: 'a promising call each', baseline: s.raw, goal: '>= 10x cheaper than a promising call each', counters: { tasks: rt.stats().returned, carrierReuses: rt.stats().carrierReuses } });
    ran(floorCalls > 0, 'the fan-out floor');
    add({ name: `fan-out anatomy: a promising call deferred to a microtask that waits twice, batches of ${batch}`, unit: 'task', subject: `${batch} promising calls made together, each from a microtask, settling a promise that is awaited, and suspending twice`, value: s.floor, scale: 'ns', baselineName: 'a promising call each', baseline: s.raw, note: 'the floor for a task of a fan-out batch: still queued (and cancellable) when dispatch() returns, and its wait, which ends behind the starts queued before it, suspends once more' });
    for (const r of holds) r(0);
    await Promise.all(parkedRaw);
    await Promise.all(parkedTasks.map((t) => t.done));
    await rt.close();
  }
  // What a task's first wait pays for its AbortSignal, beside a promising
  // call: every task that waits gets an AbortController of its own.
  if (want('fanout')) {
    const raw = new WebAssembly.Instance(rawModule, { bench: { op: new WebAssembly.Suspending(() => P1) } });
    const rawNop = WebAssembly.promising(/** @type {any} */ (raw.exports).nop);
    /** @type {AbortSignal[]} */
    let kept = [];
    const n = host.quick ? 5000 : 50000;
    const s = await interleaved({
      raw: async (k) => { const t0 = now(); const calls = []; for (let i = 0; i < k; i++) calls.push(rawNop(i)); await Promise.all(calls); return now() - t0; },
      controller: async (k) => {
        const t0 = now();
        kept = [];
        for (let i = 0; i < k; i++) kept.push(new AbortController().signal);
        return now() - t0;
      },
    }, n, rounds);
    ran(kept.length > 0 && !kept[0].aborted, 'the AbortControllers');
    add({ name: 'fan-out anatomy: an AbortController and its signal per task', unit: 'task', subject: 'new AbortController().signal, kept', value: s.controller, scale: 'ns', baselineName: 'a promising call each', baseline: s.raw, note: 'what every task that waits pays for the signal its operations receive, in this engine' });
  }

  // --- 4. the Asyncify peer: switch cost, compute speed, binary size
  if (want('asyncify')) {
    const { asyncifyPeer } = await import('./asyncify-driver.mjs');
    const peer = await asyncifyPeer(await host.bytes('bench_asyncify'), () => P1, await host.bytes('bench_plain'));
    const rt = await load();
    const raw = new WebAssembly.Instance(rawModule, { bench: { op: new WebAssembly.Suspending(() => P1) } });
    const rawLoop = WebAssembly.promising(/** @type {any} */ (raw.exports).op_loop);
    const n = host.quick ? 20000 : 300000;
    const s = await interleaved({
      asyncify: async (k) => { const t0 = now(); const r = await peer.opLoop(k); if (r !== k) throw new Error('asyncify loop'); return now() - t0; },
      snail: async (k) => { const t0 = now(); const t = rt.dispatch('op_loop', k); await t.done; return now() - t0; },
      raw: async (k) => { const t0 = now(); await rawLoop(k); return now() - t0; },
    }, n, rounds);
    ran(peer.unwinds > 0, 'the Asyncify peer unwound');
    add({ name: 'asyncify: switch through snail-core vs Asyncify', unit: 'switch', subject: 'snail-core (JSPI) round trip', value: s.snail, scale: 'ns', baselineName: 'Asyncify round trip', baseline: s.asyncify, goal: '< 1x Asyncify (faster switches)', counters: { asyncifyUnwinds: peer.unwinds } });
    add({ name: 'asyncify: raw JSPI vs Asyncify (context)', unit: 'switch', subject: 'raw JSPI round trip', value: s.raw, scale: 'ns', baselineName: 'Asyncify round trip', baseline: s.asyncify });
    // The same waits 32 frames down: Asyncify unwinds and rewinds every frame
    // at every switch; JSPI switches the whole stack at once.
    const unwindsBefore = peer.unwinds;
    const d = await interleaved({
      asyncify: async (k) => { const t0 = now(); const r = await peer.deepOpLoop(k); if (r !== k) throw new Error('asyncify deep loop'); return now() - t0; },
      snail: async (k) => { const t0 = now(); const t = rt.dispatch('deep_op_loop', k); await t.done; if (t.value !== k) throw new Error('snail-core deep loop'); return now() - t0; },
    }, host.quick ? 10000 : 100000, rounds);
    ran(peer.unwinds > unwindsBefore, 'the Asyncify peer unwound 32 frames');
    add({ name: 'asyncify: switch 32 frames deep, snail-core vs Asyncify', unit: 'switch', subject: 'snail-core (JSPI) round trip from 32 frames down', value: d.snail, scale: 'ns', baselineName: 'Asyncify round trip', baseline: d.asyncify, goal: '< 1x Asyncify (faster switches)', counters: { asyncifyUnwinds: peer.unwinds - unwindsBefore } });
    // Rounds of about 7 ms: a page's clock has a resolution of 0.1 ms.
    const m = host.quick ? 60 : 600;
    const c = await interleaved({
      asyncify: async (k) => { const t0 = now(); peer.compute(k); return now() - t0; },
      snail: async (k) => { const t0 = now(); const t = rt.dispatch('compute', k); await t.done; return now() - t0; },
    }, m, rounds);
    // A leaf loop, which no path to a wait crosses: Asyncify leaves it as it
    // is, so both builds run the same code (context for the next row).
    add({ name: 'asyncify: straight-line compute, snail-core build vs Asyncify build (context)', unit: 'round of 4 KiB', subject: 'FNV hashing in the snail-core build, in a leaf function', value: c.snail, scale: 'ns', baselineName: 'the Asyncify build', baseline: c.asyncify, note: 'code Asyncify does not instrument: the same in both builds' });
    // The same hashing on a path that may wait (it never does here): code that
    // Asyncify instruments and JSPI leaves as it is.
    /** @type {number[]} */
    const hashes = [];
    const cw = await interleaved({
      asyncify: async (k) => { const t0 = now(); hashes.push(await peer.computeMayWait(k)); return now() - t0; },
      snail: async (k) => { const t0 = now(); const t = rt.dispatch('compute_may_wait', k); await t.done; hashes.push(/** @type {number} */ (t.value)); return now() - t0; },
    }, m, rounds);
    ran(hashes.length > 0 && hashes.every((h) => h === hashes[0]), 'compute_may_wait in both builds, with the same hash');
    add({ name: 'asyncify: compute on a path that may wait, snail-core build vs Asyncify build', unit: 'round of 4 KiB', subject: 'FNV hashing through a function that may call bench.op', value: cw.snail, scale: 'ns', baselineName: 'the Asyncify build', baseline: cw.asyncify, goal: '< 1x Asyncify (faster code)', note: 'Asyncify instruments every function and call on a path to a suspending import' });
    const sizes = { snail: (await host.bytes('bench')).length, asyncify: peer.size, plain: peer.plainSize };
    results.push({
      name: 'asyncify: binary size', unit: 'module', subject: 'workload code: uninstrumented (what JSPI needs) vs Asyncify-instrumented',
      value: { min: sizes.plain, median: sizes.plain, max: sizes.plain }, scale: 'bytes', baselineName: 'Asyncify build',
      baseline: { min: sizes.asyncify, median: sizes.asyncify, max: sizes.asyncify }, ratio: sizes.plain / sizes.asyncify, goal: '< 1x Asyncify (smaller)',
      note: `the snail-core program with the core linked in is ${sizes.snail} bytes`,
    });
    host.log(`asyncify: binary size ${sizes.plain} vs ${sizes.asyncify} bytes (snail-core program ${sizes.snail})`);
    await rt.close();
  }

  // --- 4b. a realistic program: a key-value store over block devices (bench/realistic.mjs)
  if (want('realistic')) {
    for (const r of await realisticRows({ host, rounds, interleaved, withBudgetLifted })) add(r);
  }

  // --- 5. memory per suspended task and per queued task (fresh processes)
  const memory = want('memory');
  if (memory && host.memory) {
    const n = host.quick ? 5000 : 20000;
    const raw = await host.memory('raw', n);
    const suspended = await host.memory('suspended', n);
    const queued = await host.memory('queued', host.quick ? 50000 : 200000);
    ran(raw.checked === n && suspended.checked === n && queued.checked > 0, 'the memory probes');
    const one = (/** @type {number} */ v) => ({ min: v, median: v, max: v });
    add({ name: 'memory: resident bytes per suspended task', unit: 'task', subject: `${n.toLocaleString('en')} tasks parked at a wait, measured in a fresh process after a warm-up`, value: one(suspended.perItem), scale: 'bytes', baselineName: 'a bare suspended JSPI call', baseline: one(raw.perItem), goal: '<= 6144 bytes', note: 'includes the JSPI stack, the task and its execution record, the AbortController of its waits' });
    add({ name: 'memory: resident bytes per queued task', unit: 'task', subject: `${queued.n.toLocaleString('en')} dispatched tasks held back by admission control, in a fresh process after a warm-up`, value: one(queued.perItem), scale: 'bytes', goal: '<= 256 bytes' });
  } else if (memory) {
    host.log('memory: skipped, this host cannot measure in a fresh process');
  }

  // --- 6. one million tasks
  if (want('scale')) {
    const n = host.quick ? 100000 : 1000000;
    const rt = await load();
    const t0 = now();
    let last;
    for (let i = 0; i < n; i++) last = rt.dispatch(i % 2 ? 'op_once' : 'nop', i);
    await rt.drain();
    const ms = now() - t0;
    const st = rt.stats();
    ran(st.returned === n && last?.state === 'returned', 'one million tasks');
    add({ name: `scale: ${n.toLocaleString('en')} dispatched tasks complete`, unit: 'task', subject: 'half return at once, half suspend once', value: { min: (ms * 1e6) / n, median: (ms * 1e6) / n, max: (ms * 1e6) / n }, scale: 'ns', goal: 'all complete, no crash', met: true, counters: { returned: st.returned, peakEntered: st.peakEntered, peakLive: st.peakLive } });
    await rt.close();
  }

  /**
   * What the engine itself pauses the event loop for while many calls are
   * suspended: a young-generation collection looks for young objects on the
   * suspended stacks (V8 14.6, Node 26's, on every one of them in every
   * collection), so it lasts longer the more calls are suspended, raw JSPI's
   * included. Timed with `n` bare promising calls suspended and with none.
   * @param {number} n @param {() => void} minorGc
   */
  const youngCollectionBeside = async (n, minorGc) => {
    /** @type {((v: number) => void)[]} */
    const holds = [];
    const raw = new WebAssembly.Instance(rawModule, { bench: { op: new WebAssembly.Suspending(() => new Promise((r) => { holds.push(r); })) } });
    const rawOnce = WebAssembly.promising(/** @type {any} */ (raw.exports).op_once);
    const collections = 4;
    const timed = () => {
      const t0 = now();
      for (let i = 0; i < collections; i++) minorGc();
      return (now() - t0) / collections;
    };
    // The calls are suspended once, with the baseline's rounds before and
    // after them: a renderer that suspends this many calls again and again
    // crashes before it collects the finished stacks.
    const half = Math.max(2, Math.min(rounds, 8) >> 1);
    /** @type {number[]} */
    const none = [];
    for (let r = 0; r < half; r++) none.push(timed());
    const calls = Array.from({ length: n }, (_, i) => rawOnce(i));
    const peak = holds.length;
    /** @type {number[]} */
    const suspended = [];
    for (let r = 0; r < 2 * half; r++) suspended.push(timed());
    for (const r of holds.splice(0)) r(0);
    await Promise.all(calls);
    host.gc?.();
    await turn();
    for (let r = 0; r < half; r++) none.push(timed());
    ran(peak === n, 'the suspended raw calls');
    add({ name: `fairness anatomy: a young-generation collection beside ${n.toLocaleString('en')} suspended raw JSPI calls`, unit: 'collection', subject: `${collections} collections in a row, per collection`, value: spread(suspended), scale: 'ms', baselineName: 'the same collection with none suspended', baseline: spread(none), note: 'a pause of the engine that the runtime cannot shorten: any allocation while this many calls are suspended leads to such collections', counters: { suspended: peak } });
  };

  // --- 7. fairness: event-loop delay while 10,000 tasks churn
  if (want('fairness')) {
    const n = host.quick ? 2000 : 10000;
    const rt = await load();
    const probe = host.loopDelay();
    // The probe starts after the dispatch loop: it measures the scheduler's
    // turns, not how long the caller's own loop ran.
    const tasks = Array.from({ length: n }, (_, i) => rt.dispatch('yield_loop', 200 + (i % 50)));
    probe.start();
    await rt.drain();
    const d = probe.stop();
    ran(tasks.every((t) => t.state === 'returned') && d.samples > 0, 'churning tasks and the probe');
    const young = d.youngCollections;
    // The 99th percentile is about the hundredth of the samples that came
    // latest: whether the young collections outnumber those decides it.
    const collections = young ? `, ${young.count} young-generation collections (longest ${young.longestMs.toFixed(2)} ms) against ${Math.ceil(d.samples / 100)} samples in the top 1%` : '';
    add({ name: `fairness: event-loop delay while ${n.toLocaleString('en')} tasks churn (p99)`, unit: 'probe', subject: `p50 ${d.p50.toFixed(2)} ms, max ${d.max.toFixed(2)} ms, ${d.samples} samples${collections}`, value: { min: d.p50, median: d.p99, max: d.max }, scale: 'ms', goal: '<= 5 ms p99', counters: { yields: rt.stats().yields, samples: d.samples, ...(young ? { youngCollections: young.count } : {}) } });
    await rt.close();
  }
  // --- 7b. collection: what a young-generation collection costs beside the suspended calls
  if (want('collection') && host.minorGc) {
    // After the churning runtime is gone: a renderer that holds its memory
    // and this many more stacks at once crashes.
    host.gc?.();
    await turn();
    await youngCollectionBeside(host.quick ? 2000 : 10000, host.minorGc);
  }

  // --- 8. cancellation: timer-suspended tasks settle after close()
  if (want('cancellation')) {
    const n = host.quick ? 2000 : 10000;
    // The floor: as many bare promising calls parked on timers, each timer
    // cleared and its promise settled, until every call has returned.
    /** @type {{ id: ReturnType<typeof setTimeout>, resolve: (v: number) => void }[]} */
    const timers = [];
    const raw = new WebAssembly.Instance(rawModule, {
      bench: { op: new WebAssembly.Suspending(() => new Promise((resolve) => { timers.push({ id: setTimeout(resolve, 60000, 1), resolve }); })) },
    });
    const rawOnce = WebAssembly.promising(/** @type {any} */ (raw.exports).op_once);
    // Rounds leave thousands of finished engine stacks behind each; a renderer
    // that holds several rounds' at once crashes, so they are collected first.
    const collect = host.gc ?? (() => {});
    const rawRound = async () => {
      collect();
      await turn();
      const rawCalls = Array.from({ length: n }, (_, i) => rawOnce(i));
      await turn();
      ran(timers.length === n, 'parked raw calls');
      const r0 = now();
      for (const t of timers.splice(0)) { clearTimeout(t.id); t.resolve(1); }
      await Promise.all(rawCalls);
      return now() - r0;
    };
    let cancelled = 0;
    const round = async (/** @type {number} */ count) => {
      // Small stack segments: a runtime per round, each with `count` tasks'
      // segments in its memory, must not exhaust a renderer's memory.
      collect();
      await turn();
      const rt = await load({ stackSize: 4096 });
      const tasks = Array.from({ length: count }, () => rt.dispatch('sleep_once', 60000));
      while (rt.stats().suspended < count) await turn();
      const t0 = now();
      await rt.close();
      const ms = now() - t0;
      ran(tasks.every((t) => t.state === 'cancelled'), 'cancelled sleepers');
      if (count === n) cancelled += rt.stats().cancelled;
      return ms;
    };
    // A warm-up round, then three measured ones: close() runs code that
    // nothing else runs, and a single cold sample measures the compiler. With
    // one measured round (a renderer that holds few stacks), the warm-up is
    // the runtime's only and small.
    const measured = host.cancellationRounds ?? 3;
    if (measured > 1) await rawRound();
    await round(measured > 1 ? n / 5 : n / 10);
    const rawMs = [];
    const ms = [];
    for (let i = 0; i < measured; i++) {
      rawMs.push(await rawRound());
      ms.push(await round(n));
    }
    add({ name: `cancellation: ${n.toLocaleString('en')} timer-suspended tasks settle after close()`, unit: 'close', subject: `close() of a runtime with every task sleeping (one warm-up round, ${measured} measured)`, value: spread(ms), scale: 'ms', baselineName: 'bare promising calls, timers cleared and settled', baseline: spread(rawMs), goal: '<= 50 ms', counters: { cancelled } });
  }

  // One runtime per worker, each on its own agent: only a host that can start
  // workers measures it (Node, bench/workers.mjs).
  if (want('workers') && host.workers) {
    for (const r of await host.workers({ quick: host.quick, log: host.log })) results.push(r);
  }

  for (const r of results) judge(r);
  return { env: host.env, results };
}

/**
 * Sets whether a result meets its goal (a limit on its median, or on its
 * ratio for a goal in x), unless that was decided already.
 * @param {Result} r
 */
export function judge(r) {
  if (r.met !== undefined || !r.goal) return;
  const m = /^([<>]=?) ([\d.]+)/.exec(r.goal);
  if (!m) return;
  const limit = Number(m[2]);
  const x = r.goal.includes('x') ? (r.goal.includes('cheaper') ? 1 / (r.ratio ?? Infinity) : r.ratio ?? Infinity) : r.value.median;
  r.met = m[1] === '<=' ? x <= limit : m[1] === '<' ? x < limit : m[1] === '>=' ? x >= limit : x > limit;
}
