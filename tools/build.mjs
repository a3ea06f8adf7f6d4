#!/usr/bin/env node
// Builds everything: the core and programs for wasm32-wasi (build/wasm, with
// the programs in build/programs) and the core's native unit tests
// (build/native). Incremental: CMake and Ninja only redo what changed.
//
//   node tools/build.mjs [--quiet] [--wasm] [--native]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    quiet: { type: 'boolean', default: false },
    wasm: { type: 'boolean', default: false },
    native: { type: 'boolean', default: false },
  },
});
const both = !values.wasm && !values.native;
const generator = spawnSync('ninja', ['--version']).status === 0 ? ['-G', 'Ninja'] : [];

function run(args, what) {
  const result = spawnSync(args[0], args.slice(1), { cwd: root, stdio: values.quiet ? 'pipe' : 'inherit', encoding: 'utf8' });
  if (result.error) {
    process.stderr.write(`build: cannot run ${args[0]}: ${result.error.message}\nRun tools/bootstrap.sh first.\n`);
    process.exit(2);
  }
  if (result.status !== 0) {
    if (values.quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    process.stderr.write(`build: ${what} failed (exit ${result.status})\n`);
    process.exit(1);
  }
}

function configure(dir, extra) {
  const cache = path.join(root, dir, 'CMakeCache.txt');
  if (fs.existsSync(cache)) return;
  run(['cmake', '-S', '.', '-B', dir, ...generator, ...extra], `configuring ${dir}`);
}

if (both || values.wasm) {
  configure('build/wasm', [
    `-DCMAKE_TOOLCHAIN_FILE=${path.join(root, 'tools/cmake/wasm32-wasi.cmake')}`,
    '-DCMAKE_BUILD_TYPE=Release',
    `-DSNAIL_NODE=${process.execPath}`,
    `-DSNAIL_PROGRAM_OUTPUT_DIRECTORY=${path.join(root, 'build/programs')}`,
  ]);
  run(['cmake', '--build', 'build/wasm'], 'building the Wasm programs');
}
if (both || values.native) {
  configure('build/native', ['-DCMAKE_BUILD_TYPE=Debug']);
  run(['cmake', '--build', 'build/native'], 'building the native unit tests');
}
