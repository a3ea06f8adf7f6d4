// A disposer's asynchronous cleanup that fails (context.track() of a Promise
// that rejects) is recorded where a disposer that threw is: in the close
// report's disposerErrors, and counted in stats().disposerFailures.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertQuiet, loadCancellation, until } from '../cases/support.mjs';
import { nodeContext } from './helpers.mjs';

test('cancellation: a_tracked_cleanup_that_rejects_is_in_the_close_report', async () => {
  const failure = new Error('closing the descriptor failed');
  const { rt, ops } = await loadCancellation(nodeContext, {
    stubborn: true,
    discard: (_r, context) => {
      context.track(Promise.reject(failure));
    },
  });
  const t = rt.dispatch('op_guarded', 40);
  await until(() => ops.length === 1, 'the operation');
  t.cancel();
  ops[0].resolve(1);
  await t.done;
  const report = await rt.close();
  assert.equal(t.state, 'cancelled');
  assert.equal(report.pendingCleanups, 0);
  assert.deepEqual(report.disposerErrors, [{ task: t.id, operation: 'the cleanup the disposer of test.op handed to track()', error: failure }]);
  assert.equal(rt.stats().disposerFailures, 1);
  assertQuiet(rt);
});
