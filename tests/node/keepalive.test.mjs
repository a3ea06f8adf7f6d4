// Contract 12: on Node the process stays alive while the live set is non-empty
// (a keep-alive token held until drain), and does not stay alive after it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

import { program, root } from './helpers.mjs';

const child = path.join(root, 'tests/node/fixtures/keepalive-child.mjs');

/** @param {number} ms @param {string[]} [more] */
function runChild(ms, more = []) {
  // A hang (token never released) ends at the timeout and fails the test.
  return spawnSync(process.execPath, [child, program('keepalive'), String(ms), ...more], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

test('contract 12: the_process_stays_alive_while_a_task_is_live_and_exits_after_drain', () => {
  const r = runChild(150);
  assert.equal(r.error, undefined, `the child did not exit on its own: ${r.error}`);
  assert.equal(r.status, 0, r.stderr);
  // The task finished before the process exited, and the live set was empty then.
  assert.deepEqual(r.stdout.trim().split('\n'), ['task returned 151', 'exit 0 live 0']);
  // The control: without the token nothing else holds the process, which
  // exits with the task still live (its timer is unreferenced).
  const control = runChild(150, ['no-token']);
  assert.equal(control.status, 0, control.stderr);
  assert.deepEqual(control.stdout.trim().split('\n'), ['exit 0 live 1']);
});

test('contract 12: an_idle_runtime_does_not_hold_the_process', () => {
  const r = runChild(0);
  assert.equal(r.error, undefined, `the child did not exit on its own: ${r.error}`);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['task returned 1', 'exit 0 live 0']);
});

test('contract 12: a_second_interval_holds_the_process_again', () => {
  // The token is released when the first interval ends; work dispatched
  // after that must take it again, or the process exits with a task live.
  const r = runChild(100, ['twice']);
  assert.equal(r.error, undefined, `the child did not exit on its own: ${r.error}`);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['task returned 101', 'second task returned 102', 'exit 0 live 0']);
  // The control: a token that holds only the first interval lets the
  // process go with the second task live.
  const control = runChild(100, ['twice', 'first-only']);
  assert.equal(control.status, 0, control.stderr);
  assert.deepEqual(control.stdout.trim().split('\n'), ['task returned 101', 'exit 0 live 1']);
});
