#!/usr/bin/env node
// `npm test`: builds, then runs every suite.
//
//   node tools/test.mjs [types] [cpp] [node] [browser] [firefox] [deno] [bun]   (default: all)
//
//   types    the JavaScript host's JSDoc types, checked by tsc
//   cpp      the core's unit tests (GoogleTest through ctest, native build)
//   node     the node:test suites under Node 25+ with real compiled programs
//   browser  the browser suites in Debian's Chromium (puppeteer-core, CDP)
//   firefox  the same browser suites in Debian's Firefox ESR (puppeteer-core, WebDriver BiDi)
//   deno     the contract cases, the demo and the Node host under Deno (npm package deno)
//   bun      the same under Bun, on JavaScriptCore (npm package bun)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const all = ['types', 'cpp', 'node', 'browser', 'firefox', 'deno', 'bun'];
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

/** How long each group took, for the closing summary. @type {string[]} */
const timings = [];

/** @param {string} what @param {string} command @param {string[]} args @param {Record<string, string>} [env] */
function run(what, command, args, env = {}) {
  process.stdout.write(`\n== ${what}\n`);
  const started = Date.now();
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.error) {
    process.stderr.write(`test: cannot run ${command}: ${r.error.message}\n`);
    process.exit(2);
  }
  timings.push(`${what} ${((Date.now() - started) / 1000).toFixed(0)} s`);
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
/** The browser suites in one browser (tests/browser/harness.mjs reads SNAIL_BROWSER). */
const browsers = [
  { suite: 'browser', id: 'chromium', name: 'Chromium', bin: '/usr/bin/chromium', apt: 'chromium' },
  { suite: 'firefox', id: 'firefox', name: 'Firefox', bin: '/usr/bin/firefox-esr', apt: 'firefox-esr' },
];
for (const b of browsers) {
  if (!suites.includes(b.suite)) continue;
  if (!fs.existsSync(b.bin)) {
    process.stderr.write(`test: ${b.bin} is missing; install ${b.apt} (tools/bootstrap.sh does) to run the browser suites in ${b.name}\n`);
    failed.push(b.suite);
  } else if (!run(`browser suites (${b.name})`, process.execPath, [...nodeTest, ...testFiles('tests/browser')], { SNAIL_BROWSER: b.id })) {
    failed.push(b.suite);
  }
}
for (const [suite, name] of [['deno', 'Deno'], ['bun', 'Bun']]) {
  if (suites.includes(suite) && !run(`engine suites (${name})`, process.execPath, [...nodeTest, `tests/engines/${suite}.test.mjs`])) failed.push(suite);
}

if (failed.length) {
  process.stderr.write(`\ntest: time per group: ${timings.join(', ')}\n`);
  process.stderr.write(`\ntest: FAILED suites: ${failed.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(`\ntest: time per group: ${timings.join(', ')}\n`);
process.stdout.write(`\ntest: all suites passed (${suites.join(', ')})\n`);
