// Runs the contract cases under another JavaScript engine (Deno, Bun): starts
// the fetch cases' HTTP server here in Node, runs tests/engines/run-cases.mjs
// in the engine, and reports each case as a node:test subtest, so that a case
// failing in one engine fails by name.
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

import { handleHoldRoutes } from '../cases/http-routes.mjs';
import { suites } from '../cases/index.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The engines, as the npm packages install them: how to run a script, and
 * how to run node:test files with the engine's own test runner (both take
 * node:test files).
 */
export const ENGINES = Object.freeze({
  deno: {
    name: 'Deno',
    bin: path.join(root, 'node_modules/.bin/deno'),
    run: ['run', '--allow-all', '--no-prompt'],
    test: ['test', '--allow-all', '--no-prompt', '--no-check'],
    version: ['--version'],
  },
  bun: {
    name: 'Bun',
    bin: path.join(root, 'node_modules/.bin/bun'),
    run: ['run'],
    // Bun's runner stops a test after 5 s unless told otherwise; node:test has no limit.
    test: ['test', '--timeout', '300000'],
    version: ['--version'],
  },
});

/**
 * Cases an engine fails for a defect of its own, each with the failure it
 * shows (any other failure of the case still fails) and what the defect is.
 * They are reported as TODO, never as passes.
 * @type {Record<string, { case: string, failure: RegExp, defect: string }[]>}
 */
export const KNOWN_DEFECTS = {
  deno: [],
  bun: [{
    case: 'adapters/adapter contract (fetchResponse): abort_disarms_promptly_and_settles_after_cleanup',
    failure: /the operation did not settle within 2 turns of the abort/,
    defect: 'Bun 1.4 handles an aborted fetch on its HTTP client thread: the rejection reaches JavaScript '
      + '6 to 370 event-loop turns after abort() (0.1 to 40 ms), where the adapter contract allows 2',
  }],
};

/**
 * Starts a server with the fetch cases' routes on 127.0.0.1.
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startRoutes() {
  const server = http.createServer((req, res) => {
    if (!handleHoldRoutes(req, res)) {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * Runs a script under an engine and yields the JSON lines it prints; rejects
 * (with its standard error) if it exits without the closing `{ done: true }`.
 * @param {keyof typeof ENGINES} engine @param {string} script  relative to the root
 * @param {string[]} args
 * @returns {AsyncGenerator<any>}
 */
export async function* engineLines(engine, script, args) {
  const e = ENGINES[engine];
  const child = spawn(e.bin, [...e.run, path.join(root, script), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  let done = false;
  try {
    for await (const line of readline.createInterface({ input: child.stdout })) {
      if (!line.startsWith('{')) continue;
      const value = JSON.parse(line);
      if (value.done) done = true;
      else yield value;
    }
  } finally {
    if (!done) child.kill('SIGKILL');
  }
  const { code, signal } = /** @type {{ code: number | null, signal: string | null }} */ (await exited);
  if (!done || code !== 0) {
    throw new Error(`${e.name} ${done ? 'exited' : 'stopped before the last case'} (${signal ?? `code ${code}`}):\n${stderr.slice(-4000)}`);
  }
}

/** The engine's version line (`deno 2.9.6 ...`, `1.4.4`). @param {keyof typeof ENGINES} engine */
export async function engineVersion(engine) {
  const e = ENGINES[engine];
  const child = spawn(e.bin, e.version, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => { out += chunk; });
  await new Promise((resolve) => child.once('close', resolve));
  return out.split('\n')[0].trim();
}

/**
 * Runs a script under an engine to its end.
 * @param {keyof typeof ENGINES | 'node'} engine @param {string[]} args  the script (from the root) and its arguments
 * @param {{ timeout?: number }} [options]
 */
export function runUnder(engine, args, options = {}) {
  const command = engine === 'node' ? [process.execPath] : [ENGINES[engine].bin, ...ENGINES[engine].run];
  return spawnSync(command[0], [...command.slice(1), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: options.timeout ?? 120_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
}

/**
 * Declares the contract cases under `engine` as node:test tests: one test that
 * runs the engine, with a subtest per case, in the order of tests/cases/.
 * Every case of tests/cases/ must report, so a case the engine never reached
 * fails too. A case failing with a known defect of the engine is a TODO.
 * @param {typeof import('node:test')} nodeTest @param {keyof typeof ENGINES} engine
 */
export function engineCases({ test }, engine) {
  const e = ENGINES[engine];
  test(`contract cases (${e.name})`, async (t) => {
    const routes = await startRoutes();
    t.after(() => routes.close());
    t.diagnostic(await engineVersion(engine));
    const expected = Object.entries(suites).flatMap(([suite, cases]) => cases.map((c) => `${suite}/${c.name}`));
    const seen = new Set();
    for await (const r of engineLines(engine, 'tests/engines/run-cases.mjs', [routes.url])) {
      const id = `${r.suite}/${r.name}`;
      seen.add(id);
      const known = KNOWN_DEFECTS[engine].find((k) => k.case === id);
      if (!r.ok && known && known.failure.test(r.error)) {
        await t.test(`${r.name} (${e.name})`, { todo: `engine defect: ${known.defect}` }, () => {
          throw new Error(r.error);
        });
        continue;
      }
      await t.test(`${r.name} (${e.name})`, () => {
        if (!r.ok) throw new Error(`${id} failed under ${e.name}:\n${r.error}`);
      });
    }
    const missing = expected.filter((id) => !seen.has(id));
    if (missing.length) throw new Error(`${missing.length} cases never reported under ${e.name}: ${missing.join(', ')}`);
  });
}

/**
 * Runs node:test files with the engine's own test runner; rejects with the
 * end of its output unless every test passed.
 * @param {keyof typeof ENGINES} engine @param {string[]} files  from the root
 * @param {string[]} [options]  the runner's own options (a filter)
 */
export async function engineTestRunner(engine, files, options = []) {
  const e = ENGINES[engine];
  // Without node:test's own variable: Bun's runner would take itself for a
  // child of node:test and report in node:test's protocol.
  const { NODE_TEST_CONTEXT, ...env } = process.env;
  const child = spawn(e.bin, [...e.test, ...options, ...files.map((f) => `./${f}`)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, NO_COLOR: '1' },
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const code = await new Promise((resolve) => child.once('close', (c, signal) => resolve(signal ?? c)));
  if (code !== 0) {
    // The failures, with what each threw, and the summary.
    const failures = output.split(/\n(?=\S)/).filter((block) => /\bfail|Error|FAILED|timed out/.test(block)).join('\n');
    throw new Error(`${e.name}'s test runner (${files.join(' ')}) ended with ${code}:\n${failures.slice(-12000)}`);
  }
  return output;
}
