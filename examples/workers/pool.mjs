// A small pool of workers, each with its own snail-core runtime of the same
// program (worker.mjs): independent tasks spread over N JavaScript agents.
// One runtime schedules its tasks on one agent, so a CPU-bound task holds
// that agent until it waits; N workers run N such tasks at once.
//
//   const pool = await Pool.create({ size: 4, program: new URL('./work.wasm', import.meta.url) });
//   const values = await Promise.all(inputs.map((n) => pool.run('work', n)));
//   await pool.close();
//
// Works with the browser's module Workers and with Node's worker_threads
// (docs/workers.md). Nothing is shared between the workers: each task runs in
// one worker with that worker's handler bindings, and a task that needs a
// result of another gets it through the page, not through the runtime.

/**
 * @typedef {{ state: 'returned' | 'failed' | 'cancelled', value: number | null, error: string | null, worker: number }} Outcome
 * @typedef {{ post: (message: unknown) => void, terminate: () => Promise<unknown> | void }} Channel
 */

const WORKER = new URL('./worker.mjs', import.meta.url);

/**
 * Starts a worker running worker.mjs: a module Worker where the global
 * `Worker` exists (browsers, Deno), a worker_threads Worker in Node.
 * @param {(message: any) => void} receive
 * @returns {Channel}
 */
function startWorker(receive) {
  if (typeof globalThis.Worker === 'function') {
    const worker = new Worker(WORKER, { type: 'module' });
    worker.addEventListener('message', (event) => receive(event.data));
    worker.addEventListener('error', (event) => receive({ type: 'failed', error: event.message }));
    return { post: (m) => worker.postMessage(m), terminate: () => worker.terminate() };
  }
  const { Worker: NodeWorker } = process.getBuiltinModule('node:worker_threads');
  const worker = new NodeWorker(WORKER);
  worker.on('message', receive);
  worker.on('error', (error) => receive({ type: 'failed', error: String(error) }));
  return { post: (m) => worker.postMessage(m), terminate: () => worker.terminate() };
}

export class Pool {
  /**
   * Starts `size` workers and loads `program` in each.
   * @param {{ size: number, program: string | URL, options?: Record<string, unknown>, runtime?: string | URL }} init
   *   `program` as each worker's Runtime.load() takes it (a URL or a path);
   *   `options`: what may cross to a worker (numbers, strings; no functions);
   *   `runtime`: where a worker imports snail-core from (default 'snail-core';
   *   a page without a bundler gives the URL of the package's index.mjs, since
   *   workers do not see the page's import map)
   * @returns {Promise<Pool>}
   */
  static async create({ size, program, options = {}, runtime = 'snail-core' }) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`Pool.create: size must be a positive integer, got ${size}`);
    const pool = new Pool();
    const ready = [];
    for (let i = 0; i < size; i++) {
      /** @type {{ resolve: () => void, reject: (e: Error) => void }} */
      let started = { resolve: () => {}, reject: () => {} };
      ready.push(new Promise((resolve, reject) => { started = { resolve: () => resolve(undefined), reject }; }));
      const slot = { index: i, busy: 0, channel: /** @type {Channel | null} */ (null), started };
      slot.channel = startWorker((message) => pool.#receive(slot, message));
      pool.#workers.push(slot);
    }
    for (const w of pool.#workers) w.channel?.post({ type: 'load', program: String(program), options, runtime: String(runtime) });
    try {
      await Promise.all(ready);
    } catch (error) {
      await pool.#terminate();
      throw error;
    }
    return pool;
  }

  /** @type {{ index: number, busy: number, channel: Channel | null, started: { resolve: () => void, reject: (e: Error) => void } }[]} */
  #workers = [];
  /** @type {Map<number, { resolve: (o: Outcome) => void, worker: number }>} */
  #pending = new Map();
  /** @type {((report: { cancelled: number, stuck: number }) => void)[]} */
  #closing = [];
  #nextId = 1;
  #closed = false;

  /** How many workers the pool has. */
  get size() {
    return this.#workers.length;
  }

  /**
   * Runs `entry(arg)` as a task in the least busy worker. Fulfils with how it
   * ended, never rejects: `{ state, value, error, worker }`. `signal`
   * cancels the task (it ends 'cancelled' once it unwound).
   * @param {string} entry @param {number} arg @param {{ signal?: AbortSignal }} [options]
   * @returns {Promise<Outcome>}
   */
  run(entry, arg, options = {}) {
    if (this.#closed) return Promise.reject(new Error('Pool.run: the pool is closed'));
    const worker = this.#workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.#nextId++;
    worker.busy++;
    const signal = options.signal;
    const cancel = () => worker.channel?.post({ type: 'cancel', id });
    return new Promise((resolve) => {
      this.#pending.set(id, {
        resolve: (outcome) => {
          signal?.removeEventListener('abort', cancel);
          resolve(outcome);
        },
        worker: worker.index,
      });
      worker.channel?.post({ type: 'run', id, entry, arg });
      if (signal?.aborted) cancel();
      else signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  /**
   * Closes every worker's runtime (what is still running is cancelled and
   * unwinds; its run() fulfils 'cancelled'), then ends the workers.
   * @returns {Promise<{ cancelled: number, stuck: number }>} totals over the workers
   */
  async close() {
    if (this.#closed) return { cancelled: 0, stuck: 0 };
    this.#closed = true;
    const reports = await Promise.all(this.#workers.map((w) => new Promise((resolve) => {
      this.#closing[w.index] = resolve;
      w.channel?.post({ type: 'close' });
    })));
    await this.#terminate();
    // A task whose last message had not arrived when its worker ended was cancelled with it.
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.resolve({ state: 'cancelled', value: null, error: null, worker: pending.worker });
    }
    return reports.reduce((sum, r) => ({ cancelled: sum.cancelled + (r?.cancelled ?? 0), stuck: sum.stuck + (r?.stuck ?? 0) }), { cancelled: 0, stuck: 0 });
  }

  async #terminate() {
    await Promise.all(this.#workers.map((w) => w.channel?.terminate()));
  }

  /**
   * @param {{ index: number, busy: number, started: { resolve: () => void, reject: (e: Error) => void } }} worker
   * @param {any} message
   */
  #receive(worker, message) {
    if (message.type === 'ready') worker.started.resolve();
    else if (message.type === 'failed') worker.started.reject(new Error(`worker ${worker.index}: ${message.error}`));
    else if (message.type === 'done') {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      worker.busy--;
      pending.resolve({ state: message.state, value: message.value, error: message.error, worker: worker.index });
    } else if (message.type === 'closed') this.#closing[worker.index]?.(message.report);
  }
}
