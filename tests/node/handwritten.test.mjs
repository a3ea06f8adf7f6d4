// The program ABI (docs/abi.md) proved by a program written by hand in
// WebAssembly text: its own handler globals (an i32 and an externref, both
// starting null), its own table, no snail-core headers and no shadow stack.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Runtime } from '../../host/node/root.mjs';
import { loadContracts, program } from './helpers.mjs';

/** The host functions handwritten.wat imports from module "test". */
function tokenImports() {
  return {
    test: {
      make_token: (n) => ({ id: n }),
      token_id: (token) => (token === null ? -1 : token.id),
    },
  };
}

async function loadHandwritten(options = {}) {
  return Runtime.load(program('handwritten'), { checkInvariants: true, imports: tokenImports(), ...options });
}

test('abi: the_handwritten_program_declares_its_handler_globals_and_entries', async () => {
  const rt = await loadHandwritten();
  assert.deepEqual(rt.entries, ['main', 'observe']);
  assert.deepEqual(rt.handlerGlobals.map((h) => [h.name, h.type]), [['tag', 'i32'], ['token', 'externref']]);
  // Their defaults are null.
  assert.equal(rt.instance.exports['snail.handler.tag'].value, 0);
  assert.equal(rt.instance.exports['snail.handler.token'].value, null);
  await rt.close();
});

test('abi: the_handwritten_program_binds_dispatches_waits_and_sees_only_its_own_bindings', async () => {
  const rt = await loadHandwritten();
  const tasks = Array.from({ length: 100 }, (_, i) => rt.dispatch('main', i + 1));
  const observers = Array.from({ length: 20 }, () => rt.dispatch('observe'));
  await rt.drain();
  for (const t of tasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  assert.deepEqual(observers.map((t) => t.value), Array(20).fill(0));
  const s = rt.stats();
  assert.equal(s.returned, 220, 'each main also ran one child');
  assert.equal(s.failed, 0);
  assert.equal(s.handles, 0, 'the program released every handle');
  await rt.close();
});

test('abi: the_handwritten_program_runs_next_to_a_cpp_program', async () => {
  const wat = await loadHandwritten({ maxSteps: 3 });
  const { rt: cpp, violations } = await loadContracts({ maxSteps: 5 });
  const watTasks = Array.from({ length: 60 }, (_, i) => wat.dispatch('main', 1000 + i));
  const cppTasks = Array.from({ length: 60 }, (_, i) => cpp.dispatch('random_tree', 7000 + i));
  await Promise.all([wat.drain(), cpp.drain()]);
  for (const t of watTasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  for (const t of cppTasks) assert.equal(t.state, 'returned');
  assert.deepEqual(violations, []);
  await Promise.all([wat.close(), cpp.close()]);
});
