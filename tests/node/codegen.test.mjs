// Golden WebAssembly text of every module the runtime generates
// (tests/codegen/NAME.wat): the probe of canWrap, the suspension module's
// stubs and wrappers, the register file and the carriers, each for fixed
// layouts, as the builders that createGates, createWrappers,
// createRegisterFile and createCarriers instantiate make them. A golden file holds the module as wabt's wasm2wat prints it, after
// a header with the module's size and the SHA-256 of its bytes, so that a
// change the text does not show (an immediate's encoding, how locals are
// declared) fails too. Every module must also validate in this engine and in
// wabt.
//
// SNAIL_UPDATE_GOLDEN=1 rewrites the golden files from what the writers make
// (and removes those of cases that are gone); review the diff before
// committing it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import wabtInit from 'wabt';

import { carriersModule } from '../../host/browser/wasm/carriers.mjs';
import { probeModule, stubsModule, WORDS_END, wrappersModule } from '../../host/browser/wasm/gates.mjs';
import { registerFileModule, slotLayout } from '../../host/browser/wasm/registers.mjs';
import { root } from './helpers.mjs';

const goldenDir = path.join(root, 'tests/codegen');
const update = process.env.SNAIL_UPDATE_GOLDEN === '1';
const wabt = await wabtInit();
const features = { exceptions: true, tail_call: true, reference_types: true, multi_value: true, bulk_memory: true, mutable_globals: true };

/** The waits of a program: one of every result type the wrappers support. */
const WAITS = [
  { key: 'snail.sleep:f64->i32', params: ['f64'], results: ['i32'] },
  { key: 'app.tick:->', params: [], results: [] },
  { key: 'app.big:i64,f64->i64', params: ['i64', 'f64'], results: ['i64'] },
  { key: 'app.real:f32->f32', params: ['f32'], results: ['f32'] },
  { key: 'app.wide:i32->f64', params: ['i32'], results: ['f64'] },
  { key: 'app.object:externref,i32->externref', params: ['externref', 'i32'], results: ['externref'] },
];
/** The waits a module loaded later adds. */
const LATER = [
  { key: 'plugin.wait:i32->i32', params: ['i32'], results: ['i32'] },
  { key: 'plugin.read:externref->externref', params: ['externref'], results: ['externref'] },
];

/**
 * Registers of a program (without their globals, which no module holds):
 * `spec` lists role or handler type, in the order the program's shape gives
 * them.
 * @param {string[]} spec
 */
function registers(spec) {
  return spec.map((s, i) => {
    const role = s.startsWith('stack_') ? s : 'handler';
    const type = role === 'handler' ? s : 'i32';
    const name = role === 'handler' ? `h${i}.${type}` : role;
    return { name, module: 'app', type, role };
  });
}

/** Register layouts: a C++ program's, one of every type, and none at all. */
const LAYOUTS = {
  // A C++ program: one handler and the three stack registers.
  stack: ['i32', 'stack_pointer', 'stack_base', 'stack_limit'],
  // Every register type, roles mixed (the layout puts the handlers first).
  mixed: ['stack_pointer', 'i64', 'externref', 'f64', 'funcref', 'f32', 'i32', 'externref', 'stack_limit'],
  // A program without handler globals or a shadow stack.
  bare: [],
};

/** The slot layout of a register file, as the runtime makes it. @param {keyof LAYOUTS} name */
const layout = (name) => slotLayout(/** @type {any} */ (registers(LAYOUTS[name])), WORDS_END);

/** Waits as the dispatch table holds them, in entries 0, 1, ... @param {typeof WAITS} waits */
const at = (waits) => waits.map((w, i) => ({ ...w, at: i }));

/** @type {{ name: string, about: string, bytes: () => Uint8Array }[]} */
const CASES = [
  { name: 'probe', about: 'what canWrap instantiates: the JS tag, try_table, a tail call', bytes: () => probeModule() },
  { name: 'stubs', about: 'the stubs of six waits (every result type), the first build', bytes: () => stubsModule(WAITS, 0) },
  { name: 'stubs-later', about: 'the stubs of two waits a loaded module adds, after six', bytes: () => stubsModule(LATER, WAITS.length) },
  {
    name: 'wrappers-stack',
    about: 'the wrappers of six waits, for the registers of a C++ program (generation 1)',
    bytes: () => wrappersModule(at(WAITS), layout('stack'), 1),
  },
  {
    name: 'wrappers-mixed',
    about: 'the wrappers of three waits, for registers of every type, after a loaded module added one (generation 2)',
    bytes: () => wrappersModule(at([WAITS[0], WAITS[5], LATER[0]]), layout('mixed'), 2),
  },
  { name: 'wrappers-bare', about: 'the wrappers of two waits, for a program without registers', bytes: () => wrappersModule(at(WAITS.slice(0, 2)), layout('bare'), 1) },
  { name: 'registers-stack', about: 'the register file of a C++ program: one i32 handler and the stack registers', bytes: () => registerFileModule(layout('stack')) },
  { name: 'registers-mixed', about: 'the register file of registers of every type', bytes: () => registerFileModule(layout('mixed')) },
  { name: 'registers-bare', about: 'the register file of a program without registers', bytes: () => registerFileModule(layout('bare')) },
  {
    name: 'carriers-full',
    about: 'the carriers of three named entries, a function table and current()',
    bytes: () => carriersModule({ entries: 3, table: true, stackSize: 65536, current: true }),
  },
  {
    name: 'carriers-one',
    about: 'the carriers of one named entry, without a function table or current()',
    bytes: () => carriersModule({ entries: 1, table: false, stackSize: 65536, current: false }),
  },
  {
    name: 'carriers-table',
    about: 'the carriers of a program that starts tasks only through its function table',
    bytes: () => carriersModule({ entries: 0, table: true, stackSize: 65536, current: false }),
  },
];

/** @param {string} name @param {string} about @param {Uint8Array} bytes */
function golden(name, about, bytes) {
  const mod = wabt.readWasm(bytes, { ...features, check: true });
  try {
    mod.validate();
    const sha = createHash('sha256').update(bytes).digest('hex');
    return `;; ${name}: ${about}\n;; ${bytes.length} bytes, sha256 ${sha}\n${mod.toText({ foldExprs: false, inlineExport: false })}`;
  } finally {
    mod.destroy();
  }
}

test('codegen: every_golden_file_belongs_to_a_case', () => {
  const files = fs.existsSync(goldenDir) ? fs.readdirSync(goldenDir).filter((f) => f.endsWith('.wat')) : [];
  const names = new Set(CASES.map((c) => `${c.name}.wat`));
  const stale = files.filter((f) => !names.has(f));
  if (update) {
    for (const f of stale) fs.rmSync(path.join(goldenDir, f));
    return;
  }
  assert.deepEqual(stale, [], 'golden files of no case (SNAIL_UPDATE_GOLDEN=1 removes them)');
});

for (const { name, about, bytes } of CASES) {
  test(`codegen: ${name}_validates_and_matches_its_golden_text_and_bytes`, () => {
    const module = bytes();
    assert.ok(WebAssembly.validate(/** @type {BufferSource} */ (module)), `${name} validates in this engine`);
    const actual = golden(name, about, module);
    const file = path.join(goldenDir, `${name}.wat`);
    if (update) {
      fs.mkdirSync(goldenDir, { recursive: true });
      fs.writeFileSync(file, actual);
      return;
    }
    assert.ok(fs.existsSync(file), `${file} exists (SNAIL_UPDATE_GOLDEN=1 writes it)`);
    assert.equal(actual, fs.readFileSync(file, 'utf8'), `${name}: the generated module differs from tests/codegen/${name}.wat`);
  });
}
