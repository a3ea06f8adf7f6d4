// Modules loaded into a running program (docs/abi.md, "Dynamically loaded
// modules"), in Node and in Chromium: tests/programs/dynamic.cpp, the
// hand-written tests/programs/modules/plugin.wat and the C++ side module
// tests/programs/modules/cpp_plugin.cpp. tests/node/modules.test.mjs has the
// failure cases and the larger schedules.
import { Runtime, suspend } from '../../host/browser/index.mjs';
import { assert } from './assert.mjs';
import { assertQuiet, closeQuiet, until } from './support.mjs';

/** Event kinds of dynamic.cpp and cpp_plugin.cpp. */
export const MODULE_EV = Object.freeze({
  sawCount: 10, sawToken: 11, childMain: 12, childCount: 13, childToken: 14, pluginInit: 20,
});

/**
 * Loads dynamic.wasm. `test.pause(n)` waits until `release()`; events and the
 * texts of test.text are recorded. Without a `modules` option, a task finds
 * "plugin" among the built modules and "cpp_plugin" beside the program.
 * @param {import('./support.mjs').CaseContext} ctx
 * @param {import('../../host/browser/index.mjs').RuntimeOptions} [options]
 */
export async function loadDynamic(ctx, options = {}) {
  // Imports of the options join the test module's.
  const { imports: extra = {}, ...rest } = options;
  /** @type {{ kind: number, a: number, b: number }[]} */
  const events = [];
  /** @type {{ status: number, text: string }[]} */
  const texts = [];
  let paused = 0;
  /** @type {() => void} */
  let open = () => {};
  const gate = new Promise((resolve) => { open = () => resolve(undefined); });
  const beside = ctx.program('dynamic').toString().replace(/dynamic\.wasm$/, '');
  /** @type {Runtime} */
  const rt = await Runtime.load(ctx.program('dynamic'), {
    checkInvariants: true,
    modules: (name) => (name === 'plugin' ? ctx.program('modules/module_plugin') : `${beside}${name}.wasm`),
    imports: {
      ...extra,
      test: {
        ...extra.test,
        event: (/** @type {number} */ kind, /** @type {number} */ a, /** @type {number} */ b) => { events.push({ kind, a, b }); },
        pause: suspend(async (_signal, n) => {
          paused++;
          await gate;
          return n;
        }),
        text: (/** @type {number} */ status, /** @type {number} */ ptr, /** @type {number} */ len) => {
          const bytes = new Uint8Array(/** @type {any} */ (rt.instance.exports.memory).buffer, ptr, len);
          texts.push({ status, text: new TextDecoder().decode(bytes) });
        },
        // For plugin.wat, which tasks load into this program.
        make_token: (/** @type {number} */ n) => ({ id: n }),
        token_id: (/** @type {{ id: number } | null} */ token) => (token === null ? -1 : token.id),
      },
    },
    ...rest,
  });
  return { rt, events, texts, release: () => open(), paused: () => paused };
}

/**
 * The events of one kind, as a map from a to b (one per a).
 * @param {{ kind: number, a: number, b: number }[]} events @param {number} kind
 */
export function eventsByArg(events, kind) {
  const map = new Map();
  for (const e of events) {
    if (e.kind !== kind) continue;
    assert.ok(!map.has(e.a), `two events of kind ${kind} for ${e.a}`);
    map.set(e.a, e.b);
  }
  return map;
}

/**
 * Checks what each `hold` task 1..n reported: the new handlers null, the
 * children's inherited bindings of both modules.
 * @param {{ kind: number, a: number, b: number }[]} events @param {number} n
 */
export function checkHoldEvents(events, n) {
  const sawCount = eventsByArg(events, MODULE_EV.sawCount);
  const sawToken = eventsByArg(events, MODULE_EV.sawToken);
  const childMain = eventsByArg(events, MODULE_EV.childMain);
  const childCount = eventsByArg(events, MODULE_EV.childCount);
  const childToken = eventsByArg(events, MODULE_EV.childToken);
  for (let arg = 1; arg <= n; arg++) {
    assert.equal(sawCount.get(arg), 0, `task ${arg} sees the new i32 handler null`);
    assert.equal(sawToken.get(arg), -1, `task ${arg} sees the new externref handler null`);
    assert.equal(childMain.get(arg), arg, `the child of task ${arg} inherits the program's binding`);
    assert.equal(childCount.get(arg), arg + 1000, `the child of task ${arg} inherits the module's i32 binding`);
    assert.equal(childToken.get(arg), arg + 1000, `the child of task ${arg} inherits the module's externref binding`);
  }
}

/** @type {import('./support.mjs').Case[]} */
export const cases = [
  {
    name: 'modules: a_module_loaded_while_tasks_are_suspended_starts_null_in_each_and_children_inherit_it',
    async run(ctx) {
      const { rt, events, release, paused } = await loadDynamic(ctx);
      const tasks = Array.from({ length: 30 }, (_, i) => rt.dispatch('hold', i + 1));
      await until(() => paused() === 30, 'all 30 tasks to suspend in test.pause');
      const loaded = await rt.loadModule(ctx.program('modules/module_plugin'), { name: 'plugin' });
      assert.deepEqual(loaded.handlers, ['plugin_count', 'plugin_token']);
      assert.deepEqual(rt.handlerGlobals.map((h) => `${h.name}:${h.type}`), ['main_tag:i32', 'plugin_count:i32', 'plugin_token:externref']);
      release();
      await rt.drain();
      for (const t of tasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
      checkHoldEvents(events, tasks.length);
      await closeQuiet(rt);
    },
  },
  {
    name: 'modules: a_javascript_load_begun_as_a_task_starts_loading_the_same_name_shares_the_task_load',
    async run(ctx) {
      // The task's wait had begun (it was suspended) but its load started a
      // microtask later: a JavaScript load of the name with other bytes in
      // that window started its own, and the task got its failure.
      const garbage = new Uint8Array([0, 0x61, 0x73, 0x6d, 9, 9, 9, 9]);
      /** @type {Promise<unknown>[]} */
      const js = [];
      /** @type {Runtime} */
      let rt;
      ({ rt } = await loadDynamic(ctx, {
        trace: (/** @type {any} */ e) => {
          if (e.type === 'suspend' && e.waitingOn === 'snail.module_load("cpp_plugin")') js.push(rt.loadModule(garbage, { name: 'cpp_plugin' }));
        },
      }));
      const t = rt.dispatch('use_cpp', 5);
      assert.equal(await t.result, 0, 'the task loaded and used the module');
      assert.equal(js.length, 1, 'JavaScript loaded the name while the task waited for it');
      const loaded = /** @type {any} */ (await js[0]);
      assert.equal(loaded.name, 'cpp_plugin');
      assert.deepEqual(rt.modules.map((m) => m.name), ['cpp_plugin']);
      await closeQuiet(rt);
    },
  },
  {
    name: 'modules: a_cpp_side_module_found_beside_the_program_suspends_inside_with_the_registers_intact',
    async run(ctx) {
      const { rt, events, texts } = await loadDynamic(ctx, { maxSteps: 3 });
      const tasks = [];
      for (let i = 0; i < 10; i++) tasks.push(rt.dispatch('use_cpp', 100 + i), rt.dispatch('busy', 500 + i));
      await rt.drain();
      assert.deepEqual(texts, [], 'no load failed');
      for (const t of tasks) assert.equal(t.value, 0, `${t} failed check ${t.value}`);
      assert.equal(events.filter((e) => e.kind === MODULE_EV.pluginInit).length, 1, 'one instance for 10 concurrent loads');
      assert.deepEqual(rt.modules.map((m) => m.name), ['cpp_plugin']);
      await closeQuiet(rt);
    },
  },
  {
    name: 'modules: a_task_load_in_flight_when_close_is_called_is_abandoned_before_the_module_runs',
    async run(ctx) {
      // The resolver answers only after close() resolved; the module's
      // constructor would record pluginInit.
      /** @type {(source: unknown) => void} */
      let answer = () => {};
      const { rt, events } = await loadDynamic(ctx, {
        modules: () => new Promise((resolve) => { answer = resolve; }),
      });
      const loader = /** @type {any} */ (rt).loader;
      const t = rt.dispatch('use_cpp', 1);
      await until(() => t.state === 'suspended', 'the task to wait for its load');
      const report = await rt.close();
      assert.deepEqual(report.abandonedLoads, ['cpp_plugin']);
      assert.equal(t.state, 'cancelled');
      answer(ctx.program('cpp_plugin'));
      await Promise.allSettled([...loader.work]);
      assert.equal(events.filter((e) => e.kind === MODULE_EV.pluginInit).length, 0, 'its constructors never ran');
      assert.deepEqual(rt.modules, []);
      assertQuiet(rt);
    },
  },
];
