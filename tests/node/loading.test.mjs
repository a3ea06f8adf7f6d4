// Loading programs from every kind of source, and refusing modules that do not
// follow the ABI with a message that names each problem.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { AbiError, Runtime, SnailError, suspend } from '../../host/node/root.mjs';
import { program, sink } from './helpers.mjs';
import { wat } from './wat.mjs';

const HELLO_FIRST = '[root] hello from the root task\n';

async function runHello(source, options = {}) {
  const out = sink();
  const rt = await Runtime.load(source, { stdout: out, ...options });
  const t = rt.dispatch('main');
  await rt.drain();
  await rt.close();
  assert.equal(t.state, 'returned');
  assert.ok(out.text().startsWith(HELLO_FIRST), out.text());
  return { rt, out: out.text() };
}

test('loading: from_a_path_a_file_url_bytes_a_buffer_a_module_and_a_response', async () => {
  const file = program('hello');
  const bytes = fs.readFileSync(file);
  const outputs = [];
  outputs.push((await runHello(file)).out);
  outputs.push((await runHello(pathToFileURL(file))).out);
  outputs.push((await runHello(new Uint8Array(bytes))).out);
  outputs.push((await runHello(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))).out);
  outputs.push((await runHello(new WebAssembly.Module(bytes))).out);
  outputs.push((await runHello(new Response(bytes, { headers: { 'content-type': 'application/wasm' } }))).out);
  // The program's lines, in any order: a child that sleeps 5 ms and one that
  // yields may print in either order on a loaded machine.
  const lines = outputs.map((o) => o.split('\n').sort().join('\n'));
  assert.equal(new Set(lines).size, 1, `every source runs the same program: ${JSON.stringify(outputs)}`);
  assert.match(outputs[0], /hello from the root task/);
});

test('loading: from_an_http_url_with_streaming_compilation', async () => {
  const bytes = fs.readFileSync(program('hello'));
  const server = http.createServer((req, res) => {
    if (req.url === '/hello.wasm') {
      res.writeHead(200, { 'content-type': 'application/wasm' });
      res.end(bytes);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    const { rt } = await runHello(`${base}/hello.wasm`);
    assert.equal(rt.name, `${base}/hello.wasm`);
    await assert.rejects(Runtime.load(`${base}/missing.wasm`), (e) => e instanceof SnailError && /HTTP 404/.test(e.message));
  } finally {
    server.close();
  }
});

test('loading: a_module_object_has_its_handler_types_probed', async () => {
  const rt = await Runtime.load(new WebAssembly.Module(fs.readFileSync(program('handwritten'))), {
    imports: { test: { make_token: (n) => ({ id: n }), token_id: (t) => (t === null ? -1 : t.id) } },
  });
  assert.deepEqual(rt.handlerGlobals.map((h) => [h.name, h.type]), [['tag', 'i32'], ['token', 'externref']]);
  const t = rt.dispatch('main', 3);
  await rt.drain();
  assert.equal(t.value, 0);
  await rt.close();
});

test('loading: a_missing_file_is_a_clear_error', async () => {
  await assert.rejects(Runtime.load('/nonexistent/app.wasm'), (e) => {
    assert.ok(e instanceof SnailError);
    assert.equal(e.code, 'ERR_LOAD');
    assert.equal(e.message, 'cannot read the program /nonexistent/app.wasm: no such file');
    return true;
  });
});

test('loading: bytes_that_are_not_wasm_are_a_clear_error', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-'));
  const file = path.join(dir, 'notes.txt');
  fs.writeFileSync(file, 'hello there\n');
  await assert.rejects(Runtime.load(file), (e) => {
    assert.equal(e.code, 'ERR_NOT_WASM');
    assert.equal(e.message, `${file} is not a WebAssembly module (it starts with 68 65 6c 6c, not 00 61 73 6d)`);
    return true;
  });
  fs.writeFileSync(file, new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1, 0x60, 0]));
  await assert.rejects(Runtime.load(file), (e) => e.code === 'ERR_NOT_WASM' && /is not a valid WebAssembly module: /.test(e.message));
  await assert.rejects(Runtime.load(42), (e) => e.code === 'ERR_LOAD' && /cannot load a program from a number/.test(e.message));
  fs.rmSync(dir, { recursive: true });
});

/** @param {string} body @param {object} [options] */
async function abiProblems(body, options = {}) {
  try {
    await Runtime.load(wat(`(module ${body})`), { name: 'bad.wasm', ...options });
  } catch (e) {
    assert.ok(e instanceof AbiError, `expected an AbiError, got ${e}`);
    assert.equal(e.code, 'ERR_ABI');
    const [first, ...rest] = e.message.split('\n');
    assert.equal(first, 'bad.wasm does not follow the snail-core ABI (docs/abi.md):');
    return rest.map((l) => l.replace(/^ {2}- /, ''));
  }
  assert.fail('the module was accepted');
}

const ENTRY = '(func (export "snail.entry.main") (param i32) (result i32) (i32.const 0))';

test('abi: a_module_without_entries_is_refused', async () => {
  assert.deepEqual(await abiProblems(''), [
    'it exports no entry (a function named "snail.entry.NAME" of type (func (param i32) (result i32)))',
  ]);
});

test('abi: entries_of_the_wrong_type_are_refused_by_name', async () => {
  assert.deepEqual(await abiProblems(`${ENTRY} (func (export "snail.entry.two") (param i32 i32) (result i32) (i32.const 0))`), [
    'its entry "snail.entry.two" has type (func (param i32 i32) (result i32)); entries have type (func (param i32) (result i32))',
  ]);
  assert.deepEqual(await abiProblems('(global (export "snail.entry.g") i32 (i32.const 0))'), [
    'its entry "snail.entry.g" is a global; entries are functions',
  ]);
});

test('abi: handler_globals_must_be_mutable_and_of_an_allowed_type', async () => {
  assert.deepEqual(await abiProblems(`${ENTRY}
    (global (export "snail.handler.fixed") i32 (i32.const 0))
    (global (export "snail.handler.vec") (mut v128) (v128.const i32x4 0 0 0 0))
    (func (export "snail.handler.fn"))`), [
    'its handler global "snail.handler.fixed" is immutable; handlers are mutable globals',
    'its handler global "snail.handler.vec" has type v128; allowed: i32, i64, f32, f64, externref, funcref',
    'its handler "snail.handler.fn" is a function; handlers are mutable globals',
  ]);
});

test('abi: imports_must_be_known_well_typed_or_provided', async () => {
  assert.deepEqual(await abiProblems(`
    (import "snail" "teleport" (func))
    (import "snail" "sleep" (func (param i32) (result i32)))
    (import "env" "callback" (func))
    ${ENTRY}`), [
    'it imports snail.teleport, which snail-core does not provide (docs/abi.md lists the imports of module "snail")',
    'it imports snail.sleep with type (func (param i32) (result i32)); the ABI type is (func (param f64) (result i32))',
    'it imports env.callback, which nobody provides (pass it in the `imports` option)',
  ]);
});

test('abi: dispatch_needs_the_function_table_and_wasi_needs_memory', async () => {
  assert.deepEqual(await abiProblems(`
    (import "snail" "dispatch" (func (param i32 i32 i32) (result i32)))
    (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
    ${ENTRY}`), [
    'it imports snail.dispatch but does not export its function table as "__indirect_function_table"',
    'it imports WASI functions but does not export its memory as "memory"',
  ]);
});

test('abi: a_stack_pointer_needs_the_stack_functions', async () => {
  assert.deepEqual(await abiProblems(`
    (global (export "__stack_pointer") (mut i32) (i32.const 1024))
    (global (export "snail.stack.limit") i32 (i32.const 0))
    ${ENTRY}`), [
    'it exports __stack_pointer but not the function "snail.stack.acquire" (programs with a shadow stack let the runtime give each task its own segment)',
    'it exports __stack_pointer but not the function "snail.stack.release" (programs with a shadow stack let the runtime give each task its own segment)',
    'its "snail.stack.limit" export is not a mutable i32 global',
  ]);
});

test('abi: another_abi_version_is_refused', async () => {
  const bytes = wat(`(module ${ENTRY})`);
  // Append a custom section "snail.abi" holding "2".
  const name = new TextEncoder().encode('snail.abi');
  const section = new Uint8Array([0, 1 + name.length + 1, name.length, ...name, 0x32]);
  const withVersion = new Uint8Array([...bytes, ...section]);
  await assert.rejects(Runtime.load(withVersion, { name: 'v2.wasm' }), (e) => {
    assert.ok(e instanceof AbiError);
    assert.match(e.message, /it was built for snail-core ABI version 2; this runtime implements version 1/);
    return true;
  });
});

test('abi: the_abi_section_must_read_exactly_the_version', async () => {
  const bytes = wat(`(module ${ENTRY})`);
  const name = new TextEncoder().encode('snail.abi');
  const withText = (/** @type {string} */ text) => {
    const content = new TextEncoder().encode(text);
    return new Uint8Array([...bytes, 0, 1 + name.length + content.length, name.length, ...name, ...content]);
  };
  await Runtime.load(withText('1'), { name: 'v1.wasm' });
  await assert.rejects(Runtime.load(withText('1\n'), { name: 'v1nl.wasm' }), (e) => {
    assert.ok(e instanceof AbiError);
    assert.match(e.message, /its snail\.abi section reads "1\\n"; it must be the ABI version as text, exactly "1" for this runtime/);
    return true;
  });
});

test('abi: the_initialiser_the_allocator_and_the_function_table_must_have_their_abi_types', async () => {
  const expected = [
    'its "_initialize" has type (func (param i32)); expected (func)',
    'its "snail.alloc" has type (func (param i32)); expected (func (param i32) (result i32))',
    'its "__indirect_function_table" is a table of externref; it must be a table of funcref, in which snail.dispatch finds entries',
  ];
  const body = `
    (import "snail" "dispatch" (func (param i32 i32 i32) (result i32)))
    (table (export "__indirect_function_table") 1 externref)
    (func (export "_initialize") (param i32))
    (func (export "snail.alloc") (param i32))
    ${ENTRY}`;
  assert.deepEqual(await abiProblems(body), expected);
  // From a WebAssembly.Module alone (no bytes to read), the same problems.
  await assert.rejects(Runtime.load(new WebAssembly.Module(wat(`(module ${body})`)), { name: 'bad.wasm' }), (e) => {
    assert.ok(e instanceof AbiError);
    assert.match(e.message, /"__indirect_function_table" is not a table of funcref; it must be a table of funcref/);
    return true;
  });
  assert.deepEqual(await abiProblems(`
    (global (export "_initialize") i32 (i32.const 0))
    (global (export "snail.alloc") i32 (i32.const 0))
    (memory (export "__indirect_function_table") 1)
    ${ENTRY}`), [
    'its "_initialize" export is a global; it is a function of type (func)',
    'its "snail.alloc" export is a global; it is a function of type (func (param i32) (result i32))',
    'its "__indirect_function_table" export is a memory; it is a table of funcref',
  ]);
});

test('abi: a_value_snail_alloc_has_no_room_for_fails_the_service_or_the_task_clearly', async () => {
  // main(mode) stores 11 bytes and reads them back through the out cell at
  // 64 (filled with 0xff beforehand); snail.alloc returns 0 in mode 0 and an
  // address 6 bytes short of the memory's end in mode 1.
  const rt = await Runtime.load(wat(`(module
    (import "snail" "storage_put" (func $put (param i32 i32 i32 i32 i32 i32) (result i32)))
    (import "snail" "storage_get" (func $get (param i32 i32 i32 i32 i32) (result i32)))
    (memory (export "memory") 1)
    (data (i32.const 0) "sk")
    (data (i32.const 16) "hello world")
    (data (i32.const 64) "\\ff\\ff\\ff\\ff\\ff\\ff\\ff\\ff")
    (global $mode (mut i32) (i32.const 0))
    (func (export "snail.alloc") (param i32) (result i32)
      (if (result i32) (global.get $mode) (then (i32.const 65530)) (else (i32.const 0))))
    (func (export "snail.entry.main") (param $mode i32) (result i32)
      (global.set $mode (local.get $mode))
      (drop (call $put (i32.const 0) (i32.const 1) (i32.const 1) (i32.const 1) (i32.const 16) (i32.const 11)))
      (call $get (i32.const 0) (i32.const 1) (i32.const 1) (i32.const 1) (i32.const 64))))`), { name: 'alloc.wasm' });
  const cell = () => [...new Uint32Array(/** @type {WebAssembly.Memory} */ (rt.instance.exports.memory).buffer, 64, 2)];
  assert.equal(await rt.dispatch('main', 0).result, 2, 'out of memory: the service returns failed');
  assert.deepEqual(cell(), [0xffffffff, 0xffffffff], 'and leaves the out cell as it was');
  const broken = rt.dispatch('main', 1);
  await assert.rejects(broken.result, /snail\.alloc\(11\) returned 65530, but bytes 65530\.\.65541 are outside the program's memory \(65536 bytes\)/);
  assert.equal(broken.state, 'failed');
  await rt.close();
});

test('abi: a_storage_key_with_a_newline_is_invalid_since_lists_separate_keys_by_newlines', async () => {
  // main(which) calls storage_put (0), storage_get (1) or storage_delete (2)
  // with the key "a\nb", and storage_put with "ab" (3).
  const rt = await Runtime.load(wat(`(module
    (import "snail" "storage_put" (func $put (param i32 i32 i32 i32 i32 i32) (result i32)))
    (import "snail" "storage_get" (func $get (param i32 i32 i32 i32 i32) (result i32)))
    (import "snail" "storage_delete" (func $delete (param i32 i32 i32 i32) (result i32)))
    (memory (export "memory") 1)
    (data (i32.const 0) "sa\\0abab")
    (func (export "snail.alloc") (param i32) (result i32) (i32.const 1024))
    (func (export "snail.entry.main") (param $which i32) (result i32)
      (if (i32.eqz (local.get $which)) (then (return (call $put (i32.const 0) (i32.const 1) (i32.const 1) (i32.const 3) (i32.const 0) (i32.const 1)))))
      (if (i32.eq (local.get $which) (i32.const 1)) (then (return (call $get (i32.const 0) (i32.const 1) (i32.const 1) (i32.const 3) (i32.const 64)))))
      (if (i32.eq (local.get $which) (i32.const 2)) (then (return (call $delete (i32.const 0) (i32.const 1) (i32.const 1) (i32.const 3)))))
      (call $put (i32.const 0) (i32.const 1) (i32.const 4) (i32.const 2) (i32.const 0) (i32.const 1))))`), { name: 'keys.wasm' });
  assert.deepEqual(await Promise.all([0, 1, 2, 3].map((w) => rt.dispatch('main', w).result)), [3, 3, 3, 0], 'invalid, invalid, invalid, ok');
  await rt.close();
});

test('abi: the_runtime_provides_the_memory_growth_notice_of_standalone_emscripten_modules', async () => {
  // main(n) grows the memory by n pages and tells the embedder, as a
  // standalone Emscripten module built with -sALLOW_MEMORY_GROWTH=1 does.
  const body = (/** @type {string} */ type) => `
    (import "env" "emscripten_notify_memory_growth" (func $grew ${type}))
    (memory (export "memory") 1)
    (func (export "snail.entry.main") (param $n i32) (result i32)
      (call $grew (memory.grow (local.get $n)))
      (memory.size))`;
  const rt = await Runtime.load(wat(`(module ${body('(param i32)')})`), { name: 'grows.wasm' });
  assert.equal(await rt.dispatch('main', 3).result, 4);
  await rt.close();
  // An embedder's own takes its place.
  const noticed = [];
  const own = await Runtime.load(wat(`(module ${body('(param i32)')})`), { name: 'grows.wasm', imports: { env: { emscripten_notify_memory_growth: (i) => { noticed.push(i); } } } });
  assert.equal(await own.dispatch('main', 1).result, 2);
  assert.deepEqual(noticed, [1]);
  await own.close();
  assert.deepEqual(await abiProblems(`(import "env" "emscripten_notify_memory_growth" (func (param i64))) ${ENTRY}`), [
    'it imports env.emscripten_notify_memory_growth with type (func (param i64)); the runtime provides (func (param i32))',
  ]);
});

test('abi: the_imports_option_cannot_replace_the_runtime_modules', async () => {
  await assert.rejects(Runtime.load(program('hello'), { imports: { snail: {} } }), (e) => e.code === 'ERR_OPTION' && /may not provide module "snail"/.test(e.message));
});

test('abi: waiting_outside_a_task_fails_the_initialisation_clearly', async () => {
  const bytes = wat(`(module
    (import "snail" "yield" (func $yield (result i32)))
    (func (export "_initialize") (drop (call $yield)))
    ${ENTRY})`);
  await assert.rejects(Runtime.load(bytes, { name: 'init.wasm' }), (e) => {
    assert.equal(e.code, 'ERR_INIT');
    assert.match(e.message, /^init\.wasm failed during its initialisation \(_initialize\): it called a suspending snail import outside a task; waits are only allowed in tasks$/);
    return true;
  });
});

test('abi: a_start_function_that_waits_fails_the_instantiation_saying_so', async () => {
  // The wait is refused before the register file exists: it used to end in
  // a TypeError of the runtime's own. A start function's failure is the
  // program's initialisation failing (ERR_INIT), not a link failure.
  const bytes = wat(`(module
    (import "snail" "yield" (func $yield (result i32)))
    (func $init (drop (call $yield)))
    (start $init)
    ${ENTRY})`);
  await assert.rejects(Runtime.load(bytes, { name: 'start.wasm' }), (e) => {
    assert.equal(e.code, 'ERR_INIT');
    assert.match(e.message, /^start\.wasm failed in its start function: snail\.yield was called outside a task \(from the program's initialisation, or an export called directly\); waits are only allowed in tasks$/);
    return true;
  });
});

test('api: dispatch_refuses_unknown_entries_bad_arguments_and_work_after_close', async () => {
  const rt = await Runtime.load(program('hello'), { stdout: () => {} });
  assert.throws(() => rt.dispatch('nope'), (e) => e.code === 'ERR_NO_ENTRY' && /has no entry "nope"; its entries are: main/.test(e.message));
  assert.throws(() => rt.dispatch('main', 1.5), (e) => e.code === 'ERR_ARG');
  assert.throws(() => rt.dispatch('main', 2 ** 40), (e) => e.code === 'ERR_ARG');
  assert.throws(() => rt.dispatch(3), (e) => e.code === 'ERR_ARG');
  await rt.close();
  assert.throws(() => rt.dispatch('main'), (e) => e.code === 'ERR_CLOSED' && /is closed/.test(e.message));
  await assert.rejects(Runtime.load(program('hello'), { stackSize: 100 }), (e) => e.code === 'ERR_OPTION');
  await assert.rejects(Runtime.load(program('hello'), { maxSteps: 0 }), (e) => e.code === 'ERR_OPTION');
});

test('api: load_refuses_an_option_it_does_not_know_and_names_the_ones_it_does', async () => {
  // A misspelt option (maxStep for maxSteps) must not be ignored silently.
  await assert.rejects(Runtime.load(program('hello'), /** @type {any} */ ({ stdout: () => {}, maxStep: 16 })), (e) => {
    assert.equal(e.code, 'ERR_OPTION');
    assert.match(e.message, /^Runtime\.load\(\) has no option "maxStep"; its options are name, args, env, .*maxSteps, .*trace$/);
    return true;
  });
  await assert.rejects(Runtime.load(program('hello'), /** @type {any} */ (null)), (e) => e.code === 'ERR_OPTION' && /must be an object, got null/.test(e.message));
  // Every documented option is accepted.
  const rt = await Runtime.load(program('hello'), {
    name: 'hello', args: ['hello'], env: {}, stdout: () => {}, stderr: () => {}, imports: {}, stackSize: 32768,
    maxSteps: 64, maxTimeMs: 1, timeCheckEvery: 8, maxEntered: 10, hardMaxEntered: 20, checkInvariants: true,
    modules: {}, directWaits: true, ownCode: true, trace: () => {},
  });
  assert.equal(await rt.dispatch('main').result, 0);
  await rt.close();
});

test('api: load_refuses_options_of_the_wrong_type_before_anything_runs', async () => {
  // Each of these used to be accepted, and then hung the scheduler, failed a
  // task with an unrelated TypeError, or was silently ignored.
  /** @type {[string, unknown, RegExp][]} */
  const cases = [
    ['macrotask', 1, /^option macrotask must be a function, got number 1$/],
    ['now', 2, /^option now must be a function, got number 2$/],
    ['stdout', 42, /^option stdout must be a function, got number 42$/],
    ['trace', 'yes', /^option trace must be a function, got "yes"$/],
    ['imports', 5, /^option imports must be an object of objects, got number 5$/],
    ['imports', { env: 3 }, /^option imports must be an object of objects, got an object$/],
    ['permissions', [], /^option permissions must be an object, got an array$/],
    ['args', 'x', /^option args must be an array of strings, got "x"$/],
    ['env', 7, /^option env must be an object of strings, got number 7$/],
    ['name', 17, /^option name must be a string, got number 17$/],
    ['checkInvariants', 'yes', /^option checkInvariants must be a boolean, got "yes"$/],
    ['directWaits', 'x', /^option directWaits must be a boolean, got "x"$/],
    ['ownCode', 1, /^option ownCode must be a boolean, got number 1$/],
    ['modules', 3, /^option modules must be a function or an object, got number 3$/],
  ];
  for (const [key, value, message] of cases) {
    await assert.rejects(Runtime.load(program('hello'), /** @type {any} */ ({ [key]: value })), (e) => {
      assert.equal(e.code, 'ERR_OPTION', `${key}: ${e.message}`);
      assert.match(e.message, message);
      return true;
    }, `option ${key} = ${String(value)}`);
  }
  await assert.rejects(Runtime.load(program('hello'), { maxEntered: 50, hardMaxEntered: 9 }), (e) => e.code === 'ERR_OPTION' && /maxEntered \(50\) is above hardMaxEntered \(9\)/.test(e.message));
});

test('api: load_refuses_misspelt_or_misshapen_services_permissions_and_modules', async () => {
  // Each of these used to load, and then failed (or denied) only when a task
  // first used the service, or never said why.
  const { MemoryStorage } = await import('../../host/node/root.mjs');
  /** @type {[string, Record<string, unknown>, RegExp][]} */
  const cases = [
    ['a misspelt service', { services: { stroage: new MemoryStorage() } }, /^option services has no option "stroage"; its options are storage, files, stdin$/],
    ['storage without methods', { services: { storage: {} } }, /^option services\.storage has no method get, or it is not a function \(a storage service needs get, put, delete, list; see docs\/api\.md\)$/],
    ['storage that is not an object', { services: { storage: 'idb' } }, /^option services\.storage must be an object with the methods get, put, delete, list, got "idb"$/],
    ['stdin without line', { services: { stdin: { read: () => null } } }, /^option services\.stdin has no method line/],
    ['a misspelt permission', { permissions: { nett: ['*'] } }, /^option permissions has no option "nett"; its options are net$/],
    ['a permission that does not exist', { permissions: { files: true } }, /^option permissions has no option "files"/],
    ['a module that is not a source', { modules: { lib: 42 } }, /^option modules\.lib must be where the module is \(a path, URL, bytes, Response or WebAssembly\.Module\), got number 42$/],
  ];
  for (const [what, options, message] of cases) {
    await assert.rejects(Runtime.load(program('hello'), /** @type {any} */ (options)), (e) => {
      assert.equal(e.code, 'ERR_OPTION', `${what}: ${e.message}`);
      assert.match(e.message, message, what);
      return true;
    }, what);
  }
  // The right shapes load: an object with the methods, an optional unread, sources of each kind.
  const rt = await Runtime.load(program('hello'), {
    stdout: () => {},
    services: { storage: new MemoryStorage(), stdin: { line: async () => null } },
    permissions: { net: [] },
    modules: { a: 'a.wasm', b: new URL('file:///b.wasm'), c: new Uint8Array(8) },
  });
  assert.equal(await rt.dispatch('main').result, 0);
  await rt.close();
});

test('api: a_network_grant_that_is_not_a_host_is_refused_and_names_the_host', async () => {
  // A URL would never match a host: it used to be accepted and deny every fetch.
  const { nodeHost } = await import('../../host/node/index.mjs');
  assert.throws(() => nodeHost({ allowNet: ['http://127.0.0.1:8080/api'] }), (e) => e.code === 'ERR_OPTION'
    && /^nodeHost\(\): allowNet takes hosts \(host, host:port or '\*'\), got "http:\/\/127\.0\.0\.1:8080\/api"; write "127\.0\.0\.1:8080"$/.test(e.message));
  assert.throws(() => nodeHost({ allowNet: ['example.com/x'] }), (e) => e.code === 'ERR_OPTION' && /got "example\.com\/x"$/.test(e.message));
  assert.deepEqual(nodeHost({ allowNet: ['example.com', '127.0.0.1:8080', '[::1]:80', '*'] }).permissions.net, ['example.com', '127.0.0.1:8080', '[::1]:80', '*']);
  await assert.rejects(Runtime.load(program('hello'), { permissions: { net: ['https://example.com'] } }), (e) => e.code === 'ERR_OPTION'
    && /^option permissions\.net takes hosts \(host, host:port or '\*'\), got "https:\/\/example\.com"; write "example\.com"$/.test(e.message));
});

test('api: close_and_load_module_refuse_options_they_do_not_have', async () => {
  const rt = await Runtime.load(program('hello'), { stdout: () => {} });
  await assert.rejects(rt.loadModule(program('hello'), /** @type {any} */ ({ nmae: 'x' })), (e) => e.code === 'ERR_ARG' && /^rt\.loadModule\(\) has no option "nmae"; its options are name$/.test(e.message));
  await assert.rejects(rt.close(/** @type {any} */ ({ timout: 100 })), (e) => e.code === 'ERR_ARG' && /^close\(\) has no option "timout"; its options are timeout$/.test(e.message));
  // The refused close() did not close the runtime.
  assert.equal(await rt.dispatch('main').result, 0);
  await rt.close();
});

test('api: suspend_refuses_a_cancelled_or_failed_value_wasm_could_mistake_for_a_result', async () => {
  // 'rejected' (for 'reject') would reach an i32 import as 0, the status ok.
  assert.throws(() => suspend(async () => 1, undefined, /** @type {any} */ ({ cancelled: 'rejected' })), (e) => e.code === 'ERR_ARG' && /option cancelled is "rejected": give the value Wasm receives/.test(e.message));
  // A number where the import returns i64, or a BigInt where it returns i32,
  // is refused when the program's import types are known.
  const body = (type) => `(module
    (import "env" "op" (func $op (result ${type})))
    (func (export "snail.entry.main") (param i32) (result i32) (drop (call $op)) (i32.const 0)))`;
  await assert.rejects(Runtime.load(wat(body('i64')), { name: 'i64.wasm', imports: { env: { op: suspend(async () => 1n, undefined, { failed: -1 }) } } }),
    (e) => e.code === 'ERR_OPTION' && /^suspend\(\) option failed of env\.op is number -1, but env\.op returns i64: give a BigInt, or 'reject' to throw into the task$/.test(e.message));
  await assert.rejects(Runtime.load(wat(body('i32')), { name: 'i32.wasm', imports: { env: { op: suspend(async () => 1, undefined, { cancelled: -1n }) } } }),
    (e) => e.code === 'ERR_OPTION' && /option cancelled of env\.op is bigint -1, but env\.op returns i32: give a number/.test(e.message));
  const rt = await Runtime.load(wat(body('i64')), { name: 'i64.wasm', imports: { env: { op: suspend(async () => 1n, undefined, { failed: -1n, cancelled: 'reject' }) } } });
  await rt.close();
  // The default statuses reach an i64 import as BigInts: failed is 2n.
  const wide = await Runtime.load(wat(`(module
    (import "env" "op" (func $op (result i64)))
    (func (export "snail.entry.main") (param i32) (result i32) (i32.wrap_i64 (call $op))))`), { name: 'wide.wasm', imports: { env: { op: suspend(async () => { throw new Error('no'); }) } } });
  assert.equal(await wide.dispatch('main').result, 2);
  await wide.close();
});

test('api: the_trace_option_reports_every_task_event_in_order', async () => {
  const events = [];
  const rt = await Runtime.load(program('hello'), { stdout: () => {}, trace: (e) => events.push(e) });
  const t = rt.dispatch('main');
  await rt.drain();
  await rt.close();
  assert.equal(t.state, 'returned');
  const of = (id) => events.filter((e) => e.task === id).map((e) => e.type);
  // The root joins child a (a wait) and then child b, already finished (no wait).
  assert.deepEqual(of(t.id), ['dispatch', 'start', 'suspend', 'resume', 'finish']);
  const children = [...new Set(events.map((e) => e.task))].filter((id) => id !== t.id);
  assert.equal(children.length, 2);
  for (const id of children) {
    assert.equal(events.find((e) => e.task === id && e.type === 'dispatch').parent, t.id, 'children name their parent');
    assert.equal(of(id).at(-1), 'finish');
  }
  assert.ok(events.every((e, i) => i === 0 || e.time >= events[i - 1].time), 'times never go back');
  assert.equal(events.find((e) => e.type === 'suspend' && e.task === t.id).waitingOn, `snail.join(#${children[0]})`);
  assert.equal(events.filter((e) => e.type === 'finish').every((e) => e.how === 'returned'), true);
});
