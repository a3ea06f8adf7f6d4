// Reading a program from a path under Node (host/node/platform.mjs): only a
// regular file is read, up to maxModuleBytes, and anything else is refused
// with ERR_LOAD naming the path and why, never read without end or waited on.
// The same holds for `snail-core run` and `snail-core inspect`.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { Runtime, SnailError, suspend } from '../../host/node/root.mjs';
import { program, root } from './helpers.mjs';

const cli = path.join(root, 'host/cli/snail-core.mjs');
const GiB = 2 ** 30;
// A FIFO nobody writes to would hold a blocking open or read forever: these
// tests end in time when the file is refused, and time out otherwise (and
// after() releases a reader left waiting, so that this process can exit and
// report it).
const HANG_GUARD = { timeout: 30_000 };

/** @type {string} */
let tmp;
/** @type {{ fifo: string, sparse: string, link: string, dir: string }} */
const files = { fifo: '', sparse: '', link: '', dir: '' };

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-files-'));
  files.fifo = path.join(tmp, 'pipe.wasm');
  assert.equal(spawnSync('mkfifo', [files.fifo]).status, 0, 'mkfifo (coreutils) makes the FIFO');
  // A sparse file one byte over the default limit: nothing is written to disk.
  files.sparse = path.join(tmp, 'huge.wasm');
  fs.closeSync(fs.openSync(files.sparse, 'w'));
  fs.truncateSync(files.sparse, GiB + 1);
  files.link = path.join(tmp, 'link.wasm');
  fs.symlinkSync(program('hello'), files.link);
  files.dir = path.join(tmp, 'dir.wasm');
  fs.mkdirSync(files.dir);
});

after(() => {
  // A writer that comes and goes ends a blocked open of the FIFO (ENXIO when nobody waits).
  try {
    fs.closeSync(fs.openSync(files.fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch (error) {
    assert.equal(/** @type {NodeJS.ErrnoException} */ (error).code, 'ENXIO');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * Asserts that loading `source` is refused with ERR_LOAD and this message.
 * @param {string} source @param {string} why @param {import('../../host/node/root.mjs').RuntimeOptions} [options]
 */
async function refused(source, why, options = {}) {
  await assert.rejects(Runtime.load(source, options), (e) => {
    assert.ok(e instanceof SnailError, String(e));
    assert.equal(e.code, 'ERR_LOAD');
    assert.equal(e.message, `cannot read the program ${source}: ${why}`);
    return true;
  });
}

const NOT_REGULAR = 'not a regular file; give the path of a .wasm file, or pass the bytes';

test('load: a_character_device_is_refused_unread', HANG_GUARD, async () => {
  // /dev/zero once grew the process to 24 GB; /dev/urandom never ends either.
  await refused('/dev/zero', `it is a character device, ${NOT_REGULAR}`);
  await refused('/dev/urandom', `it is a character device, ${NOT_REGULAR}`);
});

test('load: a_fifo_is_refused_without_waiting_for_a_writer', HANG_GUARD, async () => {
  await refused(files.fifo, `it is a FIFO (named pipe), ${NOT_REGULAR}`);
});

test('load: a_block_device_is_refused_unread', { skip: !fs.existsSync('/dev/loop0') && 'this machine has no /dev/loop0' }, async () => {
  await refused('/dev/loop0', `it is a block device, ${NOT_REGULAR}`);
});

test('load: a_unix_socket_is_refused', async () => {
  const socket = path.join(tmp, 'socket.wasm');
  const server = net.createServer();
  await new Promise((resolve) => server.listen(socket, () => resolve(undefined)));
  try {
    await refused(socket, `it is a socket or a device that is not there, ${NOT_REGULAR}`);
  } finally {
    server.close();
  }
});

test('load: a_directory_is_refused', async () => {
  await refused(files.dir, 'it is a directory');
});

test('load: a_file_over_the_default_limit_of_1_gib_is_refused_from_its_size_alone', HANG_GUARD, async () => {
  await refused(files.sparse, `it is ${GiB + 1} bytes, more than ${GiB}, the limit of the maxModuleBytes option`);
});

test('load: maxModuleBytes_bounds_the_file_and_a_file_of_exactly_that_size_loads', async () => {
  const hello = program('hello');
  const size = fs.statSync(hello).size;
  await refused(hello, `it is ${size} bytes, more than ${size - 1}, the limit of the maxModuleBytes option`, { maxModuleBytes: size - 1 });
  const rt = await Runtime.load(hello, { maxModuleBytes: size, stdout: () => {} });
  const task = rt.dispatch('main');
  await rt.drain();
  assert.equal(task.state, 'returned');
  await rt.close();
  // Bytes are the embedder's: no limit applies to them.
  const fromBytes = await Runtime.load(fs.readFileSync(hello), { maxModuleBytes: 1, stdout: () => {} });
  await fromBytes.close();
});

test('load: a_file_that_grows_past_the_limit_while_it_is_read_is_refused', async () => {
  // /proc/self/maps is a regular file whose size says 0 and whose text runs
  // to kilobytes: as for a file appended to while it is read, only the
  // reading finds out how long it is.
  assert.equal(fs.statSync('/proc/self/maps').size, 0);
  await refused('/proc/self/maps', 'it holds more than 64 bytes (more than its size said when it was opened), the limit of the maxModuleBytes option', { maxModuleBytes: 64 });
  // Read whole under the default limit, it is simply not WebAssembly.
  await assert.rejects(Runtime.load('/proc/self/maps'), (e) => e instanceof SnailError && e.code === 'ERR_NOT_WASM');
});

test('load: a_symbolic_link_to_a_regular_file_is_followed', async () => {
  const rt = await Runtime.load(files.link, { stdout: () => {} });
  assert.equal(rt.name, files.link);
  const task = rt.dispatch('main');
  await rt.drain();
  assert.equal(task.state, 'returned');
  await rt.close();
});

test('load: maxModuleBytes_must_be_a_positive_integer', async () => {
  for (const [value, shown] of [['1', '"1"'], [0, 'number 0'], [1.5, 'number 1.5'], [NaN, 'number NaN'], [-1, 'number -1']]) {
    await assert.rejects(Runtime.load(program('hello'), { maxModuleBytes: /** @type {any} */ (value) }), (e) => e instanceof SnailError
      && e.code === 'ERR_OPTION' && e.message === `option maxModuleBytes must be a positive integer, got ${shown}`);
  }
});

test('load: maxModuleBytes_bounds_the_modules_loaded_later_too', HANG_GUARD, async () => {
  const plugin = path.join(root, 'build/programs/modules/module_plugin.wasm');
  const size = fs.statSync(plugin).size;
  // The program comes as bytes, so that only the module's file meets the limit.
  const rt = await Runtime.load(fs.readFileSync(program('dynamic')), {
    maxModuleBytes: size - 1,
    stdout: () => {},
    imports: { test: { pause: suspend(async (_signal, n) => n), event: () => {}, text: () => {} } },
  });
  await assert.rejects(rt.loadModule(plugin), (e) => e.code === 'ERR_MODULE'
    && e.message === `module ${plugin} could not be found: cannot read the program ${plugin}: it is ${size} bytes, more than ${size - 1}, the limit of the maxModuleBytes option`);
  await assert.rejects(rt.loadModule(files.fifo), (e) => e.code === 'ERR_MODULE' && /it is a FIFO/.test(e.message));
  await rt.close();
});

/**
 * Runs the command and collects its output; a command that hangs fails the
 * test at its guard, which kills it.
 * @param {string[]} args @param {AbortSignal} signal
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function runCli(args, signal) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t) => { stdout += t; });
    child.stderr.setEncoding('utf8').on('data', (t) => { stderr += t; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

for (const command of ['run', 'inspect']) {
  test(`cli: ${command}_refuses_a_device_a_fifo_and_an_oversized_file_and_exits_2`, HANG_GUARD, async (t) => {
    for (const [file, why] of [
      ['/dev/zero', `it is a character device, ${NOT_REGULAR}`],
      ['/dev/urandom', `it is a character device, ${NOT_REGULAR}`],
      [files.fifo, `it is a FIFO (named pipe), ${NOT_REGULAR}`],
      [files.sparse, `it is ${GiB + 1} bytes, more than ${GiB}, the limit of the maxModuleBytes option`],
    ]) {
      const r = await runCli([command, file], t.signal);
      assert.deepEqual(r, {
        code: 2,
        stdout: '',
        stderr: `snail-core: cannot read the program ${file}: ${why}\nhint: give the path of a readable .wasm file\n`,
      }, `${command} ${file}`);
    }
  });
}
