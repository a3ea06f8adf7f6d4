// Shared helpers of the node:test suites: program paths and a loader for the
// contracts program that records what the program reports.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Runtime, suspend } from '../../host/browser/index.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const programs = path.join(root, 'build/programs');
export const program = (name) => path.join(programs, `${name}.wasm`);

/** Event kinds of tests/programs/contracts.cpp. */
export const EV = Object.freeze({
  dispatched: 1, childSaw: 2, parentDone: 3, childDone: 4, step: 5, joined: 6, result: 7,
});

/**
 * Loads contracts.wasm with a `test` import module that records events and
 * violations, and with invariants checked after every scheduler step.
 * `test.pause(n)` is a suspending import resolving to n after a macrotask;
 * `onPause(phase, rt)` sees its start ('start', while the caller's registers
 * are saved) and its completion ('settle').
 * @param {import('../../host/browser/index.mjs').RuntimeOptions & { onEvent?: Function, onPause?: Function }} [options]
 */
export async function loadContracts(options = {}) {
  /** @type {{ kind: number, a: number, b: number }[]} */
  const events = [];
  /** @type {{ code: number, a: number }[]} */
  const violations = [];
  let rt;
  const { onEvent, onPause, ...rest } = options;
  rt = await Runtime.load(program('contracts'), {
    checkInvariants: true,
    stdout: () => {},
    ...rest,
    imports: {
      ...(rest.imports ?? {}),
      test: {
        event: (kind, a, b) => {
          events.push({ kind, a, b });
          if (onEvent) onEvent({ kind, a, b }, rt);
        },
        violation: (code, a) => { violations.push({ code, a }); },
        pause: suspend((_signal, n) => {
          if (onPause) onPause('start', rt);
          return new Promise((resolve) => {
            setImmediate(() => {
              if (onPause) onPause('settle', rt);
              resolve(n);
            });
          });
        }),
      },
    },
  });
  return { rt, events, violations };
}

/** Collects text written to a sink. */
export function sink() {
  const chunks = [];
  const write = (text) => { chunks.push(text); };
  write.text = () => chunks.join('');
  return write;
}
