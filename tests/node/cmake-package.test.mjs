// The CMake package: `cmake --install` of the wasm32-wasi build into a
// temporary prefix, then out-of-tree projects that find_package(SnailCore)
// there, build a program with snail_add_program() and run it with the CLI.
// Also what works with Emscripten (emcmake), when em++ is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { readNames } from '../../host/browser/names.mjs';
import { guideSectionBlocks, root } from './helpers.mjs';

const cli = path.join(root, 'host/cli/snail-core.mjs');
const generator = spawnSync('ninja', ['--version']).status === 0 ? ['-G', 'Ninja'] : [];
const emcc = ['/usr/bin/emcmake', '/usr/bin/em++'].every((f) => fs.existsSync(f));
// Debian's Emscripten finds its JavaScript dependencies there.
const emEnv = { ...process.env, NODE_PATH: '/usr/share/nodejs' };

/** @type {string} */
let tmp;
/** @type {string} */
let prefix;
/** @type {string} */
let packageDir;

/**
 * @param {string} command @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} [options]
 */
function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: options.cwd ?? tmp, env: options.env ?? process.env, encoding: 'utf8', timeout: 300_000 });
  if (r.error) throw r.error;
  const all = `${r.stdout}${r.stderr}`;
  // CMake wraps its messages: `flat` has every run of white space as one space.
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, all, flat: all.replace(/\s+/g, ' ') };
}

/**
 * Copies a project directory out of the source tree.
 * @param {string} from @param {string} name
 */
function project(from, name) {
  const dir = path.join(tmp, name);
  fs.cpSync(from, dir, { recursive: true });
  return dir;
}

/** Configures `source` into `build` with extra cache arguments. @param {string} source @param {string} build @param {string[]} extra */
function configure(source, build, extra, env = process.env) {
  return run('cmake', ['-S', source, '-B', build, ...generator, ...extra], { env });
}

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-cmake-'));
  prefix = path.join(tmp, 'prefix');
  packageDir = path.join(prefix, 'lib/cmake/SnailCore');
  const r = run('cmake', ['--install', path.join(root, 'build/wasm'), '--prefix', prefix]);
  assert.equal(r.status, 0, r.all);
});

after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('cmake: install_puts_the_headers_the_core_and_the_package_files_under_the_prefix', () => {
  const files = fs.readdirSync(prefix, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(prefix, path.join(e.parentPath, e.name)))
    .sort();
  for (const f of [
    'include/snail/snail.hpp', 'include/snail/abi.h', 'include/snail/detail/stack_pool.hpp',
    'lib/libsnail_core.a',
    'lib/cmake/SnailCore/SnailCoreConfig.cmake', 'lib/cmake/SnailCore/SnailCoreConfigVersion.cmake',
    'lib/cmake/SnailCore/SnailCoreTargets.cmake', 'lib/cmake/SnailCore/SnailCoreInstallInfo.cmake',
    'lib/cmake/SnailCore/SnailProgram.cmake', 'lib/cmake/SnailCore/SnailModule.cmake', 'lib/cmake/SnailCore/wasm32-wasi.cmake',
    'lib/cmake/SnailCore/Platform/WASI.cmake', 'lib/cmake/SnailCore/snail-postlink.mjs',
    'share/snail-core/tools/wasm/postlink.mjs', 'share/snail-core/host/browser/wasm/binary.mjs', 'share/snail-core/host/browser/errors.mjs',
    'share/snail-core/core/src/runtime.cpp',
  ]) {
    assert.ok(files.includes(f), `${f} is installed`);
  }
  assert.equal(files.filter((f) => /test|gtest|\.wasm$/.test(f)).length, 0, `no tests or test programs: ${files.join(', ')}`);
  // The library is a wasm32 archive: its first member is Wasm code.
  const archive = fs.readFileSync(path.join(prefix, 'lib/libsnail_core.a'));
  assert.equal(archive.subarray(0, 8).toString('latin1'), '!<arch>\n');
  assert.ok(archive.includes(Buffer.from([0x00, 0x61, 0x73, 0x6d])), 'holds WebAssembly objects');
});

test('cmake: an_out_of_tree_project_finds_the_installed_package_builds_a_program_and_the_cli_runs_it', () => {
  const source = project(path.join(root, 'tools/cmake/example'), 'example');
  const build = path.join(tmp, 'example-build');
  let r = configure(source, build, [`-DCMAKE_PREFIX_PATH=${prefix}`, `-DCMAKE_TOOLCHAIN_FILE=${packageDir}/wasm32-wasi.cmake`]);
  assert.equal(r.status, 0, r.all);
  const cache = fs.readFileSync(path.join(build, 'CMakeCache.txt'), 'utf8');
  assert.match(cache, new RegExp(`^SnailCore_DIR:PATH=${packageDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'), 'found the installed package, not the source tree');
  r = run('cmake', ['--build', build]);
  assert.equal(r.status, 0, r.all);
  assert.match(r.all, /Post-linking snail-core program app\.wasm/);
  // The installed core was linked: no core source was compiled here.
  assert.doesNotMatch(r.all, /runtime\.cpp/);

  const program = path.join(build, 'programs/app.wasm');
  const inspect = run(process.execPath, [cli, 'inspect', program, '--json']);
  assert.equal(inspect.status, 0, inspect.all);
  const report = JSON.parse(inspect.stdout);
  assert.equal(report.abiVersion, '1', 'post-linked: it has the snail.abi section');
  assert.deepEqual(report.stack, { pointer: true, base: true, limit: true }, 'post-linked: the stack check');
  assert.deepEqual(report.handlers, [{ name: 'who', type: 'i32' }]);

  const ran = run(process.execPath, [cli, 'run', program]);
  assert.equal(ran.status, 0, ran.all);
  assert.equal(ran.stdout, 'hello, world\nsleeper woke: cancelled\nsleeper unwound\nsleeper joined: cancelled\n');
  assert.equal(ran.stderr, '');
});

test('cmake: an_out_of_tree_project_builds_a_dynamic_program_and_a_side_module_that_a_task_loads', async () => {
  const source = path.join(tmp, 'dynamic');
  fs.mkdirSync(source, { recursive: true });
  fs.writeFileSync(path.join(source, 'CMakeLists.txt'), `cmake_minimum_required(VERSION 3.20)
project(snail_dynamic LANGUAGES CXX)
find_package(SnailCore 0.1 REQUIRED)
snail_add_program(app SOURCES app.cpp DYNAMIC)
snail_add_side_module(greeter SOURCES greeter.cpp)
`);
  fs.writeFileSync(path.join(source, 'app.cpp'), `#include <snail/snail.hpp>
SNAIL_HANDLER(depth, int);
SNAIL_ENTRY(main) {
  snail::bind scope(depth, arg);
  snail::module m;
  std::string error;
  if (snail::load_module("greeter", m, &error) != snail::status::ok) return -1;
  auto twice = m.function<int(int)>("twice_after_a_nap");
  if (!twice) return -2;
  int r = twice(arg);
  return depth.get() == arg ? r : -3;
}
`);
  fs.writeFileSync(path.join(source, 'greeter.cpp'), `#include <snail/snail.hpp>
SNAIL_HANDLER(depth, int);  // the program's register: handler names are program-wide
extern "C" int twice_after_a_nap(int n) {
  if (snail::sleep(2) != snail::status::ok) return -10;
  return depth.get() == n ? 2 * n : -11;
}
`);
  const build = path.join(tmp, 'dynamic-build');
  let r = configure(source, build, [`-DCMAKE_PREFIX_PATH=${prefix}`, `-DCMAKE_TOOLCHAIN_FILE=${packageDir}/wasm32-wasi.cmake`]);
  assert.equal(r.status, 0, r.all);
  r = run('cmake', ['--build', build]);
  assert.equal(r.status, 0, r.all);
  assert.match(r.all, /Post-linking snail-core side module greeter\.wasm/);
  const { Runtime } = await import('../../host/node/root.mjs');
  const rt = await Runtime.load(path.join(build, 'programs/app.wasm'));
  const tasks = [3, 4, 5].map((n) => rt.dispatch('main', n));
  await rt.drain();
  assert.deepEqual(tasks.map((t) => t.value), [6, 8, 10], tasks.map((t) => String(t.error)).join('; '));
  assert.deepEqual(rt.modules.map((m) => m.name), ['greeter']);
  assert.deepEqual(rt.handlerGlobals.map((h) => h.name), ['depth'], 'the module shares the program\'s handler');
  await rt.close();
});

test('cmake: find_package_explains_a_project_not_configured_for_webassembly', () => {
  const source = project(path.join(root, 'tools/cmake/example'), 'native');
  const r = configure(source, path.join(tmp, 'native-build'), [`-DCMAKE_PREFIX_PATH=${prefix}`]);
  assert.notEqual(r.status, 0);
  assert.match(r.flat, /snail-core programs are WebAssembly, but this project is configured for Linux\. Configure it with the toolchain file of the package: cmake -DCMAKE_TOOLCHAIN_FILE=\S+\/lib\/cmake\/SnailCore\/wasm32-wasi\.cmake \.\.\. or with Emscripten: emcmake cmake \.\.\./);
});

test('cmake: find_package_reports_a_missing_binaryen_when_configuring', () => {
  const source = project(path.join(root, 'tools/cmake/example'), 'nobinaryen');
  const empty = path.join(tmp, 'empty-node-modules');
  fs.mkdirSync(empty);
  const r = configure(source, path.join(tmp, 'nobinaryen-build'), [
    `-DCMAKE_PREFIX_PATH=${prefix}`, `-DCMAKE_TOOLCHAIN_FILE=${packageDir}/wasm32-wasi.cmake`, `-DSNAIL_NODE_MODULES=${empty}`,
  ]);
  assert.notEqual(r.status, 0);
  assert.match(r.flat, /snail-core's post-link step cannot run with \S+: snail-postlink: the npm package binaryen is not in \S+empty-node-modules; install it there \(npm install binaryen@132\)/);
});

test('cmake: find_package_says_what_is_wrong_with_a_snail_node_that_cannot_run', () => {
  const source = project(path.join(root, 'tools/cmake/example'), 'badnode');
  const text = path.join(tmp, 'not-a-program');
  fs.writeFileSync(text, 'node\n', { mode: 0o644 });
  for (const [node, why] of [
    ['/nonexistent/node', 'which does not exist'],
    [text, 'which cannot be run (Permission denied)'],
  ]) {
    const r = configure(source, path.join(tmp, 'badnode-build'), [
      `-DCMAKE_PREFIX_PATH=${prefix}`, `-DCMAKE_TOOLCHAIN_FILE=${packageDir}/wasm32-wasi.cmake`, `-DSNAIL_NODE=${node}`,
    ]);
    assert.notEqual(r.status, 0);
    assert.ok(r.flat.includes(`snail-core's post-link step needs Node, but SNAIL_NODE is ${node}, ${why}. `
      + 'Configure again with -DSNAIL_NODE=<a node executable, 20.6 or newer>, or with -USNAIL_NODE to look for one again '
      + '(the environment variable SNAIL_NODE, else node on PATH).'), r.flat);
  }
});

test('cmake: the_version_file_refuses_another_minor_version', () => {
  const source = project(path.join(root, 'tools/cmake/example'), 'version');
  const lists = path.join(source, 'CMakeLists.txt');
  fs.writeFileSync(lists, fs.readFileSync(lists, 'utf8').replace('find_package(SnailCore 0.1 REQUIRED)', 'find_package(SnailCore 0.2 REQUIRED)'));
  const r = configure(source, path.join(tmp, 'version-build'), [`-DCMAKE_PREFIX_PATH=${prefix}`, `-DCMAKE_TOOLCHAIN_FILE=${packageDir}/wasm32-wasi.cmake`]);
  assert.notEqual(r.status, 0);
  assert.match(r.all, /requested version "0\.2"/);
  assert.match(r.all, /version: 0\.1\.0/);
});

test('cmake: the_post_link_launcher_resolves_binaryen_from_a_given_node_modules_in_each_node', (t) => {
  const launcher = path.join(packageDir, 'snail-postlink.mjs');
  const postlink = path.join(prefix, 'share/snail-core/tools/wasm/postlink.mjs');
  const nodes = [process.execPath, '/usr/bin/node'].filter((n) => fs.existsSync(n));
  for (const node of nodes) {
    const version = run(node, ['--version']).stdout.trim();
    const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
    if (major < 20 || (major === 20 && minor < 6)) {
      t.diagnostic(`${node} is ${version}: below 20.6, which the launcher needs`);
      continue;
    }
    // Without the node_modules directory, postlink.mjs under the prefix finds no binaryen.
    const bare = run(node, [launcher, '--check', postlink]);
    assert.equal(bare.status, 2, `${version}: ${bare.all}`);
    assert.match(bare.stderr, /the npm package binaryen cannot be found from .*postlink\.mjs/);
    const r = run(node, [launcher, '--check', '--node-modules', path.join(root, 'node_modules'), postlink]);
    assert.equal(r.status, 0, `${version}: ${r.all}`);
    assert.equal(r.stdout, `binaryen: file://${path.join(root, 'node_modules/binaryen/index.js')}\n`);
    // And it post-links: the module gains the snail.abi section.
    const linked = path.join(root, 'build/wasm/examples/readme.linked.wasm');
    if (fs.existsSync(linked)) {
      const out = path.join(tmp, `readme-${major}.wasm`);
      const p = run(node, [launcher, '--node-modules', path.join(root, 'node_modules'), postlink, linked, out]);
      assert.equal(p.status, 0, p.all);
      assert.ok(new WebAssembly.Module(fs.readFileSync(out)) && WebAssembly.Module.customSections(new WebAssembly.Module(fs.readFileSync(out)), 'snail.abi').length === 1);
    }
  }
});

// The example, and test programs beside it, built by emcmake from the
// installed package (once, for the tests that use it).
/** @type {{ build: string, output: string } | undefined} */
let emscriptenBuild;
function buildWithEmscripten() {
  if (emscriptenBuild) return emscriptenBuild;
  assert.ok(emcc, 'Emscripten is needed (apt-get install emscripten; tools/bootstrap.sh does)');
  const source = project(path.join(root, 'tools/cmake/example'), 'emscripten');
  // checks.wasm: entries main (tests/programs/handler_names.cpp) and many;
  // checks_capped.wasm: the same, with at most 32 MiB of memory.
  fs.copyFileSync(path.join(root, 'tests/programs/handler_names.cpp'), path.join(source, 'handler_names.cpp'));
  fs.appendFileSync(path.join(source, 'CMakeLists.txt'), `add_library(checks_objects OBJECT handler_names.cpp many.cpp)
target_link_libraries(checks_objects PRIVATE SnailCore::core)
snail_add_program(checks SOURCES $<TARGET_OBJECTS:checks_objects>)
add_library(capped_memory INTERFACE)
target_link_options(capped_memory INTERFACE -sMAXIMUM_MEMORY=33554432)
snail_add_program(checks_capped SOURCES $<TARGET_OBJECTS:checks_objects> LIBRARIES capped_memory)
`);
  fs.writeFileSync(path.join(source, 'many.cpp'), `#include <cstdio>
#include <vector>
#include <snail/snail.hpp>
// Enters 2,000 tasks at once: each holds its stack segment until it returns.
SNAIL_ENTRY(many) {
  std::vector<snail::task> tasks;
  for (int i = 0; i < 2000; ++i) tasks.push_back(snail::dispatch([] { snail::yield(); return 1; }));
  int returned = 0, failed = 0;
  for (auto& t : tasks) {
    snail::status s = t.join();
    returned += s == snail::status::ok && t.result() == 1;
    failed += s == snail::status::failed;
  }
  std::printf("%d returned, %d failed\\n", returned, failed);
  return returned == 2000 ? 0 : 1;
}
`);
  const build = path.join(tmp, 'emscripten-build');
  // Emscripten's toolchain searches packages only under its sysroot: name the package's directory.
  let r = run('/usr/bin/emcmake', ['cmake', '-S', source, '-B', build, ...generator, `-DSnailCore_DIR=${packageDir}`], { env: emEnv });
  assert.equal(r.status, 0, r.all);
  r = run('cmake', ['--build', build], { env: emEnv });
  assert.equal(r.status, 0, r.all);
  emscriptenBuild = { build, output: r.all };
  return emscriptenBuild;
}

test('cmake: emcmake_builds_the_example_as_a_standalone_program_from_the_installed_package_that_the_cli_runs', () => {
  const { build, output } = buildWithEmscripten();
  // Emscripten compiled the core from the installed sources, and linked modules without its JavaScript.
  assert.match(output, /runtime\.cpp/);
  assert.deepEqual(fs.readdirSync(path.join(build, 'programs')).sort(), ['app.wasm', 'checks.wasm', 'checks_capped.wasm']);
  const program = path.join(build, 'programs/app.wasm');
  const report = JSON.parse(run(process.execPath, [cli, 'inspect', program, '--json']).stdout);
  assert.equal(report.follows, true, report.problems.join('\n'));
  assert.deepEqual(report.user, [], 'only snail and WASI imports: no Emscripten JavaScript is needed');
  assert.deepEqual(report.handlers, [{ name: 'who', type: 'i32' }]);
  assert.deepEqual(report.stack, { pointer: true, base: true, limit: true });
  const ran = run(process.execPath, [cli, 'run', program]);
  assert.equal(ran.status, 0, ran.all);
  assert.equal(ran.stdout, 'hello, world\nsleeper woke: cancelled\nsleeper unwound\nsleeper joined: cancelled\n');
});

test('cmake: an_emcmake_standalone_program_grows_its_memory_for_2000_tasks_entered_at_once', () => {
  // Each entered task holds a 32 KiB stack segment from malloc: 16 MiB of
  // memory that cannot grow held about 384 of them, and the rest failed with
  // "could not start: no memory for its stack segment".
  const { build } = buildWithEmscripten();
  const program = path.join(build, 'programs/checks.wasm');
  const ran = run(process.execPath, [cli, 'run', program, '--entry', 'many']);
  assert.equal(ran.stderr, '');
  assert.equal(ran.stdout, '2000 returned, 0 failed\n');
  assert.equal(ran.status, 0);
  // The runtime provides the import a standalone module with growing memory has.
  const imports = WebAssembly.Module.imports(new WebAssembly.Module(fs.readFileSync(program)));
  assert.ok(imports.some((i) => i.module === 'env' && i.name === 'emscripten_notify_memory_growth'), 'linked with memory growth');
});

test('cmake: in_an_emcmake_standalone_program_a_task_without_memory_for_its_stack_segment_fails_alone', () => {
  // When the memory cannot grow further, malloc returns null (no abort): the
  // tasks that get no segment fail, the others and the parent carry on.
  const { build } = buildWithEmscripten();
  const ran = run(process.execPath, [cli, 'run', path.join(build, 'programs/checks_capped.wasm'), '--entry', 'many']);
  const m = /^(\d+) returned, (\d+) failed\n$/.exec(ran.stdout);
  assert.ok(m, ran.stdout);
  const [returned, failed] = [Number(m[1]), Number(m[2])];
  assert.ok(returned > 0 && failed > 0 && returned + failed === 2000, ran.stdout);
  // The command reports the failed children: ten, then how many more.
  const lines = ran.stderr.trimEnd().split('\n');
  assert.equal(lines.length, Math.min(failed, 10) + (failed > 10 ? 1 : 0), ran.stderr);
  for (const line of lines.slice(0, 10)) assert.match(line, /^snail-core: task #\d+ \(table\[\d+\], executing\) could not start: no memory for its 32768-byte stack segment$/);
  if (failed > 10) assert.equal(lines[10], `snail-core: ${failed - 10} more tasks failed (the first 10 are above; --stats counts them all)`);
  assert.equal(ran.status, 1, 'main returned 1');
});

test('cmake: a_handler_declared_in_two_namespaces_of_one_source_file_is_one_global', () => {
  // tests/programs/handler_names.cpp: built for wasm32-wasi by the test build,
  // and with emcmake into checks.wasm. Each declaration used to define the
  // global again, and the source file did not assemble.
  const { build } = buildWithEmscripten();
  for (const program of [path.join(root, 'build/programs/handler_names.wasm'), path.join(build, 'programs/checks.wasm')]) {
    const report = JSON.parse(run(process.execPath, [cli, 'inspect', program, '--json']).stdout);
    assert.deepEqual(report.handlers, [{ name: 'sink', type: 'i32' }], program);
    const ran = run(process.execPath, [cli, 'run', program]);
    assert.equal(ran.all, '');
    assert.equal(ran.status, 0, `${program}: main returned ${ran.status}`);
  }
});

test('cmake: the_guides_c_path_works_literally_from_an_installed_prefix', () => {
  const [, commands] = guideSectionBlocks('The same program in C', 'sh');
  const [output] = guideSectionBlocks('The same program in C', '');
  assert.match(commands, /^cp PREFIX\/share\/snail-core\/example-c\/\* \.$/m, commands);
  const empty = fs.mkdtempSync(path.join(tmp, 'guide-c-'));
  // PREFIX, the word the guide writes for the install prefix (not the one in CMAKE_PREFIX_PATH).
  const r = run('sh', ['-ec', commands.replace(/(?<=[\s=])PREFIX\b/g, prefix)], { cwd: empty });
  assert.equal(r.status, 0, r.all);
  assert.match(r.all, /Building C object CMakeFiles\/app\.linked\.dir\/app\.c/);
  assert.doesNotMatch(r.all, /runtime\.cpp/, 'the installed core was linked');
  const ran = run(process.execPath, [cli, 'run', path.join(empty, 'hello-snail-c/build/programs/app.wasm')]);
  assert.equal(ran.stdout, output);
  assert.equal(ran.stderr, '');
  assert.equal(ran.status, 0);
});

test('cmake: a_c_project_builds_a_dynamic_program_and_a_c_side_module_that_a_task_loads', async () => {
  const source = path.join(tmp, 'dynamic-c');
  fs.mkdirSync(source, { recursive: true });
  fs.writeFileSync(path.join(source, 'CMakeLists.txt'), `cmake_minimum_required(VERSION 3.20)
project(snail_dynamic_c LANGUAGES C)
find_package(SnailCore 0.1 REQUIRED)
snail_add_program(app SOURCES app.c DYNAMIC)
snail_add_side_module(greeter SOURCES greeter.c)
`);
  fs.writeFileSync(path.join(source, 'app.c'), `#include <snail/snail.h>
SNAIL_HANDLER_I64(depth, int64_t);
SNAIL_ENTRY(main) {
  snail_set(depth, (int64_t)arg << 32);
  int32_t module = 0;
  if (snail_module_load("greeter", 7, &module, 0) != SNAIL_OK) return -1;
  int32_t index = snail_module_function(module, "twice_after_a_nap", 17);
  if (index <= 0) return -2;
  int32_t r = ((int32_t (*)(int32_t))(uintptr_t)index)(arg);
  return snail_get(depth) == (int64_t)arg << 32 ? r : -3;
}
`);
  fs.writeFileSync(path.join(source, 'greeter.c'), `#include <snail/snail.h>
SNAIL_HANDLER_I64(depth, int64_t);  /* the program's register: handler names are program-wide */
int32_t twice_after_a_nap(int32_t n) {
  if (snail_sleep(2) != SNAIL_OK) return -10;
  return snail_get(depth) == (int64_t)n << 32 ? 2 * n : -11;
}
`);
  const build = path.join(tmp, 'dynamic-c-build');
  let r = configure(source, build, [`-DCMAKE_PREFIX_PATH=${prefix}`, `-DCMAKE_TOOLCHAIN_FILE=${packageDir}/wasm32-wasi.cmake`]);
  assert.equal(r.status, 0, r.all);
  r = run('cmake', ['--build', build]);
  assert.equal(r.status, 0, r.all);
  assert.match(r.all, /Building C object CMakeFiles\/greeter\.side\.dir\/greeter\.c/);
  assert.match(r.all, /Post-linking snail-core side module greeter\.wasm/);
  const { Runtime } = await import('../../host/browser/index.mjs');
  const rt = await Runtime.load(path.join(build, 'programs/app.wasm'));
  const tasks = [3, 4, 5].map((n) => rt.dispatch('main', n));
  await rt.drain();
  assert.deepEqual(tasks.map((t) => t.value), [6, 8, 10], tasks.map((t) => String(t.error)).join('; '));
  assert.deepEqual(rt.handlerGlobals.map((h) => `${h.name}:${h.type}`), ['depth:i64'], 'the module shares the program\'s i64 handler');
  await rt.close();
});

test('cmake: a_debug_configuration_keeps_the_names_and_dwarf_of_a_program_and_a_release_one_does_not', () => {
  const source = project(path.join(root, 'tools/cmake/example-c'), 'debug-c');
  /** @param {string} type */
  const customSections = (type) => {
    const build = path.join(tmp, `debug-c-${type}`);
    let r = configure(source, build, [`-DCMAKE_PREFIX_PATH=${prefix}`, `-DCMAKE_TOOLCHAIN_FILE=${packageDir}/wasm32-wasi.cmake`, `-DCMAKE_BUILD_TYPE=${type}`]);
    assert.equal(r.status, 0, r.all);
    r = run('cmake', ['--build', build]);
    assert.equal(r.status, 0, r.all);
    const program = path.join(build, 'programs/app.wasm');
    const ran = run(process.execPath, [cli, 'run', program]);
    assert.equal(ran.status, 0, ran.all);
    const names = readNames(fs.readFileSync(program));
    return { names: names.names, dwarf: names.dwarf, children: names.table.filter((n) => n === 'sleeper' || n === 'greeter').sort() };
  };
  assert.deepEqual(customSections('Debug'), { names: true, dwarf: true, children: ['greeter', 'sleeper'] });
  assert.deepEqual(customSections('Release'), { names: false, dwarf: false, children: [] });
});
