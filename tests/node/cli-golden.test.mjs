// Golden-output cases of the snail-core command (tests/cli/cases/): each
// folder holds the command's arguments and its exact expected stdout, stderr
// and exit status. The command runs as a real child process, in a temporary
// directory that holds the fixtures of tests/cli/fixtures (WebAssembly text is
// assembled into NAME.wasm there), so that cases name them by relative paths.
//
//   tests/cli/cases/NAME/args     one argument a line; {programs} is build/programs
//   tests/cli/cases/NAME/stdout   expected standard output
//   tests/cli/cases/NAME/stderr   expected standard error
//   tests/cli/cases/NAME/status   expected exit status
//
// Before comparing, the output's variable parts are replaced by placeholders:
// build/programs by {programs}, the working directory by {cwd}, the package
// root by {root}, the version by {version}, and durations "(N ms)" by "({ms} ms)".
// SNAIL_UPDATE_GOLDEN=1 rewrites the expected files from what the command did.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import wabtInit from 'wabt';

import { programs, root } from './helpers.mjs';

const cli = path.join(root, 'host/cli/snail-core.mjs');
const casesDir = path.join(root, 'tests/cli/cases');
const fixturesDir = path.join(root, 'tests/cli/fixtures');
const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
const update = process.env.SNAIL_UPDATE_GOLDEN === '1';

/** @type {string} */
let cwd;

before(async () => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-golden-'));
  const wabt = await wabtInit();
  const features = { reference_types: true, bulk_memory: true, mutable_globals: true, multi_value: true, exceptions: true };
  for (const file of fs.readdirSync(fixturesDir)) {
    const from = path.join(fixturesDir, file);
    if (file.endsWith('.wat')) {
      const mod = wabt.parseWat(file, fs.readFileSync(from, 'utf8'), features);
      mod.resolveNames();
      fs.writeFileSync(path.join(cwd, file.replace(/\.wat$/, '.wasm')), mod.toBinary({}).buffer);
      mod.destroy();
    } else {
      fs.copyFileSync(from, path.join(cwd, file));
    }
  }
});

after(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

/**
 * @param {string[]} args
 * @returns {Promise<{ status: number | null, signal: string | null, stdout: string, stderr: string }>}
 */
function runCli(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (text) => { stdout += text; });
    child.stderr.on('data', (text) => { stderr += text; });
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/** @param {string} text */
function normalise(text) {
  // Longest paths first: build/programs and the working directory lie under
  // the root or the temporary directory.
  const realCwd = fs.realpathSync(cwd);
  return text
    .split(programs).join('{programs}')
    .split(realCwd).join('{cwd}')
    .split(cwd).join('{cwd}')
    .split(root).join('{root}')
    .split(version).join('{version}')
    .replace(/\(\d+ ms\)/g, '({ms} ms)');
}

const cases = fs.readdirSync(casesDir).filter((name) => fs.statSync(path.join(casesDir, name)).isDirectory()).sort();

test('cli golden: the_cases_cover_every_error_message_of_the_command', () => {
  // Every message the command itself throws as a usage error (in the command
  // and its argument parsing) appears in some case's expected stderr: a new
  // error path needs a new case.
  const source = [cli, path.join(path.dirname(cli), 'args.mjs')].map((f) => fs.readFileSync(f, 'utf8')).join('\n');
  const messages = [...source.matchAll(/new CliError\(\s*[`'"]([^`'"$]+)/g)].map((m) => m[1].trim());
  assert.ok(messages.length >= 10, `found only ${messages.length} CliError messages`);
  const expected = cases.map((name) => fs.readFileSync(path.join(casesDir, name, 'stderr'), 'utf8')).join('\n');
  const missing = messages.filter((m) => !expected.includes(`snail-core: ${m}`));
  assert.deepEqual(missing, [], 'CliError messages no golden case shows');
});

for (const name of cases) {
  test(`cli golden: ${name}`, async () => {
    const dir = path.join(casesDir, name);
    const args = fs.readFileSync(path.join(dir, 'args'), 'utf8').split('\n').filter((line, i, all) => line !== '' || i < all.length - 1)
      .map((arg) => arg.split('{programs}').join(programs));
    const r = await runCli(args);
    const actual = { status: `${r.status ?? `signal ${r.signal}`}\n`, stdout: normalise(r.stdout), stderr: normalise(r.stderr) };
    if (update) {
      for (const [file, text] of Object.entries(actual)) fs.writeFileSync(path.join(dir, file), text);
      return;
    }
    const expected = Object.fromEntries(['status', 'stdout', 'stderr'].map((file) => [file, fs.readFileSync(path.join(dir, file), 'utf8')]));
    assert.deepEqual(actual, expected, `snail-core ${args.join(' ')}`);
  });
}
