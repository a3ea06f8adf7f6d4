// The engine probes (host/browser/engine-probe.mjs) under Node, and how an
// engine's own failure is named (errors.mjs). The probes' other findings are
// checked under the engines that have them (tests/engines/).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

import { PROBED, probeDirectWaits, probeRawJspi } from '../../host/browser/engine-probe.mjs';
import { engineDefect, InternalError } from '../../host/browser/errors.mjs';
import { Runtime } from '../../host/node/root.mjs';
import { program } from './helpers.mjs';

test('engine probe: v8 suspends through raw jspi and through the tail-call stubs, once per agent', async () => {
  const raw = await probeRawJspi();
  assert.deepEqual(raw, { ok: true, probed: PROBED.raw, failure: null });
  const direct = await probeDirectWaits();
  assert.deepEqual(direct, { ok: true, probed: PROBED.tailCall, failure: null, tailCall: true, tailCallFailure: null });
  assert.equal(probeDirectWaits(), probeDirectWaits(), 'one probe per agent');
  // A program loaded after the probes waits through the wrappers: its waits keep the permit lent.
  const rt = await Runtime.load(program('demo'), { stdout: () => {} });
  rt.dispatch('main');
  await rt.drain();
  assert.ok(rt.stats().lends > 0, 'direct waits were used');
  await rt.close();
});

test('engine defect: a jspi stack-scan failure is named as the engine\'s, other internal errors stay snail-core bugs', () => {
  const scan = new InternalError('a carrier failed while no task held the permit: Error: JSPI stack scan failed: unrecognized type of Wasm frame: RestoreFrameMode');
  assert.ok(scan instanceof InternalError, 'the scheduler still breaks down on it');
  assert.equal(scan.name, 'EngineError');
  assert.match(scan.message, /^the engine's JSPI failed to suspend a task \(a carrier failed .*RestoreFrameMode\): a defect of the engine, not of snail-core\. .*directWaits: false/);
  const bug = new InternalError('illegal transition of task #1: queued -> returned');
  assert.equal(bug.name, 'InternalError');
  assert.equal(bug.message, 'snail-core internal error: illegal transition of task #1: queued -> returned (this is a bug in snail-core)');
  assert.equal(engineDefect('unreachable'), null);
});

test('engine refusal: an engine whose jspi resumes with the wrong value refuses to load with one line', () => {
  // A JSPI that suspends but delivers 0 whatever the promise held, installed
  // before the runtime is imported.
  const code = `
    const S = WebAssembly.Suspending;
    WebAssembly.Suspending = function Suspending(fn) { return new S(() => Promise.resolve(0)); };
    const { Runtime } = await import(${JSON.stringify(new URL('../../host/node/root.mjs', import.meta.url).href)});
    try {
      await Runtime.load(${JSON.stringify(program('hello'))});
      console.log('loaded');
    } catch (e) {
      console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message }));
    }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const e = JSON.parse(r.stdout);
  assert.equal(e.code, 'ERR_ENGINE');
  assert.equal(e.message, `snail-core cannot run here: this engine's JSPI fails on ${PROBED.raw}: the call resumed with 7, not 48`);
  assert.doesNotMatch(e.message, /\n/);
});
