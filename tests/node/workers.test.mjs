// One runtime per worker_threads worker (docs/workers.md): the document's
// snippets run as written, and the pool of examples/workers/ spreads
// independent tasks over its workers, gathers what one runtime would compute,
// and carries cancellation and close to the workers.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { Runtime } from '../../host/browser/index.mjs';
import { Pool } from '../../examples/workers/pool.mjs';
import { root } from './helpers.mjs';

const doc = fs.readFileSync(path.join(root, 'docs/workers.md'), 'utf8');
/** The document's JavaScript blocks. */
const blocks = [...doc.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const PROGRAM = pathToFileURL(path.join(root, 'build/programs/work.wasm'));
/** A folder inside the package, so that `import 'snail-core'` resolves to it. */
const scratch = path.join(root, 'build', `workers-test-${process.pid}`);

before(() => {
  assert.ok(fs.existsSync(PROGRAM), 'build/programs/work.wasm is built (npm run build)');
  fs.mkdirSync(scratch, { recursive: true });
});

after(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Runs `file` in the scratch folder with this Node. @param {string} file */
function node(file) {
  const r = spawnSync(process.execPath, [file], { cwd: scratch, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, all: `${r.stdout}${r.stderr}` };
}

/** What one runtime in this thread computes for `work(n)`. @param {number[]} inputs */
async function reference(inputs) {
  const rt = await Runtime.load(PROGRAM);
  const tasks = inputs.map((n) => rt.dispatch('work', n));
  await rt.drain();
  await rt.close();
  return tasks.map((t) => t.value);
}

test('workers: the_worker_threads_snippets_of_workers_md_run_as_written', () => {
  const main = blocks.find((b) => b.startsWith('// main.mjs'));
  const worker = blocks.find((b) => b.startsWith('// hello-worker.mjs'));
  assert.ok(main && worker, 'workers.md shows main.mjs and hello-worker.mjs');
  fs.writeFileSync(path.join(scratch, 'main.mjs'), main);
  fs.writeFileSync(path.join(scratch, 'hello-worker.mjs'), worker);
  const r = node('main.mjs');
  assert.equal(r.status, 0, r.all);
  const said = /console\.log\(message\); \/\/ (.+)$/m.exec(main)?.[1];
  assert.equal(said, 'returned 0');
  assert.equal(r.stdout, `${said}\n`);
});

test('workers: the_pool_snippet_of_workers_md_runs_as_written', () => {
  const snippet = blocks.find((b) => b.includes("from './pool.mjs'"));
  assert.ok(snippet, 'workers.md shows the pool');
  for (const f of ['pool.mjs', 'worker.mjs']) fs.copyFileSync(path.join(root, 'examples/workers', f), path.join(scratch, f));
  fs.copyFileSync(PROGRAM, path.join(scratch, 'work.wasm'));
  fs.writeFileSync(path.join(scratch, 'pool-main.mjs'), snippet);
  const r = node('pool-main.mjs');
  assert.equal(r.status, 0, r.all);
  assert.equal(r.stdout, `${/console\.log\(\(await long\)\.state\); +\/\/ (\w+)$/m.exec(snippet)?.[1]}\n`);
});

test('workers: a_pool_spreads_tasks_over_its_workers_and_gathers_what_one_runtime_computes', async () => {
  const inputs = Array.from({ length: 12 }, (_, i) => 20 + i);
  const expected = await reference(inputs);
  const pool = await Pool.create({ size: 3, program: PROGRAM });
  try {
    assert.equal(pool.size, 3);
    const outcomes = await Promise.all(inputs.map((n) => pool.run('work', n)));
    assert.deepEqual(outcomes.map((o) => [o.state, o.value, o.error]), expected.map((v) => ['returned', v, null]));
    assert.deepEqual([...new Set(outcomes.map((o) => o.worker))].sort(), [0, 1, 2], 'every worker ran tasks');
  } finally {
    await pool.close();
  }
});

test('workers: cancellation_and_close_reach_the_tasks_in_their_workers', async (t) => {
  const pool = await Pool.create({ size: 2, program: PROGRAM });
  // If an assertion fails, the workers still end (close() twice is harmless).
  t.after(() => pool.close());
  // A task that would run for minutes, cancelled while it runs (it yields every round).
  const stop = new AbortController();
  const long = pool.run('work', 1_000_000, { signal: stop.signal });
  const short = pool.run('work', 5);
  assert.equal((await short).state, 'returned', 'the other worker is not held up');
  stop.abort();
  const cancelled = await long;
  assert.equal(cancelled.state, 'cancelled');
  // A signal already aborted: the task never runs to its end.
  const before = await pool.run('work', 1_000_000, { signal: AbortSignal.abort() });
  assert.equal(before.state, 'cancelled');
  // close() cancels what still runs, in every worker, and reports it.
  const running = [pool.run('work', 1_000_000), pool.run('work', 1_000_000)];
  const done = await pool.run('work', 1);
  assert.equal(done.state, 'returned');
  const report = await pool.close();
  assert.deepEqual((await Promise.all(running)).map((o) => o.state), ['cancelled', 'cancelled']);
  assert.deepEqual(report, { cancelled: 2, stuck: 0 });
  await assert.rejects(pool.run('work', 1), /the pool is closed/);
  assert.deepEqual(await pool.close(), { cancelled: 0, stuck: 0 }, 'a second close has nothing to do');
});

test('workers: a_program_that_cannot_load_fails_pool_create_with_the_workers_reason', async () => {
  await assert.rejects(Pool.create({ size: 2, program: pathToFileURL(path.join(root, 'build/programs/no-such.wasm')) }), /worker \d: SnailError: .*no-such\.wasm/);
  await assert.rejects(Pool.create({ size: 0, program: PROGRAM }), /size must be a positive integer/);
});
