// Node-only checks for sentences of the specification (docs/specification.md),
// section "Cancellation and adapters": ones that need an operating-system
// resource.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { assertQuiet, loadCancellation, until } from '../cases/support.mjs';
import { nodeContext } from './helpers.mjs';

test('spec cancellation: close_awaits_the_file_handle_a_disposer_started_closing', async (t) => {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'snail-spec-'));
  t.after(() => fsp.rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'opened');
  await fsp.writeFile(file, 'x');
  /** @type {string[]} */
  const order = [];
  const { rt, ops, disposed } = await loadCancellation(nodeContext, {
    stubborn: true,
    // The undelivered result is an open file: closing it is asynchronous, so
    // the disposer starts it and hands it over.
    discard: (handle, context) => {
      context.track(/** @type {import('node:fs/promises').FileHandle} */ (handle).close().then(() => { order.push('file closed'); }));
    },
  });
  const task = rt.dispatch('op_guarded', 1);
  await until(() => ops.length === 1, 'the operation');
  task.cancel();
  // The operation could not abort: it opened the file all the same.
  const handle = await fsp.open(file, 'r');
  ops[0].resolve(/** @type {any} */ (handle));
  await task.done;
  assert.equal(task.state, 'cancelled');
  assert.deepEqual(disposed, [handle], 'the open file went to the disposer, once');
  const report = await rt.close();
  order.push('close() resolved');
  assert.deepEqual(order, ['file closed', 'close() resolved'], 'close() waited for the descriptor to close');
  assert.equal(handle.fd, -1, 'the descriptor is closed');
  assert.equal(report.pendingCleanups, 0);
  assert.deepEqual(report.disposerErrors, []);
  assertQuiet(rt);
});
