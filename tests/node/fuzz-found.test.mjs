// Regressions the fuzzer (tests/fuzz/) found, each written out by hand as
// the smallest program that shows it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Runtime } from '../../host/node/root.mjs';
import { wat } from './wat.mjs';

// Found as `node tools/fuzz.mjs --seed 2 --case 154`: a byte changed in the
// allocator of cli_unwind.wasm made snail.stack.acquire trap after its frame
// moved __stack_pointer. The start failed, as it should, but the stack
// pointer stayed off its default with no task holding the permit (the
// scheduler's invariant 4), and close() rejected with an InternalError.
test('stacks: a_stack_acquire_that_traps_fails_the_start_and_leaves_the_registers_at_their_defaults', async () => {
  const rt = await Runtime.load(wat(`(module
    (global $sp (export "__stack_pointer") (mut i32) (i32.const 4096))
    (memory (export "memory") 1)
    (func (export "snail.stack.acquire") (param i32) (result i32)
      (global.set $sp (i32.sub (global.get $sp) (i32.const 32)))
      unreachable)
    (func (export "snail.stack.release") (param i32) (result i32) (i32.const 0))
    (func (export "snail.entry.main") (param i32) (result i32) (i32.const 0)))`), { name: 'acquire-traps.wasm', checkInvariants: true });
  const t = rt.dispatch('main');
  await t.done;
  assert.equal(t.state, 'failed');
  assert.match(String(/** @type {Error} */ (t.error).message), /could not start: getting its \d+-byte stack segment failed: unreachable/);
  assert.equal(/** @type {WebAssembly.Global} */ (rt.instance.exports.__stack_pointer).value, 4096, 'the stack pointer is back at its default');
  const report = await rt.close();
  assert.equal(report.timedOut, false);
});

// Found as `node tools/fuzz.mjs --seed 1 --case 114`: the message of a
// refused dispatch() turned its values into text, and an object without a
// prototype cannot be: a TypeError instead of the SnailError.
test('dispatch: values_that_cannot_become_text_are_refused_with_a_snail_error', async () => {
  const rt = await Runtime.load(wat('(module (func (export "snail.entry.main") (param i32) (result i32) (i32.const 0)))'), { name: 'tiny.wasm' });
  const bare = Object.create(null);
  assert.throws(() => rt.dispatch('main', bare), (e) => /** @type {any} */ (e).code === 'ERR_ARG' && /got an object$/.test(/** @type {Error} */ (e).message));
  assert.throws(() => rt.dispatch(bare), { code: 'ERR_ARG' });
  await rt.close();
  assert.throws(() => rt.dispatch(bare), (e) => /** @type {any} */ (e).code === 'ERR_CLOSED' && /^cannot dispatch an entry given as an object: /.test(/** @type {Error} */ (e).message));
  assert.throws(() => rt.dispatch(Symbol('s')), { code: 'ERR_CLOSED' });
});

// Found as `node tools/fuzz.mjs --seed 3 --case 580`: a registration refused
// because the runtime closed put its name into the message before checking
// that it is a string.
test('events: a_name_that_is_not_a_string_is_refused_with_a_snail_error_also_after_close', async () => {
  const rt = await Runtime.load(wat('(module (func (export "snail.entry.main") (param i32) (result i32) (i32.const 0)))'), { name: 'tiny.wasm' });
  await rt.close();
  assert.throws(() => rt.events.register(/** @type {any} */ (Object.create(null)), new EventTarget(), 'x'), { code: 'ERR_ARG' });
  assert.throws(() => rt.events.register('late', new EventTarget(), 'x'), { code: 'ERR_CLOSED' });
});
