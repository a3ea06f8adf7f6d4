// JSPI (WebAssembly JavaScript Promise Integration) is shipped in Node 25+ and
// Chrome 137+, but TypeScript's lib files do not describe it yet.
declare namespace WebAssembly {
  class Suspending {
    constructor(fn: (...args: any[]) => unknown);
  }
  function promising<F extends (...args: any[]) => any>(fn: F): (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>;
  class SuspendError extends Error {}
}
