// The fuzzer's inputs: the seed modules (every program in build/programs, and
// every module in WebAssembly text under tests/programs and tests/cli/fixtures),
// and case K of a run seeded S, which is a function of (S, K) and the seeds
// alone, so that `node tools/fuzz.mjs --seed S --case K` replays it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import wabtInit from 'wabt';

import { caseSeed, mutate, random } from './mutate.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** @typedef {{ name: string, bytes: Uint8Array }} Seed */

/** @param {string} dir @param {string} ext @returns {string[]} */
function filesUnder(dir, ext) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p, ext) : e.name.endsWith(ext) ? [p] : [];
  });
}

/**
 * The seeds, sorted by name (a run's cases depend on their order).
 * @returns {Promise<Seed[]>}
 */
export async function loadSeeds() {
  const wabt = await wabtInit();
  const features = {
    reference_types: true, bulk_memory: true, mutable_globals: true, multi_value: true, tail_call: true,
    memory64: true, threads: true, multi_memory: true, exceptions: true,
  };
  /** @type {Seed[]} */
  const seeds = [];
  for (const file of filesUnder(path.join(root, 'build/programs'), '.wasm')) {
    seeds.push({ name: path.relative(root, file), bytes: new Uint8Array(fs.readFileSync(file)) });
  }
  for (const file of [...filesUnder(path.join(root, 'tests/programs'), '.wat'), ...filesUnder(path.join(root, 'tests/cli/fixtures'), '.wat')]) {
    const mod = wabt.parseWat(file, fs.readFileSync(file, 'utf8'), features);
    try {
      mod.resolveNames();
      mod.validate(features);
      seeds.push({ name: path.relative(root, file), bytes: new Uint8Array(mod.toBinary({}).buffer) });
    } catch {
      // A fixture that is not meant to assemble is no seed.
    } finally {
      mod.destroy();
    }
  }
  if (seeds.length < 10) throw new Error(`the fuzzer found only ${seeds.length} seed modules: build the programs first (node tools/build.mjs)`);
  return seeds.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The program misuse cases call the API on: the CLI fixture (entries nop, sleep, argc, trap_after_dispatch). */
export const MISUSE_PROGRAM = 'tests/cli/fixtures/fixture.wat';

/**
 * What runs case `index`: every twentieth case runs the command line (`run`,
 * then `inspect`), the others in this process (`load`, `inspect`, `misuse`).
 * @typedef {'load' | 'inspect' | 'misuse' | 'cli-run' | 'cli-inspect'} Target
 */

/**
 * Case `index` of a run seeded `seed`.
 * @param {number} seed @param {number} index @param {Seed[]} seeds
 * @returns {{ index: number, target: Target, seed: Seed, mutations: string[], bytes: Uint8Array, random: ReturnType<typeof random> }}
 */
export function caseOf(seed, index, seeds) {
  const r = random(caseSeed(seed, index));
  /** @type {Target} */
  const target = index % 20 === 19 ? 'cli-run' : index % 20 === 9 ? 'cli-inspect' : /** @type {const} */ (['load', 'load', 'load', 'inspect', 'inspect', 'misuse'])[r.below(6)];
  const base = target === 'misuse' ? /** @type {Seed} */ (seeds.find((s) => s.name === MISUSE_PROGRAM)) : r.pick(seeds);
  const donor = r.pick(seeds);
  const { bytes, mutations } = target === 'misuse' ? { bytes: base.bytes, mutations: [] } : mutate(base.bytes, donor.bytes, r);
  return { index, target, seed: base, mutations, bytes, random: r };
}
