// The WASI subset: the same behaviour in Node and the browser, with output going
// to sinks the embedder replaces.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Runtime } from '../../host/node/root.mjs';
import { program, sink } from './helpers.mjs';

async function probe(entry, arg, options = {}) {
  const out = sink();
  const err = sink();
  const rt = await Runtime.load(program('wasi_probe'), { stdout: out, stderr: err, ...options });
  const t = rt.dispatch(entry, arg);
  await rt.drain();
  await rt.close();
  return { t, out: out.text(), err: err.text() };
}

test('wasi: arguments_reach_the_program', async () => {
  const { t, out } = await probe('print_args', 0, { args: ['app.wasm', 'one', 'zwei drei'] });
  assert.equal(t.value, 3);
  assert.equal(out, 'arg: app.wasm\narg: one\narg: zwei drei\n');
});

test('wasi: the_program_sees_only_the_environment_it_is_given', async () => {
  assert.equal((await probe('print_env', 0, { env: { GREETING: 'grüezi' } })).out, 'GREETING=grüezi\nHOME=(unset)\n');
  assert.equal((await probe('print_env', 0)).out, 'GREETING=(unset)\nHOME=(unset)\n');
});

test('wasi: monotonic_and_realtime_clocks_work', async () => {
  assert.equal((await probe('clocks', 0)).t.value, 3);
});

test('wasi: random_bytes_come_from_the_host', async () => {
  const { t } = await probe('random_bytes', 0);
  assert.ok(t.value > 16, `${t.value} distinct values in 64 random bytes`);
});

test('wasi: stdout_and_stderr_go_to_their_own_sinks', async () => {
  const { out, err } = await probe('to_stderr', 5);
  assert.equal(out, 'to stdout 5\n');
  assert.equal(err, 'to stderr 5\n');
});

test('wasi: exit_ends_only_the_calling_task_with_its_code', async () => {
  const { t, out } = await probe('exit_with', 3);
  assert.equal(t.state, 'returned');
  assert.equal(t.value, 3);
  assert.equal(out, 'exiting with 3\n');
});
