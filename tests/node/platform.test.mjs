// The two entries of the package root: host/browser/index.mjs, which a page or
// a bundler gets and which imports nothing of Node, and host/node/root.mjs,
// which Node, Deno and Bun get (the "node" condition) and which installs the
// Node platform (host/node/platform.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { parseAst } from 'vite';

import { program, root } from './helpers.mjs';

const browserEntry = path.join(root, 'host/browser/index.mjs');
const nodeEntry = path.join(root, 'host/node/root.mjs');

/** @type {string} */
let tmp;
before(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-platform-')); });
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * Every module a module reaches through static imports, re-exports and
 * dynamic import(), with what each of them does that a page cannot: import a
 * module that is not a file of the package (node:fs, a bare name), import
 * something no one can check (import(variable)), or name getBuiltinModule
 * (process.getBuiltinModule('node:fs') reaches Node without an import).
 * @param {string} entry
 */
function walkGraph(entry) {
  /** @type {Set<string>} */
  const seen = new Set();
  /** @type {string[]} */
  const problems = [];
  const pending = [entry];
  while (pending.length) {
    const file = /** @type {string} */ (pending.pop());
    if (seen.has(file)) continue;
    seen.add(file);
    const where = path.relative(root, file);
    const ast = parseAst(fs.readFileSync(file, 'utf8'));
    /** @param {unknown} node */
    const visit = (node) => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const n of node) visit(n);
        return;
      }
      const n = /** @type {Record<string, any>} */ (node);
      if (n.type === 'ImportDeclaration' || n.type === 'ExportAllDeclaration' || (n.type === 'ExportNamedDeclaration' && n.source)
        || n.type === 'ImportExpression') {
        const source = n.source;
        if (source?.type !== 'Literal' || typeof source.value !== 'string') {
          problems.push(`${where}: an import() of a computed specifier`);
        } else if (/^\.\.?\//.test(source.value)) {
          pending.push(path.resolve(path.dirname(file), source.value));
        } else {
          problems.push(`${where}: imports ${source.value}`);
        }
      }
      if ((n.type === 'Identifier' && n.name === 'getBuiltinModule') || (n.type === 'Literal' && n.value === 'getBuiltinModule')) {
        problems.push(`${where}: uses getBuiltinModule`);
      }
      for (const [key, value] of Object.entries(n)) {
        if (key !== 'type' && key !== 'start' && key !== 'end') visit(value);
      }
    };
    visit(ast);
  }
  return { modules: [...seen].map((f) => path.relative(root, f)).sort(), problems };
}

test('platform: the_browser_entry_reaches_no_node_module_statically_or_dynamically_and_no_getBuiltinModule', () => {
  const { modules, problems } = walkGraph(browserEntry);
  assert.deepEqual(problems, []);
  // The walk went through the runtime, dynamic imports included.
  for (const m of ['host/browser/tasks.mjs', 'host/browser/bridge.mjs', 'host/browser/program.mjs', 'host/browser/platform.mjs']) {
    assert.ok(modules.includes(m), `${m} is in the graph: ${modules.join(', ')}`);
  }
  assert.deepEqual(modules.filter((m) => !m.startsWith('host/browser/')), []);
});

test('platform: the_graph_walk_finds_node_imports_dynamic_imports_and_getBuiltinModule', () => {
  // The walk itself must see each way in: a module that uses all of them.
  const dir = path.join(tmp, 'walk');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'entry.mjs'), "import './a.mjs';\nexport * from './b.mjs';\nexport const f = () => import('./c.mjs');\n");
  fs.writeFileSync(path.join(dir, 'a.mjs'), "import fs from 'node:fs';\nexport default fs;\n");
  fs.writeFileSync(path.join(dir, 'b.mjs'), "export { join } from 'path';\n");
  fs.writeFileSync(path.join(dir, 'c.mjs'), "const name = 'node:os';\nexport const os = () => import(name);\n"
    + "export const fs = globalThis.process?.getBuiltinModule?.('node:fs');\nexport const p = process['getBuiltinModule'];\nexport const q = import('node:url');\n");
  const { modules, problems } = walkGraph(path.join(dir, 'entry.mjs'));
  assert.equal(modules.length, 4);
  const rel = (/** @type {string} */ f) => path.relative(root, path.join(dir, f));
  assert.deepEqual(problems.sort(), [
    `${rel('a.mjs')}: imports node:fs`,
    `${rel('b.mjs')}: imports path`,
    `${rel('c.mjs')}: an import() of a computed specifier`,
    `${rel('c.mjs')}: imports node:url`,
    `${rel('c.mjs')}: uses getBuiltinModule`,
    `${rel('c.mjs')}: uses getBuiltinModule`,
  ].sort());
});

test('platform: the_node_entry_exports_exactly_what_the_browser_entry_exports_and_shares_its_classes', async () => {
  const browser = await import(pathToFileURL(browserEntry).href);
  const node = await import(pathToFileURL(nodeEntry).href);
  assert.deepEqual(Object.keys(node).sort(), Object.keys(browser).sort());
  for (const name of Object.keys(browser)) assert.equal(node[name], browser[name], name);
});

test('platform: the_package_root_is_the_node_entry_under_the_node_condition_with_the_same_declared_types', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const dot = pkg.exports['.'];
  // "types" first: TypeScript takes the first condition it knows, whichever runtime it compiles for.
  assert.deepEqual(Object.keys(dot), ['types', 'node', 'default']);
  assert.deepEqual(dot, { types: './dist/types/host/browser/index.d.mts', node: './host/node/root.mjs', default: './host/browser/index.mjs' });
  assert.equal(pkg.types, dot.types);
  // Node itself resolves the package's own name through its exports.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('snail-core'))"], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), pathToFileURL(nodeEntry).href);
});

/**
 * Runs a module under Node that imports the browser entry directly, as a
 * bundle made for a page would hold it.
 * @param {string} body
 */
function underBrowserEntry(body) {
  const file = path.join(tmp, `neutral-${Math.random().toString(36).slice(2)}.mjs`);
  fs.writeFileSync(file, `import * as snail from ${JSON.stringify(pathToFileURL(browserEntry).href)};\n${body}\n`);
  const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.error, undefined);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('platform: the_browser_entry_refuses_a_file_path_with_advice_and_still_loads_bytes', () => {
  const hello = program('hello');
  const out = underBrowserEntry(`
const refusals = [];
for (const source of [${JSON.stringify(hello)}, 'hello.wasm', new URL(${JSON.stringify(pathToFileURL(hello).href)})]) {
  try { await snail.Runtime.load(source); refusals.push('loaded'); } catch (e) { refusals.push([e.code, e.message]); }
}
const fs = await import('node:fs');
const rt = await snail.Runtime.load(fs.readFileSync(${JSON.stringify(hello)}), { stdout: () => {} });
const task = rt.dispatch('main');
await rt.drain();
await rt.close();
console.log(JSON.stringify({ refusals, state: task.state, limits: rt.limits }));
`);
  const advice = "this is the environment-neutral entry of snail-core, which reads no files; pass a URL or the bytes, or under Node, Deno or Bun import 'snail-core' (its node export) or 'snail-core/node'";
  assert.deepEqual(out.refusals, [
    ['ERR_LOAD', `cannot read the file ${hello}: ${advice}`],
    ['ERR_LOAD', `cannot read the file hello.wasm: ${advice}`],
    ['ERR_LOAD', `cannot read the file ${hello}: ${advice}`],
  ]);
  assert.equal(out.state, 'returned');
  // No platform limit is known there: the default bounds.
  assert.deepEqual(out.limits, { maxEntered: 10000, hardMaxEntered: 16382, maxSteps: 4096, maxTimeMs: 0.5 });
});

test('platform: the_browser_entry_knows_no_ceiling_on_entered_tasks', () => {
  const out = underBrowserEntry(`
const fs = await import('node:fs');
const rt = await snail.Runtime.load(fs.readFileSync(${JSON.stringify(program('hello'))}), { stdout: () => {}, maxEntered: 40000 });
await rt.close();
console.log(JSON.stringify(rt.limits));
`);
  // Only the Node platform knows vm.max_map_count; a bound is the embedder's call elsewhere.
  assert.deepEqual(out, { maxEntered: 40000, hardMaxEntered: 40000, maxSteps: 4096, maxTimeMs: 0.5 });
});

test('platform: the_browser_entry_holds_no_process_keep_alive', () => {
  // The control of contract 12 (tests/node/keepalive.test.mjs): without the
  // Node platform's token the process exits while a task still waits.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
import fs from 'node:fs';
import { Runtime, suspend } from ${JSON.stringify(pathToFileURL(browserEntry).href)};
const rt = await Runtime.load(fs.readFileSync(${JSON.stringify(program('keepalive'))}), {
  imports: { test: { wait_unref: suspend((_signal, n) => new Promise((resolve) => setTimeout(resolve, 100, n + 1).unref())) } },
});
const task = rt.dispatch('main', 100);
process.on('exit', () => console.log('exit with the task', task.state));
`], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.error, undefined);
  assert.equal(r.stdout, 'exit with the task suspended\n', r.stderr);
});

for (const engine of ['deno', 'bun']) {
  const binary = path.join(root, 'node_modules/.bin', engine);
  const missing = !fs.existsSync(binary) && `${engine} is not installed here (npm ${engine}, a dev dependency)`;
  test(`platform: ${engine}_gets_the_node_entry_as_the_package_root_and_loads_a_file`, { skip: missing }, () => {
    // As if installed: node_modules/snail-core is the package.
    const app = path.join(tmp, `app-${engine}`);
    fs.mkdirSync(path.join(app, 'node_modules'), { recursive: true });
    fs.symlinkSync(root, path.join(app, 'node_modules/snail-core'), 'dir');
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    fs.writeFileSync(path.join(app, 'check.mjs'), `
import { Runtime } from 'snail-core';
// Bun's JSPI cannot take the direct wait path (docs/performance.md).
const rt = await Runtime.load(${JSON.stringify(program('hello'))}, { stdout: () => {}, directWaits: typeof Bun === 'undefined' });
const task = rt.dispatch('main');
await rt.drain();
await rt.close();
let device = null;
try { await Runtime.load('/dev/zero'); } catch (e) { device = e.code; }
console.log(JSON.stringify({ root: import.meta.resolve('snail-core'), state: task.state, device }));
`);
    const args = engine === 'deno' ? ['run', '--allow-read', '--allow-env', '--allow-sys', 'check.mjs'] : ['check.mjs'];
    const r = spawnSync(binary, args, { cwd: app, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.error, undefined);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
    assert.equal(fs.realpathSync(new URL(out.root)), fs.realpathSync(nodeEntry));
    assert.deepEqual({ state: out.state, device: out.device }, { state: 'returned', device: 'ERR_LOAD' });
  });
}
