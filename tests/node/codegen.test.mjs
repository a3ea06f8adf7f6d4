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

import { catchAll, Code, ModuleWriter, op } from '../../host/browser/wasm/binary.mjs';
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

/** The lines before the text: what the case is, the module's size and digest. */
const HEADER_LINES = 2;

/**
 * Where a golden file and the module made now differ: the first lines of the
 * text that differ, with a little context (a whole module would bury them),
 * or, when the text is the same, the header with the size and digest.
 * @param {string} actual @param {string} expected
 */
function difference(actual, expected) {
  const a = actual.split('\n');
  const e = expected.split('\n');
  let i = HEADER_LINES;
  while (i < a.length && i < e.length && a[i] === e[i]) i++;
  if (i === Math.max(a.length, e.length)) {
    const header = (/** @type {string[]} */ text, /** @type {string} */ sign) => text.slice(0, HEADER_LINES).map((line) => `${sign} ${line}`);
    return ['the text is the same, the header (case, size, digest) is not:', ...header(e, '-'), ...header(a, '+')].join('\n');
  }
  const from = Math.max(HEADER_LINES, i - 3);
  const lines = (/** @type {string[]} */ text, /** @type {string} */ sign) => text.slice(i, i + 4).map((line) => `${sign} ${line}`);
  return [`at line ${i + 1}:`, ...a.slice(from, i).map((line) => `  ${line}`), ...lines(e, '-'), ...lines(a, '+')].join('\n');
}

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
    const expected = fs.readFileSync(file, 'utf8');
    if (actual !== expected) assert.fail(`${name}: the generated module differs from tests/codegen/${name}.wat\n${difference(actual, expected)}`);
  });
}

test('codegen: a_branch_names_a_label_and_gets_its_depth_from_where_it_is', () => {
  const c = new Code([]);
  c.block(null, (outer) => {
    c.loop(null, (inner) => {
      c.i32(1).brIf(outer).br(inner);
      c.tryTable(null, [catchAll(outer)], () => c.br(outer));
    });
  });
  // br_if 1 (outer, from the loop), br 0 (the loop), then the catch clause's
  // label counts from outside the try_table (1), the br in it from inside (2).
  assert.deepEqual(c.bytes, [
    op.block, 0x40, op.loop, 0x40, op.i32_const, 1, op.br_if, 1, op.br, 0,
    op.try_table, 0x40, 1, 0x02, 1, op.br, 2, op.end, op.end, op.end,
  ]);
});

test('codegen: the_writer_refuses_branches_to_closed_labels_and_bodies_left_open_as_internal_errors', () => {
  const c = new Code(['i32']);
  /** @type {any} */
  let closed = null;
  c.block(null, (label) => { closed = label; });
  assert.throws(() => c.br(closed), { name: 'InternalError', message: /branches to a label that is not open/ });
  assert.throws(() => c.tryTable(null, [catchAll(closed)], () => {}), { name: 'InternalError', message: /branches to a label that is not open/ });
  // A label of another body is not open in this one.
  const other = new Code([]);
  other.block(null, (label) => {
    assert.throws(() => new Code([]).block(null, () => c.br(label)), { name: 'InternalError' });
  });
  const w = new ModuleWriter();
  const open = new Code([]);
  open.enter();
  assert.throws(() => w.func([], [], open), { name: 'InternalError', message: /ends inside a construct/ });
  assert.throws(() => w.func(['i64'], [], new Code(['i32'])), { name: 'InternalError', message: /written for other parameters/ });
  const nested = new Code([]);
  const outer = nested.enter();
  nested.enter();
  assert.throws(() => nested.leave(outer), { name: 'InternalError', message: /ends out of order/ });
});

test('codegen: locals_are_numbered_after_the_parameters_the_body_was_written_for', () => {
  const c = new Code(['i32', 'f64']);
  assert.deepEqual([c.local('i32'), c.local('externref')], [2, 3]);
  // Without parameters given, a local's index counts the locals only.
  assert.equal(new Code().local('i32'), 0);
});
