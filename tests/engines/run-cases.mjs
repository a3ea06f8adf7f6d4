// Runs the contract cases (tests/cases/) in the JavaScript runtime that runs
// this file (Deno, Bun, or Node), one after another, and prints one JSON line
// per case: { suite, name, ok, ms, error? }. tests/engines/engines.test.mjs
// starts it under each engine and turns every line into a test.
//
//   deno run -A tests/engines/run-cases.mjs HTTP_BASE [SUITE/NAME ...]
//   bun tests/engines/run-cases.mjs HTTP_BASE [SUITE/NAME ...]
//
// HTTP_BASE is the origin of a server with the fetch cases' routes
// (tests/cases/http-routes.mjs), which the parent process runs.
// The package root as Node, Deno and Bun resolve it (its "node" condition):
// the runtime with the Node platform, which reads program files.
import '../../host/node/root.mjs';
import { suites } from '../cases/index.mjs';

const g = /** @type {any} */ (globalThis);
const argv = /** @type {string[]} */ (g.Deno ? g.Deno.args : g.process.argv.slice(2));
const [httpBase, ...only] = argv;
const engine = g.Deno ? 'deno' : g.Bun ? 'bun' : 'node';
const programs = new URL('../../build/programs/', import.meta.url);
const CASE_TIMEOUT_MS = 60_000;

/** @type {import('../cases/support.mjs').CaseContext} */
const ctx = {
  env: engine,
  // A file path, as a Node user would pass it.
  program: (name) => decodeURIComponent(new URL(`${name}.wasm`, programs).pathname),
  httpBase,
};

/** @param {unknown} e */
function describe(e) {
  if (!(e instanceof Error)) return String(e);
  let text = e.stack ?? `${e.name}: ${e.message}`;
  if (!text.includes(e.message)) text = `${e.name}: ${e.message}\n${text}`;
  /** @type {unknown} */
  let cause = e.cause;
  for (let depth = 0; cause !== undefined && depth < 4; depth++) {
    text += `\ncaused by ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}

const write = (/** @type {object} */ line) => {
  const text = `${JSON.stringify(line)}\n`;
  if (g.Deno) g.Deno.stdout.writeSync(new TextEncoder().encode(text));
  else g.process.stdout.write(text);
};

for (const [suite, cases] of Object.entries(suites)) {
  for (const c of cases) {
    if (only.length && !only.includes(`${suite}/${c.name}`)) continue;
    const started = performance.now();
    /** @type {any} */
    let timer;
    try {
      // A case that never settles fails by name rather than holding the run.
      await Promise.race([c.run(ctx), new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the case did not settle within ${CASE_TIMEOUT_MS / 1000} s`)), CASE_TIMEOUT_MS);
      })]);
      write({ suite, name: c.name, ok: true, ms: performance.now() - started });
    } catch (error) {
      write({ suite, name: c.name, ok: false, ms: performance.now() - started, error: describe(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}
write({ done: true });
