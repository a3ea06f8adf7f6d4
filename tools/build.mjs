#!/usr/bin/env node
// Builds everything: the core and programs for wasm32-wasi (build/wasm, with
// the programs in build/programs), the Emscripten test programs when emcc is
// installed (build/emscripten, programs in build/programs/emscripten; see
// docs/emscripten.md) and the core's native unit tests (build/native).
// Incremental: CMake and Ninja only redo what changed.
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

function run(args, what, env = process.env) {
  const result = spawnSync(args[0], args.slice(1), { cwd: root, env, stdio: values.quiet ? 'pipe' : 'inherit', encoding: 'utf8' });
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

function configure(dir, extra, command = ['cmake', '-S', '.'], env = process.env) {
  const cache = path.join(root, dir, 'CMakeCache.txt');
  if (fs.existsSync(cache)) return;
  run([...command, '-B', dir, ...generator, ...extra], `configuring ${dir}`, env);
}

// Debian's Emscripten (3.1.6) runs its JavaScript tools with the system's
// Node packages, which it finds only through NODE_PATH.
const emEnv = fs.existsSync('/usr/share/nodejs')
  ? { ...process.env, NODE_PATH: ['/usr/share/nodejs', process.env.NODE_PATH].filter(Boolean).join(path.delimiter) }
  : process.env;

function buildEmscripten() {
  if (spawnSync('emcc', ['--version'], { env: emEnv }).error) {
    process.stderr.write('build: emcc is not installed: the Emscripten test programs are not built, and tests/node/emscripten.test.mjs fails (apt-get install emscripten; tools/bootstrap.sh does)\n');
    return;
  }
  configure('build/emscripten', [
    `-DSNAIL_NODE=${process.execPath}`,
    `-DSNAIL_PROGRAM_OUTPUT_DIRECTORY=${path.join(root, 'build/programs/emscripten')}`,
  ], ['emcmake', 'cmake', '-S', 'tests/programs/emscripten'], emEnv);
  run(['cmake', '--build', 'build/emscripten'], 'building the Emscripten test programs', emEnv);
}

if (both || values.wasm) {
  configure('build/wasm', [
    `-DCMAKE_TOOLCHAIN_FILE=${path.join(root, 'tools/cmake/wasm32-wasi.cmake')}`,
    '-DCMAKE_BUILD_TYPE=Release',
    `-DSNAIL_NODE=${process.execPath}`,
    `-DSNAIL_PROGRAM_OUTPUT_DIRECTORY=${path.join(root, 'build/programs')}`,
  ]);
  run(['cmake', '--build', 'build/wasm'], 'building the Wasm programs');
  buildEmscripten();
}
if (both || values.native) {
  configure('build/native', ['-DCMAKE_BUILD_TYPE=Debug']);
  run(['cmake', '--build', 'build/native'], 'building the native unit tests');
}
