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

import { collectConsole, launchBrowser, startServer, textOf, waitInPage } from '../browser/harness.mjs';
import { guideSectionBlocks, root } from './helpers.mjs';

const pkgJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const version = pkgJson.version;
// Node 26 first on PATH: npm's scripts and the command's `#!/usr/bin/env node`
// use it. npm stays offline: everything comes from the tarball and the
// repository's node_modules, never from the registry.
const env = {
  ...process.env,
  PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
  npm_config_update_notifier: 'false',
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};
const guide = fs.readFileSync(path.join(root, 'docs/guide.md'), 'utf8');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
/** The text of the guide's section `n` ("## n. ..."). @param {number} n */
const guideSection = (n) => {
  const from = guide.indexOf(`\n## ${n}. `);
  assert.ok(from >= 0, `the guide has a section ${n}`);
  const to = guide.indexOf('\n## ', from + 1);
  return guide.slice(from, to < 0 ? undefined : to);
};
/** The code blocks of a language ('' for untyped ones) in `text`. @param {string} text @param {string} lang */
const blocks = (text, lang) => [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]);
/** The guide's code blocks of a language. @param {string} lang */
const guideBlocks = (lang) => blocks(guide, lang);

/** @type {string} */
let tmp;
/** The project of the guide's section 2 (hello-snail), made by its commands. @type {string} */
let app;
/** @type {string} */
let tarball;
/** @type {string[]} */
let packed;
/** The program the guide's CMake build makes in the project, once that test built it, or null. */
let appProgram = /** @type {string | null} */ (null);

/**
 * @param {string} command @param {string[]} args @param {{ cwd?: string, env?: Record<string, string | undefined> }} [options]
 */
function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: options.cwd ?? app, env: options.env ?? env, encoding: 'utf8', timeout: 300_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, all: `${r.stdout}${r.stderr}` };
}

/** Runs shell commands as a user types them, stopping at the first that fails. @param {string} script @param {string} cwd */
function sh(script, cwd) {
  return run('sh', ['-ec', script], { cwd });
}

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-package-'));
  const pack = run('npm', ['pack', '--pack-destination', tmp, '--silent'], { cwd: root });
  assert.equal(pack.status, 0, pack.all);
  const tgz = fs.readdirSync(tmp).filter((f) => f.endsWith('.tgz'));
  assert.deepEqual(tgz, [`snail-core-${version}.tgz`]);
  tarball = path.join(tmp, tgz[0]);
  packed = run('tar', ['-tzf', tarball], { cwd: tmp }).stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));

  // The guide's section 2, as written, but for the install line: the tarball
  // stands in for the registry's snail-core, and the repository's binaryen
  // for binaryen@132 (a symlink, as `npm install DIR` makes).
  const [commands] = blocks(guideSection(2), 'sh');
  const install = 'npm install snail-core binaryen@132';
  assert.ok(commands.includes(`\n${install}\n`), `the guide's section 2 runs ${install}`);
  const r = sh(commands.replace(install, `npm install ${tarball} ${path.join(root, 'node_modules/binaryen')}`), tmp);
  assert.equal(r.status, 0, r.all);
  app = path.join(tmp, /^mkdir (\S+) && cd \1$/m.exec(commands)?.[1] ?? 'missing');
  assert.ok(fs.existsSync(path.join(app, 'node_modules/snail-core/package.json')), r.all);
  // `npx snail-core demo` ran: the package's own program, 721 tasks.
  assert.match(r.stdout, /^demo: snail-core ran 721 tasks \(721 returned, 0 failed\)/m);
  // As if `npm install node@26` (the guide's section 1) had run: the
  // repository's Node 26 package, which `npx node@26` finds without a download.
  fs.symlinkSync(path.join(root, 'node_modules/node'), path.join(app, 'node_modules/node'), 'dir');
  fs.symlinkSync('../node/bin/node', path.join(app, 'node_modules/.bin/node'));
  // The projects of `npm init -y` are CommonJS; the guide's run.mjs is a module either way.
});

after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('package: the_tarball_ships_the_runtime_the_programs_the_types_and_the_cmake_package_but_no_tests', () => {
  for (const f of [
    'package.json', 'README.md',
    'host/browser/index.mjs', 'host/node/index.mjs', 'host/node/root.mjs', 'host/node/platform.mjs', 'host/browser/adapter-contract.mjs', 'host/cli/snail-core.mjs',
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
  for (const t of targets) {
    const file = t.replace(/^\.\//, '');
    // A pattern (./programs/*.wasm) names at least one shipped file.
    const hit = file.includes('*') ? packed.some((f) => new RegExp(`^${file.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`).test(f)) : packed.includes(file);
    assert.ok(hit, `${t} (named by package.json) is in the package`);
  }
});

test('package: it_says_who_may_use_it_where_it_lives_and_what_it_needs', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(app, 'node_modules/snail-core/package.json'), 'utf8'));
  assert.equal(pkg.license, 'MIT');
  const license = fs.readFileSync(path.join(app, 'node_modules/snail-core/LICENSE'), 'utf8');
  assert.match(license, /^MIT License\n\nCopyright \(c\) \d{4} the snail-core authors\n/);
  const home = 'https://github.com/snail-core/snail-core';
  assert.deepEqual([pkg.homepage, pkg.repository, pkg.bugs], [`${home}#readme`, { type: 'git', url: `git+${home}.git` }, { url: `${home}/issues` }]);
  for (const f of ['CHANGELOG.md', 'docs/stability.md']) assert.ok(packed.includes(f), `${f} is in the package`);
  assert.match(fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8'), new RegExp(`^## ${version.replace(/\./g, '\\.')}$`, 'm'), 'the changelog has this version');
  // binaryen: an optional peer of the version the CMake package's post-link step is tested with.
  assert.deepEqual(pkg.peerDependencies, { binaryen: `^${pkgJson.devDependencies.binaryen}` });
  assert.deepEqual(pkg.peerDependenciesMeta, { binaryen: { optional: true } });
});

test('package: every_file_the_readme_cites_ships_with_the_package', () => {
  // Outside its last section, which is about a checkout of the repository,
  // the README cites only what an installed package has.
  const forUsers = readme.slice(0, readme.indexOf('\n## Working on snail-core'));
  assert.ok(forUsers.length < readme.length, 'the README ends with a section for a checkout');
  const cited = new Set([
    ...[...forUsers.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l)),
    ...[...forUsers.matchAll(/`([\w./-]+)`/g)].map((m) => m[1]).filter((c) => c.includes('/') && fs.existsSync(path.join(root, c))),
  ]);
  assert.ok(cited.size >= 10, `the README cites files: ${[...cited]}`);
  const missing = [...cited].filter((c) => !packed.some((f) => f === c || f.startsWith(`${c.replace(/\/$/, '')}/`)));
  assert.deepEqual(missing, []);
});

test('package: the_readmes_javascript_runs_in_a_fresh_project_and_prints_what_its_comments_say', () => {
  const program = blocks(readme, 'js').slice(0, 2).join('\n');
  fs.writeFileSync(path.join(app, 'readme.mjs'), program);
  const r = run(process.execPath, ['readme.mjs']);
  assert.equal(r.status, 0, r.all);
  const logged = [...program.matchAll(/^console\.log\(.*\); \/\/ (.+)$/gm)].map((m) => m[1]);
  assert.equal(logged.length, 2, 'both blocks say what they print');
  assert.deepEqual(r.stdout.split('\n').filter((l) => logged.includes(l)), logged, r.all);
});

test('package: the_shipped_programs_resolve_the_ways_the_guide_says', () => {
  const from = guide.indexOf('### Where programs come from');
  const section = guide.slice(from, guide.indexOf('\n## ', from));
  // The guide's Node expressions, evaluated as written in the project.
  const [viaResolve] = [...section.matchAll(/`(Runtime\.load\(import\.meta\.resolve\([^`]+\)\))`/g)].map((m) => m[1]);
  const [viaRequire] = [...section.matchAll(/`(createRequire\(import\.meta\.url\)\.resolve\([^`]+\))`/g)].map((m) => m[1]);
  assert.ok(viaResolve && viaRequire, 'the guide shows import.meta.resolve and createRequire');
  fs.writeFileSync(path.join(app, 'programs.mjs'), `
import { createRequire } from 'node:module';
import { Runtime } from 'snail-core';

const hello = await ${viaResolve.replace(/\)$/, ', { stdout: () => {} })')};
const t = hello.dispatch('main');
await hello.drain();
await hello.close();
const file = ${viaRequire};
const demo = await Runtime.load(file.replace('hello.wasm', 'demo.wasm'), { stdout: () => {} });
const d = demo.dispatch('main');
await demo.drain();
await demo.close();
const refused = [];
for (const name of ['snail-core/build/programs/hello.wasm', 'snail-core/programs/contracts.wasm']) {
  try { createRequire(import.meta.url).resolve(name); refused.push('resolved'); } catch (e) { refused.push(e.code); }
}
console.log(JSON.stringify({ hello: t.state, file, demo: d.state, refused }));
`);
  const r = run(process.execPath, ['programs.mjs']);
  assert.equal(r.status, 0, r.all);
  assert.deepEqual(JSON.parse(r.stdout), {
    hello: 'returned',
    file: path.join(fs.realpathSync(app), 'node_modules/snail-core/build/programs/hello.wasm'),
    demo: 'returned',
    // Only the exported path reaches a program, and only programs that ship.
    refused: ['ERR_PACKAGE_PATH_NOT_EXPORTED', 'MODULE_NOT_FOUND'],
  });
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
  for (const compiler of TYPESCRIPTS) {
    const r = run(process.execPath, [compiler.tsc, '-p', 'tsconfig.json']);
    assert.equal(r.status, 0, `${compiler.name}: ${r.all}`);
    assert.equal(r.all, '', compiler.name);
  }
});

/** Both TypeScripts the declarations are tested with: 7 (`typescript`) and 5 (`typescript5`). */
const TYPESCRIPTS = [
  { name: 'TypeScript 7', tsc: path.join(root, 'node_modules/typescript/bin/tsc') },
  { name: 'TypeScript 5', tsc: path.join(root, 'node_modules/typescript5/bin/tsc') },
];

/** A tsconfig for a project in the app that compiles `files`. @param {string} dir @param {string[]} files @param {Record<string, unknown>} options */
function tsconfig(dir, files, options) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023'],
      typeRoots: [path.join(root, 'node_modules/@types')], strict: true, exactOptionalPropertyTypes: true, skipLibCheck: false,
      ...options,
    },
    files,
  }, null, 2));
}

test('package: a_library_built_on_it_emits_declarations_that_name_only_the_entry_points', () => {
  // Values whose types the library never writes out: the compiler must name
  // every one of them in the library's declarations.
  const lib = path.join(app, 'lib');
  fs.mkdirSync(lib, { recursive: true });
  fs.writeFileSync(path.join(lib, 'index.mts'), `
import { MemoryStorage, Runtime, registerQueued, suspend, timer } from 'snail-core';
import { GrantedFiles, LineReader, nodeHost, registerSignal } from 'snail-core/node';
import { adapterContract } from 'snail-core/adapter-contract';

export const rt = await Runtime.load('app.wasm', { maxEntered: 2 });
export const task = rt.dispatch('main');
export const stats = rt.stats();
export const limits = rt.limits;
export const report = await rt.close({ timeout: 10 });
export const stuck = report.stuck[0];
export const state = task.state;
export const wait = suspend((signal: AbortSignal, ms: number) => timer(signal, ms, ms), (value, context) => { void [value, context.task.id]; });
export const storage = new MemoryStorage();
export const events = rt.events;
export const queue = registerQueued(rt.events, 'tick', new EventTarget(), 'tick', { filter: (e) => e.type === 'tick' }).queue;
export const host = nodeHost({ dirs: ['.'], allowNet: ['example.com'] });
export const files = new GrantedFiles(['.']);
export const reader = new LineReader(process.stdin);
export const unregister = registerSignal(rt, 'SIGUSR2');
export const cases = adapterContract({ name: 'timer', start: (signal) => timer(signal, 1), armed: () => 0 });
export function load(name: string) { return Runtime.load(name, { trace: (event) => { void event.type; } }); }
export const modules = rt.modules;
export const globals = rt.handlerGlobals;
`);
  for (const compiler of TYPESCRIPTS) {
    const outDir = path.join(lib, `out-${compiler.name.replace(' ', '')}`);
    tsconfig(lib, ['index.mts'], { types: ['node'], declaration: true, emitDeclarationOnly: true, outDir });
    const r = run(process.execPath, [compiler.tsc, '-p', 'tsconfig.json'], { cwd: lib });
    assert.equal(r.status, 0, `${compiler.name}: ${r.all}`);
    const emitted = fs.readFileSync(path.join(outDir, 'index.d.mts'), 'utf8');
    const specifiers = new Set([...emitted.matchAll(/(?:import\(|from )"([^"]+)"/g)].map((m) => m[1]));
    assert.deepEqual([...specifiers].filter((m) => !/^snail-core(\/node|\/adapter-contract)?$/.test(m)), [], `${compiler.name} named only entry points:\n${emitted}`);
    assert.ok(specifiers.has('snail-core'), `${compiler.name}: ${emitted}`);
    assert.doesNotMatch(emitted, /\bany\b/, `${compiler.name}: no type became any`);
  }
});

test('package: snail_core_node_needs_types_node_with_typescript_7_as_the_api_reference_says', () => {
  assert.match(fs.readFileSync(path.join(root, 'docs/api.md'), 'utf8'), /`snail-core\/node` needs Node's types: `npm install -D @types\/node` and, with\s+TypeScript 7[\s\S]{0,120}`"types": \["node"\]`/);
  const dir = path.join(app, 'node-types');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'main.mts'), "import { LineReader } from 'snail-core/node';\nexport const reader: LineReader = new LineReader(() => process.stdin);\n");
  const [ts7] = TYPESCRIPTS;
  tsconfig(dir, ['main.mts'], { noEmit: true });
  const without = run(process.execPath, [ts7.tsc, '-p', 'tsconfig.json'], { cwd: dir });
  assert.notEqual(without.status, 0, 'without "types": ["node"] Node\'s types are missing');
  assert.match(without.all, /process|NodeJS|node:events/);
  tsconfig(dir, ['main.mts'], { noEmit: true, types: ['node'] });
  const withTypes = run(process.execPath, [ts7.tsc, '-p', 'tsconfig.json'], { cwd: dir });
  assert.equal(withTypes.status, 0, withTypes.all);
  // The package root alone needs no Node types.
  fs.writeFileSync(path.join(dir, 'main.mts'), "import { Runtime } from 'snail-core';\nexport const load = (bytes: Uint8Array): Promise<Runtime> => Runtime.load(bytes);\n");
  tsconfig(dir, ['main.mts'], { noEmit: true, types: [] });
  const neutral = run(process.execPath, [ts7.tsc, '-p', 'tsconfig.json'], { cwd: dir });
  assert.equal(neutral.status, 0, neutral.all);
});

test('package: the_guides_cmake_build_from_node_modules_makes_a_program_that_npx_runs', () => {
  assert.ok(fs.existsSync('/usr/bin/clang++-19') || process.env.WASI_SDK_PATH, 'a wasm32-wasi toolchain is needed (tools/bootstrap.sh installs it)');
  // Section 3's commands as written: copy the example, configure, build.
  const section = guideSection(3);
  const commands = blocks(section, 'sh');
  assert.equal(commands.length, 2, 'section 3 copies the example and builds it');
  for (const c of commands) {
    const r = sh(c, app);
    assert.equal(r.status, 0, `${c}\n${r.all}`);
    if (c.includes('cmake --build')) assert.match(r.all, /runtime\.cpp/, 'the core is compiled from the sources the package ships');
  }
  assert.equal(fs.readFileSync(path.join(app, 'app.cpp'), 'utf8'), blocks(section, 'cpp')[0], 'the guide shows the app.cpp it copies');
  assert.equal(fs.readFileSync(path.join(app, 'CMakeLists.txt'), 'utf8'), blocks(section, 'cmake')[0], 'and its CMakeLists.txt');
  assert.match(fs.readFileSync(path.join(app, 'build/CMakeCache.txt'), 'utf8'), /^SnailCore_DIR:PATH=.*\/node_modules\/snail-core\/tools\/cmake$/m);
  appProgram = path.join(app, 'build/programs/app.wasm');
  // Section 4: the command, and the output the guide shows after it.
  const section4 = guideSection(4);
  const [runCommand] = blocks(section4, 'sh');
  const [output] = blocks(section4, '');
  const ran = sh(runCommand, app);
  assert.equal(ran.status, 0, ran.all);
  assert.equal(ran.stdout, output);
});

test('package: the_guides_javascript_runs_as_written_and_prints_what_it_shows', () => {
  assert.ok(appProgram, 'the program the guide\'s CMake build makes is needed; that test failed');
  const section = guideSection(5);
  const [script] = blocks(section, 'js');
  fs.writeFileSync(path.join(app, 'run.mjs'), script);
  // The command and, right after it, the output the guide shows.
  const shown = /```sh\n(.*run\.mjs)\n```\n\n```\n([\s\S]*?)```/.exec(section);
  assert.ok(shown, 'the guide shows how to run run.mjs and what it prints');
  assert.equal(shown[1], 'npx node@26 run.mjs');
  // With the system's Node first on PATH: npx finds Node 26 in the project.
  const systemFirst = { ...env, PATH: `/usr/bin:${env.PATH}` };
  const r = run('sh', ['-ec', shown[1]], { env: systemFirst });
  assert.equal(r.status, 0, r.all);
  assert.equal(r.stdout, shown[2]);
});

test('package: an_old_node_stops_with_the_one_line_the_guide_shows', () => {
  // The system Node of the machines this runs on is 20, which has no JSPI.
  const system = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
  assert.equal(system.status, 0, '/usr/bin/node is the system Node (tools/bootstrap.sh installs it)');
  assert.ok(Number(system.stdout.slice(1).split('.')[0]) < 25, `the system Node (${system.stdout.trim()}) is older than 25`);
  assert.ok(appProgram, 'the program the guide\'s CMake build makes is needed; that test failed');
  const r = run('/usr/bin/node', ['run.mjs']);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  const [line] = blocks(guideSection(5), '').filter((b) => b.includes('has no JSPI'));
  assert.ok(line, 'the guide shows what an old Node says');
  assert.equal(r.stderr, line.replace(/Node \d+\.\d+\.\d+/, `Node ${system.stdout.trim().slice(1)}`));
});

test('package: the_guides_page_runs_the_program_in_chromium', async () => {
  assert.ok(fs.existsSync('/usr/bin/chromium'), '/usr/bin/chromium is needed (tools/bootstrap.sh installs it)');
  assert.ok(appProgram, 'the program the guide\'s CMake build makes is needed; that test failed');
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

test('package: the_workers_md_snippets_run_in_a_fresh_project_in_node_and_in_a_chromium_module_worker', async () => {
  const doc = fs.readFileSync(path.join(app, 'node_modules/snail-core/docs/workers.md'), 'utf8');
  const js = blocks(doc, 'js');
  const pick = (/** @type {string} */ first) => {
    const b = js.find((x) => x.startsWith(first));
    assert.ok(b, `workers.md shows ${first}`);
    return b;
  };
  const dir = path.join(app, 'workers');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'main.mjs'), pick('// main.mjs'));
  fs.writeFileSync(path.join(dir, 'hello-worker.mjs'), pick('// hello-worker.mjs'));
  const r = run(process.execPath, ['main.mjs'], { cwd: dir });
  assert.equal(r.status, 0, r.all);
  assert.equal(r.stdout, 'returned 0\n');
  // The module worker, beside a page at the project's root as the snippet says.
  fs.writeFileSync(path.join(app, 'hello-worker.js'), pick('// hello-worker.js'));
  fs.writeFileSync(path.join(app, 'worker.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><pre id="out"></pre>\n'
    + "<script type=\"module\">const w = new Worker(new URL('./hello-worker.js', import.meta.url), { type: 'module' }); w.onmessage = (e) => { document.getElementById('out').textContent = e.data; };</script>\n");
  const server = await startServer({ root: app });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const log = collectConsole(page);
    await page.goto(`${server.url}/worker.html`);
    await waitInPage(page, () => document.getElementById('out')?.textContent !== '', undefined, { timeout: 60_000 })
      .catch((error) => { throw new Error(`${error.message}\n${log.format()}`); });
    assert.equal(await textOf(page, '#out'), 'returned 0');
    assert.deepEqual(log.pageErrors, [], log.format());
  } finally {
    await browser.close();
    await server.close();
  }
});

test('package: a_vite_app_in_a_fresh_project_loads_the_shipped_program_as_the_guide_says', async () => {
  const line = /^- Vite: `(import helloUrl from '[^']+')`, then\n {2}`(Runtime\.load\(helloUrl\))`/m.exec(guide);
  assert.ok(line, 'the guide says how a Vite app reaches a shipped program');
  const site = path.join(app, 'site');
  fs.mkdirSync(site, { recursive: true });
  fs.writeFileSync(path.join(site, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><pre id="out"></pre><script type="module" src="./main.js"></script>\n');
  fs.writeFileSync(path.join(site, 'main.js'), `import { Runtime } from 'snail-core';
${line[1]};

const rt = await ${line[2].replace(')', ', { stdout: () => {} })')};
const task = rt.dispatch('main');
await rt.drain();
await rt.close();
document.getElementById('out').textContent = \`\${task.state} \${task.value}\`;
`);
  // The repository's Vite, as if the project had installed it.
  const { build } = await import(path.join(root, 'node_modules/vite/dist/node/index.js'));
  await build({ root: site, configFile: false, logLevel: 'silent', build: { outDir: path.join(site, 'dist'), emptyOutDir: true, target: 'esnext' } });
  const assets = fs.readdirSync(path.join(site, 'dist/assets'));
  assert.equal(assets.filter((f) => f.endsWith('.wasm')).length, 1, `the program is among the assets: ${assets}`);
  const server = await startServer({ root: path.join(site, 'dist') });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const log = collectConsole(page);
    await page.goto(`${server.url}/index.html`);
    await waitInPage(page, () => document.getElementById('out')?.textContent !== '', undefined, { timeout: 60_000 })
      .catch((error) => { throw new Error(`${error.message}\n${log.format()}`); });
    assert.equal(await textOf(page, '#out'), 'returned 0');
    assert.deepEqual(log.pageErrors, [], log.format());
  } finally {
    await browser.close();
    await server.close();
  }
});

test('package: the_guides_c_path_works_literally_from_an_empty_folder', () => {
  assert.ok(fs.existsSync('/usr/bin/clang-19') || process.env.WASI_SDK_PATH, 'a wasm32-wasi toolchain is needed (tools/bootstrap.sh installs it)');
  const [commands] = guideSectionBlocks('The same program in C', 'sh');
  const [output] = guideSectionBlocks('The same program in C', '');
  // The one change to the guide's commands: the packages come from the tarball
  // made here and the repository's binaryen, without the registry.
  const install = 'npm install snail-core binaryen@132';
  assert.ok(commands.includes(install), commands);
  const script = commands.replace(install, `npm install ${tarball} ${path.join(root, 'node_modules/binaryen')} --offline --no-audit --no-fund`);
  const empty = fs.mkdtempSync(path.join(tmp, 'guide-c-'));
  const r = run('sh', ['-ec', script], { cwd: empty });
  assert.equal(r.status, 0, r.all);
  assert.ok(r.stdout.endsWith(output), `the run printed what the guide shows:\n${output}\n--- got ---\n${r.all}`);
  assert.match(r.all, /Building C object CMakeFiles\/app\.linked\.dir\/app\.c/);
  assert.match(r.all, /runtime\.cpp/, 'the core is compiled from the sources the package ships');
  // A project of C alone, for which find_package enabled C++ (the core is C++).
  assert.match(fs.readFileSync(path.join(empty, 'hello-snail-c/CMakeLists.txt'), 'utf8'), /^project\(\w+ LANGUAGES C\)$/m);
  assert.match(r.all, /The CXX compiler identification is/);
});
