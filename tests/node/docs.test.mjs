// The documents promise what the tests check: code in docs/abi.md and the
// README runs as written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { Runtime } from '../../host/node/root.mjs';
import { root } from './helpers.mjs';
import { wat } from './wat.mjs';

/** @param {string} file @param {string} lang */
function codeBlocks(file, lang) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}

test('docs: the_minimal_program_of_abi_md_runs_as_described', async () => {
  const blocks = codeBlocks('docs/abi.md', 'wat');
  assert.equal(blocks.length, 1);
  const rt = await Runtime.load(wat(blocks[0]), { name: 'abi-example.wasm' });
  assert.deepEqual(rt.handlerGlobals.map((h) => h.name), ['tag']);
  const tasks = Array.from({ length: 50 }, (_, i) => rt.dispatch('main', i * 7));
  await rt.drain();
  assert.deepEqual(tasks.map((t) => t.value), tasks.map((_, i) => i * 7));
  await rt.close();
});

test('docs: the_status_table_of_abi_md_matches_the_runtime_and_the_c_header', async () => {
  const { Status } = await import('../../host/node/root.mjs');
  const text = fs.readFileSync(path.join(root, 'docs/abi.md'), 'utf8');
  const rows = [...text.matchAll(/^\| (\d) \| `(\w+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
  assert.deepEqual(Object.fromEntries(rows), { ...Status });
  const header = fs.readFileSync(path.join(root, 'core/include/snail/abi.h'), 'utf8');
  for (const [name, value] of rows) {
    assert.match(header, new RegExp(`#define SNAIL_${name.toUpperCase()} ${value}\\b`));
  }
});

test('docs: the_snail_import_table_of_abi_md_matches_the_runtime', async () => {
  const { SNAIL_IMPORTS } = await import('../../host/browser/abi.mjs');
  const whole = fs.readFileSync(path.join(root, 'docs/abi.md'), 'utf8');
  const text = whole.slice(whole.indexOf('### Module `snail`'), whole.indexOf('### Host services'));
  const rows = [...text.matchAll(/^\| `(\w+)` \| `(\(func[^`]*\))` \| (yes|no) \|/gm)];
  const documented = Object.fromEntries(rows.map((m) => [m[1], { type: m[2], suspends: m[3] === 'yes' }]));
  // The host services: every one suspends.
  const services = whole.slice(whole.indexOf('### Host services'), whole.indexOf('### Module `wasi_snapshot_preview1`'));
  for (const m of services.matchAll(/^\| `(\w+)\([^`]*\)` \| `(\(func[^`]*\))` \|/gm)) {
    documented[m[1]] = { type: m[2], suspends: true };
  }
  const { formatFuncType } = await import('../../host/browser/wasm/binary.mjs');
  const actual = Object.fromEntries(Object.entries(SNAIL_IMPORTS).map(([k, v]) => [k, { type: formatFuncType(v), suspends: v.suspends }]));
  assert.deepEqual(documented, actual);
});

test('docs: the_readme_cpp_example_is_the_built_example_and_returns_0', async () => {
  const [block] = codeBlocks('README.md', 'cpp');
  assert.equal(block, fs.readFileSync(path.join(root, 'examples/readme/readme.cpp'), 'utf8'));
  const rt = await Runtime.load(path.join(root, 'build/programs/readme.wasm'));
  const t = rt.dispatch('main');
  await rt.drain();
  assert.equal(t.state, 'returned');
  assert.equal(t.value, 0);
  await rt.close();
});

test('docs: the_readme_javascript_examples_run_as_written_and_print_what_their_comments_say', async () => {
  const { spawnSync } = await import('node:child_process');
  const blocks = codeBlocks('README.md', 'js');
  assert.ok(blocks.length >= 2, 'the README shows loading and cancelling');
  // The two blocks are one program: the second goes on with the first's runtime.
  const program = blocks.slice(0, 2).join('\n');
  // Inside the package, so that `import ... from 'snail-core'` resolves to it.
  const file = path.join(root, 'build', 'readme-example.mjs');
  fs.writeFileSync(file, program);
  const r = spawnSync(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  fs.rmSync(file);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^\[root\] hello from the root task\n/);
  const logged = [...program.matchAll(/^console\.log\(.*\); \/\/ (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(logged, ['returned 0', 'cancelled 0']);
  assert.deepEqual(r.stdout.split('\n').filter((l) => logged.includes(l)), logged);
});

test('docs: the_adapter_example_of_bridge_md_keeps_the_contract', async () => {
  const blocks = codeBlocks('docs/bridge.md', 'js');
  const example = blocks.find((b) => b.includes('export function nextMessage'));
  assert.ok(example, 'bridge.md shows nextMessage');
  const file = path.join(root, 'build', 'bridge-example.mjs');
  fs.writeFileSync(file, example);
  try {
    const { nextMessage } = await import(`${file}?${Date.now()}`);
    const { adapterContract } = await import('../../host/browser/adapter-contract.mjs');
    const { armed } = await import('../../host/node/root.mjs');
    let channel = new MessageChannel();
    let closed = 0;
    const cases = adapterContract({
      name: 'nextMessage',
      start: (signal) => {
        channel = new MessageChannel();
        const port = channel.port1;
        const close = port.close.bind(port);
        port.close = () => { closed++; close(); };
        return nextMessage(signal, port);
      },
      complete: () => { channel.port2.postMessage('hi'); },
      armed: () => armed.listeners + armed.timers,
    });
    for (const c of cases) await c.run();
    assert.ok(closed >= 3, 'the port was closed by the cleanup');
    channel.port2.close();
  } finally {
    fs.rmSync(file);
  }
});

test('docs: every_sentence_of_specification_md_names_tests_that_exist', () => {
  const text = fs.readFileSync(path.join(root, 'docs/specification.md'), 'utf8');
  const index = fs.readFileSync(path.join(root, 'tests/cases/index.mjs'), 'utf8');
  /** @type {{ sentence: string, refs: string[] }[]} */
  const entries = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('> ')) entries.push({ sentence: line.slice(2), refs: [] });
    const ref = /^- `([^`]+)`: (.+)$/.exec(line);
    if (ref) {
      assert.ok(entries.length > 0, `a test named before the first sentence: ${line}`);
      entries[entries.length - 1].refs.push(line);
      const [, file, name] = ref;
      const full = path.join(root, file);
      assert.ok(fs.existsSync(full), `specification.md names ${file}, which does not exist`);
      const source = fs.readFileSync(full, 'utf8');
      if (file.endsWith('.cpp')) {
        const [suite, cpp] = name.split('.');
        assert.match(source, new RegExp(`TEST(_F)?\\(${suite}, ${cpp}\\)`), `${file} has no test ${name}`);
      } else {
        const quoted = ["'", '"', '`'].some((q) => source.includes(`${q}${name}${q}`));
        assert.ok(quoted, `${file} has no test named "${name}"`);
      }
      if (file.startsWith('tests/cases/')) {
        assert.ok(index.includes(`'./${path.basename(file)}'`), `${file} is not a suite of tests/cases/index.mjs, so no runner runs it`);
      }
    }
  }
  assert.equal(entries.length, 50, `specification.md quotes ${entries.length} sentences; the specification has 50`);
  for (const e of entries) assert.ok(e.refs.length > 0, `no test proves "${e.sentence}"`);
});

test('docs: the_read_block_example_of_bridge_md_fills_the_buffer_after_the_memory_grew', async () => {
  const { spawnSync } = await import('node:child_process');
  const example = codeBlocks('docs/bridge.md', 'js').find((b) => b.includes('read_block: suspend('));
  assert.ok(example, 'bridge.md shows read_block');
  assert.ok(example.includes("Runtime.load('app.wasm'"));
  // The example as written, with its program, a source of bytes that waits a
  // turn (the program's other task grows the memory meanwhile), and a run.
  const file = path.join(root, 'build', 'bridge-read-example.mjs');
  fs.writeFileSync(file, `const readSomewhere = (signal, fd, size) => new Promise((resolve) => setTimeout(() => resolve(Uint8Array.from({ length: size }, (_, i) => (i + fd) & 0xff)), 5));
${example.replace("Runtime.load('app.wasm'", `Runtime.load(${JSON.stringify(path.join(root, 'build/programs/read_block.wasm'))}`)}
const before = memory.buffer.byteLength;
const task = rt.dispatch('main', 1000);
await task.done;
console.log(JSON.stringify({ state: task.state, value: task.value, grew: memory.buffer.byteLength - before >= 16 << 20 }));
await rt.close();
`);
  try {
    const r = spawnSync(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    let sum = 0;
    for (let i = 0; i < 1000; i++) sum += (i + 3) & 0xff;
    assert.deepEqual(JSON.parse(r.stdout), { state: 'returned', value: sum, grew: true });
  } finally {
    fs.rmSync(file);
  }
});
