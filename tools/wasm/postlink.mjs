#!/usr/bin/env node
// Post-link step for snail-core programs, built on Binaryen (npm `binaryen`):
//
//   node tools/wasm/postlink.mjs IN.wasm OUT.wasm [--stack-size BYTES] [--side] [--debug]
//
// 1. Binaryen's stack-check pass guards every change of __stack_pointer against
//    two new globals, the stack's base (highest address) and limit (lowest).
// 2. Those globals are exported as `snail.stack.base` / `snail.stack.limit`, so
//    they join the register file: each task's segment bounds are installed with
//    its stack pointer, and a task that overflows its segment traps instead of
//    writing into another task's frames.
// 3. Their initial values describe the neutral stack (the linker's stack, which
//    the program's initialisation and the host's calls between tasks use).
// 4. A custom section `snail.abi` records the ABI version.
// 5. The module is optimised and, unless --debug, stripped of debug info.
//
// --side post-links a side module (docs/abi.md, "Dynamically loaded modules"):
// it imports the program's __stack_pointer, so the stack-check pass guards it
// against the program's registers, imported as env.snail.stack.base/limit
// instead of globals of its own; the handler globals it defines become imports
// env.snail.handler.NAME (handler names are program-wide).
import fs from 'node:fs';
import binaryen from 'binaryen';

import { appendGlobalNames, readModuleInfo } from '../../host/browser/wasm/binary.mjs';
import { exportsByName, globalNames } from './binaryen-names.mjs';
import { postlinkCommand } from './postlink-cli.mjs';

const ABI_VERSION = '1';

const command = postlinkCommand({
  tool: 'postlink',
  usage: 'postlink.mjs IN.wasm OUT.wasm [--stack-size BYTES] [--side] [--debug]',
  stackSize: 65536,
  flags: ['debug', 'side'],
});
const { input, output, stackSize, flags, fail } = command;
let bytes = command.bytes;

// Binaryen's stack-check pass finds the stack pointer by its name, which
// optimised links strip; name it again when it is missing.
const info = readModuleInfo(bytes);
const spExport = info.exports.find((e) => e.name === '__stack_pointer' && e.kind === 'global');
if (spExport && !info.customSections.includes('name')) {
  bytes = appendGlobalNames(bytes, new Map([[spExport.index, '__stack_pointer']]));
}

const mod = binaryen.readBinary(bytes);
mod.setFeatures(mod.getFeatures() | binaryen.Features.MutableGlobals | binaryen.Features.BulkMemory);

/** Whether the module imports the program's stack pointer (a side module that uses its stack). */
function importsStackPointer() {
  for (let i = 0; i < mod.getNumGlobals(); i++) {
    const g = binaryen.getGlobalInfo(mod.getGlobalByIndex(i));
    if (g.module === 'env' && g.base === '__stack_pointer') return true;
  }
  return false;
}

const exported = exportsByName(mod, binaryen);
const sp = exported.get('__stack_pointer');
if (flags.side) {
  if (!readModuleInfo(bytes).customSections.includes('dylink.0')) {
    fail(`${input} has no dylink.0 section: link side modules with -shared and -Wl,--experimental-pic`);
  }
  // Handler names are program-wide: a handler global the module defines (the
  // C++ headers define one wherever SNAIL_HANDLER is used) becomes an import
  // env.snail.handler.NAME, which the loader binds to the program's register
  // of that name, or to a new one that starts null.
  for (const [name, info] of exportsByName(mod, binaryen)) {
    if (!name.startsWith('snail.handler.') || info.kind !== binaryen.ExternalGlobal) continue;
    const g = binaryen.getGlobalInfo(mod.getGlobal(info.value));
    if (g.module) continue;
    mod.removeExport(name);
    mod.removeGlobal(info.value);
    mod.addGlobalImport(info.value, 'env', name, g.type, true);
  }
  if (importsStackPointer()) {
    mod.runPasses(['stack-check']);
    // The stack's bounds are the program's registers, switched per task.
    for (const [name, field] of [['__stack_base', 'snail.stack.base'], ['__stack_limit', 'snail.stack.limit']]) {
      if (!globalNames(mod, binaryen).includes(name)) fail(`Binaryen's stack-check pass did not create ${name}`);
      mod.removeGlobal(name);
      mod.addGlobalImport(name, 'env', field, binaryen.i32, true);
    }
    mod.removeExport('__set_stack_limits');
  }
} else if (sp) {
  if (sp.value !== '__stack_pointer') fail(`the stack pointer global is named ${sp.value}, not __stack_pointer; Binaryen's stack-check would miss it`);
  const spInfo = binaryen.getGlobalInfo(mod.getGlobal(sp.value));
  const spInit = binaryen.getExpressionInfo(spInfo.init).value;
  if (typeof spInit !== 'number') fail('__stack_pointer has no constant initial value');
  const low = spInit - stackSize;
  if (low < 0) fail(`--stack-size ${stackSize} is larger than the linked stack (top ${spInit})`);

  mod.runPasses(['stack-check']);
  const names = new Set(globalNames(mod, binaryen));
  for (const name of ['__stack_base', '__stack_limit']) {
    if (!names.has(name)) fail(`Binaryen's stack-check pass did not create ${name}`);
  }
  // The pass creates both globals with 0, which would trap on the first frame;
  // give them the neutral stack's bounds instead.
  const setInit = (name, value) => {
    mod.removeGlobal(name);
    mod.addGlobal(name, binaryen.i32, true, mod.i32.const(value));
  };
  setInit('__stack_base', spInit);
  setInit('__stack_limit', low);
  mod.removeExport('__set_stack_limits');
  mod.addGlobalExport('__stack_base', 'snail.stack.base');
  mod.addGlobalExport('__stack_limit', 'snail.stack.limit');
}

mod.addCustomSection('snail.abi', new TextEncoder().encode(ABI_VERSION));

binaryen.setOptimizeLevel(2);
binaryen.setShrinkLevel(1);
binaryen.setDebugInfo(flags.debug);
mod.optimize();
if (!flags.debug) mod.runPasses(['strip-debug']);
if (!mod.validate()) fail(`the post-linked module of ${input} does not validate`);
fs.writeFileSync(output, mod.emitBinary());
mod.dispose();
