// Dynamically loaded modules (docs/abi.md, "Dynamically loaded modules"):
// loading into a running program from JS and from a task, the register file
// growing under suspended tasks, suspending inside loaded code, failures, and
// loading the same module twice. Programs: tests/programs/dynamic.cpp (built
// DYNAMIC), the side module tests/programs/modules/cpp_plugin.cpp and the
// hand-written modules in tests/programs/modules/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { WORDS_END } from '../../host/browser/wasm/gates.mjs';
import { Status, suspend } from '../../host/node/root.mjs';
import { checkHoldEvents, loadDynamic as loadDynamicIn, MODULE_EV as EV } from '../cases/modules.cases.mjs';
import { loadContracts, until } from '../cases/support.mjs';
import { nodeContext, program, programs, root } from './helpers.mjs';
import { wat } from './wat.mjs';
import { internals } from '../../host/browser/debug.mjs';

const moduleFile = (/** @type {string} */ name) => path.join(programs, 'modules', `module_${name}.wasm`);
/** The modules a task may load by name: the hand-written ones, and cpp_plugin beside the program. */
const MODULES = {
  plugin: moduleFile('plugin'),
  missing_symbol: moduleFile('missing_symbol'),
  wrong_type: moduleFile('wrong_type'),
  not_abi: moduleFile('not_abi'),
  garbage: path.join(root, 'tests/programs/modules/garbage.txt'),
  cpp_plugin: program('cpp_plugin'),
  // "nowhere" is missing on purpose.
};

/** @param {import('../../host/node/root.mjs').RuntimeOptions} [options] */
const loadDynamic = (options = {}) => loadDynamicIn(nodeContext, { modules: MODULES, ...options });

test('modules: a_hand_written_module_loaded_while_100_tasks_are_suspended_starts_null_in_each', async () => {
  const { rt, events, release, paused } = await loadDynamic();
  assert.deepEqual(rt.handlerGlobals.map((h) => [h.name, h.module, h.type]), [['main_tag', rt.name, 'i32']]);
  const tasks = Array.from({ length: 100 }, (_, i) => rt.dispatch('hold', i + 1));
  await until(() => paused() === 100, 'all 100 tasks to suspend in test.pause');
  assert.ok(tasks.every((t) => t.state === 'suspended'), 'every task is suspended while the module loads');

  const loaded = await rt.loadModule(MODULES.plugin, { name: 'plugin' });
  assert.equal(loaded.name, 'plugin');
  assert.ok(loaded.handle > 0);
  assert.deepEqual(loaded.handlers, ['plugin_count', 'plugin_token']);
  assert.deepEqual(rt.handlerGlobals.map((h) => [h.name, h.module, h.type]), [
    ['main_tag', rt.name, 'i32'],
    ['plugin_count', 'plugin', 'i32'],
    ['plugin_token', 'plugin', 'externref'],
  ]);
  assert.deepEqual(rt.modules.map((m) => [m.name, m.handle]), [['plugin', loaded.handle]]);

  release();
  await rt.drain();
  for (const t of tasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  checkHoldEvents(events, tasks.length);
  // Root tasks dispatched afterwards start from the defaults: null.
  const plugin = /** @type {any} */ (loaded.exports);
  assert.equal(plugin.count(), 0);
  assert.equal(plugin.token(), -1);
  const stats = rt.stats();
  assert.equal(stats.failed, 0);
  assert.equal(stats.returned, 2 * tasks.length);
  await rt.close();
});

// White-box: the suspension wrappers save and install registers in their own
// code, built for one register file (host/browser/wasm/gates.mjs). The plugin's
// handler globals remake the register file, whose slots take the old one's
// bytes with a wider stride: a task that began its wait in a build made for
// the old file must install its registers from the new one, or it would read
// another slot's bytes.
test('modules: a_task_that_began_its_wait_before_the_register_file_was_remade_installs_from_the_new_one', async () => {
  const { rt, events, release, paused } = await loadDynamic();
  const inside = internals(rt);
  const tasks = Array.from({ length: 20 }, (_, i) => rt.dispatch('hold', i + 1));
  await until(() => paused() === 20, 'all 20 tasks to suspend in test.pause');
  const old = inside.registerFile;
  const generation = inside.wrapperGeneration;
  await rt.loadModule(MODULES.plugin, { name: 'plugin' });
  assert.notEqual(inside.registerFile, old, 'the plugin\'s handler globals remade the register file');
  assert.ok(inside.wrapperGeneration > generation, 'the wrappers were built again');
  assert.ok(inside.registerFile.layout.stride > old.layout.stride, 'the slots moved');
  release();
  await rt.drain();
  for (const t of tasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  checkHoldEvents(events, tasks.length);
  await rt.close();
});

// The plugin with its wait changed to an import of the embedder's returning
// f64, which the program imports nowhere: the load brings the suspension
// module stubs and wrappers of a result type it had none of.
test('modules: a_module_waiting_on_an_import_of_a_result_type_the_program_never_waits_for_suspends_through_wrappers', async () => {
  const source = fs.readFileSync(path.join(root, 'tests/programs/modules/plugin.wat'), 'utf8');
  const sleep = '(import "snail" "sleep" (func $sleep (param f64) (result i32)))';
  const call = '(call $sleep (f64.convert_i32_s (local.get $ms)))';
  assert.ok(source.includes(sleep) && source.includes(call), 'plugin.wat still sleeps as this test expects');
  const bytes = wat(source
    .replace(sleep, '(import "test" "fsleep" (func $fsleep (param f64) (result f64)))')
    .replace(call, '(i32.trunc_f64_s (call $fsleep (f64.convert_i32_s (local.get $ms))))'));
  let waits = 0;
  const { rt, events, release, paused } = await loadDynamic({
    modules: { ...MODULES, plugin: bytes },
    imports: {
      test: {
        fsleep: suspend(async (/** @type {AbortSignal} */ _signal, /** @type {number} */ ms) => {
          waits++;
          await new Promise((resolve) => setTimeout(resolve, ms));
          return 0;
        }),
      },
    },
  });
  const tasks = Array.from({ length: 20 }, (_, i) => rt.dispatch('hold', i + 1));
  await until(() => paused() === 20, 'all 20 tasks to suspend in test.pause');
  release();
  await rt.drain();
  for (const t of tasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  checkHoldEvents(events, tasks.length);
  assert.equal(waits, 2 * tasks.length, 'each task and its child waited in the module');
  assert.ok(internals(rt).hasWrapper('test.fsleep:f64->f64'), 'the wait went through the suspension module');
  await rt.close();
});

test('modules: a_task_whose_wait_ends_while_a_module_loads_goes_on_when_the_load_ends', async () => {
  // The load keeps the permit from every task; the wait that ends meanwhile
  // makes its task ready, and the end of the load grants it. Nothing else
  // happens afterwards that would pump (the task used to stay ready for good).
  /** @type {Promise<unknown>[]} */
  const loads = [];
  // Compiled already: the load reaches its exclusive part before the wait ends.
  const counter = new WebAssembly.Module(fs.readFileSync(moduleFile('counter')));
  /** @type {import('../../host/node/root.mjs').Runtime} */
  let rt;
  ({ rt } = await loadContracts(nodeContext, {
    pause: suspend((/** @type {AbortSignal} */ _signal, /** @type {number} */ n) => {
      if (n === 3) loads.push(rt.loadModule(counter, { name: 'counter' }));
      return Promise.resolve(n);
    }),
  }));
  const t = rt.dispatch('pause_loop', 10);
  const outcome = await Promise.race([t.done.then(() => 'finished'), new Promise((resolve) => { setTimeout(() => resolve('still waiting after 5 s'), 5000); })]);
  assert.equal(outcome, 'finished', `the task is ${t.state}, ${rt.stats().ready} ready`);
  assert.equal(t.value, 10);
  await Promise.all(loads);
  assert.deepEqual(rt.modules.map((m) => m.name), ['counter']);
  await rt.close();
});

test('modules: tasks_queued_when_a_module_loads_see_its_handlers_null_too', async () => {
  const { rt, events, release } = await loadDynamic({ maxEntered: 4 });
  release();
  // maxEntered 4: most of these are still queued, not started, when the load runs.
  const tasks = Array.from({ length: 40 }, (_, i) => rt.dispatch('hold', i + 1));
  const queuedAtLoad = tasks.filter((t) => t.state === 'queued').length;
  await rt.loadModule(MODULES.plugin, { name: 'plugin' });
  await rt.drain();
  assert.ok(queuedAtLoad >= 30, `tasks were queued at the load (${queuedAtLoad})`);
  for (const t of tasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  checkHoldEvents(events, tasks.length);
  await rt.close();
});

test('modules: a_cpp_side_module_loaded_from_tasks_suspends_inside_with_every_register_intact', async () => {
  const { rt, events, texts } = await loadDynamic({ maxSteps: 3 });
  const loaders = [];
  const busy = [];
  for (let i = 0; i < 30; i++) {
    loaders.push(rt.dispatch('use_cpp', 100 + i));
    busy.push(rt.dispatch('busy', 500 + i));
  }
  await rt.drain();
  assert.deepEqual(texts, [], 'no load failed');
  for (const t of [...loaders, ...busy]) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  assert.equal(events.filter((e) => e.kind === EV.pluginInit).length, 1, 'the module was instantiated once for 30 concurrent loads');
  assert.deepEqual(rt.modules.map((m) => m.name), ['cpp_plugin']);
  const tag = rt.handlerGlobals.find((h) => h.name === 'plugin_tag');
  assert.deepEqual(tag, { name: 'plugin_tag', module: 'cpp_plugin', type: 'i32' });
  assert.equal(rt.stats().failed, 0);
  // 30 use_cpp + 30 busy + 2 children per plugin_work call (rounds 2 and 5).
  assert.equal(rt.stats().returned, 60 + 60);
  await rt.close();
});

test('modules: a_cpp_side_module_loaded_from_js_runs_its_constructors_once_and_tasks_find_it_by_name', async () => {
  const { rt, events } = await loadDynamic();
  const m = await rt.loadModule(MODULES.cpp_plugin, { name: 'cpp_plugin' });
  assert.equal(events.filter((e) => e.kind === EV.pluginInit).length, 1);
  assert.deepEqual(m.handlers, ['plugin_tag']);
  // A task loading it by name gets the same module.
  const t = rt.dispatch('use_cpp', 7);
  await rt.drain();
  assert.equal(t.value, 0);
  assert.equal(events.filter((e) => e.kind === EV.pluginInit).length, 1);
  await rt.close();
});

const FAILURES = [
  {
    index: 1, name: 'missing_symbol', status: Status.failed,
    text: 'module missing_symbol does not link:\n  - it imports the function no_such_function, which neither the program nor a loaded module exports',
  },
  { index: 2, name: 'wrong_type', status: Status.failed, text: /^module wrong_type does not link: .*(type|signature)/is },
  {
    index: 3, name: 'not_abi', status: Status.failed,
    text: 'module not_abi does not follow the snail-core ABI (docs/abi.md):\n'
      + '  - it imports snail.sleep with type (func (param i32) (result i32)); the ABI type is (func (param f64) (result i32))\n'
      + '  - its handler global "snail.handler.bad_const" is immutable; handlers are mutable globals',
  },
  { index: 4, name: 'garbage', status: Status.failed, text: /^module garbage does not compile: .*not a WebAssembly module/ },
  { index: 5, name: 'nowhere', status: Status.not_found, text: 'module nowhere could not be found: the modules option does not name it' },
];

test('modules: a_module_that_fails_to_load_gives_the_loading_task_a_status_and_the_reason', async () => {
  const { rt, texts } = await loadDynamic();
  const busy = Array.from({ length: 10 }, (_, i) => rt.dispatch('busy', 900 + i));
  for (const f of FAILURES) {
    texts.length = 0;
    const t = rt.dispatch('try_load', f.index);
    await t.result.catch(() => {});
    assert.equal(t.value, -f.status, `${f.name}: status`);
    assert.equal(texts.length, 1);
    assert.equal(texts[0].status, f.status);
    if (typeof f.text === 'string') assert.equal(texts[0].text, f.text);
    else assert.match(texts[0].text, f.text);
  }
  // The runtime and every other task went on; a good module still loads.
  texts.length = 0;
  const good = rt.dispatch('try_load', 0);
  await rt.drain();
  assert.ok(good.value > 0, `the plugin loaded after the failures (${good.value}, ${texts[0]?.text})`);
  for (const t of busy) assert.equal(t.value, 0);
  assert.deepEqual(rt.modules.map((m) => m.name), ['plugin']);
  assert.equal(rt.stats().failed, 0);
  await rt.close();
});

test('modules: rt_loadModule_rejects_a_failing_module_with_ERR_MODULE_and_the_reason', async () => {
  const { rt } = await loadDynamic();
  for (const f of FAILURES.filter((x) => x.name !== 'nowhere')) {
    await assert.rejects(rt.loadModule(MODULES[f.name], { name: f.name }), (error) => {
      assert.equal(error.name, 'ModuleLoadError');
      assert.equal(error.code, 'ERR_MODULE');
      assert.equal(error.status, f.status);
      if (typeof f.text === 'string') assert.equal(error.message, f.text);
      else assert.match(error.message, f.text);
      return true;
    });
  }
  await assert.rejects(rt.loadModule(path.join(programs, 'modules', 'absent.wasm')), (error) => {
    assert.equal(error.status, Status.not_found);
    assert.match(error.message, /^module .*absent\.wasm could not be found: .*no such file/);
    return true;
  });
  await assert.rejects(rt.loadModule(fs.readFileSync(MODULES.plugin)), { code: 'ERR_ARG' });
  assert.deepEqual(rt.modules, []);
  assert.deepEqual(rt.handlerGlobals.map((h) => h.name), ['main_tag'], 'a failed load adds no registers');
  await rt.close();
});

test('modules: loading_the_same_module_twice_gives_the_same_module', async () => {
  const { rt } = await loadDynamic();
  const [a, b] = await Promise.all([
    rt.loadModule(MODULES.plugin, { name: 'plugin' }),
    rt.loadModule(MODULES.plugin, { name: 'plugin' }),
  ]);
  assert.equal(a.handle, b.handle);
  assert.equal(a.exports, b.exports, 'one instance');
  const t = rt.dispatch('load_twice');
  await rt.drain();
  assert.equal(t.value, a.handle, 'a task loading it twice by name gets the same handle');
  const c = await rt.loadModule(MODULES.plugin, { name: 'plugin' });
  assert.equal(c.handle, a.handle);
  assert.equal(rt.handlerGlobals.filter((h) => h.module === 'plugin').length, 2, 'its handlers joined once');
  // The same bytes under another name would be a second instance defining
  // the same handler globals: handler names are program-wide, so it is refused.
  await assert.rejects(rt.loadModule(MODULES.plugin, { name: 'plugin-copy' }), {
    code: 'ERR_MODULE',
    message: 'module plugin-copy does not link:\n'
      + '  - it defines the handler global snail.handler.plugin_count, which module plugin already has; handler names are program-wide, so import it as env.snail.handler.plugin_count to share it\n'
      + '  - it defines the handler global snail.handler.plugin_token, which module plugin already has; handler names are program-wide, so import it as env.snail.handler.plugin_token to share it',
  });
  // A module without handler globals, loaded under two names: two instances.
  const one = await rt.loadModule(moduleFile('counter'), { name: 'counter-1' });
  const two = await rt.loadModule(moduleFile('counter'), { name: 'counter-2' });
  assert.notEqual(one.handle, two.handle);
  const next1 = /** @type {any} */ (one.exports).next;
  const next2 = /** @type {any} */ (two.exports).next;
  assert.deepEqual([next1(), next1(), next2()], [1, 2, 1]);
  assert.deepEqual(rt.modules.map((m) => m.name), ['plugin', 'counter-1', 'counter-2']);
  await rt.close();
  await assert.rejects(rt.loadModule(MODULES.plugin, { name: 'late' }), { code: 'ERR_CLOSED' });
});

/**
 * A module from WAT, with a dylink.0 section (memory and table needs) when
 * `dylink` is given.
 * @param {string} text @param {{ memSize: number, memAlign: number }} [dylink]
 */
function moduleOf(text, dylink) {
  const bytes = wat(text);
  if (!dylink) return bytes;
  const name = [...new TextEncoder().encode('dylink.0')];
  // Subsection 1 (memory info): mem size, mem align, table size, table align.
  const memInfo = [dylink.memSize, dylink.memAlign, 0, 0];
  const payload = [name.length, ...name, 1, memInfo.length, ...memInfo];
  // dylink.0 must come first: right after the header.
  return new Uint8Array([...bytes.slice(0, 8), 0, payload.length, ...payload, ...bytes.slice(8)]);
}

test('modules: a_module_whose_dylink_section_is_cut_short_fails_to_load_saying_why', async () => {
  const { rt } = await loadDynamic();
  const name = [...new TextEncoder().encode('dylink.0')];
  /** A module whose dylink.0 section holds `subsections`. @param {number[]} subsections */
  const withDylink = (subsections) => {
    const bytes = wat('(module)');
    const payload = [name.length, ...name, ...subsections];
    return new Uint8Array([...bytes.slice(0, 8), 0, payload.length, ...payload, ...bytes.slice(8)]);
  };
  const cases = [
    // Memory info whose first LEB128 never ends.
    { subsections: [1, 2, 0x80, 0x80], reason: 'unexpected end of the section' },
    // Memory info said to be longer than the section.
    { subsections: [1, 9, 0, 0, 0, 0], reason: 'a subsection extends past the end of the section' },
    // A needed module whose name is longer than the section.
    { subsections: [2, 3, 1, 5, 0x61], reason: 'unexpected end of the section' },
  ];
  for (const [i, { subsections, reason }] of cases.entries()) {
    await assert.rejects(rt.loadModule(withDylink(subsections), { name: `cut${i}` }), (error) => {
      assert.equal(error.name, 'ModuleLoadError');
      assert.equal(error.status, Status.failed);
      assert.equal(error.message, `module cut${i} has a bad dylink.0 section: ${reason}`);
      return true;
    });
  }
  assert.deepEqual(rt.modules, []);
  await rt.close();
});

test('modules: a_side_module_gets_got_entries_for_symbols_only_it_exports', async () => {
  // clang -shared gives a side module's own default-visibility symbols GOT
  // imports; the loader fills them from the module's exports once it is
  // instantiated, before its data relocations run.
  const side = moduleOf(`(module
    (import "env" "memory" (memory 1))
    (import "env" "__indirect_function_table" (table 0 funcref))
    (import "env" "__memory_base" (global $mb i32))
    (import "env" "__table_base" (global $tb i32))
    (import "GOT.func" "own_fn" (global $got_fn (mut i32)))
    (import "GOT.mem" "own_data" (global $got_data (mut i32)))
    (type $v_i (func (result i32)))
    (func $own_fn (export "own_fn") (result i32) (i32.const 7))
    (global (export "own_data") i32 (i32.const 8))
    (func (export "__wasm_apply_data_relocs")
      (i32.store (i32.add (global.get $mb) (i32.const 8)) (i32.const 42)))
    (func (export "check") (result i32)
      (i32.add (call_indirect (type $v_i) (global.get $got_fn)) (i32.load (global.get $got_data)))))`, { memSize: 16, memAlign: 2 });
  const { rt } = await loadDynamic();
  const loaded = await rt.loadModule(side, { name: 'own_got' });
  assert.equal(/** @type {any} */ (loaded.exports).check(), 49, 'own_fn() through its GOT entry, plus own_data through its GOT entry');
  await rt.close();
});

test('modules: a_module_gets_every_wasi_function_and_must_use_the_program_memory_for_them', async () => {
  const { rt } = await loadDynamic();
  // The program imports no random_get; a module that uses the program's
  // memory gets it all the same.
  const random = await rt.loadModule(moduleOf(`(module
    (import "env" "memory" (memory 1))
    (import "wasi_snapshot_preview1" "random_get" (func $random (param i32 i32) (result i32)))
    (func (export "fill") (param $at i32) (result i32) (call $random (local.get $at) (i32.const 16))))`), { name: 'random' });
  const memory = /** @type {WebAssembly.Memory} */ (rt.instance.exports.memory);
  const at = /** @type {any} */ (rt.instance.exports)['snail.alloc'](16);
  assert.equal(/** @type {any} */ (random.exports).fill(at), 0);
  assert.ok(new Uint8Array(memory.buffer, at, 16).some((b) => b !== 0), 'random bytes in the program memory');
  // A module with a memory of its own would have WASI read the program's.
  await assert.rejects(rt.loadModule(moduleOf(`(module
    (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
    (memory (export "memory") 1))`), { name: 'own_memory' }), (e) => e.code === 'ERR_MODULE'
    && /it imports wasi_snapshot_preview1\.fd_write, and WASI reads and writes the program's memory, but it has a memory of its own; import the program's as env\.memory/.test(e.message));
  await rt.close();
});

test('modules: the_modules_option_may_answer_with_a_promise_and_its_rejection_is_the_task_status', async () => {
  const plugin = fs.readFileSync(MODULES.plugin);
  const { rt } = await loadDynamicIn(nodeContext, {
    modules: async (/** @type {string} */ name) => {
      await new Promise((r) => setTimeout(r, 1));
      if (name === 'plugin') return plugin;
      throw new Error(`no ${name} here`);
    },
  });
  const good = rt.dispatch('try_load', 0);
  const missing = rt.dispatch('try_load', 5);
  assert.ok(await good.result > 0, 'the plugin loaded from the promised bytes');
  assert.equal(await missing.result, -Status.not_found, 'a rejected promise is not_found, and no unhandled rejection');
  await rt.close();
});

test('modules: a_module_initialiser_that_waits_fails_the_load_saying_so', async () => {
  const { rt } = await loadDynamic();
  await assert.rejects(rt.loadModule(moduleOf(`(module
    (import "snail" "yield" (func $yield (result i32)))
    (func (export "_initialize") (drop (call $yield))))`), { name: 'waits' }), (e) => e.code === 'ERR_MODULE'
    && /^module waits failed during its initialisation: it called a suspending import during its initialisation; waits are only allowed in tasks$/.test(e.message));
  await rt.close();
});

test('modules: a_task_load_counts_as_being_loaded_while_the_resolver_works_and_a_cancelled_waiter_stops_at_once', async () => {
  const plugin = fs.readFileSync(MODULES.plugin);
  let calls = 0;
  /** @type {(() => void)[]} */
  const answers = [];
  const { rt } = await loadDynamicIn(nodeContext, {
    modules: (/** @type {string} */ name) => {
      calls++;
      return new Promise((resolve) => { answers.push(() => resolve(name === 'plugin' ? plugin : null)); });
    },
  });
  // Two tasks and JavaScript load "plugin" while the resolver has not answered.
  const first = rt.dispatch('try_load', 0);
  await until(() => calls === 1, 'the resolver to be asked');
  const second = rt.dispatch('try_load', 0);
  const fromJs = rt.loadModule(fs.readFileSync(MODULES.wrong_type), { name: 'plugin' });
  // A third task that waits for the same load is cancelled: it stops at once.
  const third = rt.dispatch('try_load', 0);
  await until(() => third.state === 'suspended', 'the third task to wait');
  third.cancel();
  await third.done;
  assert.equal(third.state, 'cancelled');
  assert.equal(calls, 1, 'one resolver call for the name');
  for (const answer of answers) answer();
  const handle = await first.result;
  assert.ok(handle > 0);
  assert.equal(await second.result, handle, 'the second task shared the load');
  assert.equal((await fromJs).handle, handle, 'JavaScript shared it too, whatever bytes it gave');
  assert.deepEqual(rt.modules.map((m) => m.name), ['plugin']);
  await rt.close();
});

// Every module load that brings handler globals remakes the register file;
// the register slots share one memory with the suspension module's words, and
// a new file takes the old one's bytes. The memory stays the size of the
// register file in use, however many files came before (each placed after
// the last, these 20 loads took over 11 times what the last file needs).
test('modules: register_files_remade_by_many_loads_take_no_more_memory_than_the_last_needs', async () => {
  const { rt, release, paused } = await loadDynamic();
  const inside = internals(rt);
  const tasks = Array.from({ length: 2000 }, (_, i) => rt.dispatch('hold', i + 1));
  try {
    await until(() => paused() === 2000, 'all 2000 tasks to suspend in test.pause');
    for (let k = 0; k < 20; k++) {
      const globals = Array.from({ length: 4 }, (_, j) => `(global (export "snail.handler.m${k}_${j}") (mut i64) (i64.const 0))`).join(' ');
      await rt.loadModule(wat(`(module ${globals})`), { name: `m${k}` });
    }
    const file = inside.registerFile;
    const needed = WORDS_END + file.capacity * file.layout.stride;
    const bytes = inside.registerMemory.buffer.byteLength;
    assert.ok(bytes <= Math.ceil(needed / 65536) * 65536, `register memory ${bytes} bytes; the register file needs ${needed}`);
  } finally {
    release();
  }
  await rt.drain();
  for (const t of tasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
  await rt.close();
});

// A module that imports a handler global nobody has (a new register) and then
// fails to load leaves no such name behind: a later module defines it.
test('modules: a_module_that_fails_to_load_leaves_no_handler_name_behind', async () => {
  const { rt } = await loadDynamic();
  const failing = wat(`(module
    (import "env" "snail.handler.left" (global (mut i32)))
    (import "env" "nowhere_at_all" (func)))`);
  await assert.rejects(rt.loadModule(failing, { name: 'failing' }), (/** @type {any} */ e) => e.name === 'ModuleLoadError' && /nowhere_at_all/.test(e.message));
  assert.ok(!rt.handlerGlobals.some((h) => h.name === 'left'));
  const defining = await rt.loadModule(wat('(module (global (export "snail.handler.left") (mut i32) (i32.const 0)))'), { name: 'defining' });
  assert.deepEqual(defining.handlers, ['left']);
  await rt.close();
});
