// A minimal Asyncify driver for the benchmark peer: the same workloads as the
// snail-core build, made suspendable by Binaryen's Asyncify pass instead of
// JSPI. One task, no scheduler: the cheapest an Asyncify switch gets.

/**
 * @param {Uint8Array} bytes  bench_asyncify.wasm
 * @param {(i: number) => Promise<number>} op  the host operation
 */
export async function asyncifyPeer(bytes, op, plainBytes = null) {
  const module = await WebAssembly.compile(/** @type {BufferSource} */ (bytes));
  /** @type {any} */
  let x = null;
  /** @type {Promise<number> | null} */
  let pending = null;
  let rewinding = false;
  let value = 0;
  let data = 0;
  const peer = {
    unwinds: 0,
    size: bytes.length,
    plainSize: plainBytes ? plainBytes.length : 0,
    /** @param {number} n */
    opLoop: (n) => run('op_loop', n),
    /** @param {number} n */
    deepOpLoop: (n) => run('deep_op_loop', n),
    /** @param {number} n */
    compute: (n) => x.compute(n),
    /** @param {number} n */
    computeMayWait: (n) => run('compute_may_wait', n),
  };
  const imports = {
    bench: {
      op: (/** @type {number} */ i) => {
        if (rewinding) {
          // Back from the rewind: the operation's value is the call's result.
          x.asyncify_stop_rewind();
          rewinding = false;
          return value;
        }
        pending = op(i);
        data = x.asyncify_data();
        x.asyncify_start_unwind(data);
        peer.unwinds++;
        return 0;
      },
    },
  };
  const instance = await WebAssembly.instantiate(module, imports);
  x = instance.exports;
  if (typeof x._initialize === 'function') x._initialize();

  /** Calls an export, unwinding and rewinding around every suspension. @param {string} name @param {number} arg */
  async function run(name, arg) {
    let result = x[name](arg);
    while (pending !== null) {
      x.asyncify_stop_unwind();
      const p = pending;
      pending = null;
      value = await p;
      x.asyncify_start_rewind(data);
      rewinding = true;
      result = x[name](arg);
    }
    return result;
  }
  return peer;
}
