#!/usr/bin/env node
// Post-link step for snail-core programs that emcc linked together with its
// generated JavaScript (docs/emscripten.md), built on Binaryen (npm `binaryen`):
//
//   node tools/wasm/postlink-emscripten.mjs IN.wasm OUT.wasm [--stack-size BYTES]
//
// Emscripten's JavaScript expects the module exactly as emcc wrote it, so this
// step only adds to it: it keeps every import and export, and neither
// optimises nor strips (emcc did that at the level it was asked for).
//
// 1. The stack pointer is exported as `__stack_pointer` (when
//    -Wl,--export=__stack_pointer was not given, the global that emcc's
//    exported `stackSave`, or `emscripten_stack_get_current`, reads).
// 2. Stack checks, like tools/wasm/postlink.mjs: Binaryen's stack-check pass
//    guards every change of the stack pointer against two globals exported as
//    `snail.stack.base` / `snail.stack.limit`, which start with the bounds of
//    emcc's own stack (its top, and --stack-size below it: give the
//    -sTOTAL_STACK the program was linked with, 5 MiB by default). When emcc
//    already ran that pass (-sSTACK_OVERFLOW_CHECK=2; its JavaScript sets the
//    limits through `__set_stack_limits` before any constructor runs), the
//    globals of that check are exported instead of adding a second one.
// 3. Exports named with "__" instead of dots (the core's headers compiled with
//    SNAIL_EMSCRIPTEN_JS: emcc's JavaScript cannot declare a variable named
//    `_snail.entry.main`) are exported again under their ABI names:
//    `snail__entry__NAME` and `snail__handler__NAME` as `snail.entry.NAME` and
//    `snail.handler.NAME`, the others with every "__" replaced by a dot
//    (`snail__stack__acquire` is `snail.stack.acquire`).
// 4. A custom section `snail.abi` records the ABI version, and one named
//    `snail.emscripten` says that the module needs Emscripten's JavaScript
//    (Runtime.load's `emscripten` option).
import fs from 'node:fs';
import binaryen from 'binaryen';

import { appendGlobalNames, readModuleInfo } from '../../host/browser/wasm/binary.mjs';
import { exportsByName, globalNames } from './binaryen-names.mjs';
import { postlinkCommand } from './postlink-cli.mjs';

const ABI_VERSION = '1';
const DEFAULT_STACK_SIZE = 5 * 1024 * 1024;
const EMSCRIPTEN_NOTE = 'linked with the JavaScript of emcc: load it with Runtime.load(wasm, { emscripten: factory })';

const command = postlinkCommand({
  tool: 'postlink-emscripten',
  usage: 'postlink-emscripten.mjs IN.wasm OUT.wasm [--stack-size BYTES]',
  stackSize: DEFAULT_STACK_SIZE,
});
const { input, output, stackSize, fail } = command;
let bytes = command.bytes;
const before = readModuleInfo(bytes);
if (before.customSections.includes('snail.emscripten')) fail(`${input} was post-linked already`);
if (!before.exports.some((e) => e.name === '__wasm_call_ctors') || before.exports.some((e) => e.name === '_initialize')) {
  const minified = before.imports.length > 0 && before.imports.every((i) => i.module.length <= 2);
  fail(`${input} does not look like a module emcc linked with its JavaScript (which exports __wasm_call_ctors${minified ? '; this one\'s imports and exports are renamed, as emcc does when it links at -O3, -Os or -Oz: link at -O2 or lower' : ''})`);
}
if (before.imports.some((i) => i.module === 'env' && i.name === '__stack_pointer')) {
  fail(`${input} imports its stack pointer: dynamic linking (-sMAIN_MODULE, -sSIDE_MODULE) is not supported`);
}

bytes = exportStackPointer(bytes);

// Binaryen's stack-check pass finds the stack pointer by its name, which
// optimised links strip; name it again when it is missing.
const info = readModuleInfo(bytes);
const spExport = info.exports.find((e) => e.name === '__stack_pointer' && e.kind === 'global');
if (!spExport) fail(`${input} does not export its stack pointer as a global`);
if (!info.customSections.includes('name')) {
  bytes = appendGlobalNames(bytes, new Map([[spExport.index, '__stack_pointer']]));
}

const mod = binaryen.readBinary(bytes);
mod.setFeatures(mod.getFeatures() | binaryen.Features.MutableGlobals | binaryen.Features.BulkMemory | binaryen.Features.SignExt);

const exported = exportsByName(mod, binaryen);
const sp = /** @type {{ value: string }} */ (exported.get('__stack_pointer'));
if (sp.value !== '__stack_pointer') fail(`the stack pointer global is named ${sp.value}, not __stack_pointer; Binaryen's stack-check would miss it`);
const setLimits = exported.get('__set_stack_limits');
if (setLimits) {
  const [base, limit] = limitGlobals(setLimits.value);
  mod.addGlobalExport(base, 'snail.stack.base');
  mod.addGlobalExport(limit, 'snail.stack.limit');
} else {
  const spInit = binaryen.getExpressionInfo(binaryen.getGlobalInfo(mod.getGlobal(sp.value)).init).value;
  if (typeof spInit !== 'number') fail('__stack_pointer has no constant initial value');
  const low = spInit - stackSize;
  if (low < 0) fail(`--stack-size ${stackSize} is larger than the linked stack (top ${spInit}); give the -sTOTAL_STACK the program was linked with`);
  const namesBefore = new Set(globalNames(mod, binaryen));
  mod.runPasses(['stack-check']);
  const added = globalNames(mod, binaryen).filter((n) => !namesBefore.has(n));
  const limits = exportsByName(mod, binaryen).get('__set_stack_limits');
  if (!limits || added.length !== 2) fail('Binaryen\'s stack-check pass instrumented nothing (the stack pointer was not found)');
  const [base, limit] = limitGlobals(limits.value);
  // The pass creates both with 0, which would trap on the first frame: give
  // them the bounds of emcc's stack, which the constructors and the host's
  // calls between tasks use.
  for (const [name, value] of [[base, spInit], [limit, low]]) {
    mod.removeGlobal(name);
    mod.addGlobal(name, binaryen.i32, true, mod.i32.const(value));
  }
  // Nothing calls it: Emscripten's JavaScript does only with STACK_OVERFLOW_CHECK=2.
  mod.removeExport('__set_stack_limits');
  mod.addGlobalExport(base, 'snail.stack.base');
  mod.addGlobalExport(limit, 'snail.stack.limit');
}

let aliases = 0;
for (const [name, e] of exportsByName(mod, binaryen)) {
  const abiName = abiNameOf(name);
  if (!abiName || exported.has(abiName)) continue;
  if (e.kind === binaryen.ExternalFunction) mod.addFunctionExport(e.value, abiName);
  else if (e.kind === binaryen.ExternalGlobal) mod.addGlobalExport(e.value, abiName);
  else continue;
  aliases++;
}
if (aliases === 0 && ![...exported.keys()].some((n) => n.startsWith('snail.entry.'))) {
  fail(`${input} exports no snail-core entry: compile the program and the core with -DSNAIL_EMSCRIPTEN_JS and define entries with SNAIL_ENTRY`);
}
mod.addCustomSection('snail.abi', new TextEncoder().encode(ABI_VERSION));
mod.addCustomSection('snail.emscripten', new TextEncoder().encode(EMSCRIPTEN_NOTE));

binaryen.setDebugInfo(true);
if (!mod.validate()) fail(`the post-linked module of ${input} does not validate`);
fs.writeFileSync(output, mod.emitBinary());
mod.dispose();

/** The ABI name an export named with "__" stands for, or null. @param {string} name */
function abiNameOf(name) {
  if (!name.startsWith('snail__')) return null;
  for (const prefix of ['snail__entry__', 'snail__handler__']) {
    if (name.startsWith(prefix) && name.length > prefix.length) {
      return `${prefix.slice(0, -2).replaceAll('__', '.')}.${name.slice(prefix.length)}`;
    }
  }
  return name.replaceAll('__', '.');
}

/**
 * The globals `__set_stack_limits(base, limit)` stores its arguments in (the
 * function Binaryen's stack-check pass generates).
 * @param {string} fn
 * @returns {[string, string]}
 */
function limitGlobals(fn) {
  /** @type {Map<number, string>} */
  const byParam = new Map();
  const visit = (/** @type {number} */ expr) => {
    const x = /** @type {any} */ (binaryen.getExpressionInfo(expr));
    if (x.id === binaryen.BlockId) {
      for (const child of x.children) visit(child);
    } else if (x.id === binaryen.GlobalSetId) {
      const v = /** @type {any} */ (binaryen.getExpressionInfo(x.value));
      if (v.id === binaryen.LocalGetId) byParam.set(v.index, x.name);
    }
  };
  visit(binaryen.getFunctionInfo(mod.getFunction(fn)).body);
  const base = byParam.get(0);
  const limit = byParam.get(1);
  if (!base || !limit) fail('its __set_stack_limits is not the function of Binaryen\'s stack-check pass; link with -sSTACK_OVERFLOW_CHECK=0 or 1');
  return [base, limit];
}

/**
 * Exports the global emcc's `stackSave` reads as `__stack_pointer` when the
 * module does not export it yet.
 * @param {Uint8Array} wasm
 * @returns {Uint8Array}
 */
function exportStackPointer(wasm) {
  const m = binaryen.readBinary(wasm);
  try {
    /** @type {Set<string>} */
    const names = new Set();
    for (let i = 0; i < m.getNumExports(); i++) names.add(binaryen.getExportInfo(m.getExportByIndex(i)).name);
    if (names.has('__stack_pointer')) return wasm;
    const reader = ['stackSave', 'emscripten_stack_get_current'].find((n) => names.has(n));
    if (!reader) fail(`${input} exports neither __stack_pointer nor stackSave: link it with -Wl,--export=__stack_pointer`);
    const save = binaryen.getFunctionInfo(m.getFunction(binaryen.getExportInfo(m.getExport(reader)).value));
    const body = /** @type {any} */ (binaryen.getExpressionInfo(save.body));
    if (body.id !== binaryen.GlobalGetId) fail(`the ${reader} of ${input} does not read a global: link it with -Wl,--export=__stack_pointer`);
    m.addGlobalExport(body.name, '__stack_pointer');
    m.setFeatures(m.getFeatures() | binaryen.Features.MutableGlobals);
    // Binaryen writes a name section with debug info; one with its own names
    // (global$0) would hide the stack pointer from the stack-check pass.
    binaryen.setDebugInfo(readModuleInfo(wasm).customSections.includes('name'));
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}
