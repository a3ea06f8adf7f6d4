// Golden WebAssembly text of every module the runtime generates
// (tests/codegen/NAME.wat): the probe of canWrap, the suspension module's
// stubs and wrappers, the register file and the carriers, each for fixed
// layouts. A golden file holds the module as wabt's wasm2wat prints it, after
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
import { fileURLToPath } from 'node:url';

import wabtInit from 'wabt';

// Not helpers.mjs: it loads the runtime, whose probe must be built here first.
const root = fileURLToPath(new URL('../..', import.meta.url));
const goldenDir = path.join(root, 'tests/codegen');
const update = process.env.SNAIL_UPDATE_GOLDEN === '1';
const wabt = await wabtInit();
const features = { exceptions: true, tail_call: true, reference_types: true, multi_value: true, bulk_memory: true, mutable_globals: true };

// The writers instantiate what they build: the bytes are taken on their way
// into WebAssembly.Module.
const OriginalModule = WebAssembly.Module;
/** @type {Uint8Array[] | null} */
let capturing = null;
/** @type {any} */ (WebAssembly).Module = function Module(/** @type {BufferSource} */ bytes) {
  if (capturing) capturing.push(new Uint8Array(ArrayBuffer.isView(bytes) ? bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) : bytes.slice(0)));
  return new OriginalModule(bytes);
};
Object.assign(WebAssembly.Module, { customSections: OriginalModule.customSections, exports: OriginalModule.exports, imports: OriginalModule.imports });

/**
 * The one module `make` builds.
 * @param {() => unknown} make
 */
function built(make) {
  capturing = [];
  try {
    make();
    assert.equal(capturing.length, 1, 'one module per build');
    return capturing[0];
  } finally {
    capturing = null;
  }
}

capturing = [];
const gates = await import('../../host/browser/wasm/gates.mjs');
const probe = capturing;
capturing = null;
const { createRegisterFile } = await import('../../host/browser/wasm/registers.mjs');
const { createCarriers } = await import('../../host/browser/wasm/carriers.mjs');
const { createGates, createWrappers, WORDS_END } = await import('../../host/browser/wasm/gates.mjs');

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

const never = () => { throw new Error('not called while building'); };
const callbacks = { begin: () => never, after: never, fail: never, park: never, foreign: never };

/** @param {string} type */
function global(type) {
  const value = type === 'i64' ? 0n : type === 'externref' || type === 'funcref' ? null : 0;
  return new WebAssembly.Global({ value: /** @type {any} */ (type === 'funcref' ? 'anyfunc' : type), mutable: true }, value);
}

/**
 * Registers of a program: `spec` lists role or handler type, in the order the
 * program's shape gives them.
 * @param {string[]} spec
 */
function registers(spec) {
  return spec.map((s, i) => {
    const role = s.startsWith('stack_') ? s : 'handler';
    const type = role === 'handler' ? s : 'i32';
    const name = role === 'handler' ? `h${i}.${type}` : role;
    return { name, module: 'app', type, role, global: global(type) };
  });
}

/** Register layouts: a C++ program's, one of every type, and none at all. */
const LAYOUTS = {
  // A C++ program: one handler and the three stack registers.
  stack: ['i32', 'stack_pointer', 'stack_base', 'stack_limit'],
  // Every register type, roles mixed (the file puts the handlers first).
  mixed: ['stack_pointer', 'i64', 'externref', 'f64', 'funcref', 'f32', 'i32', 'externref', 'stack_limit'],
  // A program without handler globals or a shadow stack.
  bare: [],
};

/** A register file of a layout, in a memory of its own. @param {keyof LAYOUTS} layout */
function registerFile(layout, memory = new WebAssembly.Memory({ initial: 1 })) {
  return createRegisterFile({ registers: registers(LAYOUTS[layout]), memory, base: WORDS_END });
}

/**
 * The wrappers of a layout's register file: for `waits`, and, when `later` is
 * given, built a second time after those were added (generation 2).
 * @param {keyof LAYOUTS} layout @param {typeof WAITS} waits @param {typeof WAITS} [later]
 */
function wrappers(layout, waits, later) {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const first = createGates(waits, callbacks, memory);
  const file = registerFile(layout, memory);
  if (!later) return built(() => createWrappers(first, file));
  createWrappers(first, file);
  createGates(later, callbacks, memory, first);
  return built(() => createWrappers(first, file));
}

/**
 * Carriers of a program with `entries` named entries, with or without a
 * function table and the suspension module's current().
 * @param {number} entries @param {boolean} table @param {boolean} current
 */
function carriers(entries, table, current) {
  return built(() => createCarriers({
    entries: Array.from({ length: entries }, (_, i) => ({ name: `e${i}`, fn: () => 0 })),
    table: table ? new WebAssembly.Table({ element: 'anyfunc', initial: 1 }) : null,
    stackSize: 65536,
    next: () => 0,
    idle: async () => 0,
    ask: () => 0,
    setCurrent: current ? () => {} : undefined,
  }));
}

/** @type {{ name: string, about: string, bytes: () => Uint8Array }[]} */
const CASES = [
  { name: 'probe', about: 'what canWrap instantiates: the JS tag, try_table, a tail call', bytes: () => (assert.equal(probe.length, 1), probe[0]) },
  { name: 'stubs', about: 'the stubs of six waits (every result type), the first build', bytes: () => built(() => createGates(WAITS, callbacks, new WebAssembly.Memory({ initial: 1 }))) },
  {
    name: 'stubs-later',
    about: 'the stubs of two waits a loaded module adds, after six',
    bytes: () => {
      const memory = new WebAssembly.Memory({ initial: 1 });
      const first = createGates(WAITS, callbacks, memory);
      return built(() => createGates(LATER, callbacks, memory, first));
    },
  },
  { name: 'wrappers-stack', about: 'the wrappers of six waits, for the registers of a C++ program (generation 1)', bytes: () => wrappers('stack', WAITS) },
  {
    name: 'wrappers-mixed',
    about: 'the wrappers of three waits, for registers of every type, after a loaded module added one (generation 2)',
    bytes: () => wrappers('mixed', [WAITS[0], WAITS[5]], LATER.slice(0, 1)),
  },
  { name: 'wrappers-bare', about: 'the wrappers of two waits, for a program without registers', bytes: () => wrappers('bare', WAITS.slice(0, 2)) },
  { name: 'registers-stack', about: 'the register file of a C++ program: one i32 handler and the stack registers', bytes: () => built(() => registerFile('stack')) },
  { name: 'registers-mixed', about: 'the register file of registers of every type', bytes: () => built(() => registerFile('mixed')) },
  { name: 'registers-bare', about: 'the register file of a program without registers', bytes: () => built(() => registerFile('bare')) },
  { name: 'carriers-full', about: 'the carriers of three named entries, a function table and current()', bytes: () => carriers(3, true, true) },
  { name: 'carriers-one', about: 'the carriers of one named entry, without a function table or current()', bytes: () => carriers(1, false, false) },
  { name: 'carriers-table', about: 'the carriers of a program that starts tasks only through its function table', bytes: () => carriers(0, true, false) },
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
