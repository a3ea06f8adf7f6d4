// C programs in real Chromium: examples/c/tasks.c prints what it prints under
// Node, and tests/programs/c_api.c keeps handler globals of every value type
// per task, an externref holding a page object among them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { C_TASKS_LINES } from '../cases/support.mjs';
import { openBlankPage, runInPage, useBrowser } from './harness.mjs';

const env = useBrowser({ before, after });

test('c: examples_c_tasks_prints_its_lines_in_chromium', async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const result = await runInPage(page, async () => {
    const { Runtime } = await import('/host/browser/index.mjs');
    let stdout = '';
    const rt = await Runtime.load('/build/programs/c_tasks.wasm', { stdout: (text) => { stdout += text; } });
    const task = rt.dispatch('main');
    await rt.drain();
    const closed = await rt.close();
    return { stdout, state: task.state, value: task.value, stuck: closed.stuck.length, live: rt.stats().live };
  }, undefined, { log, what: 'c_tasks' });
  assert.deepEqual(result.stdout.split('\n'), [...C_TASKS_LINES, '']);
  assert.deepEqual([result.state, result.value, result.stuck, result.live], ['returned', 0, 0, 0]);
  assert.equal(log.hasErrors(), false, log.format());
});

test('c: handler_globals_of_every_type_are_per_task_registers_in_chromium', async (t) => {
  const { page, log } = await openBlankPage(env.browser, env.server.url);
  t.after(() => page.close());
  const result = await runInPage(page, async () => {
    const { Runtime, Status, suspend } = await import('/host/browser/index.mjs');
    const notes = new Map();
    const made = new Map();
    const ops = [];
    const note = (kind, value) => { notes.set(kind, value); };
    const rt = await Runtime.load('/build/programs/c_api.wasm', {
      checkInvariants: true,
      imports: {
        test: {
          event: () => {},
          note_i64: note, note_f32: note, note_f64: note,
          // An externref comes back as the very object: compare it here.
          note_ref: (kind, value) => { note(kind, value === null ? null : [...made].find(([, o]) => o === value)?.[0] ?? 'another object'); },
          make: (n) => { const o = document.createElement('div'); o.id = `n${n}`; made.set(n, o); return o; },
          op: suspend(() => new Promise((resolve) => { ops.push(resolve); })),
          buffer: suspend(() => Promise.resolve(0)),
          read: suspend(() => Promise.resolve(Status.failed)),
        },
      },
    });
    const ids = [1, 2, 3, 4];
    const tasks = ids.map((n) => rt.dispatch('handlers', n));
    // Resume the waits newest first, each after the others bound their values.
    for (let settled = 0; settled < ids.length * 2; settled++) {
      while (ops.length === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      ops.pop()(Status.ok);
    }
    await rt.drain();
    await rt.close();
    const seen = (who) => [5, 2, 3, 4].map((k) => { const v = notes.get(k + 100 * who); return typeof v === 'bigint' ? `${v}n` : v; });
    return {
      states: tasks.map((t) => t.state),
      rows: ids.map((n) => ({ root: seen(-n - 1), child: seen(n * 10 + 1), parent: seen(n) })),
    };
  }, undefined, { log, what: 'c_api handlers' });
  assert.deepEqual(result.states, ['returned', 'returned', 'returned', 'returned']);
  for (const [i, row] of result.rows.entries()) {
    const n = i + 1;
    assert.deepEqual(row.root, [null, '0n', 0, 0], `root ${n} starts from the defaults`);
    assert.deepEqual(row.child, [n, `${BigInt(n) << 33n}n`, n + 0.5, n * 0.25], `the child of ${n} copied its parent's values`);
    assert.deepEqual(row.parent, [n + 1000, `${BigInt(n + 1000) << 33n}n`, n + 1000.5, (n + 1000) * 0.25], `parent ${n} kept its own`);
  }
  assert.equal(log.hasErrors(), false, log.format());
});
