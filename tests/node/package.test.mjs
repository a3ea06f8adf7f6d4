// The npm package as its users meet it: `npm pack` (which runs the prepack
// script: the programs and the TypeScript declarations), `npm install` of the
// tarball into an empty project, then `npx snail-core`, imports of the entry
// points, a TypeScript consumer compiled against the installed declarations,
// and find_package(SnailCore) from node_modules/snail-core.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { collectConsole, launchBrowser, startServer, waitInPage } from '../browser/harness.mjs';
import { root } from './helpers.mjs';

const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
// Node 26 first on PATH: npm's scripts and the command's `#!/usr/bin/env node` use it.
const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, npm_config_update_notifier: 'false' };
const generator = spawnSync('ninja', ['--version']).status === 0 ? ['-G', 'Ninja'] : [];
const guide = fs.readFileSync(path.join(root, 'docs/guide.md'), 'utf8');
/** The guide's code blocks of a language ('' for untyped ones). @param {string} lang */
const guideBlocks = (lang) => [...guide.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

/** @type {string} */
let tmp;
/** @type {string} */
let app;
/** @type {string} */
let tarball;
/** @type {string[]} */
let packed;
/** The program the CMake test builds from node_modules/snail-core, copied into the app, or null. */
let appProgram = /** @type {string | null} */ (null);

/**
 * @param {string} command @param {string[]} args @param {{ cwd?: string }} [options]
 */
function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: options.cwd ?? app, env, encoding: 'utf8', timeout: 300_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, all: `${r.stdout}${r.stderr}` };
}

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-package-'));
  const pack = run('npm', ['pack', '--pack-destination', tmp, '--silent'], { cwd: root });
  assert.equal(pack.status, 0, pack.all);
  const tgz = fs.readdirSync(tmp).filter((f) => f.endsWith('.tgz'));
  assert.deepEqual(tgz, [`snail-core-${version}.tgz`]);
  tarball = path.join(tmp, tgz[0]);
  packed = run('tar', ['-tzf', tarball], { cwd: tmp }).stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));

  app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'snail-app', version: '1.0.0', private: true, type: 'module' }, null, 2));
  const install = run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline']);
  assert.equal(install.status, 0, install.all);
});

after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('package: the_tarball_ships_the_runtime_the_programs_the_types_and_the_cmake_package_but_no_tests', () => {
  for (const f of [
    'package.json', 'README.md',
    'host/browser/index.mjs', 'host/node/index.mjs', 'host/browser/adapter-contract.mjs', 'host/cli/snail-core.mjs',
    'host/cli/trace.mjs', 'host/cli/inspect.mjs',
    'build/programs/demo.wasm', 'build/programs/hello.wasm',
    'dist/types/host/browser/index.d.mts', 'dist/types/host/node/index.d.mts', 'dist/types/host/browser/adapter-contract.d.mts',
    'core/include/snail/snail.hpp', 'core/include/snail/abi.h', 'core/src/runtime.cpp',
    'tools/cmake/SnailCoreConfig.cmake', 'tools/cmake/SnailCoreConfigVersion.cmake', 'tools/cmake/SnailProgram.cmake',
    'tools/cmake/wasm32-wasi.cmake', 'tools/cmake/Platform/WASI.cmake', 'tools/cmake/snail-postlink.mjs',
    'tools/cmake/example/CMakeLists.txt', 'tools/wasm/postlink.mjs',
    'docs/guide.md', 'docs/cli.md', 'docs/api.md', 'docs/abi.md',
  ]) {
    assert.ok(packed.includes(f), `${f} is in the package`);
  }
  const unwanted = packed.filter((f) => /^(tests|node_modules|bench|\.ci)\/|^build\/(wasm|native)\/|\.test\.mjs$|^build\/programs\/(?!demo\.wasm$|hello\.wasm$)/.test(f));
  assert.deepEqual(unwanted, []);
  // Every file package.json points at is shipped.
  const pkg = JSON.parse(fs.readFileSync(path.join(app, 'node_modules/snail-core/package.json'), 'utf8'));
  const targets = [pkg.types, ...Object.values(pkg.bin), ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e)))];
  for (const t of targets) assert.ok(packed.includes(t.replace(/^\.\//, '')), `${t} (named by package.json) is in the package`);
});

test('package: npx_snail_core_demo_runs_in_a_fresh_project', () => {
  const r = run('npx', ['--no-install', 'snail-core', 'demo']);
  assert.equal(r.status, 0, r.all);
  assert.match(r.stdout, /^demo: \d+ workers and \d+ grandchildren finished, 0 failed$/m);
  assert.match(r.stdout, /\ndemo: snail-core ran (\d+) tasks \(\1 returned, 0 failed\)/);
  assert.match(r.stderr, /^snail-core: stats of demo\.wasm/);
  const v = run('npx', ['--no-install', 'snail-core', '--version']);
  assert.equal(v.stdout, `${version}\n`);
  const inspect = run('npx', ['--no-install', 'snail-core', 'inspect', 'node_modules/snail-core/build/programs/hello.wasm']);
  assert.equal(inspect.status, 0, inspect.all);
  assert.match(inspect.stdout, /follows the snail-core ABI/);
});

test('package: both_entry_points_import_from_the_installed_package_and_run_a_program', () => {
  fs.writeFileSync(path.join(app, 'check.mjs'), `
import * as neutral from 'snail-core';
import * as node from 'snail-core/node';
import { adapterContract } from 'snail-core/adapter-contract';

const hello = new URL('../../build/programs/hello.wasm', import.meta.resolve('snail-core'));
const rt = await neutral.Runtime.load(hello, { stdout: () => {} });
const task = rt.dispatch('main');
await rt.drain();
await rt.close();
let internal = 'importable';
try {
  await import('snail-core/host/browser/tasks.mjs');
} catch (error) {
  internal = error.code;
}
console.log(JSON.stringify({
  state: task.state, value: task.value,
  sameRuntime: node.Runtime === neutral.Runtime,
  nodeOnly: Object.keys(node).filter((k) => !(k in neutral)).length > 0,
  contract: typeof adapterContract,
  internal,
}));
`);
  const r = run(process.execPath, ['check.mjs']);
  assert.equal(r.status, 0, r.all);
  assert.deepEqual(JSON.parse(r.stdout), {
    state: 'returned', value: 0, sameRuntime: true, nodeOnly: true, contract: 'function', internal: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
  });
});

test('package: a_typescript_consumer_compiles_against_the_installed_declarations', () => {
  fs.writeFileSync(path.join(app, 'consumer.mts'), `
import { CancelledError, MemoryStorage, Runtime, Status, Task, TaskFailedError, TaskState, SnailError, suspend, timer } from 'snail-core';
import type {
  AdapterControls, CloseReport, DisposeContext, HandlerGlobal, HostServices, IndexedDBStorageOptions, LoadedModule,
  Permissions, ProgramSource, RuntimeOptions, StorageBackend, SuspendOptions, TraceEvent,
} from 'snail-core';
import * as node from 'snail-core/node';
import type { DirGrant, NodeHostOptions } from 'snail-core/node';
import { adapterContract } from 'snail-core/adapter-contract';

const rt: Runtime = await Runtime.load(new URL('./app.wasm', import.meta.url), {
  stdout: (text: string) => { process.stdout.write(text); },
  imports: { env: { wait_ms: suspend((signal: AbortSignal, ms: number) => timer(signal, ms, 0)) } },
  trace: (event) => { console.log(event.type, event.task, event.time.toFixed(1)); },
});
const task: Task = rt.dispatch('main', 1);
const finished: Promise<void> = rt.drain();
const states: string[] = [task.state, TaskState.queued];
const cancelled: number = Status.cancelled;
const report = await rt.close({ timeout: 100 });
const stuck: number = report.stuck.length;
const error: Error = new SnailError('x');
const cases = adapterContract({ name: 'timer', start: (signal: AbortSignal) => timer(signal, 1, 0), armed: () => 0 });
const nodeRuntime: typeof Runtime = node.Runtime;
void [finished, states, cancelled, stuck, error, cases, nodeRuntime];

// The declarations are real types, not any: each misuse is an error.
// @ts-expect-error an entry is named by a string
rt.dispatch(42);
// @ts-expect-error close() takes options, not a number
rt.close(5);
// @ts-expect-error Status has no such member
void Status.maybe;

// The types a program names are exported, and say what the documents say.
const state: TaskState = task.state;
const waitingOn: string | null = task.waitingOn;
// @ts-expect-error waitingOn is a string or null
const waitingNumber: number = task.waitingOn;
const errorTask = (e: unknown): number => (e instanceof CancelledError || e instanceof TaskFailedError ? e.task.id : 0);
const options: SuspendOptions = { cancelled: 'reject', failed: 2n };
// @ts-expect-error cancelled is a number, a BigInt or 'reject'
const badOptions: SuspendOptions = { cancelled: 'nope' };
const dispose = (result: unknown, context: DisposeContext) => { context.track(Promise.resolve(result)); };
const onEvent = (event: TraceEvent) => event.task;
const storage: StorageBackend = new MemoryStorage();
const services: HostServices = { storage };
const permissions: Permissions = { net: ['example.com'] };
const controls = (c: AdapterControls<number>) => { c.resolve(1); };
const host: NodeHostOptions = { dirs: [{ path: '.', as: 'here' }] };
const grant: DirGrant = 'data';
const source: ProgramSource = new URL('./app.wasm', import.meta.url);
const loadOptions: RuntimeOptions = { services, permissions, maxEntered: 8 };
const closed: CloseReport = report;
const globals: readonly HandlerGlobal[] = rt.handlerGlobals;
const loading: Promise<LoadedModule> = rt.loadModule('lib.wasm');
const idb: IndexedDBStorageOptions = {};
void [grant, source, loadOptions, closed, globals, loading, idb];
void [state, waitingOn, waitingNumber, errorTask, options, badOptions, dispose, onEvent, services, permissions, controls, host];
// The scheduler's own members are not part of the API.
// @ts-expect-error a task's value is read-only
task.value = 5;
// @ts-expect-error and so is its id
task.id = 3;
// @ts-expect-error fields starting with _ are internal
void task._s;
// @ts-expect-error only dispatch() makes tasks
void new Task(1, 'main');
// @ts-expect-error only Runtime.load() makes runtimes
void new Runtime();
// @ts-expect-error a module from bytes needs a name
void rt.loadModule(new Uint8Array(8));
void rt.loadModule(new Uint8Array(8), { name: 'lib' });
`);
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'es2023',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      // No "dom": the declarations bring in what they need of it.
      lib: ['es2023'],
      types: ['node'],
      typeRoots: [path.join(root, 'node_modules/@types')],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: false,
    },
    files: ['consumer.mts'],
  }, null, 2));
  const r = run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
  assert.equal(r.status, 0, r.all);
  assert.equal(r.all, '');
});

test('package: find_package_from_node_modules_builds_a_program_that_npx_runs', () => {
  assert.ok(fs.existsSync('/usr/bin/clang++-19') || process.env.WASI_SDK_PATH, 'a wasm32-wasi toolchain is needed (tools/bootstrap.sh installs it)');
  const source = path.join(tmp, 'cmake-example');
  fs.cpSync(path.join(app, 'node_modules/snail-core/tools/cmake/example'), source, { recursive: true });
  const build = path.join(tmp, 'cmake-example-build');
  const pkg = path.join(app, 'node_modules/snail-core');
  // binaryen is not installed in this project; the repository's copy stands in.
  let r = run('cmake', ['-S', source, '-B', build, ...generator,
    `-DCMAKE_PREFIX_PATH=${path.join(pkg, 'tools')}`,
    `-DCMAKE_TOOLCHAIN_FILE=${path.join(pkg, 'tools/cmake/wasm32-wasi.cmake')}`,
    `-DSNAIL_NODE_MODULES=${path.join(root, 'node_modules')}`]);
  assert.equal(r.status, 0, r.all);
  assert.match(fs.readFileSync(path.join(build, 'CMakeCache.txt'), 'utf8'), new RegExp(`^SnailCore_DIR:PATH=${path.join(pkg, 'tools/cmake').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  r = run('cmake', ['--build', build]);
  assert.equal(r.status, 0, r.all);
  assert.match(r.all, /runtime\.cpp/, 'the core is compiled from the sources the package ships');
  const ran = run('npx', ['--no-install', 'snail-core', 'run', path.join(build, 'programs/app.wasm')]);
  assert.equal(ran.status, 0, ran.all);
  assert.equal(ran.stdout, 'hello, world\nsleeper woke: cancelled\nsleeper unwound\nsleeper joined: cancelled\n');
  // Where docs/guide.md builds it, for the next tests.
  appProgram = path.join(app, 'build/programs/app.wasm');
  fs.mkdirSync(path.dirname(appProgram), { recursive: true });
  fs.copyFileSync(path.join(build, 'programs/app.wasm'), appProgram);
});

test('package: the_guides_javascript_runs_as_written_and_prints_what_it_shows', () => {
  assert.ok(appProgram, 'the program the previous test builds with CMake is needed; that test failed');
  const [script] = guideBlocks('js');
  fs.writeFileSync(path.join(app, 'run.mjs'), script);
  const r = run(process.execPath, ['run.mjs']);
  assert.equal(r.status, 0, r.all);
  // The output block right after "node run.mjs".
  const expected = /```sh\nnode run\.mjs\n```\n\n```\n([\s\S]*?)```/.exec(guide);
  assert.ok(expected, 'the guide shows the output of node run.mjs');
  assert.equal(r.stdout, expected[1]);
});

test('package: the_guides_page_runs_the_program_in_chromium', async () => {
  assert.ok(fs.existsSync('/usr/bin/chromium'), '/usr/bin/chromium is needed (tools/bootstrap.sh installs it)');
  assert.ok(appProgram, 'the program the CMake test builds is needed; that test failed');
  const [html] = guideBlocks('html');
  fs.writeFileSync(path.join(app, 'index.html'), html);
  const server = await startServer({ root: app });
  const browser = await launchBrowser({ browser: 'chromium' });
  try {
    const page = await browser.newPage();
    const log = collectConsole(page);
    await page.goto(`${server.url}/index.html`);
    await waitInPage(page, () => /main \w+ with/.test(document.getElementById('out')?.textContent ?? ''), undefined, { timeout: 60_000 })
      .catch((error) => { throw new Error(`${error.message}\n${log.format()}`); });
    const text = await page.evaluate(() => document.getElementById('out')?.textContent);
    assert.equal(text, 'hello, world\nsleeper woke: cancelled\nsleeper unwound\nsleeper joined: cancelled\nmain returned with 0\n');
    assert.match(guide, /The page shows the same four lines and `main returned with 0`/);
    // Only the browser's own request for /favicon.ico may fail.
    assert.deepEqual(log.pageErrors, [], log.format());
    assert.deepEqual(log.errors().filter((e) => !`${e.text} ${e.location}`.includes('/favicon.ico')), [], log.format());
  } finally {
    await browser.close();
    await server.close();
  }
});
