// One runtime per module Worker in Chromium (docs/workers.md): the
// document's worker snippet runs as written, and the pool of
// examples/workers/ spreads tasks over its module workers, gathers what one
// runtime in the page computes, and carries cancellation and close to them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { openBlankPage, root, runInPage, useBrowser } from './harness.mjs';

const env = useBrowser({ before, after });
const doc = fs.readFileSync(path.join(root, 'docs/workers.md'), 'utf8');
const snippet = [...doc.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]).find((b) => b.startsWith('// hello-worker.js'));

test('workers in chromium: the_module_worker_snippet_of_workers_md_runs_as_written', async (t) => {
  assert.ok(snippet, 'workers.md shows hello-worker.js');
  // The snippet names the package as installed beside the page; served from
  // the repository, the page's folder is a project whose node_modules/snail-core is the repository.
  const project = path.join(root, 'build', `workers-page-${process.pid}`);
  fs.mkdirSync(path.join(project, 'node_modules'), { recursive: true });
  fs.symlinkSync(root, path.join(project, 'node_modules/snail-core'), 'dir');
  fs.writeFileSync(path.join(project, 'hello-worker.js'), snippet);
  t.after(() => fs.rmSync(project, { recursive: true, force: true }));
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const said = await runInPage(page, async (url) => {
    const worker = new Worker(url, { type: 'module' });
    const message = await new Promise((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(`the worker failed: ${e.message}`));
    });
    worker.terminate();
    return message;
  }, `/build/workers-page-${process.pid}/hello-worker.js`, { log, what: 'the worker snippet' });
  assert.equal(said, 'returned 0');
});

test('workers in chromium: a_pool_of_module_workers_gathers_results_and_carries_cancellation_and_close', async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const result = await runInPage(page, async () => {
    const { Runtime } = await import('/host/browser/index.mjs');
    const { Pool } = await import('/examples/workers/pool.mjs');
    const program = new URL('/build/programs/work.wasm', location.href);
    const inputs = Array.from({ length: 8 }, (_, i) => 10 + i);
    // What one runtime in the page computes.
    const rt = await Runtime.load(program);
    const tasks = inputs.map((n) => rt.dispatch('work', n));
    await rt.drain();
    await rt.close();
    const expected = tasks.map((task) => task.value);

    const pool = await Pool.create({ size: 2, program, runtime: new URL('/host/browser/index.mjs', location.href) });
    const outcomes = await Promise.all(inputs.map((n) => pool.run('work', n)));
    const stop = new AbortController();
    const long = pool.run('work', 1_000_000, { signal: stop.signal });
    const short = await pool.run('work', 3);
    stop.abort();
    const cancelled = await long;
    const running = pool.run('work', 1_000_000);
    await pool.run('work', 1);
    const report = await pool.close();
    let refused = '';
    try {
      await pool.run('work', 1);
    } catch (error) {
      refused = String(error);
    }
    return {
      expected,
      outcomes: outcomes.map((o) => [o.state, o.value]),
      workers: [...new Set(outcomes.map((o) => o.worker))].sort(),
      short: short.state,
      cancelled: cancelled.state,
      closed: (await running).state,
      report,
      refused,
    };
  }, undefined, { log, what: 'the pool', timeoutMs: 60_000 });
  assert.deepEqual(result.outcomes, result.expected.map((v) => ['returned', v]));
  assert.deepEqual(result.workers, [0, 1], 'both workers ran tasks');
  assert.equal(result.short, 'returned');
  assert.equal(result.cancelled, 'cancelled');
  assert.equal(result.closed, 'cancelled');
  assert.deepEqual(result.report, { cancelled: 1, stuck: 0 });
  assert.match(result.refused, /the pool is closed/);
  assert.equal(log.hasErrors(), false, log.format());
});
