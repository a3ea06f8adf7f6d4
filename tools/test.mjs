#!/usr/bin/env node
// `npm test`: builds, then runs every suite.
//
//   node tools/test.mjs [types] [cpp] [node] [browser]     (default: all)
//
//   types    the JavaScript host's JSDoc types, checked by tsc
//   cpp      the core's unit tests (GoogleTest through ctest, native build)
//   node     the node:test suites under Node 25+ with real compiled programs
//   browser  the node:test suites that drive Debian's Chromium through playwright-core
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const all = ['types', 'cpp', 'node', 'browser'];
const chosen = process.argv.slice(2);
for (const c of chosen) {
  if (!all.includes(c)) {
    process.stderr.write(`test: unknown suite "${c}"; choose from ${all.join(', ')}\n`);
    process.exit(2);
  }
}
const suites = chosen.length ? chosen : all;

const major = Number(process.versions.node.split('.')[0]);
if (major < 25) {
  process.stderr.write(`test: this is Node ${process.versions.node}; the suites need Node 25 or newer (JSPI).\n` +
    'Run them through npm (npm test), which uses node_modules/.bin/node, after tools/bootstrap.sh.\n');
  process.exit(2);
}

function run(what, command, args) {
  process.stdout.write(`\n== ${what}\n`);
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (r.error) {
    process.stderr.write(`test: cannot run ${command}: ${r.error.message}\n`);
    process.exit(2);
  }
  return r.status === 0;
}

const failed = [];
if (!run('build', process.execPath, ['tools/build.mjs', '--quiet'])) process.exit(1);

const testFiles = (dir) => fs.readdirSync(path.join(root, dir))
  .filter((f) => f.endsWith('.test.mjs'))
  .sort()
  .map((f) => path.join(dir, f));
// --test-force-exit: a failed case may leave a runtime with live tasks, whose
// keep-alive token would otherwise hold the test process until the timeout.
const nodeTest = ['--test', '--test-timeout=300000', '--test-reporter=spec', '--test-force-exit'];

if (suites.includes('types') && !run('type check (tsc)', process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'])) failed.push('types');
if (suites.includes('cpp') && !run('C++ unit tests (ctest)', 'ctest', ['--test-dir', 'build/native', '--output-on-failure'])) failed.push('cpp');
if (suites.includes('node') && !run('node:test suites', process.execPath, [...nodeTest, ...testFiles('tests/node')])) failed.push('node');
if (suites.includes('browser')) {
  if (!fs.existsSync('/usr/bin/chromium')) {
    process.stderr.write('test: /usr/bin/chromium is missing; install it (tools/bootstrap.sh does) to run the browser suites\n');
    failed.push('browser');
  } else if (!run('browser suites (Chromium)', process.execPath, [...nodeTest, ...testFiles('tests/browser')])) {
    failed.push('browser');
  }
}

if (failed.length) {
  process.stderr.write(`\ntest: FAILED suites: ${failed.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(`\ntest: all suites passed (${suites.join(', ')})\n`);
