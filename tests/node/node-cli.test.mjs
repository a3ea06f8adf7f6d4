// The grants of `snail-core run` (--dir, --allow-net, --env, --storage) and
// standard input, with the command line as a real child process and
// tests/programs/node_host.cpp and services.cpp as the programs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { Status } from '../../host/node/index.mjs';
import { program, root } from './helpers.mjs';

const cli = path.join(root, 'host/cli/snail-core.mjs');

/** @type {string} */
let tmp;
/** @type {http.Server} */
let server;
let serverHost = '';

before(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'snail-node-cli-')));
  fs.mkdirSync(path.join(tmp, 'data'));
  fs.mkdirSync(path.join(tmp, 'other'));
  fs.writeFileSync(path.join(tmp, 'data', 'hello.txt'), 'hello');
  fs.writeFileSync(path.join(tmp, 'other', 'x.txt'), 'other x');
  fs.writeFileSync(path.join(tmp, 'secret.txt'), 'secret');
  server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`you asked for ${req.url}`);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  serverHost = `127.0.0.1:${address.port}`;
});

after(() => {
  server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * Runs the command line in the suite's temporary directory.
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, onStdout?: (text: string, child: import('node:child_process').ChildProcessWithoutNullStreams) => void, write?: string }} [options]
 *   `write`: the first input, with standard input left open (else it is closed at once)
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function runCli(args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: tmp,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      stdout += text;
      options.onStdout?.(stdout, child);
    });
    child.stderr.setEncoding('utf8').on('data', (text) => { stderr += text; });
    if (options.write !== undefined) child.stdin.write(options.write);
    else child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const nodeHost = program('node_host');

test('node cli: --dir_grants_a_directory_under_the_path_as_written', async () => {
  let r = await runCli(['run', nodeHost, '--entry', 'read_argv', '--arg', '1', '--dir', 'data', '--', 'data/hello.txt']);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'read ok 5 [hello]\n', '']);
  r = await runCli(['run', nodeHost, '--entry', 'read_argv', '--arg', '1', '--dir', './data/', '--', 'data/hello.txt']);
  assert.deepEqual([r.code, r.stdout], [0, 'read ok 5 [hello]\n']);
  r = await runCli(['run', nodeHost, '--entry', 'write_argv', '--arg', '1', '--dir', 'data', '--', 'data/new.txt', 'written by the program']);
  assert.deepEqual([r.code, r.stdout], [0, 'write ok\n']);
  assert.equal(fs.readFileSync(path.join(tmp, 'data', 'new.txt'), 'utf8'), 'written by the program');
  // Repeatable: each grant under its own name.
  r = await runCli(['run', nodeHost, '--entry', 'read_argv', '--arg', '1', '--dir', 'data', '--dir', 'other', '--', 'other/x.txt']);
  assert.deepEqual([r.code, r.stdout], [0, 'read ok 7 [other x]\n']);
  r = await runCli(['run', nodeHost, '--entry', 'read_argv', '--arg', '1', '--dir', `${tmp}/data`, '--', `${tmp}/data/hello.txt`]);
  assert.deepEqual([r.code, r.stdout], [0, 'read ok 5 [hello]\n']);
});

test('node cli: without_--dir_or_outside_it_files_are_denied_and_the_exit_code_is_the_status', async () => {
  for (const [grants, file] of [[[], 'data/hello.txt'], [['--dir', 'data'], 'data/../secret.txt'], [['--dir', 'data'], 'secret.txt'], [['--dir', 'data'], `${tmp}/secret.txt`]]) {
    const r = await runCli(['run', nodeHost, '--entry', 'read_argv', '--arg', '1', ...grants, '--', file]);
    assert.deepEqual([r.code, r.stdout, r.stderr], [Status.denied, 'read denied 0 []\n', ''], `${grants.join(' ')} ${file}`);
  }
  const r = await runCli(['run', nodeHost, '--entry', 'write_argv', '--arg', '1', '--dir', 'data', '--', 'data/../planted.txt', 'x']);
  assert.deepEqual([r.code, r.stdout], [Status.denied, 'write denied\n']);
  assert.equal(fs.existsSync(path.join(tmp, 'planted.txt')), false);
  assert.equal(fs.readFileSync(path.join(tmp, 'secret.txt'), 'utf8'), 'secret');
});

test('node cli: --allow-net_grants_fetch_one_host_at_a_time', async () => {
  const url = `http://${serverHost}/greeting`;
  const fetchArgs = ['run', program('services'), '--entry', 'fetch_arg1'];
  let r = await runCli([...fetchArgs, '--', url]);
  assert.deepEqual([r.code, r.stdout], [Status.denied, 'fetch denied 0 []\n']);
  r = await runCli([...fetchArgs, '--allow-net', '127.0.0.1:1', '--', url]);
  assert.deepEqual([r.code, r.stdout], [Status.denied, 'fetch denied 0 []\n'], 'another port is another host');
  r = await runCli([...fetchArgs, '--allow-net', 'example.invalid', '--allow-net', serverHost, '--', url]);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'fetch ok 200 [you asked for /greeting]\n', '']);
  r = await runCli([...fetchArgs, '--allow-net', '127.0.0.1', '--', url]);
  assert.deepEqual([r.code, r.stdout], [0, 'fetch ok 200 [you asked for /greeting]\n'], 'a host name without a port grants every port');
});

test('node cli: --env_passes_only_the_named_variables', async () => {
  const env = { SNAIL_A: 'alpha', SNAIL_B: 'b=c', SNAIL_SECRET: 'hidden' };
  const names = ['SNAIL_A', 'SNAIL_B', 'SNAIL_SECRET', 'SNAIL_MISSING', 'PATH'];
  let r = await runCli(['run', nodeHost, '--entry', 'env_argv', '--arg', '1', '--', ...names], { env });
  assert.equal(r.stdout, names.map((n) => `env ${n} unset\n`).join(''));
  r = await runCli(['run', nodeHost, '--entry', 'env_argv', '--arg', '1', '--env', 'SNAIL_A', '--env', 'SNAIL_B', '--env', 'SNAIL_MISSING', '--', ...names], { env });
  assert.deepEqual([r.code, r.stdout], [0, [
    'env SNAIL_A=[alpha]', 'env SNAIL_B=[b=c]', 'env SNAIL_SECRET unset', 'env SNAIL_MISSING unset', 'env PATH unset', '',
  ].join('\n')]);
});

test('node cli: --storage_keeps_values_across_runs_and_without_it_they_live_in_memory', async () => {
  const store = path.join(tmp, 'store');
  const run = (/** @type {string[]} */ extra) => runCli(['run', nodeHost, '--entry', 'storage_count', ...extra]);
  assert.deepEqual((await run(['--storage', store])).stdout, 'count 1 ok\n');
  assert.deepEqual((await run(['--storage', store])).stdout, 'count 2 ok\n');
  assert.deepEqual(fs.readdirSync(path.join(store, 's-cli')), ['k-runs']);
  assert.deepEqual((await run([])).stdout, 'count 1 ok\n');
  assert.deepEqual((await run([])).stdout, 'count 1 ok\n');
});

test('node cli: standard_input_lines_reach_the_program_as_they_arrive', async () => {
  const r = await runCli(['run', nodeHost, '--entry', 'stdin_lines'], {
    // Each line only after the program printed the one before: nothing waits for the end.
    onStdout: (text, child) => {
      if (text === 'line [alpha]\n') child.stdin.write('beta\r\n');
      else if (text === 'line [alpha]\nline [beta]\n') child.stdin.end('gamma');
    },
    write: 'alpha\n',
  });
  assert.deepEqual([r.code, r.stdout], [3, 'line [alpha]\nline [beta]\nline [gamma]\nstdin closed after 3 lines\n']);
});

test('node cli: standard_input_left_open_does_not_keep_the_command_running_after_the_program_ends', async () => {
  // The program reads one line and returns; the pipe stays open and holds a
  // line it never asked for. A command still running 10 s later is killed.
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const r = await runCli(['run', nodeHost, '--entry', 'stdin_one'], {
    write: 'hello\nnever asked for\n',
    onStdout: (_text, child) => { timer ??= setTimeout(() => child.kill('SIGKILL'), 10_000); },
  });
  clearTimeout(timer);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'stdin ok [hello]\n', '']);
});

test('node cli: a_directory_granted_twice_is_a_usage_error_that_says_to_grant_it_once', async () => {
  // The command line has no way to rename a grant, so the advice of
  // nodeHost() (another name with { path, as }) would be none a user can follow.
  for (const [first, second, name] of [['data', './data', 'data'], ['.', './', '.'], [`${tmp}/data`, `${tmp}//data/`, `${tmp}/data`]]) {
    const r = await runCli(['run', nodeHost, '--entry', 'read_argv', '--arg', '1', '--dir', first, '--dir', 'other', '--dir', second, '--', 'data/hello.txt']);
    assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', [
      `snail-core: --dir ${first} and --dir ${second} grant the same directory, "${name}", twice`,
      'hint: grant each directory with a single --dir',
      '',
    ].join('\n')]);
  }
});

test('node cli: bad_grants_are_usage_errors_and_the_help_lists_them', async () => {
  let r = await runCli(['run', nodeHost, '--dir', 'missing']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^snail-core: cannot grant directory missing: it does not exist$/m);
  r = await runCli(['run', nodeHost, '--env', 'A=B']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /env takes variable names/);
  r = await runCli(['run', nodeHost, '--dir']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /option --dir needs a value/);
  r = await runCli(['demo', '--dir', 'data']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /demo takes no option --dir/);
  r = await runCli(['--help']);
  for (const option of ['--dir PATH', '--allow-net HOST', '--env NAME', '--storage DIR']) {
    assert.match(r.stdout, new RegExp(`^ {2}${option}`, 'm'), option);
  }
});
