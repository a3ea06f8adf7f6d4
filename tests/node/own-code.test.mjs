// Code of its own for each runtime's waits (own-code.mjs): copies of a
// function made from its source; the runtime's waits on them, two runtimes
// at once; and the shared function where strings may not be evaluated. The
// last test forbids evaluation for the rest of the file (as a page's policy
// forbids it for the rest of the page), so it runs last.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import * as snail from '../../host/browser/index.mjs';
import { InternalError } from '../../host/browser/errors.mjs';
import { ownCopies, ownCopy } from '../../host/browser/own-code.mjs';
import { EACH, twoRuntimes } from '../browser/pages/two-runtimes.mjs';
import { programs, root } from './helpers.mjs';

const BENCH = path.join(programs, 'bench/bench.wasm');

/** A factory that reads its parameters and a global (Math). @param {number} base @param {number} scale */
function scaler(base, scale) {
  return (/** @type {number} */ x) => Math.max(0, base + scale * x);
}

/** A factory that reads a name of its module, which its copy does not see. */
const OUTSIDE = 1;
function leaky() {
  return () => OUTSIDE;
}

test('ownCopy_makes_a_new_function_from_the_source', () => {
  const before = ownCopies().copies;
  const a = ownCopy(scaler);
  const b = ownCopy(scaler);
  assert.notEqual(a, scaler);
  assert.notEqual(a, b);
  assert.equal(a(10, 2)(5), 20);
  assert.equal(b(10, 3)(5), 25);
  assert.equal(a(10, 2)(-100), 0, 'globals are seen');
  assert.deepEqual(ownCopies(), { copies: before + 2, copying: true });
  // A copy sees no name of the module (own-code-names.test.mjs keeps the runtime's copies from reading any).
  assert.equal(leaky()(), 1);
  assert.throws(() => ownCopy(leaky)()(), ReferenceError);
});

test('ownCopy_names_each_copy_in_stack_traces', () => {
  const thrower = ownCopy(function failing() { return () => { throw new Error('here'); }; });
  assert.throws(() => thrower()(), (e) => e instanceof Error && /snail-core\/failing\/\d+/.test(String(e.stack)));
});

test('ownCopy_refuses_a_function_whose_source_is_no_expression', () => {
  const method = { make() { return 1; } }.make;
  assert.throws(() => ownCopy(method), (e) => e instanceof InternalError && /copy of make does not parse/.test(e.message));
  assert.equal(ownCopies().copying, true, 'a bug here is not a policy of the page');
});

/** The two runtimes of two-runtimes.mjs, and how many copies they made. @param {object} [options] */
async function twoRuntimesCopying(options) {
  const made = ownCopies().copies;
  const { results, yields } = await twoRuntimes(snail, BENCH, options);
  return { results, yields, copies: ownCopies().copies - made };
}

test('runtime_waits_run_on_copies_of_their_own_in_two_runtimes_at_once', async () => {
  const { results, yields, copies } = await twoRuntimesCopying();
  assert.deepEqual(results, Array(16).fill(EACH));
  assert.deepEqual(yields, [100, 100]);
  // Each runtime: its import's operation starts, its lent wait and snail.yield's wait.
  assert.equal(copies, 6);
});

test('runtime_waits_run_on_the_shared_code_when_loaded_with_ownCode_false', async () => {
  const { results, yields, copies } = await twoRuntimesCopying({ ownCode: false });
  assert.deepEqual(results, Array(16).fill(EACH));
  assert.deepEqual(yields, [100, 100]);
  assert.equal(copies, 0);
  assert.equal(ownCopies().copying, true, 'the option is the runtime\'s, not the page\'s');
  await assert.rejects(snail.Runtime.load(BENCH, { ownCode: 'no' }), (e) => e instanceof snail.SnailError && e.code === 'ERR_OPTION' && /ownCode/.test(e.message));
});

test('runtime_waits_run_on_the_shared_code_in_a_node_that_refuses_code_from_strings', () => {
  // Node's own switch for what a page's policy does.
  const url = (/** @type {string} */ p) => JSON.stringify(pathToFileURL(path.join(root, p)).href);
  const script = `
    const snail = await import(${url('host/node/index.mjs')});
    const { ownCopies } = await import(${url('host/browser/own-code.mjs')});
    const { twoRuntimes } = await import(${url('tests/browser/pages/two-runtimes.mjs')});
    const { results, yields } = await twoRuntimes(snail, ${JSON.stringify(BENCH)});
    console.log(JSON.stringify({ results, yields, own: ownCopies() }));`;
  const run = (/** @type {string[]} */ flags) => {
    const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const refusing = run(['--disallow-code-generation-from-strings']);
  assert.deepEqual(refusing, { results: Array(16).fill(EACH), yields: [100, 100], own: { copies: 0, copying: false } });
  const copying = run([]);
  assert.deepEqual(copying, { results: Array(16).fill(EACH), yields: [100, 100], own: { copies: 6, copying: true } });
});

test('runtime_waits_run_on_the_shared_code_where_strings_may_not_be_evaluated', async () => {
  const Real = globalThis.Function;
  let refused = 0;
  // What a Content-Security-Policy without 'unsafe-eval' does to `new Function`.
  const Refusing = /** @type {FunctionConstructor} */ (/** @type {unknown} */ (function Function() {
    refused++;
    throw new EvalError('Code generation from strings disallowed for this context');
  }));
  Refusing.prototype = Real.prototype;
  globalThis.Function = Refusing;
  try {
    const before = ownCopies().copies;
    assert.equal(ownCopy(scaler), scaler, 'the shared function');
    const { results, yields, copies } = await twoRuntimesCopying();
    assert.deepEqual(results, Array(16).fill(EACH));
    assert.deepEqual(yields, [100, 100]);
    assert.equal(copies, 0);
    assert.deepEqual(ownCopies(), { copies: before, copying: false });
    assert.equal(refused, 1, 'refused once, then not asked again');
  } finally {
    globalThis.Function = Real;
  }
});
