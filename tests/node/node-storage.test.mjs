// Durable storage in a directory (host/node/storage.mjs): the program's
// storage calls against it, the encoding of names, atomic puts under abort
// and under SIGKILL of a real process, and the adapter contract.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { adapterContract } from '../../host/browser/adapter-contract.mjs';
import {
  DirectoryStorage, nodeArmed, nodeHost, Runtime, ServiceError, Status,
} from '../../host/node/index.mjs';
import { decodeName, encodeName, encodeRecord, MAX_ENCODED } from '../../host/node/storage.mjs';
import { STORAGE_ROUNDTRIP, until } from '../cases/support.mjs';
import { program, root, sink } from './helpers.mjs';

const cli = path.join(root, 'host/cli/snail-core.mjs');
const never = new AbortController().signal;
const text = (/** @type {Uint8Array | undefined} */ v) => (v === undefined ? undefined : new TextDecoder().decode(v));
const bytes = (/** @type {string} */ s) => new TextEncoder().encode(s);

/** @type {string} */
let tmp;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-node-storage-'));
});
after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A fresh directory under the suite's temporary directory. @param {string} name */
function dir(name) {
  return path.join(tmp, name);
}

/** Every file under `d`, relative. @param {string} d */
function files(d) {
  return fs.readdirSync(d, { recursive: true, encoding: 'utf8' }).sort();
}

test('node storage: a_program_puts_gets_lists_and_deletes_in_a_directory_that_outlives_the_runtime', async () => {
  const d = dir('roundtrip');
  const out = sink();
  const rt = await Runtime.load(program('services'), { checkInvariants: true, stdout: out, ...nodeHost({ storageDir: d }) });
  const t = rt.dispatch('storage_roundtrip');
  await t.done;
  await rt.close();
  assert.equal(t.state, 'returned');
  assert.equal(out.text(), STORAGE_ROUNDTRIP);
  assert.deepEqual(files(d), ['s-other', 's-other/k-a', 's-prefs', 's-prefs/k-b']);
  const reopened = new DirectoryStorage(d);
  assert.equal(text(await reopened.get(never, 'prefs', 'b')), 'twenty-two');
  assert.equal(await reopened.get(never, 'prefs', 'a'), undefined);
  assert.deepEqual(await reopened.list(never, 'prefs', ''), ['b']);
});

test('node storage: any_store_name_and_key_maps_to_a_safe_file_name_and_back', async () => {
  const long = 'long key '.repeat(60);
  const keys = ['', '.', '..', 'a/b', '../../etc/passwd', 'A', 'a', 'Ä', 'é', '~7e', '^a', 'x\0y', 'con', 'tab\there', '🐌', long, `${long}2`];
  for (const k of keys) assert.equal(decodeName(encodeName(k)), k, JSON.stringify(k));
  assert.notEqual(encodeName('A'), encodeName('a'));
  assert.equal(encodeName('Hello World/1'), '^hello~20^world~2f1');
  assert.equal(decodeName('not~zzvalid'), null);

  const d = dir('names');
  const s = new DirectoryStorage(d);
  for (const store of ['', '..', 'Store/With/Slashes', 'x'.repeat(300)]) {
    for (const [i, k] of keys.entries()) await s.put(never, store, k, bytes(`${store.length}:${i}`));
    assert.deepEqual(await s.list(never, store, ''), [...keys].sort());
    assert.deepEqual(await s.list(never, store, 'long'), [long, `${long}2`]);
    for (const [i, k] of keys.entries()) assert.equal(text(await s.get(never, store, k)), `${store.length}:${i}`, JSON.stringify(k));
    assert.equal(await s.delete(never, store, long), true);
    assert.equal(await s.delete(never, store, long), false);
    assert.equal(await s.get(never, store, long), undefined);
    assert.equal(text(await s.get(never, store, `${long}2`)), `${store.length}:${keys.length - 1}`);
  }
  // Four store directories, every name short, lower case and free of separators.
  const names = files(d);
  assert.equal(fs.readdirSync(d).length, 4);
  for (const n of names) {
    for (const part of n.split(path.sep)) {
      assert.match(part, /^[skh]-[a-z0-9._~^-]*$/, n);
      assert.ok(part.length <= MAX_ENCODED + 2, n);
    }
  }
});

test('node storage: an_aborted_put_keeps_the_old_value_and_leaves_no_temporary_file', async () => {
  const d = dir('aborted');
  const s = new DirectoryStorage(d);
  await s.put(never, 'st', 'k', bytes('old'));
  const controller = new AbortController();
  const putting = s.put(controller.signal, 'st', 'k', new Uint8Array(16 * 1024 * 1024).fill(1));
  await until(() => nodeArmed.tempFiles > 0 && nodeArmed.descriptors > 0, 'the temporary file to be open');
  controller.abort(new Error('stop'));
  await assert.rejects(putting, /stop/);
  assert.equal(text(await s.get(never, 'st', 'k')), 'old');
  assert.deepEqual(files(d), ['s-st', 's-st/k-k']);
  assert.deepEqual([nodeArmed.descriptors, nodeArmed.tempFiles], [0, 0]);
});

test('node storage: a_damaged_record_is_failed_never_returned', async () => {
  const d = dir('damaged');
  const s = new DirectoryStorage(d);
  await s.put(never, 'st', 'k', bytes('a value of some length'));
  const file = path.join(d, 's-st', 'k-k');
  const whole = fs.readFileSync(file);
  for (const damaged of [whole.subarray(0, whole.length - 3), Buffer.concat([whole, Buffer.of(0)]), Buffer.from(whole).fill(0x41, 30, 31)]) {
    fs.writeFileSync(file, damaged);
    await assert.rejects(s.get(never, 'st', 'k'), (e) => e instanceof ServiceError && e.status === Status.failed && /not an intact storage record/.test(e.message));
  }
  assert.deepEqual(Buffer.from(encodeRecord('k', bytes('a value of some length'))), whole);
});

test('node storage: temporary_files_of_dead_processes_are_removed_and_never_listed', async () => {
  const d = dir('stale');
  const s = new DirectoryStorage(d);
  await s.put(never, 'st', 'k', bytes('v'));
  // A pid that is not running: the largest pid Linux hands out is below 2^22.
  const dead = path.join(d, 's-st', `.tmp-${2 ** 22 + 1}-1-abc`);
  const ours = path.join(d, 's-st', `.tmp-${process.pid}-0-keep`);
  fs.writeFileSync(dead, 'half a record');
  fs.writeFileSync(ours, 'in progress');
  assert.deepEqual(await s.list(never, 'st', ''), ['k']);
  const fresh = new DirectoryStorage(d);
  await fresh.put(never, 'st', 'j', bytes('w'));
  assert.equal(fs.existsSync(dead), false);
  assert.equal(fs.existsSync(ours), true, 'a live process\'s put is left alone');
  assert.deepEqual(await fresh.list(never, 'st', ''), ['j', 'k']);
});

test('node storage: the_first_get_list_or_delete_of_a_store_removes_temporary_files_of_dead_processes', async () => {
  const d = dir('stale-first-use');
  await new DirectoryStorage(d).put(never, 'st', 'k', bytes('v'));
  const store = path.join(d, 's-st');
  /** @type {Record<string, (s: DirectoryStorage) => Promise<unknown>>} */
  const uses = {
    get: (s) => s.get(never, 'st', 'k'),
    list: (s) => s.list(never, 'st', ''),
    delete: (s) => s.delete(never, 'st', 'absent'),
  };
  for (const [name, use] of Object.entries(uses)) {
    // A pid that is not running: the largest pid Linux hands out is below 2^22.
    const dead = path.join(store, `.tmp-${2 ** 22 + 1}-1-${name}`);
    const ours = path.join(store, `.tmp-${process.pid}-0-${name}`);
    fs.writeFileSync(dead, 'half a record');
    fs.writeFileSync(ours, 'in progress');
    await use(new DirectoryStorage(d));
    assert.equal(fs.existsSync(dead), false, `${name} removed a dead process's temporary file`);
    assert.equal(fs.existsSync(ours), true, `${name} left a live process's put alone`);
    fs.rmSync(ours);
  }
  // A store that does not exist yet is not created by reading it.
  assert.equal(await new DirectoryStorage(d).get(never, 'none', 'k'), undefined);
  assert.deepEqual(await new DirectoryStorage(d).list(never, 'none', ''), []);
  assert.deepEqual(files(d), ['s-st', 's-st/k-k']);
});

// ---------------------------------------------------------------------------
// The adapter contract: each operation, with values large enough that it
// cannot finish in the turn before the kit aborts it.

const contractDir = () => dir('contract');
/** @type {DirectoryStorage | null} */
let contractStorage = null;
async function contractBackend() {
  if (!contractStorage) {
    contractStorage = new DirectoryStorage(contractDir());
    await contractStorage.put(never, 'c', 'big', new Uint8Array(8 * 1024 * 1024).fill(7));
    // Long keys have hashed file names: list() reads each record's key.
    for (let i = 0; i < 64; i++) await contractStorage.put(never, 'c', `${'k'.repeat(300)}${i}`, bytes(String(i)));
  }
  return contractStorage;
}
const armedStorage = () => nodeArmed.descriptors + nodeArmed.tempFiles;
let deletions = 0;
for (const c of [
  ...adapterContract({ name: 'node storage: get', start: async (signal) => (await contractBackend()).get(signal, 'c', 'big'), armed: armedStorage, promptTurns: Infinity }),
  ...adapterContract({ name: 'node storage: put', start: async (signal) => (await contractBackend()).put(signal, 'c', 'new', new Uint8Array(8 * 1024 * 1024)), armed: armedStorage, promptTurns: Infinity }),
  ...adapterContract({
    name: 'node storage: delete',
    start: async (signal) => {
      const s = await contractBackend();
      const key = `${'k'.repeat(300)}${deletions++}`;
      return s.delete(signal, 'c', key);
    },
    armed: armedStorage,
    promptTurns: Infinity,
  }),
  ...adapterContract({ name: 'node storage: list', start: async (signal) => (await contractBackend()).list(signal, 'c', 'k'), armed: armedStorage, promptTurns: Infinity }),
]) {
  test(c.name, c.run);
}

test('node storage: the_contract_cases_left_the_store_consistent', async () => {
  const s = await contractBackend();
  const keys = await s.list(never, 'c', '');
  assert.ok(keys.includes('big'));
  assert.equal((await s.get(never, 'c', 'big'))?.length, 8 * 1024 * 1024);
  for (const k of keys) assert.ok(k === 'big' || k === 'new' || k.startsWith('kkk'), k);
  assert.deepEqual(fs.readdirSync(path.join(contractDir(), 's-c')).filter((n) => n.startsWith('.tmp')), []);
});

// ---------------------------------------------------------------------------
// SIGKILL in the middle of thousands of puts.

/**
 * The value tests/programs/node_host.cpp (storage_burst) writes.
 * @param {string} key @param {number} version
 */
function burstValue(key, version) {
  const filler = 64 + ((version * 7919) % 20000);
  let v = `${key}|${version}|`;
  for (let j = 0; j < filler; j++) v += String.fromCharCode(0x61 + ((version + j) % 26));
  return `${v}|end`;
}

/**
 * Runs storage_burst in a child process of the CLI with `--storage dir`,
 * versions from `first`, and kills it with SIGKILL once `killAfter` puts were
 * acknowledged. Returns what was acknowledged.
 * @param {string} d @param {number} workers @param {number} first @param {number} killAfter
 */
async function burstUntilKilled(d, workers, first, killAfter) {
  const child = spawn(process.execPath, [cli, 'run', program('node_host'), '--entry', 'storage_burst', '--arg', String(workers), '--storage', d, '--', String(first)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  /** The last acknowledged version of each key, and of each worker. @type {Map<string, number>} */
  const acked = new Map();
  /** @type {Map<number, number>} */
  const workerLast = new Map();
  let acks = 0;
  let partial = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s) => { stderr += s; });
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = /** @type {string} */ (lines.pop());
    for (const line of lines) {
      const m = /^ack (w(\d+)-k\d+) (\d+)$/.exec(line);
      assert.ok(m, `unexpected output: ${line}`);
      const version = Number(m[3]);
      assert.ok(version > (acked.get(m[1]) ?? -1), `${m[1]} went back to ${version}`);
      acked.set(m[1], version);
      workerLast.set(Number(m[2]), version);
      if (++acks === killAfter) child.kill('SIGKILL');
    }
  });
  const [code, signal] = await new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
  assert.equal(signal, 'SIGKILL', `the child ended by itself (code ${code}): ${stderr}`);
  assert.ok(acks >= killAfter, `${acks} puts acknowledged`);
  return { acked, workerLast, acks };
}

test('node storage: a_process_killed_mid_way_through_thousands_of_puts_loses_no_acknowledged_value_and_tears_none', { timeout: 600_000 }, async (t) => {
  const d = dir('sigkill');
  const workers = 4;
  // Three processes in turn on the same directory, each killed mid-way.
  for (let round = 0; round < 3; round++) {
    const first = round * 100_000;
    const { acked, workerLast, acks } = await burstUntilKilled(d, workers, first, 1500);
    const tempsOf = () => fs.readdirSync(path.join(d, 's-burst')).filter((n) => n.startsWith('.tmp-'));
    const temps = tempsOf();
    const s = new DirectoryStorage(d);
    const onDisk = await s.list(never, 'burst', '');
    // The fresh backend's first use of the store swept the killed process's temporary files.
    assert.deepEqual(tempsOf(), []);
    let ahead = 0;
    for (const key of onDisk) {
      const value = text(await s.get(never, 'burst', key));
      const m = /^(w(\d+)-k(\d+))\|(\d+)\|/.exec(value ?? '');
      assert.ok(m && m[1] === key, `${key} holds a value of another key or none: ${value?.slice(0, 40)}`);
      const version = Number(m[4]);
      assert.equal(value, burstValue(key, version), `${key} holds a torn value of version ${version}`);
      const last = acked.get(key);
      if (version === last) continue;
      if (last === undefined && version < first) continue; // not written in this round
      // Otherwise: the put of this worker that was in flight at the kill.
      assert.equal(version, (workerLast.get(Number(m[2])) ?? first - 1) + 1, `${key} holds version ${version}; last acknowledged ${last}`);
      assert.equal(version % 50, Number(m[3]));
      ahead++;
    }
    for (const [key, version] of acked) assert.ok(onDisk.includes(key), `acknowledged ${key} (version ${version}) was lost`);
    assert.ok(ahead <= workers, `${ahead} keys ahead of their acknowledgement`);
    t.diagnostic(`round ${round}: ${acks} puts acknowledged, ${onDisk.length} keys, ${ahead} in-flight puts committed, ${temps.length} temporary files left by the kill`);
  }
});
