// The public surface is what api/*.api.md says it is: tools/types.mjs fails
// when the declarations it generates differ from the checked-in reports (a
// change that is meant is recorded with `npm run api`), and the declarations
// the package ships declare no `any`, no internal member and no internal
// module path.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { root } from './helpers.mjs';

/** @type {string} */
let tmp;
/** @type {string} */
let out;
/** @type {{ status: number | null, all: string }} */
let generated;

/** @param {string[]} args */
function types(args) {
  const r = spawnSync(process.execPath, [path.join(root, 'tools/types.mjs'), ...args], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  return { status: r.status, all: `${r.stdout}${r.stderr}` };
}

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-api-report-'));
  out = path.join(tmp, 'dist');
  generated = types(['--out', out]);
});

after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const REPORTS = ['snail-core.api.md', 'snail-core-node.api.md', 'snail-core-adapter-contract.api.md'];
const SHIPPED = ['host/browser/index.d.mts', 'host/node/index.d.mts', 'host/browser/adapter-contract.d.mts'];
/** A declaration file without its comments. @param {string} text */
const code = (text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

test('api report: the_declarations_match_the_checked_in_reports', () => {
  assert.equal(generated.status, 0, generated.all);
  assert.deepEqual(fs.readdirSync(path.join(root, 'api')).sort(), [...REPORTS].sort());
});

test('api report: a_change_of_the_surface_fails_and_names_the_update_command', () => {
  // The reports with one member of Runtime gone, as if the code had gained it by accident.
  const reports = path.join(tmp, 'reports');
  fs.cpSync(path.join(root, 'api'), reports, { recursive: true });
  const file = path.join(reports, 'snail-core.api.md');
  const text = fs.readFileSync(file, 'utf8');
  const edited = text.replace(/^ {4}drain\(\): Promise<void>;\n/m, '');
  assert.notEqual(edited, text, 'the report lists Runtime.drain()');
  fs.writeFileSync(file, edited);
  const r = types(['--out', path.join(tmp, 'changed'), '--reports', reports]);
  assert.equal(r.status, 1, r.all);
  assert.match(r.all, /types: the public API differs from .*snail-core\.api\.md: if the change is meant, run `npm run api`/);
  assert.doesNotMatch(r.all, /snail-core-node\.api\.md/, 'only the report that differs is named');
});

test('api report: the_shipped_declarations_have_no_any_and_name_no_internal_module', () => {
  assert.equal(generated.status, 0, generated.all);
  for (const file of SHIPPED) {
    const text = code(fs.readFileSync(path.join(out, file), 'utf8'));
    assert.doesNotMatch(text, /\bany\b/, `${file} declares no any`);
    const modules = [...text.matchAll(/(?:from |import\()['"]([^'"]+)['"]/g)].map((m) => m[1]);
    const allowed = file === 'host/node/index.d.mts' ? ['node:events', '../browser/index.mjs'] : [];
    assert.deepEqual([...new Set(modules)].filter((m) => !allowed.includes(m)), [], `${file} imports only ${allowed.join(', ') || 'nothing'}`);
    assert.match(fs.readFileSync(path.join(out, file), 'utf8'), /^\/\/\/ <reference lib="dom" \/>/, `${file} brings in the DOM library`);
  }
  // Only the entry points ship: no per-module declaration files.
  const files = fs.readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('.d.mts')).map(String).sort();
  assert.deepEqual(files, [...SHIPPED].sort());
});

test('api report: internal members are not on the public surface', () => {
  const report = fs.readFileSync(path.join(root, 'api/snail-core.api.md'), 'utf8') + fs.readFileSync(path.join(root, 'api/snail-core-node.api.md'), 'utf8');
  /** The members a class declares in the reports. @param {string} name */
  const members = (name) => {
    const body = new RegExp(`^export class ${name}\\b[^{]*\\{\\n([\\s\\S]*?)^\\}`, 'm').exec(report);
    assert.ok(body, `the reports declare ${name}`);
    return [...body[1].matchAll(/^ {4}(?:static |readonly |get |set )*(\w+)\??[(:<]/gm)].map((m) => m[1]);
  };
  assert.deepEqual(members('LineReader').sort(), ['armed', 'constructor', 'line', 'service', 'unread']);
  assert.deepEqual(members('DirectoryStorage').sort(), ['constructor', 'delete', 'get', 'list', 'put']);
  assert.deepEqual(members('MemoryStorage').sort(), ['constructor', 'delete', 'get', 'list', 'put']);
  assert.deepEqual(members('GrantedFiles').sort(), ['constructor', 'read', 'service', 'write']);
  assert.deepEqual(members('EventRegistry').sort(), ['clear', 'constructor', 'has', 'names', 'register', 'wait']);
  assert.deepEqual(members('Task').filter((m) => m.startsWith('_')), []);
  assert.ok(!members('Runtime').includes('bridge'), 'the runtime\'s bridge is not public');
  assert.ok(!members('CancelledError').includes('quick'), 'CancelledError.quick is the runtime\'s');
  // A type the surface uses is exported under its own name.
  assert.match(report, /^export type TaskStateName = /m);
  assert.match(report, /^ {8}state: TaskStateName;$/m, 'CloseReport.stuck[].state is the exported type');
});
