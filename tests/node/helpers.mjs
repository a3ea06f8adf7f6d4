// Shared helpers of the node:test suites: program paths, and the
// environment-neutral case support bound to Node.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The contract cases import the environment-neutral entry, as they run in
// Chromium too; under Node they get the Node platform (file paths, the
// keep-alive token, the bounds of vm.max_map_count) as 'snail-core' gives it.
import '../../host/node/root.mjs';
import * as support from '../cases/support.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const programs = path.join(root, 'build/programs');
export const program = (/** @type {string} */ name) => path.join(programs, `${name}.wasm`);

/** The context the contract cases get under Node. @type {support.CaseContext} */
export const nodeContext = { env: 'node', program, httpBase: '' };

export const EV = support.CONTRACT_EV;

/** @param {Parameters<typeof support.loadContracts>[1]} [options] */
export function loadContracts(options) {
  return support.loadContracts(nodeContext, options);
}

/** Collects text written to a sink. */
export function sink() {
  /** @type {string[]} */
  const chunks = [];
  const write = (/** @type {string} */ text) => { chunks.push(text); };
  write.text = () => chunks.join('');
  return write;
}

/** xorshift32: a seeded generator, so that a failing schedule replays from its seed. */
export function rng(/** @type {number} */ seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s;
  };
}
