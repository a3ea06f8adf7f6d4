// The fuzzer's worker thread: runs the in-process cases it is sent, one at a
// time, and says when each starts and ends, so that the driver can stop a
// case that hangs (terminating the worker stops even a Wasm loop).
import { parentPort, workerData } from 'node:worker_threads';

import { caseOf } from './cases.mjs';
import { describe, inspectTarget, loadTarget, misuseTarget } from './targets.mjs';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
/** @type {import('./cases.mjs').Seed[]} */
const seeds = workerData.seeds;
const misuseProgram = /** @type {import('./cases.mjs').Seed} */ (seeds.find((s) => s.name === workerData.misuseProgram));

/** Problems of the case running now: an unhandled rejection is its. @type {string[] | null} */
let current = null;
const stray = (/** @type {string} */ kind) => (/** @type {unknown} */ e) => {
  const line = `${kind}: ${describe(e)}`;
  if (current) current.push(line);
  else port.postMessage({ type: 'stray', line });
};
process.on('unhandledRejection', stray('unhandled rejection'));
process.on('uncaughtException', stray('uncaught exception'));

/**
 * @param {{ type: 'cases', seed: number, indices: number[] } | { type: 'seed-load', name: string, entries: string[] }} message
 */
async function handle(message) {
  if (message.type === 'seed-load') {
    // Is a time-out the seed's own (its code loops, or sleeps past close())?
    const seed = /** @type {import('./cases.mjs').Seed} */ (seeds.find((s) => s.name === message.name));
    port.postMessage({ type: 'start', index: -1 });
    const result = await loadTarget(seed.bytes, { entries: message.entries });
    port.postMessage({ type: 'done', index: -1, ...result });
    return;
  }
  for (const index of message.indices) {
    const c = caseOf(message.seed, index, seeds);
    port.postMessage({ type: 'start', index });
    /** @type {string[]} */
    const problems = [];
    current = problems;
    let result;
    try {
      if (c.target === 'inspect') result = await inspectTarget(c.bytes);
      else if (c.target === 'load') result = await loadTarget(c.bytes, { onEntries: (entries) => port.postMessage({ type: 'entries', index, entries }) });
      else result = await misuseTarget(misuseProgram.bytes, c.random);
    } catch (e) {
      result = { outcome: 'threw', problems: [`the case threw ${describe(e)}`] };
    }
    // A rejection left unhandled shows after a turn.
    await new Promise((resolve) => { setImmediate(resolve); });
    current = null;
    port.postMessage({ type: 'done', index, ...result, problems: [...result.problems, ...problems] });
  }
  port.postMessage({ type: 'idle' });
}

port.on('message', (message) => {
  handle(message).catch((e) => port.postMessage({ type: 'stray', line: `the worker failed: ${describe(e)}` }));
});
