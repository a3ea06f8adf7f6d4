// Programs built with Emscripten's generated JavaScript (docs/emscripten.md),
// under Node 26: the shared scenario (tests/cases/emscripten.cases.mjs) against
// every build variant of tests/programs/emscripten/, the errors of the
// `emscripten` option, and the post-link step's checks. The programs are built
// by tools/build.mjs when emcc is installed; without them these tests fail
// and say what to install.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { SNAIL_IMPORTS } from '../../host/browser/abi.mjs';
import { Runtime, SnailError } from '../../host/node/root.mjs';
import { runScenario } from '../cases/emscripten.cases.mjs';
import { programs, root } from './helpers.mjs';

const dir = path.join(programs, 'emscripten');
const require = createRequire(import.meta.url);
const postlink = path.join(root, 'tools/wasm/postlink-emscripten.mjs');

/** Fails with what to do when the Emscripten programs were not built. @param {string} name */
function built(name) {
  const file = path.join(dir, `${name}.wasm`);
  if (!fs.existsSync(file)) {
    const emcc = spawnSync('emcc', ['--version'], { env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
    assert.fail(emcc.error
      ? `${file} was not built because Emscripten is not installed: apt-get install emscripten (tools/bootstrap.sh does), then node tools/build.mjs`
      : `${file} is missing although emcc is installed: run node tools/build.mjs and read its output`);
  }
  return file;
}

/** The build variants of tests/programs/emscripten/CMakeLists.txt and how Node loads their factory. */
const variants = [
  { variant: 'tasks', js: 'tasks.mjs', checkedStack: false, what: 'ES module, -O2' },
  { variant: 'tasks_classic', js: 'tasks_classic.cjs', checkedStack: false, what: 'CommonJS, -O2' },
  { variant: 'tasks_debug', js: 'tasks_debug.cjs', checkedStack: false, what: 'CommonJS, -O0: ASSERTIONS and STACK_OVERFLOW_CHECK=1' },
  { variant: 'tasks_checked', js: 'tasks_checked.cjs', checkedStack: true, what: 'CommonJS, -O2 -sSTACK_OVERFLOW_CHECK=2' },
];

/** @param {string} js */
async function factoryOf(js) {
  const file = path.join(dir, js);
  return js.endsWith('.mjs') ? (await import(pathToFileURL(file).href)).default : require(file);
}

for (const v of variants) {
  test(`emscripten: several_suspending_tasks_a_cancellation_and_drains (${v.what})`, async () => {
    const wasm = built(v.variant);
    const { counts } = await runScenario({
      env: 'node', variant: v.variant, wasm, checkedStack: v.checkedStack, factory: () => factoryOf(v.js),
    });
    assert.ok(counts.steps > 15, 'the scheduler granted the permit at every start and resumption');
  });
}

test('emscripten: the_program_keeps_its_own_stack_registers_and_abi_names', () => {
  const module = new WebAssembly.Module(fs.readFileSync(built('tasks')));
  const exports = new Map(WebAssembly.Module.exports(module).map((e) => [e.name, e.kind]));
  for (const [name, kind] of [['__stack_pointer', 'global'], ['snail.stack.base', 'global'], ['snail.stack.limit', 'global'],
    ['snail.stack.acquire', 'function'], ['snail.stack.release', 'function'], ['snail.entry.sleeper', 'function'],
    ['snail.handler.who', 'global'], ['snail__entry__sleeper', 'function'], ['stackSave', 'function']]) {
    assert.equal(exports.get(name), kind, `exports ${name}`);
  }
  const imports = WebAssembly.Module.imports(module);
  assert.ok(imports.some((i) => i.module === 'snail' && i.name === 'sleep'), 'imports snail.sleep from module snail');
  assert.ok(imports.some((i) => i.module === 'env'), 'imports Emscripten\'s env');
  assert.equal(new TextDecoder().decode(WebAssembly.Module.customSections(module, 'snail.abi')[0]), '1');
  assert.equal(WebAssembly.Module.customSections(module, 'snail.emscripten').length, 1);
});

test('emscripten: load_errors_name_what_to_do', async () => {
  const wasm = built('tasks');
  const factory = await factoryOf('tasks.mjs');
  const code = (/** @type {string} */ c, /** @type {RegExp} */ re) => (/** @type {any} */ e) => e instanceof SnailError && e.code === c && re.test(e.message);
  await assert.rejects(Runtime.load(wasm, { emscripten: /** @type {any} */ ('createModule') }),
    code('ERR_OPTION', /takes the factory function emcc generates with -sMODULARIZE.*got string/));
  await assert.rejects(Runtime.load(wasm, { emscripten: /** @type {any} */ ({ factory, modul: {} }) }),
    code('ERR_OPTION', /has no property "modul"/));
  await assert.rejects(Runtime.load(wasm, { emscripten: { factory, module: { instantiateWasm: () => ({}) } } }),
    code('ERR_OPTION', /instantiateWasm is set by snail-core/));
  await assert.rejects(Runtime.load(wasm, { emscripten: factory, args: ['x'] }),
    code('ERR_OPTION', /option args is for WASI programs/));
  await assert.rejects(Runtime.load(wasm, { emscripten: /** @type {any} */ (() => 42) }),
    code('ERR_OPTION', /returned number, not a Promise/));
  // The program needs the factory; a factory needs a program post-linked for it.
  await assert.rejects(Runtime.load(wasm), code('ERR_OPTION', /linked with the JavaScript emcc generated: pass that JavaScript's factory/));
  await assert.rejects(Runtime.load(path.join(programs, 'hello.wasm'), { emscripten: factory }),
    code('ERR_LINK', /hello\.wasm is a program without Emscripten's JavaScript \(wasm32-wasi or standalone\): load it without the emscripten option/));
  // emcc's own output, before the post-link step.
  await assert.rejects(Runtime.load(path.join(root, 'build/emscripten/tasks.emcc.wasm'), { emscripten: factory }),
    code('ERR_LINK', /tasks\.emcc\.wasm was not post-linked for Emscripten's JavaScript: run node tools\/wasm\/postlink-emscripten\.mjs/));
  // A missing import of the program's own module is named.
  await assert.rejects(Runtime.load(wasm, { emscripten: factory }),
    (/** @type {any} */ e) => e.code === 'ERR_ABI' && /imports test\.event, which nobody provides/.test(e.message) && /test\.op/.test(e.message));
  // A constructor that aborts, and one that waits outside a task.
  const ctorFactory = await factoryOf('ctor_fails.cjs');
  /** @type {string[]} */
  const errors = [];
  const ctorLoad = (/** @type {number} */ mode) => Runtime.load(built('ctor_fails'), {
    emscripten: ctorFactory, stderr: (t) => { errors.push(t); }, imports: { test: { mode: () => mode } },
  });
  await assert.rejects(ctorLoad(1), code('ERR_INIT', /failed during Emscripten's start-up \(its constructors\): Emscripten aborted/));
  await assert.rejects(ctorLoad(2), code('ERR_INIT', /its constructors\): it called a suspending snail import outside a task/));
  const fine = await ctorLoad(0);
  const t = fine.dispatch('main', 5);
  await fine.drain();
  assert.equal(await t.result, 5);
  await fine.close();
  assert.ok(errors.join('').includes('Aborted('), 'Emscripten printed its abort to the stderr option');
});

test('emscripten: imports_of_the_program_may_be_plain_functions', async () => {
  const factory = await factoryOf('tasks.mjs');
  const rt = await Runtime.load(built('tasks'), {
    emscripten: factory,
    imports: { test: { event: () => {}, op: () => 0 } },
    stdout: () => {},
  });
  const t = rt.dispatch('family', 1);
  await rt.drain();
  assert.equal(await t.result, 1001);
  await rt.close();
});

test('emscripten: the_snail_import_library_names_every_import_of_module_snail', () => {
  const text = fs.readFileSync(path.join(root, 'tools/emscripten/snail-imports.js'), 'utf8');
  const list = /var names = \[([\s\S]*?)\];/.exec(text);
  assert.ok(list, 'snail-imports.js has its list of names');
  const names = [...list[1].matchAll(/'([a-z_]+)'/g)].map((m) => m[1]).sort();
  assert.deepEqual(names, Object.keys(SNAIL_IMPORTS).sort());
});

test('emscripten: postlink_refuses_what_it_cannot_adopt', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-em-'));
  try {
    const run = (/** @type {string[]} */ args) => spawnSync(process.execPath, [postlink, ...args], { encoding: 'utf8' });
    // A module post-linked already.
    let r = run([built('tasks'), path.join(tmp, 'again.wasm')]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /was post-linked already/);
    // A module not linked by emcc (the WASI hello program).
    r = run([path.join(programs, 'hello.wasm'), path.join(tmp, 'hello.wasm')]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /does not look like a module emcc linked with its JavaScript/);
    // A stack larger than the linked one.
    const raw = path.join(root, 'build/emscripten/tasks.emcc.wasm');
    r = run([raw, path.join(tmp, 'big.wasm'), '--stack-size', String(1 << 30)]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /larger than the linked stack/);
    // The raw module of the build, post-linked again, equals the build's.
    r = run([raw, path.join(tmp, 'tasks.wasm')]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(fs.readFileSync(path.join(tmp, 'tasks.wasm')), fs.readFileSync(built('tasks')));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('emscripten: a_task_without_memory_for_its_stack_segment_fails_alone', async () => {
  // tasks_classic: 16 MiB of memory that does not grow, 5 MiB of it
  // Emscripten's stack. The core carves 512 KiB segments from 4 MiB slabs, and
  // a third slab does not fit. Linked with -sABORTING_MALLOC=0, malloc
  // returns null instead of aborting the program from inside the scheduler.
  const factory = await factoryOf('tasks_classic.cjs');
  const rt = await Runtime.load(built('tasks_classic'), {
    emscripten: factory,
    stackSize: 512 * 1024,
    imports: { test: { event: () => {}, op: () => 0 } },
  });
  const tasks = Array.from({ length: 17 }, (_, i) => rt.dispatch('sleeper', i + 1));
  await rt.drain();
  assert.deepEqual(tasks.map((t) => t.state), [...Array(16).fill('returned'), 'failed']);
  assert.deepEqual(await Promise.all(tasks.slice(0, 16).map((t) => t.result)), tasks.slice(0, 16).map((_, i) => (i + 1) * 10 + 3));
  await assert.rejects(tasks[16].result, /could not start: no memory for its 524288-byte stack segment/);
  const again = rt.dispatch('sleeper', 30);
  await rt.drain();
  assert.equal(await again.result, 303, 'a finished task\'s segment is reused');
  await rt.close();
});

test('emscripten: snail_emscripten_cmake_links_a_release_build_at_O2_and_refuses_flags_with_Os', () => {
  // Linked above -O2, emcc renames the imports and exports and the post-link
  // step refuses the module. The test programs are a Release build whose
  // CMakeLists.txt gives most links no level: they were built, so the cap
  // held there. Here the link commands themselves, from projects configured
  // but not built.
  // Not a skip: tools/bootstrap.sh installs ninja-build, as it installs emcc,
  // and like the builds of emcc this file tests, a missing tool fails.
  assert.equal(spawnSync('ninja', ['--version']).status, 0, 'ninja is not installed (tools/bootstrap.sh installs ninja-build): the link commands are read with ninja -t commands');
  const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-em-level-'));
  try {
    fs.writeFileSync(path.join(tmp, 'CMakeLists.txt'), `cmake_minimum_required(VERSION 3.20)
project(level LANGUAGES CXX)
include(${JSON.stringify(path.join(root, 'tools/cmake/SnailEmscripten.cmake'))})
snail_add_emscripten_program(app SOURCES app.cpp)
`);
    fs.writeFileSync(path.join(tmp, 'app.cpp'), '#include <snail/snail.hpp>\nSNAIL_ENTRY(main) { return arg; }\n');
    const configure = (/** @type {string} */ build, /** @type {string[]} */ extra) => spawnSync('emcmake',
      ['cmake', '-S', tmp, '-B', path.join(tmp, build), '-G', 'Ninja', `-DSNAIL_NODE=${process.execPath}`, ...extra],
      { env, encoding: 'utf8' });
    /** The -O options of the command that links app, in order. @param {string} build */
    const linkLevels = (build) => {
      const r = spawnSync('ninja', ['-C', path.join(tmp, build), '-t', 'commands', 'app.emcc'], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const link = r.stdout.split('\n').find((line) => / -o app\.emcc\.js /.test(line));
      assert.ok(link, r.stdout);
      return link.split(' ').filter((word) => /^-O/.test(word));
    };
    let r = configure('release', ['-DCMAKE_BUILD_TYPE=Release']);
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    assert.deepEqual(linkLevels('release'), ['-O3', '-O2'], 'the build\'s -O3, then the cap');
    r = configure('debug', ['-DCMAKE_BUILD_TYPE=Debug']);
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    assert.deepEqual(linkLevels('debug'), [], 'nothing to cap');
    // A later -O2 does not undo -Os or -Oz in emcc: refused when configured.
    for (const [extra, flag, where] of [
      [['-DCMAKE_BUILD_TYPE=MinSizeRel'], '-Os', 'CMAKE_CXX_FLAGS_MINSIZEREL'],
      [['-DCMAKE_BUILD_TYPE=Release', '-DCMAKE_CXX_FLAGS=-Oz'], '-Oz', 'CMAKE_CXX_FLAGS'],
    ]) {
      r = configure(`refused${flag}`, /** @type {string[]} */ (extra));
      assert.notEqual(r.status, 0);
      const flat = `${r.stdout}${r.stderr}`.replace(/\s+/g, ' ');
      assert.ok(flat.includes(`snail_add_emscripten_program(app): this build's flags have ${flag} (`), flat);
      assert.ok(flat.includes(where), flat);
      assert.match(flat, /give -Os with add_compile_options\(\) or target_compile_options\(\), which the link does not see/);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
