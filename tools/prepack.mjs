#!/usr/bin/env node
// Makes what the npm package ships but git does not hold (npm runs this before
// `npm pack` and `npm publish`): the built programs the CLI and the README use
// (build/programs/demo.wasm, hello.wasm) and the TypeScript declarations
// (dist/types). Building the programs needs the wasm32-wasi toolchain
// (tools/bootstrap.sh); using the package does not.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** @param {string} script @param {string[]} args */
function run(script, args) {
  const r = spawnSync(process.execPath, [path.join(root, script), ...args], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`prepack: ${script} failed; the package would lack what it ships\n`);
    process.exit(1);
  }
}

run('tools/build.mjs', ['--wasm', '--quiet']);
for (const program of ['demo', 'hello']) {
  if (!fs.existsSync(path.join(root, 'build/programs', `${program}.wasm`))) {
    process.stderr.write(`prepack: build/programs/${program}.wasm is missing after the build\n`);
    process.exit(1);
  }
}
run('tools/types.mjs', []);
