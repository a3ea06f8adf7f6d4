// The Node host's files service (host/node/files.mjs) from C++
// (tests/programs/node_host.cpp): paths under granted directories, the exact
// status of every denied escape with nothing outside touched, descriptors
// across cancelled operations, and the adapter contract.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { adapterContract } from '../../host/browser/adapter-contract.mjs';
import {
  GrantedFiles, nodeArmed, nodeHost, Runtime, ServiceError, Status,
} from '../../host/node/index.mjs';
import { until } from '../cases/support.mjs';
import { program, rng, sink } from './helpers.mjs';

/** @type {string} */
let tmp;
/** The directory whose parent holds the secret: tmp/root. */
let root = '';
let data = '';
let secret = '';

/** Every file under `dir` (symbolic links not followed) with its bytes or link target. */
function snapshot(dir) {
  /** @type {Record<string, string>} */
  const out = {};
  const walk = (/** @type {string} */ d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isSymbolicLink()) out[path.relative(dir, p)] = `-> ${fs.readlinkSync(p)}`;
      else if (e.isDirectory()) { out[`${path.relative(dir, p)}/`] = ''; walk(p); } else out[path.relative(dir, p)] = fs.readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}

/** Everything outside the granted directory, with modification times. */
function outside() {
  const entries = fs.readdirSync(root).filter((n) => n !== 'data').sort();
  return entries.map((n) => {
    const st = fs.lstatSync(path.join(root, n));
    return `${n} ${st.size} ${st.mtimeMs} ${st.isFile() ? fs.readFileSync(path.join(root, n), 'latin1') : ''}`;
  });
}

before(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'snail-node-files-')));
  root = path.join(tmp, 'root');
  data = path.join(root, 'data');
  secret = path.join(root, 'secret.txt');
  fs.mkdirSync(path.join(data, 'sub'), { recursive: true });
  fs.mkdirSync(path.join(root, 'other'));
  fs.writeFileSync(secret, 'secret');
  fs.writeFileSync(path.join(root, 'other', 'x.txt'), 'from other');
  fs.writeFileSync(path.join(data, 'hello.txt'), 'hello');
  fs.writeFileSync(path.join(data, 'sub', 'inner.txt'), 'inner');
  fs.symlinkSync('sub/inner.txt', path.join(data, 'link-inside'));
  fs.symlinkSync(path.join(data, 'sub', 'inner.txt'), path.join(data, 'link-inside-abs'));
  fs.symlinkSync('sub', path.join(data, 'link-dir-inside'));
  fs.symlinkSync('sub/../hello.txt', path.join(data, 'link-climbs-inside'));
  fs.symlinkSync('../secret.txt', path.join(data, 'link-outside'));
  fs.symlinkSync(secret, path.join(data, 'link-outside-abs'));
  fs.symlinkSync('..', path.join(data, 'link-dir-outside'));
  fs.symlinkSync('../not-there.txt', path.join(data, 'dangling-outside'));
  fs.symlinkSync('sub/../../secret.txt', path.join(data, 'link-climbs-out'));
  fs.symlinkSync(`${data}/../secret.txt`, path.join(data, 'link-abs-climbs-out'));
  fs.symlinkSync(`${data}/sub/../hello.txt`, path.join(data, 'link-abs-climbs-inside'));
});

after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * Runs one entry of node_host.wasm with argv `args` under nodeHost(host).
 * @param {string} entry @param {number} arg @param {string[]} args
 * @param {import('../../host/node/host.mjs').NodeHostOptions} host
 */
async function run(entry, arg, args, host) {
  const out = sink();
  const rt = await Runtime.load(program('node_host'), {
    checkInvariants: true, stdout: out, args: ['node_host', ...args], ...nodeHost(host),
  });
  const t = rt.dispatch(entry, arg);
  await t.done;
  await rt.close();
  assert.equal(t.state, 'returned', `${entry} ended ${t.state}: ${String(t.error)}`);
  return { status: /** @type {number} */ (t.value), text: out.text() };
}

/** What read_argv and write_argv see, as [status, text]. @param {string} p @param {object} [host] */
const read = async (p, host = { dirs: ['data'], cwd: root }) => {
  const r = await run('read_argv', 1, [p], host);
  return [r.status, r.text];
};
/** @param {string} p @param {string} text @param {object} [host] */
const write = async (p, text, host = { dirs: ['data'], cwd: root }) => {
  const r = await run('write_argv', 1, [p, text], host);
  return [r.status, r.text];
};

test('node files: a_path_under_a_granted_directory_is_read_and_written', async () => {
  assert.deepEqual(await read('data/hello.txt'), [Status.ok, 'read ok 5 [hello]\n']);
  assert.deepEqual(await read('./data/sub//inner.txt'), [Status.ok, 'read ok 5 [inner]\n']);
  assert.deepEqual(await write('data/sub/new.txt', 'fresh'), [Status.ok, 'write ok\n']);
  assert.equal(fs.readFileSync(path.join(data, 'sub', 'new.txt'), 'utf8'), 'fresh');
  assert.deepEqual(await write('data/sub/new.txt', 'replaced'), [Status.ok, 'write ok\n']);
  assert.deepEqual(await read('data/sub/new.txt'), [Status.ok, 'read ok 8 [replaced]\n']);
  fs.rmSync(path.join(data, 'sub', 'new.txt'));
  assert.deepEqual(fs.readdirSync(path.join(data, 'sub')), ['inner.txt'], 'no temporary file is left');
});

test('node files: dot_dot_traversal_is_denied_and_touches_nothing_outside', async () => {
  const before = outside();
  const inside = snapshot(data);
  for (const p of ['data/../secret.txt', 'data/sub/../../secret.txt', '../secret.txt', 'data/..', 'data/sub/../hello.txt']) {
    assert.deepEqual(await read(p), [Status.denied, 'read denied 0 []\n'], `read ${p}`);
    assert.deepEqual(await write(p, 'pwned'), [Status.denied, 'write denied\n'], `write ${p}`);
  }
  assert.deepEqual(await write('data/../planted.txt', 'pwned'), [Status.denied, 'write denied\n']);
  assert.deepEqual(outside(), before, 'nothing outside the granted directory changed');
  assert.deepEqual(snapshot(data), inside, 'nothing inside changed either');
});

test('node files: an_absolute_path_outside_every_grant_is_denied', async () => {
  const before = outside();
  assert.deepEqual(await read(secret), [Status.denied, 'read denied 0 []\n']);
  assert.deepEqual(await read('/etc/passwd'), [Status.denied, 'read denied 0 []\n']);
  // A relative grant is not reached by the absolute path of its directory.
  assert.deepEqual(await read(path.join(data, 'hello.txt')), [Status.denied, 'read denied 0 []\n']);
  assert.deepEqual(await write(path.join(root, 'planted.txt'), 'pwned'), [Status.denied, 'write denied\n']);
  assert.deepEqual(await write(secret, 'pwned'), [Status.denied, 'write denied\n']);
  assert.deepEqual(outside(), before);
});

test('node files: an_absolute_grant_is_reached_by_its_absolute_path_only', async () => {
  const host = { dirs: [data] };
  assert.deepEqual(await read(path.join(data, 'hello.txt'), host), [Status.ok, 'read ok 5 [hello]\n']);
  assert.deepEqual(await read('data/hello.txt', host), [Status.denied, 'read denied 0 []\n']);
  assert.deepEqual(await read(`${data}/../secret.txt`, host), [Status.denied, 'read denied 0 []\n']);
});

test('node files: a_symbolic_link_that_leads_outside_is_denied_and_touches_nothing_outside', async () => {
  const before = outside();
  const inside = snapshot(data);
  for (const p of ['data/link-outside', 'data/link-outside-abs', 'data/link-dir-outside/secret.txt', 'data/link-climbs-out', 'data/link-abs-climbs-out']) {
    assert.deepEqual(await read(p), [Status.denied, 'read denied 0 []\n'], `read ${p}`);
    assert.deepEqual(await write(p, 'pwned'), [Status.denied, 'write denied\n'], `write ${p}`);
  }
  // A link to a file that does not exist outside: writing through it would create it.
  assert.deepEqual(await write('data/dangling-outside', 'pwned'), [Status.denied, 'write denied\n']);
  assert.deepEqual(await read('data/dangling-outside'), [Status.denied, 'read denied 0 []\n']);
  assert.deepEqual(await write('data/link-dir-outside/planted.txt', 'pwned'), [Status.denied, 'write denied\n']);
  assert.equal(fs.existsSync(path.join(root, 'not-there.txt')), false);
  assert.deepEqual(outside(), before, 'nothing outside the granted directory changed');
  assert.deepEqual(snapshot(data), inside);
});

test('node files: a_symbolic_link_that_stays_inside_is_followed', async () => {
  assert.deepEqual(await read('data/link-inside'), [Status.ok, 'read ok 5 [inner]\n']);
  assert.deepEqual(await read('data/link-inside-abs'), [Status.ok, 'read ok 5 [inner]\n']);
  assert.deepEqual(await read('data/link-dir-inside/inner.txt'), [Status.ok, 'read ok 5 [inner]\n']);
  assert.deepEqual(await read('data/link-climbs-inside'), [Status.ok, 'read ok 5 [hello]\n']);
  assert.deepEqual(await read('data/link-abs-climbs-inside'), [Status.ok, 'read ok 5 [hello]\n']);
  // Writing through a link replaces the file it names and keeps the link.
  assert.deepEqual(await write('data/link-inside', 'INNER'), [Status.ok, 'write ok\n']);
  assert.equal(fs.readlinkSync(path.join(data, 'link-inside')), 'sub/inner.txt');
  assert.equal(fs.readFileSync(path.join(data, 'sub', 'inner.txt'), 'utf8'), 'INNER');
  fs.writeFileSync(path.join(data, 'sub', 'inner.txt'), 'inner');
});

test('node files: without_a_granted_directory_every_path_is_denied', async () => {
  const before = snapshot(data);
  assert.deepEqual(await read('data/hello.txt', {}), [Status.denied, 'read denied 0 []\n']);
  assert.deepEqual(await read('hello.txt', { cwd: data }), [Status.denied, 'read denied 0 []\n']);
  assert.deepEqual(await write('data/new.txt', 'x', {}), [Status.denied, 'write denied\n']);
  assert.deepEqual(snapshot(data), before);
});

test('node files: program_paths_map_to_grants_by_their_guest_names_longest_first', async () => {
  // "." grants the directory itself: relative paths resolve in it.
  const dot = { dirs: ['.'], cwd: data };
  assert.deepEqual(await read('hello.txt', dot), [Status.ok, 'read ok 5 [hello]\n']);
  assert.deepEqual(await read('./sub/inner.txt', dot), [Status.ok, 'read ok 5 [inner]\n']);
  assert.deepEqual(await read('../secret.txt', dot), [Status.denied, 'read denied 0 []\n']);
  // { path, as } names a grant; the longest matching name wins.
  const named = { dirs: [{ path: data, as: '.' }, { path: path.join(root, 'other'), as: 'sub' }] };
  assert.deepEqual(await read('sub/x.txt', named), [Status.ok, 'read ok 10 [from other]\n']);
  assert.deepEqual(await read('sub/inner.txt', named), [Status.not_found, 'read not_found 0 []\n']);
  assert.deepEqual(await read('hello.txt', named), [Status.ok, 'read ok 5 [hello]\n']);
  const renamed = { dirs: [{ path: 'data', as: 'input' }], cwd: root };
  assert.deepEqual(await read('input/hello.txt', renamed), [Status.ok, 'read ok 5 [hello]\n']);
  assert.deepEqual(await read('data/hello.txt', renamed), [Status.denied, 'read denied 0 []\n']);
  assert.throws(() => new GrantedFiles(['data', { path: 'other', as: './data/' }], { cwd: root }), /two granted directories have the guest name "data"/);
  // An embedder can rename a grant, so nodeHost() says how (the command line says otherwise).
  assert.throws(() => nodeHost({ dirs: ['data', './data'], cwd: root }), (e) => e.code === 'ERR_OPTION'
    && e.message === 'two granted directories have the guest name "data"; give one another name with { path, as }');
  assert.throws(() => new GrantedFiles(['missing'], { cwd: root }), /cannot grant directory missing: it does not exist/);
  assert.throws(() => new GrantedFiles(['secret.txt'], { cwd: root }), /it is not a directory/);
});

test('node files: a_grant_that_is_not_a_list_is_refused_not_split_into_letters', () => {
  // dirs: 'data' used to grant the directories d, a and t.
  assert.throws(() => nodeHost(/** @type {any} */ ({ dirs: 'data' })), (e) => e.code === 'ERR_OPTION' && /^the granted directories must be a list \(of paths or \{ path, as \}\), got "data"; write dirs: \["data"\]$/.test(e.message));
  assert.throws(() => nodeHost(/** @type {any} */ (null)), (e) => e.code === 'ERR_OPTION' && /must be an object, got null/.test(e.message));
});

test('node files: options_of_the_wrong_type_or_a_misspelt_grant_field_are_refused', () => {
  // Each used to be accepted: a string as stdin became a stream of nothing,
  // a number as cwd was ignored while no directory was granted, and a
  // misspelt field of a grant was dropped.
  assert.throws(() => nodeHost(/** @type {any} */ ({ stdin: 'yes' })), (e) => e.code === 'ERR_OPTION' && e.message === 'nodeHost(): stdin must be true, false or a readable stream, got string');
  assert.throws(() => nodeHost(/** @type {any} */ ({ cwd: 5 })), (e) => e.code === 'ERR_OPTION' && e.message === 'cwd must be a directory path (a string), got number');
  assert.throws(() => nodeHost(/** @type {any} */ ({ dirs: [{ path: 'data', as: 'x', typo: 1 }], cwd: root })), (e) => e.code === 'ERR_OPTION'
    && e.message === 'the granted directory "data" has no option "typo"; its options are path, as');
  assert.equal(typeof nodeHost({ stdin: false, dirs: [{ path: 'data', as: 'x' }], cwd: root }).services.files?.read, 'function');
});

test('node files: missing_files_are_not_found_and_directories_are_failed', async () => {
  assert.deepEqual(await read('data/missing.txt'), [Status.not_found, 'read not_found 0 []\n']);
  assert.deepEqual(await write('data/no-such-dir/x.txt', 'x'), [Status.not_found, 'write not_found\n']);
  assert.deepEqual(await read('data/hello.txt/x'), [Status.not_found, 'read not_found 0 []\n']);
  assert.deepEqual(await read('data/sub'), [Status.failed, 'read failed 0 []\n']);
  assert.deepEqual(await write('data/sub', 'x'), [Status.failed, 'write failed\n']);
  assert.deepEqual(await write('data', 'x'), [Status.failed, 'write failed\n']);
  const files = new GrantedFiles(['data'], { cwd: root });
  const signal = new AbortController().signal;
  await assert.rejects(files.read(signal, 'data/a\0b'), (e) => e instanceof ServiceError && e.status === Status.invalid);
});

test('node files: an_aborted_write_leaves_the_old_file_and_no_temporary_file', async () => {
  const files = new GrantedFiles(['data'], { cwd: root });
  const target = path.join(data, 'atomic.txt');
  fs.writeFileSync(target, 'old');
  const controller = new AbortController();
  const big = new Uint8Array(16 * 1024 * 1024).fill(0x61);
  const writing = files.write(controller.signal, 'data/atomic.txt', big);
  await until(() => nodeArmed.descriptors > 0, 'the temporary file to be open');
  controller.abort(new Error('stop'));
  await assert.rejects(writing, /stop/);
  assert.equal(fs.readFileSync(target, 'utf8'), 'old');
  assert.deepEqual(fs.readdirSync(data).filter((n) => n.includes('.tmp')), []);
  assert.deepEqual([nodeArmed.descriptors, nodeArmed.tempFiles], [0, 0]);
  fs.rmSync(target);
});

/**
 * Counts the calls made on file handles after `aborted()` became true.
 * @param {() => boolean} aborted
 */
async function countCallsAfter(aborted) {
  const probe = await fs.promises.open(path.join(data, 'hello.txt'), 'r');
  const proto = Object.getPrototypeOf(probe);
  await probe.close();
  const calls = { read: 0, write: 0, sync: 0 };
  /** @type {Record<string, Function>} */
  const original = {};
  for (const name of /** @type {const} */ (['read', 'write', 'sync'])) {
    original[name] = proto[name];
    proto[name] = function (/** @type {any[]} */ ...args) {
      if (aborted()) calls[name]++;
      return original[name].apply(this, args);
    };
  }
  return { calls, restore: () => { for (const [name, fn] of Object.entries(original)) proto[name] = fn; } };
}

test('node files: an_abort_stops_a_read_or_write_at_the_next_call', async () => {
  const files = new GrantedFiles(['data'], { cwd: root });
  fs.writeFileSync(path.join(data, 'prompt.bin'), new Uint8Array(16 * 1024 * 1024));
  fs.writeFileSync(path.join(data, 'prompt-out.bin'), 'old');
  const controller = new AbortController();
  let current = controller;
  const { calls, restore } = await countCallsAfter(() => current.signal.aborted);
  try {
    const reading = files.read(controller.signal, 'data/prompt.bin');
    await until(() => nodeArmed.descriptors > 0, 'the file to be open');
    controller.abort(new Error('stop'));
    await assert.rejects(reading, /stop/);
    const other = new AbortController();
    current = other;
    const writing = files.write(other.signal, 'data/prompt-out.bin', new Uint8Array(16 * 1024 * 1024));
    await until(() => nodeArmed.descriptors > 0, 'the temporary file to be open');
    other.abort(new Error('stop'));
    await assert.rejects(writing, /stop/);
  } finally {
    restore();
  }
  // The call in flight at the abort finishes; none starts after it.
  assert.deepEqual(calls, { read: 0, write: 0, sync: 0 });
  assert.equal(fs.readFileSync(path.join(data, 'prompt-out.bin'), 'utf8'), 'old');
  fs.rmSync(path.join(data, 'prompt.bin'));
  fs.rmSync(path.join(data, 'prompt-out.bin'));
});

/** Open descriptors of this process. */
function openDescriptors() {
  return fs.readdirSync('/proc/self/fd').length;
}

// Counts the process's open descriptors in /proc: Linux only. Elsewhere the
// test is skipped, and says so; it runs on every Linux machine, CI included.
test('node files: no_descriptor_leaks_across_many_cancelled_and_completed_reads_and_writes', {
  skip: fs.existsSync('/proc/self/fd') ? false : 'no /proc/self/fd (not Linux): the open descriptors cannot be counted',
}, async (t) => {
  const size = 1024 * 1024;
  for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(data, `r${i}.bin`), new Uint8Array(size).fill(i));
  const rt = await Runtime.load(program('node_host'), {
    checkInvariants: false, stdout: () => {}, args: ['node_host', String(size)], ...nodeHost({ dirs: ['data'], cwd: root }),
  });
  const fdsBefore = openDescriptors();
  const abandonedBefore = nodeArmed.abandoned;
  const next = rng(0x5eed);
  /** @type {{ task: import('../../host/node/index.mjs').Task, cancelAt: number }[]} */
  const runs = [];
  const total = 400;
  for (let i = 0; i < total; i++) {
    const task = rt.dispatch(i % 2 === 0 ? 'read_n' : 'write_n', i);
    // A third completes; the others are cancelled after 0 to 39 turns.
    const r = next() % 3;
    runs.push({ task, cancelAt: r === 0 ? -1 : next() % 40 });
  }
  for (let turn = 0; turn < 40; turn++) {
    for (const r of runs) if (r.cancelAt === turn) r.task.cancel();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await rt.drain();
  const states = { returned: 0, cancelled: 0, failed: 0 };
  for (const r of runs) {
    states[/** @type {'returned'} */ (r.task.state)]++;
    if (r.task.state === 'returned') assert.equal(r.task.value, Status.ok, `${r.task}`);
  }
  await rt.close();
  t.diagnostic(`${JSON.stringify(states)}, ${nodeArmed.abandoned - abandonedBefore} stopped after opening a descriptor, ${fdsBefore} descriptors open`);
  assert.equal(states.failed, 0);
  assert.ok(states.returned >= runs.filter((r) => r.cancelAt < 0).length, `${JSON.stringify(states)}`);
  assert.ok(states.cancelled > 100, `${JSON.stringify(states)}`);
  assert.ok(nodeArmed.abandoned - abandonedBefore > 10, `operations were cancelled after opening a descriptor (${nodeArmed.abandoned - abandonedBefore})`);
  assert.deepEqual([nodeArmed.descriptors, nodeArmed.tempFiles], [0, 0]);
  assert.equal(openDescriptors(), fdsBefore, 'as many descriptors open as before');
  assert.deepEqual(fs.readdirSync(data).filter((n) => n.includes('.tmp')), [], 'no temporary file is left');
});

const bigRead = { path: 'data/big-read.bin', size: 16 * 1024 * 1024 };
/** @type {GrantedFiles} */
let contractFiles;
const armedFiles = () => nodeArmed.descriptors + nodeArmed.tempFiles;
for (const c of [
  ...adapterContract({
    name: 'node files: read',
    start: (signal) => {
      contractFiles ??= new GrantedFiles(['data'], { cwd: root });
      if (!fs.existsSync(path.join(root, bigRead.path))) fs.writeFileSync(path.join(root, bigRead.path), new Uint8Array(bigRead.size));
      return contractFiles.read(signal, bigRead.path);
    },
    armed: armedFiles,
    // A thread-pool call in flight takes as many event-loop turns as the
    // machine's load makes it: bound the abort by the kit's grace period, and
    // check promptness in calls (an_abort_stops_at_the_next_call) instead.
    promptTurns: Infinity,
  }),
  ...adapterContract({
    name: 'node files: write',
    start: (signal) => {
      contractFiles ??= new GrantedFiles(['data'], { cwd: root });
      return contractFiles.write(signal, 'data/big-write.bin', new Uint8Array(bigRead.size));
    },
    armed: armedFiles,
    promptTurns: Infinity,
  }),
]) {
  test(c.name, c.run);
}

// The walk by names is what systems without /proc/self/fd get: against the
// program alone it refuses every escape the walk with held directories does.
for (const descriptorWalks of [true, false]) {
  test(`node files: every_escape_is_denied_with_walks_${descriptorWalks ? 'through_held_directories' : 'by_names'}`, async () => {
    const files = new GrantedFiles(['data'], { cwd: root, descriptorWalks });
    const signal = new AbortController().signal;
    const status = (/** @type {Promise<unknown>} */ p) => p.then(() => Status.ok, (e) => (e instanceof ServiceError ? e.status : e));
    const before = outside();
    const inside = snapshot(data);
    const escapes = ['data/../secret.txt', 'data/link-outside', 'data/link-outside-abs', 'data/link-dir-outside/secret.txt',
      'data/link-climbs-out', 'data/link-abs-climbs-out', 'data/dangling-outside', secret];
    for (const p of escapes) {
      assert.equal(await status(files.read(signal, p)), Status.denied, `read ${p}`);
      assert.equal(await status(files.write(signal, p, new Uint8Array([1]))), Status.denied, `write ${p}`);
    }
    assert.equal(await status(files.write(signal, 'data/link-dir-outside/planted.txt', new Uint8Array([1]))), Status.denied);
    for (const p of ['data/link-inside', 'data/link-inside-abs', 'data/link-dir-inside/inner.txt', 'data/link-climbs-inside', 'data/link-abs-climbs-inside']) {
      assert.equal(await status(files.read(signal, p)), Status.ok, `read ${p}`);
    }
    assert.deepEqual(outside(), before);
    assert.deepEqual(snapshot(data), inside);
    assert.deepEqual([nodeArmed.descriptors, nodeArmed.tempFiles], [0, 0]);
  });
}

test('node files: a_granted_directory_replaced_since_it_was_granted_is_denied', async () => {
  const dir = path.join(root, 'replaced');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'x.txt'), 'granted');
  const files = new GrantedFiles([{ path: dir, as: 'g' }]);
  const signal = new AbortController().signal;
  assert.equal(new TextDecoder().decode(await files.read(signal, 'g/x.txt')), 'granted');
  // Another directory, same path: it is not the directory that was granted.
  fs.renameSync(dir, `${dir}.old`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'x.txt'), 'impostor');
  for (const walk of [files, new GrantedFiles([{ path: `${dir}.old`, as: 'g' }], { descriptorWalks: false })]) {
    if (walk !== files) {
      // By names too: the old directory granted, then a new one put at its path.
      fs.renameSync(`${dir}.old`, `${dir}.older`);
      fs.symlinkSync(dir, `${dir}.old`);
    }
    await assert.rejects(walk.read(signal, 'g/x.txt'), (e) => e instanceof ServiceError && e.status === Status.denied
      && /^granted directory "g" \(.*\) was replaced since it was granted$/.test(e.message));
    await assert.rejects(walk.write(signal, 'g/y.txt', new Uint8Array([1])), (e) => e instanceof ServiceError && e.status === Status.denied);
  }
  assert.deepEqual(fs.readdirSync(dir), ['x.txt'], 'nothing was written into the impostor');
  fs.rmSync(dir, { recursive: true });
  fs.rmSync(`${dir}.old`);
  fs.rmSync(`${dir}.older`, { recursive: true });
});

test('node files: a_hard_link_inside_is_read_and_a_write_replaces_that_name_only', async () => {
  const outsideFile = path.join(root, 'other', 'x.txt');
  fs.linkSync(outsideFile, path.join(data, 'hard-link'));
  try {
    assert.deepEqual(await read('data/hard-link'), [Status.ok, 'read ok 10 [from other]\n']);
    assert.deepEqual(await write('data/hard-link', 'replaced'), [Status.ok, 'write ok\n']);
    assert.equal(fs.readFileSync(path.join(data, 'hard-link'), 'utf8'), 'replaced');
    assert.equal(fs.readFileSync(outsideFile, 'utf8'), 'from other', 'the other name keeps the old content');
  } finally {
    fs.rmSync(path.join(data, 'hard-link'));
  }
});
