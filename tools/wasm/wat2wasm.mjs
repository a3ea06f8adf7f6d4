#!/usr/bin/env node
// Assembles WebAssembly text with the npm package `wabt`:
//   node tools/wasm/wat2wasm.mjs IN.wat OUT.wasm
import fs from 'node:fs';
import wabtInit from 'wabt';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: wat2wasm.mjs IN.wat OUT.wasm\n');
  process.exit(2);
}
const wabt = await wabtInit();
// Beyond the ABI's own (docs/abi.md section 1), the features of
// tests/programs/features/: memory64, shared memory, several memories, tags.
const features = {
  reference_types: true, bulk_memory: true, mutable_globals: true, multi_value: true, tail_call: true,
  memory64: true, threads: true, multi_memory: true, exceptions: true,
};
let mod;
try {
  mod = wabt.parseWat(input, fs.readFileSync(input, 'utf8'), features);
  mod.resolveNames();
  mod.validate(features);
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}
const { buffer } = mod.toBinary({ log: false, write_debug_names: true });
fs.writeFileSync(output, buffer);
mod.destroy();
