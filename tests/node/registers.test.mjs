// Handler globals of every value type docs/abi.md allows (i32, i64, f32, f64,
// externref, funcref) are registers: each task's values survive its waits
// while many tasks interleave, children copy them, root tasks start null.
// The register file packs 64-bit and 32-bit registers differently, so a
// program with all of them checks the layout.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import wabtInit from 'wabt';

import { Runtime } from '../../host/node/root.mjs';
import { wat } from './wat.mjs';

// Entry "main"(n) binds every handler to a value derived from n, waits (sleep,
// yield, a child it joins), and returns 0 if it saw its own values after each
// wait, else the number of the first failed check. The child returns 0 if it
// inherited them. "observe" returns 0 if every handler holds its null value.
const WAT = `
(module
  (import "snail" "sleep" (func $sleep (param f64) (result i32)))
  (import "snail" "yield" (func $yield (result i32)))
  (import "snail" "dispatch" (func $dispatch (param i32 i32 i32) (result i32)))
  (import "snail" "join" (func $join (param i32) (result i32)))
  (import "snail" "result" (func $result (param i32) (result i32)))
  (import "snail" "release" (func $release (param i32)))
  (import "test" "token" (func $token (param i32) (result externref)))
  (import "test" "token_id" (func $token_id (param externref) (result i32)))

  (global $a (export "snail.handler.a32") (mut i32) (i32.const 0))
  (global $b (export "snail.handler.b64") (mut i64) (i64.const 0))
  (global $c (export "snail.handler.c32f") (mut f32) (f32.const 0))
  (global $d (export "snail.handler.d64f") (mut f64) (f64.const 0))
  (global $e (export "snail.handler.eref") (mut externref) (ref.null extern))
  (global $f (export "snail.handler.fref") (mut funcref) (ref.null func))
  (global $g (export "snail.handler.g32") (mut i32) (i32.const 0))

  (table $t (export "__indirect_function_table") 4 funcref)
  (elem (i32.const 1) $child $mark1 $mark2)
  (elem declare func $mark1 $mark2)
  (func $mark1 (result i32) (i32.const 1))
  (func $mark2 (result i32) (i32.const 2))

  (func $bind (param $n i32)
    (global.set $a (local.get $n))
    (global.set $b (i64.mul (i64.extend_i32_s (local.get $n)) (i64.const 0x100000001)))
    (global.set $c (f32.convert_i32_s (i32.mul (local.get $n) (i32.const 3))))
    (global.set $d (f64.div (f64.convert_i32_s (local.get $n)) (f64.const 7)))
    (global.set $e (call $token (local.get $n)))
    (if (i32.and (local.get $n) (i32.const 1))
      (then (global.set $f (ref.func $mark1)))
      (else (global.set $f (ref.func $mark2))))
    (global.set $g (i32.xor (local.get $n) (i32.const 0x5a5a))))

  ;; 0 if every handler holds the values of n, else code + which.
  (func $check (param $n i32) (param $code i32) (result i32)
    (if (i32.ne (global.get $a) (local.get $n)) (then (return (i32.add (local.get $code) (i32.const 1)))))
    (if (i64.ne (global.get $b) (i64.mul (i64.extend_i32_s (local.get $n)) (i64.const 0x100000001)))
      (then (return (i32.add (local.get $code) (i32.const 2)))))
    (if (f32.ne (global.get $c) (f32.convert_i32_s (i32.mul (local.get $n) (i32.const 3))))
      (then (return (i32.add (local.get $code) (i32.const 3)))))
    (if (f64.ne (global.get $d) (f64.div (f64.convert_i32_s (local.get $n)) (f64.const 7)))
      (then (return (i32.add (local.get $code) (i32.const 4)))))
    (if (i32.ne (call $token_id (global.get $e)) (local.get $n)) (then (return (i32.add (local.get $code) (i32.const 5)))))
    (if (ref.is_null (global.get $f)) (then (return (i32.add (local.get $code) (i32.const 6)))))
    (if (i32.ne (call_indirect $t (result i32) (i32.add (i32.const 2) (i32.eqz (i32.and (local.get $n) (i32.const 1)))))
                (call $call_f))
      (then (return (i32.add (local.get $code) (i32.const 6)))))
    (if (i32.ne (global.get $g) (i32.xor (local.get $n) (i32.const 0x5a5a))) (then (return (i32.add (local.get $code) (i32.const 7)))))
    (i32.const 0))

  (type $ret (func (result i32)))
  (func $call_f (result i32)
    (table.set $t (i32.const 0) (global.get $f))
    (call_indirect $t (type $ret) (i32.const 0)))

  (func $child (param $n i32) (result i32)
    (local $r i32)
    (local.set $r (call $check (local.get $n) (i32.const 200)))
    (if (local.get $r) (then (return (local.get $r))))
    (drop (call $sleep (f64.const 1)))
    (call $check (local.get $n) (i32.const 300)))

  (func (export "snail.entry.main") (param $n i32) (result i32)
    (local $r i32)
    (local $h i32)
    (call $bind (local.get $n))
    (if (call $sleep (f64.convert_i32_s (i32.rem_u (local.get $n) (i32.const 3)))) (then (return (i32.const 90))))
    (local.set $r (call $check (local.get $n) (i32.const 10)))
    (if (local.get $r) (then (return (local.get $r))))
    (if (call $yield) (then (return (i32.const 91))))
    (local.set $r (call $check (local.get $n) (i32.const 20)))
    (if (local.get $r) (then (return (local.get $r))))
    (local.set $h (call $dispatch (i32.const 1) (local.get $n) (i32.const 0)))
    (if (call $join (local.get $h)) (then (return (i32.const 92))))
    (local.set $r (call $result (local.get $h)))
    (call $release (local.get $h))
    (if (local.get $r) (then (return (local.get $r))))
    (call $check (local.get $n) (i32.const 30)))

  (func (export "snail.entry.observe") (param i32) (result i32)
    (if (global.get $a) (then (return (i32.const 1))))
    (if (i64.ne (global.get $b) (i64.const 0)) (then (return (i32.const 2))))
    (if (f32.ne (global.get $c) (f32.const 0)) (then (return (i32.const 3))))
    (if (f64.ne (global.get $d) (f64.const 0)) (then (return (i32.const 4))))
    (if (i32.eqz (ref.is_null (global.get $e))) (then (return (i32.const 5))))
    (if (i32.eqz (ref.is_null (global.get $f))) (then (return (i32.const 6))))
    (if (global.get $g) (then (return (i32.const 7))))
    (i32.const 0))
)`;

test('registers: handler_globals_of_every_allowed_type_survive_waits_and_are_copied_to_children', async () => {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat('registers.wat', WAT, { reference_types: true });
  const bytes = parsed.toBinary({}).buffer;
  parsed.destroy();
  const rt = await Runtime.load(bytes, {
    name: 'registers.wat',
    checkInvariants: true,
    maxSteps: 3,
    imports: { test: { token: (n) => ({ id: n }), token_id: (t) => (t === null ? -1 : t.id) } },
  });
  assert.deepEqual(rt.handlerGlobals.map((h) => h.type), ['i32', 'i64', 'f32', 'f64', 'externref', 'funcref', 'i32']);
  const tasks = Array.from({ length: 60 }, (_, i) => rt.dispatch('main', i + 1));
  const observers = Array.from({ length: 10 }, () => rt.dispatch('observe'));
  await rt.drain();
  for (const t of tasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  for (const t of observers) assert.equal(t.value, 0, `${t} saw a binding: check ${t.value}`);
  assert.equal(rt.stats().returned, 130);
  await rt.close();
});

test('registers: a_drop_function_run_while_a_granted_start_waits_for_its_carrier_leaves_its_inherited_bindings', async () => {
  // main binds tag = 3 and dispatches two children, each with a drop
  // function, then joins them. The trace callback sees the first child's
  // start, granted but not yet entered (its carrier installs its inherited
  // bindings), and cancels the other, still queued: its drop function runs
  // then. The started child must still see tag 3.
  const bytes = wat(`(module
    (import "snail" "dispatch" (func $dispatch (param i32 i32 i32) (result i32)))
    (import "snail" "join" (func $join (param i32) (result i32)))
    (import "test" "seen" (func $seen (param i32 i32)))
    (import "test" "dropped" (func $dropped (param i32)))
    (global $tag (export "snail.handler.tag") (mut i32) (i32.const 0))
    (table (export "__indirect_function_table") 3 funcref)
    (elem (i32.const 1) $child $drop)
    (func $child (param $k i32) (result i32) (call $seen (local.get $k) (global.get $tag)) (local.get $k))
    (func $drop (param $k i32) (call $dropped (local.get $k)))
    (func (export "snail.entry.main") (param i32) (result i32)
      (local $a i32) (local $b i32)
      (global.set $tag (i32.const 3))
      (local.set $a (call $dispatch (i32.const 1) (i32.const 100) (i32.const 2)))
      (local.set $b (call $dispatch (i32.const 1) (i32.const 200) (i32.const 2)))
      (drop (call $join (local.get $a)))
      (drop (call $join (local.get $b)))
      (global.get $tag)))`);
  /** @type {[number, number][]} */ const seen = [];
  /** @type {number[]} */ const dropped = [];
  /** @type {Runtime | null} */ let runtime = null;
  let cancelled = false;
  const rt = await Runtime.load(bytes, {
    name: 'drop-window.wasm',
    imports: { test: { seen: (k, tag) => { seen.push([k, tag]); }, dropped: (k) => { dropped.push(k); } } },
    trace: (e) => {
      if (e.type !== 'start' || e.entry === 'main' || cancelled) return;
      cancelled = true;
      const other = /** @type {Runtime} */ (runtime).tasks().find((t) => t.state === 'queued' && t.id !== e.task);
      assert.ok(other, 'the other child is still queued');
      /** @type {Runtime} */ (runtime).cancel(other);
    },
  });
  runtime = rt;
  const main = rt.dispatch('main', 0);
  assert.equal(await main.result, 3, 'the parent keeps its binding');
  assert.equal(dropped.length, 1, 'the cancelled child was dropped');
  assert.deepEqual(seen, [[300 - dropped[0], 3]], 'the started child saw its inherited tag');
  await rt.close();
});
