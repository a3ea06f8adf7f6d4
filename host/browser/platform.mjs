// What the environment-neutral runtime cannot do by itself: read a file, know
// how many JSPI stacks the process survives, keep the process alive. A host
// entry installs its own platform (host/node/root.mjs installs Node's); this
// module and everything else under host/browser/ imports nothing of Node, so
// that a bundle for a page holds no `node:` module.
//
// The platform is read when a runtime loads (and when a module is read from a
// path), never when a module is evaluated: an entry may install it after its
// imports have run.

/**
 * @typedef {object} KeepAlive
 * @property {() => void} hold  keep the process alive (tasks are live)
 * @property {() => void} release  let it exit again (the live set is empty)
 * @property {() => void} [dispose]  let go of whatever the token holds, for good
 */

/**
 * How many tasks may have entered Wasm at once. `soft` and `hard` are the
 * defaults of maxEntered and hardMaxEntered; `ceiling` is the most this
 * platform is known to survive (an explicit bound above it is refused), or
 * null where no limit is known.
 * @typedef {object} StackLimits
 * @property {number} soft
 * @property {number} hard
 * @property {number | null} ceiling
 * @property {string} [advice]  how to allow more, said when a bound is refused
 */

/**
 * @typedef {object} ReadLimits
 * @property {number} maxBytes  refuse a file larger than this
 * @property {string} option  the option that sets maxBytes, for messages
 */

/**
 * @typedef {object} Platform
 * @property {((path: string, limits: ReadLimits) => Promise<Uint8Array>) | null} readFile
 *   reads a module from a file path; null where files cannot be read, and a
 *   string is then a URL relative to the document
 * @property {() => StackLimits} stackLimits
 * @property {() => KeepAlive} keepAlive  a token the scheduler holds while tasks are live
 */

/**
 * The bounds when nothing is known of the platform: those a Linux process
 * with the kernel's default vm.max_map_count (65,530) survives, without a
 * ceiling (docs/api.md, "RuntimeOptions").
 * @type {StackLimits}
 */
const DEFAULT_LIMITS = Object.freeze({ soft: 10000, hard: 16382, ceiling: null });

/** @type {Platform} */
const NEUTRAL = Object.freeze({
  readFile: null,
  stackLimits: () => DEFAULT_LIMITS,
  keepAlive: () => ({ hold() {}, release() {}, dispose() {} }),
});

/** @type {Platform} */
let current = NEUTRAL;

/**
 * Installs a host's platform for every runtime loaded from now on; the parts
 * it leaves out stay neutral.
 * @param {Partial<Platform>} platform
 */
export function setPlatform(platform) {
  current = Object.freeze({ ...NEUTRAL, ...platform });
}

/** The platform runtimes load with. @returns {Platform} */
export function platform() {
  return current;
}
