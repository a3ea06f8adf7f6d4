// docs/abi.md section 11 ("Dynamically loaded modules"), statement by
// statement, for an author who writes a module from that section alone: the
// types and mutability of what the loader provides, the bases of a plain
// module, the limits of the imported memory and table, dylink.0's sizes and
// alignments, snail.alloc, what a failed load leaves, a resolver that throws,
// LoadedModule.exports and start functions.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Runtime, Status } from '../../host/node/root.mjs';
import { loadDynamic } from '../cases/modules.cases.mjs';
import { nodeContext } from './helpers.mjs';
import { wat } from './wat.mjs';

// A program for the loader to link into: its memory and a growable table, a
// bump allocator that counts its calls (alloc_calls) and a handler global.
// Without "alloc", it exports no snail.alloc.
const HOST = (/** @type {{ alloc?: boolean }} */ { alloc = true } = {}) => wat(`(module
  (memory (export "memory") 1)
  (table (export "__indirect_function_table") 3 funcref)
  (global $heap (mut i32) (i32.const 1027))
  (global $calls (export "alloc_calls") (mut i32) (i32.const 0))
  (global (export "snail.handler.host_tag") (mut i32) (i32.const 0))
  ${alloc ? `(func (export "snail.alloc") (param $n i32) (result i32)
    (local $p i32)
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (local.get $n)))
    (local.get $p))` : ''}
  (func (export "snail.entry.main") (param i32) (result i32) (i32.const 0)))`);

/**
 * A module from WAT with a dylink.0 section carrying its memory info.
 * @param {string} text @param {{ memSize?: number, memAlign?: number, tableSize?: number, tableAlign?: number }} info
 */
function side(text, { memSize = 0, memAlign = 0, tableSize = 0, tableAlign = 0 }) {
  const bytes = wat(text);
  const name = [...new TextEncoder().encode('dylink.0')];
  const memInfo = [memSize, memAlign, tableSize, tableAlign];
  assert.ok(memInfo.every((v) => v < 128), 'one-byte LEB128 values');
  const payload = [name.length, ...name, 1, memInfo.length, ...memInfo];
  return new Uint8Array([...bytes.slice(0, 8), 0, payload.length, ...payload, ...bytes.slice(8)]);
}

/** @param {(text: string) => void} [order] */
async function loadHost(order = () => {}, options = {}) {
  const rt = await Runtime.load(HOST(options), { name: 'host.wasm', imports: { test: { order } } });
  const x = /** @type {any} */ (rt.instance.exports);
  return { rt, table: /** @type {WebAssembly.Table} */ (x.__indirect_function_table), memory: /** @type {WebAssembly.Memory} */ (x.memory), allocCalls: () => x.alloc_calls.value };
}

/** @param {unknown} e @param {RegExp} message */
const refused = (e, message) => /** @type {any} */ (e).name === 'ModuleLoadError' && /** @type {any} */ (e).code === 'ERR_MODULE' && message.test(/** @type {any} */ (e).message);

test('modules abi: the_bases_are_immutable_i32_and_the_got_entries_and_handler_imports_mutable', async () => {
  const { rt } = await loadHost();
  for (const [imp, what] of [
    ['(import "env" "__memory_base" (global (mut i32)))', '__memory_base'],
    ['(import "env" "__table_base" (global (mut i32)))', '__table_base'],
    ['(import "GOT.func" "snail.alloc" (global i32))', 'snail.alloc'],
    ['(import "GOT.mem" "alloc_calls" (global i32))', 'alloc_calls'],
    ['(import "env" "snail.handler.host_tag" (global i32))', 'snail.handler.host_tag'],
    ['(import "env" "snail.handler.new_one" (global i32))', 'snail.handler.new_one'],
    ['(import "env" "snail.handler.host_tag" (global (mut i64)))', 'snail.handler.host_tag'],
  ]) {
    await assert.rejects(rt.loadModule(wat(`(module ${imp})`), { name: what }), (e) => refused(e, new RegExp(`^module ${what} does not link: .*"${what.replace('.', '\\.')}".*(mutability|type)`)), imp);
  }
  // As section 11 gives them, they link.
  const m = await rt.loadModule(wat(`(module
    (import "env" "__memory_base" (global $mb i32))
    (import "env" "__table_base" (global $tb i32))
    (import "GOT.func" "snail.alloc" (global $alloc (mut i32)))
    (import "GOT.mem" "alloc_calls" (global $calls (mut i32)))
    (import "env" "snail.handler.host_tag" (global $tag (mut i32)))
    (import "env" "snail.handler.new_one" (global $new (mut f64)))
    (export "tag" (global $tag)))`), { name: 'right' });
  assert.equal(/** @type {any} */ (m.exports).tag, rt.instance.exports['snail.handler.host_tag'], 'the program\'s own register');
  assert.deepEqual(m.handlers, ['new_one']);
  assert.deepEqual(rt.handlerGlobals.find((h) => h.name === 'new_one'), { name: 'new_one', module: 'right', type: 'f64' });
  await rt.close();
});

test('modules abi: the_stack_registers_are_the_programs_own_mutable_i32_globals', async () => {
  const { rt } = await loadDynamic(nodeContext);
  await assert.rejects(rt.loadModule(wat('(module (import "env" "__stack_pointer" (global i32)))'), { name: 'sp_const' }), (e) => refused(e, /does not link: .*mutability/));
  const m = await rt.loadModule(wat(`(module
    (import "env" "__stack_pointer" (global $sp (mut i32)))
    (import "env" "snail.stack.base" (global $base (mut i32)))
    (import "env" "snail.stack.limit" (global $limit (mut i32)))
    (export "sp" (global $sp)) (export "base" (global $base)) (export "limit" (global $limit)))`), { name: 'sp' });
  const x = /** @type {any} */ (m.exports);
  assert.equal(x.sp, rt.instance.exports.__stack_pointer);
  assert.equal(x.base, rt.instance.exports['snail.stack.base']);
  assert.equal(x.limit, rt.instance.exports['snail.stack.limit']);
  // One the program does not export is a link problem, named.
  const { rt: host } = await loadHost();
  await assert.rejects(host.loadModule(wat('(module (import "env" "__stack_pointer" (global (mut i32))))'), { name: 'nosp' }),
    (e) => refused(e, /^module nosp does not link:\n {2}- it imports env\.__stack_pointer, which the program does not export$/));
  await rt.close();
  await host.close();
});

test('modules abi: a_plain_module_gets_bases_of_0_and_no_memory_or_table_entries', async () => {
  const { rt, table, allocCalls } = await loadHost();
  const length = table.length;
  const m = await rt.loadModule(wat(`(module
    (import "env" "__memory_base" (global $mb i32))
    (import "env" "__table_base" (global $tb i32))
    (func (export "bases") (result i32 i32) (global.get $mb) (global.get $tb)))`), { name: 'plain' });
  assert.deepEqual(/** @type {any} */ (m.exports).bases(), [0, 0]);
  assert.equal(table.length, length);
  assert.equal(allocCalls(), 0);
  await rt.close();
});

test('modules abi: memory_0_and_table_0_always_link_and_larger_minimums_or_a_maximum_do_not', async () => {
  const { rt, table, memory } = await loadHost();
  const pages = memory.buffer.byteLength / 65536;
  await rt.loadModule(wat('(module (import "env" "memory" (memory 0)) (import "env" "__indirect_function_table" (table 0 funcref)))'), { name: 'zero' });
  await rt.loadModule(wat(`(module (import "env" "memory" (memory ${pages})) (import "env" "__indirect_function_table" (table ${table.length} funcref)))`), { name: 'current' });
  for (const [name, imp] of [
    ['more_pages', `(import "env" "memory" (memory ${pages + 1}))`],
    ['a_maximum', `(import "env" "memory" (memory 0 ${pages + 10}))`],
    ['longer_table', `(import "env" "__indirect_function_table" (table ${table.length + 1} funcref))`],
    ['table_maximum', `(import "env" "__indirect_function_table" (table 0 ${table.length + 10} funcref))`],
  ]) {
    await assert.rejects(rt.loadModule(wat(`(module ${imp})`), { name }), (e) => refused(e, new RegExp(`^module ${name} does not link: WebAssembly`)), name);
  }
  await rt.close();
});

test('modules abi: dylink_sizes_and_alignments_are_honoured_with_snail_alloc_and_a_grown_table', async () => {
  const { rt, table, memory, allocCalls } = await loadHost();
  const length = table.length; // 3: the first aligned index at 2^3 is 8
  const m = await rt.loadModule(side(`(module
    (import "env" "memory" (memory 0))
    (import "env" "__indirect_function_table" (table 0 funcref))
    (import "env" "__memory_base" (global $mb i32))
    (import "env" "__table_base" (global $tb i32))
    (func (export "bases") (result i32 i32) (global.get $mb) (global.get $tb)))`, { memSize: 40, memAlign: 4, tableSize: 2, tableAlign: 3 }), { name: 'aligned' });
  const [memoryBase, tableBase] = /** @type {any} */ (m.exports).bases();
  assert.equal(allocCalls(), 1, 'one snail.alloc call');
  assert.equal(memoryBase % 16, 0, `memory base ${memoryBase} is aligned to 2^4`);
  assert.ok(memoryBase >= 1027 && memoryBase + 40 <= 1027 + 40 + 16, 'inside the block snail.alloc(40 + 16) gave');
  assert.ok(new Uint8Array(memory.buffer, memoryBase, 40).every((b) => b === 0), 'zeroed');
  assert.equal(tableBase, 8, 'the table base is aligned to 2^3');
  assert.equal(table.length, 10, 'padding to the alignment, then the two entries');
  for (let i = length; i < 10; i++) assert.equal(table.get(i), null);
  // Alignments no 32-bit memory or table can meet are refused, not wrapped.
  await assert.rejects(rt.loadModule(side('(module)', { memSize: 1, memAlign: 31 }), { name: 'huge' }), (e) => refused(e, /^module huge asks in its dylink\.0 section for 1 bytes of memory aligned to 2\^31/));
  await rt.close();
});

test('modules abi: a_module_with_data_needs_the_programs_snail_alloc', async () => {
  const { rt, table } = await loadHost(() => {}, { alloc: false });
  const length = table.length;
  await assert.rejects(rt.loadModule(side('(module (import "env" "memory" (memory 0)))', { memSize: 8, tableSize: 1 }), { name: 'data' }),
    (e) => refused(e, /^module data needs 8 bytes of memory, but the program exports no "snail\.alloc" to allocate them$/));
  assert.equal(table.length, length);
  // Without data it links into the same program.
  await rt.loadModule(side('(module (import "env" "memory" (memory 0)))', { tableSize: 1 }), { name: 'no-data' });
  assert.equal(table.length, length + 1);
  await rt.close();
});

test('modules abi: a_load_refused_for_its_imports_takes_nothing_and_one_failing_later_keeps_its_memory_and_table_entries', async () => {
  const { rt, table, allocCalls } = await loadHost();
  const length = table.length;
  // Refused while its imports are resolved: nothing taken.
  await assert.rejects(rt.loadModule(side(`(module
    (import "env" "__memory_base" (global i32))
    (import "GOT.func" "snail.alloc" (global (mut i32)))
    (import "env" "no_such_function" (func)))`, { memSize: 16, tableSize: 4 }), { name: 'missing' }), (e) => refused(e, /does not link:\n {2}- it imports the function no_such_function/));
  assert.deepEqual([allocCalls(), table.length], [0, length], 'no memory block, no table entry');
  // Refused by the engine at instantiation: the block and the entries stay taken.
  await assert.rejects(rt.loadModule(side(`(module
    (import "env" "__memory_base" (global (mut i32))))`, { memSize: 16, tableSize: 4 }), { name: 'mutable_base' }), (e) => refused(e, /does not link: WebAssembly/));
  assert.deepEqual([allocCalls(), table.length], [1, length + 4]);
  // A trap in its initialisation: the same.
  await assert.rejects(rt.loadModule(side('(module (func (export "__wasm_call_ctors") unreachable))', { memSize: 16, tableSize: 2 }), { name: 'traps' }),
    (e) => refused(e, /^module traps failed during its initialisation: unreachable$/));
  assert.deepEqual([allocCalls(), table.length], [2, length + 6]);
  // Neither registers nor a record are left: the names load again.
  assert.deepEqual(rt.modules, []);
  assert.deepEqual(rt.handlerGlobals.map((h) => h.name), ['host_tag']);
  await rt.loadModule(wat('(module)'), { name: 'traps' });
  await rt.close();
});

test('modules abi: a_resolver_that_throws_or_rejects_is_not_found_with_its_message', async () => {
  const { rt, texts } = await loadDynamic(nodeContext, {
    modules: (/** @type {string} */ name) => {
      if (name === 'plugin') throw new Error('no plugins on this host');
      return Promise.reject(new Error(`nothing called ${name}`));
    },
  });
  assert.equal(await rt.dispatch('try_load', 0).result, -Status.not_found);
  assert.equal(await rt.dispatch('try_load', 1).result, -Status.not_found);
  assert.deepEqual(texts, [
    { status: Status.not_found, text: 'module plugin could not be found: no plugins on this host' },
    { status: Status.not_found, text: 'module missing_symbol could not be found: nothing called missing_symbol' },
  ]);
  // null or undefined: the option does not name it.
  await rt.close();
});

test('modules abi: loaded_module_exports_is_the_frozen_exports_object_of_its_instance_run_outside_any_task', async () => {
  const { rt } = await loadDynamic(nodeContext);
  const text = `(module
    (import "snail" "yield" (func $yield (result i32)))
    (import "env" "snail.handler.main_tag" (global $tag (mut i32)))
    (global $own (export "snail.handler.own") (mut i32) (i32.const 0))
    (memory (export "mem") 1)
    (func (export "tag") (result i32) (global.get $tag))
    (func (export "waits") (result i32) (call $yield)))`;
  const m = await rt.loadModule(wat(text), { name: 'shown' });
  const again = await rt.loadModule(wat(text), { name: 'shown' });
  assert.ok(Object.isFrozen(m), 'the record is frozen');
  assert.ok(Object.isFrozen(m.exports), 'so are the exports, by the engine');
  assert.equal(again.exports, m.exports, 'one instance, one exports object');
  assert.deepEqual(Object.keys(m.exports), ['snail.handler.own', 'mem', 'tag', 'waits']);
  assert.ok(m.exports['snail.handler.own'] instanceof WebAssembly.Global);
  assert.ok(m.exports.mem instanceof WebAssembly.Memory, 'its own memory');
  const x = /** @type {any} */ (m.exports);
  assert.equal(x.tag(), 0, 'between tasks the registers hold their defaults');
  assert.throws(() => x.waits(), (e) => /** @type {any} */ (e).code === 'ERR_NOT_IN_TASK');
  assert.deepEqual(rt.modules.map((r) => Object.keys(r)), [['handle', 'name', 'handlers']], 'rt.modules has no exports');
  await rt.close();
});

test('modules abi: a_start_function_runs_first_at_instantiation_and_its_trap_or_wait_fails_the_load', async () => {
  /** @type {number[]} */
  const order = [];
  const { rt } = await loadHost((n) => { order.push(/** @type {any} */ (n)); });
  await rt.loadModule(side(`(module
    (import "test" "order" (func $order (param i32)))
    (func $start (call $order (i32.const 1)))
    (start $start)
    (func (export "__wasm_apply_data_relocs") (call $order (i32.const 2)))
    (func (export "__wasm_call_ctors") (call $order (i32.const 3))))`, {}), { name: 'starts' });
  assert.deepEqual(order, [1, 2, 3]);
  await assert.rejects(rt.loadModule(wat('(module (func $s unreachable) (start $s))'), { name: 'start_traps' }),
    (e) => refused(e, /^module start_traps failed during its initialisation: its start function trapped: unreachable$/));
  await assert.rejects(rt.loadModule(wat('(module (import "snail" "yield" (func $y (result i32))) (func $s (drop (call $y))) (start $s))'), { name: 'start_waits' }),
    (e) => refused(e, /^module start_waits failed during its initialisation: its start function called a suspending import; waits are only allowed in tasks$/));
  await rt.close();
});

// A module whose initialisation traps half-way leaves the program's registers
// as they were: its constructor had moved the shared stack pointer (a frame
// whose epilogue never ran) and bound a handler global.
test('modules abi: a_module_whose_initialisation_traps_leaves_the_registers_at_their_defaults', async () => {
  const { rt } = await loadDynamic(nodeContext);
  const sp = /** @type {WebAssembly.Global} */ (rt.instance.exports.__stack_pointer);
  const tag = /** @type {WebAssembly.Global} */ (rt.instance.exports['snail.handler.main_tag']);
  const before = [sp.value, tag.value];
  for (const where of ['(start $init)', '(export "__wasm_call_ctors" (func $init))']) {
    await assert.rejects(rt.loadModule(wat(`(module
      (import "env" "__stack_pointer" (global $sp (mut i32)))
      (import "env" "snail.handler.main_tag" (global $tag (mut i32)))
      (func $init
        (global.set $sp (i32.sub (global.get $sp) (i32.const 64)))
        (global.set $tag (i32.const 99))
        unreachable)
      ${where})`), { name: 'half' }), (e) => refused(e, /failed during its initialisation/));
    assert.deepEqual([sp.value, tag.value], before, where);
  }
  // The scheduler's invariants hold (checkInvariants): tasks run on.
  const t = rt.dispatch('busy', 1);
  await rt.drain();
  assert.equal(t.state, 'returned', String(t.error));
  await rt.close();
});
