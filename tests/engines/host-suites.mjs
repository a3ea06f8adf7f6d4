// The suites every engine besides Node runs (tests/engines/deno.test.mjs,
// bun.test.mjs): the contract cases, the probes' findings, the demo through
// the package's ES modules and through the command, and the Node host
// (snail-core/node): its suites under the engine's own test runner, and the
// child processes of contract 12 and of signals, run under the engine from
// here.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

import { engineCases, ENGINES, engineTestRunner, root, runUnder } from './engine-runner.mjs';

const program = (/** @type {string} */ name) => path.join(root, 'build/programs', `${name}.wasm`);

/**
 * Every test of the Node host's suites but the three child-process tests of
 * node-events.test.mjs, which run from here instead (see below): under
 * Deno's runner a ChildProcess ended by kill() reports the signal it was sent,
 * not how the child exited. Deno's filter has no lookahead, so it names what
 * it keeps; both runners must then report exactly three filtered out.
 */
const FILTERS = {
  deno: ['--filter', '/^(node (stdin|events|files|storage)|adapter contract|node signals: (a_task|a_queued|SIGUSR))/'],
  bun: ['--test-name-pattern', '^(?!node signals: a_(child_process|registered_signal))'],
};

/**
 * @param {typeof import('node:test')} nodeTest
 * @param {keyof typeof ENGINES} engine
 * @param {{ tailCall: boolean, tailCallFailure?: RegExp }} expected  what the direct-waits probe finds here
 */
export function engineSuites(nodeTest, engine, expected) {
  const { test } = nodeTest;
  const e = ENGINES[engine];

  engineCases(nodeTest, engine);

  test(`engine probe (${e.name}): raw JSPI works and waits go through the suspension module ${expected.tailCall ? 'with tail calls' : 'by plain calls'}`, () => {
    const r = runUnder(engine, ['tests/engines/probe.mjs']);
    assert.equal(r.status, 0, r.stderr);
    const found = JSON.parse(r.stdout);
    assert.equal(found.raw.ok, true, found.raw.failure);
    assert.equal(found.directWaits.ok, true, found.directWaits.failure);
    assert.equal(found.directWaits.tailCall, expected.tailCall, found.directWaits.tailCallFailure);
    if (expected.tailCallFailure) assert.match(found.directWaits.tailCallFailure, expected.tailCallFailure);
  });

  if (!expected.tailCall) {
    test(`engine defect (${e.name}): the stack-scan failure the probe avoids is reported as the engine's, not as a bug in snail-core`, () => {
      const r = runUnder(engine, ['tests/engines/engine-defect.mjs']);
      assert.equal(r.status, 0, r.stderr);
      const { error } = JSON.parse(r.stdout);
      assert.equal(error?.name, 'EngineError', JSON.stringify(error));
      assert.match(error.message, /^the engine's JSPI failed to suspend a task \(.*JSPI stack scan failed.*\): a defect of the engine, not of snail-core\./);
      assert.doesNotMatch(error.message, /bug in snail-core/);
    });
  }

  test(`demo (${e.name}): runs through the package's ES modules as under Node`, () => {
    const here = runUnder('node', ['tests/engines/demo.mjs']);
    const there = runUnder(engine, ['tests/engines/demo.mjs']);
    assert.equal(here.status, 0, here.stderr);
    assert.equal(there.status, 0, there.stderr);
    const [a, b] = [JSON.parse(here.stdout), JSON.parse(there.stdout)];
    assert.equal(b.state, 'returned');
    assert.ok(b.stats.lends > 0, `waits kept the permit lent under ${e.name} (direct waits)`);
    // How many waits kept the permit depends on timing; everything else is the program's.
    delete a.stats.lends;
    delete b.stats.lends;
    assert.deepEqual(b, a);
    assert.match(b.output, /0 failed\ndemo: \d+ waits, \d+ binding and frame checks, 0 broken\n$/);
  });

  test(`demo (${e.name}): the command's demo runs`, () => {
    const r = runUnder(engine, ['host/cli/snail-core.mjs', 'demo']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^demo: snail-core ran 721 tasks \(721 returned, 0 failed\)/m);
  });

  test(`node host (${e.name}): files, storage, standard input, emitter events and signals pass their suites under ${e.name}'s test runner`, { timeout: 600_000 }, async (t) => {
    const files = ['tests/node/node-files.test.mjs', 'tests/node/node-storage.test.mjs', 'tests/node/node-events.test.mjs'];
    const output = await engineTestRunner(engine, files, FILTERS[engine]);
    const summary = output.split('\n').filter((l) => /\d+ (passed|pass|fail|filtered out)\b/.test(l)).map((l) => l.trim()).join(' ');
    t.diagnostic(summary);
    assert.match(summary, /[1-9]\d* pass/, `the runner ran tests: ${summary}`);
    assert.match(summary, /\b0 fail/, summary);
    assert.match(summary, /\b3 filtered out/, `only the three child-process tests are left out: ${summary}`);
  });

  for (const [ms, more, lines] of /** @type {[number, string[], string[]][]} */ ([
    [150, [], ['task returned 151', 'exit 0 live 0']],
    [0, [], ['task returned 1', 'exit 0 live 0']],
    [100, ['twice'], ['task returned 101', 'second task returned 102', 'exit 0 live 0']],
  ])) {
    test(`contract 12 (${e.name}): the process stays alive while a task is live and exits after drain (${ms} ms${more.length ? `, ${more}` : ''})`, () => {
      const r = runUnder(engine, ['tests/node/fixtures/keepalive-child.mjs', program('keepalive'), String(ms), ...more], { timeout: 60_000 });
      assert.equal(r.error, undefined, `the child did not exit on its own: ${r.error}`);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r.stdout.trim().split('\n'), lines);
    });
  }

  /**
   * The signal child under the engine; `onLine` sees each line it prints.
   * @param {string[]} args @param {(line: string, child: import('node:child_process').ChildProcess) => void} [onLine]
   * @returns {Promise<{ code: number | null, signal: string | null, lines: string[], stderr: string }>}
   */
  const signalChild = (args, onLine) => new Promise((resolve) => {
    const c = spawn(e.bin, [...e.run, path.join(root, 'tests/node/fixtures/signal-child.mjs'), program('node_host'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {string[]} */
    const lines = [];
    let partial = '';
    let stderr = '';
    c.stderr.setEncoding('utf8');
    c.stderr.on('data', (chunk) => { stderr += chunk; });
    c.stdout.setEncoding('utf8');
    c.stdout.on('data', (chunk) => {
      const parts = (partial + chunk).split('\n');
      partial = /** @type {string} */ (parts.pop());
      for (const line of parts) {
        lines.push(line);
        onLine?.(line, c);
      }
    });
    c.on('close', (code, signal) => resolve({ code, signal, lines, stderr }));
  });

  test(`node signals (${e.name}): a child process waiting for a signal gets it and exits by itself`, { timeout: 60_000 }, async () => {
    const r = await signalChild(['wait', 'SIGUSR2'], (line, c) => { if (line === 'waiting') c.kill('SIGUSR2'); });
    assert.deepEqual([r.code, r.signal], [0, null], r.stderr);
    assert.deepEqual(r.lines, ['waiting', 'event ok [SIGUSR2]', 'task returned 0 listeners 0']);
  });

  test(`node signals (${e.name}): a registered signal nobody waits for keeps its default action`, { timeout: 60_000 }, async () => {
    const r = await signalChild(['default', 'SIGTERM'], (line, c) => c.kill(line === 'ready listeners 0' ? 'SIGTERM' : 'SIGKILL'));
    assert.equal(r.signal, 'SIGTERM', `the child was not ended by SIGTERM: ${JSON.stringify(r)}`);
    assert.deepEqual(r.lines, ['ready listeners 0']);
  });

  test(`node signals (${e.name}): a registered signal does not keep the process alive`, { timeout: 60_000 }, async () => {
    const r = await signalChild(['idle', 'SIGUSR2']);
    assert.deepEqual([r.code, r.signal], [0, null], r.stderr);
    assert.deepEqual(r.lines, ['registered listeners 1', 'exit 0']);
  });
}
