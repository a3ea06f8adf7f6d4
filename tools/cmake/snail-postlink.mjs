#!/usr/bin/env node
// Runs snail-core's post-link step (tools/wasm/postlink.mjs) for CMake, with
// the npm package `binaryen` taken from a chosen node_modules directory.
//
//   node snail-postlink.mjs [--node-modules DIR] POSTLINK.mjs IN.wasm OUT.wasm [OPTIONS]
//   node snail-postlink.mjs --check [--node-modules DIR] POSTLINK.mjs
//
// postlink.mjs imports `binaryen` by name. Inside the source tree or an npm
// project, Node finds it by walking up from postlink.mjs to a node_modules
// directory. An installed CMake package (<prefix>/share/snail-core) has no
// node_modules above it, so SnailCoreConfig.cmake passes the one recorded at
// install time or given as SNAIL_NODE_MODULES, and this script resolves the
// name `binaryen` there with a module resolution hook (Node 20.6 or newer).
//
// --check only proves that binaryen can be found and loaded: find_package()
// runs it so that a missing dependency is reported when the project is
// configured, not in the middle of a build.
import module, { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** @param {string} message @returns {never} */
function fail(message) {
  process.stderr.write(`snail-postlink: ${message}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let check = false;
/** @type {string | null} */
let nodeModules = null;
while (args.length > 0 && args[0].startsWith('--')) {
  const option = /** @type {string} */ (args.shift());
  if (option === '--check') check = true;
  else if (option === '--node-modules') nodeModules = args.shift() ?? fail('--node-modules needs a directory');
  else fail(`unknown option ${option}`);
}
const postlink = args.shift();
if (!postlink) fail('usage: snail-postlink.mjs [--check] [--node-modules DIR] POSTLINK.mjs [IN.wasm OUT.wasm OPTIONS...]');
const script = path.resolve(postlink);

// Resolve `binaryen` as Node would from DIR (or from postlink.mjs itself).
const base = nodeModules ? path.join(path.resolve(nodeModules), 'snail-core-resolve.js') : script;
let binaryenUrl;
try {
  binaryenUrl = pathToFileURL(createRequire(base).resolve('binaryen')).href;
} catch {
  fail(nodeModules
    ? `the npm package binaryen is not in ${nodeModules}; install it there (npm install binaryen@132) or give another node_modules directory (SNAIL_NODE_MODULES)`
    : `the npm package binaryen cannot be found from ${script}; install it next to snail-core (npm install binaryen@132) or give its node_modules directory (SNAIL_NODE_MODULES)`);
}

if (nodeModules) {
  const url = binaryenUrl;
  const m = /** @type {any} */ (module);
  if (typeof m.registerHooks === 'function') {
    m.registerHooks({
      resolve: (/** @type {string} */ specifier, /** @type {any} */ context, /** @type {Function} */ next) => (
        specifier === 'binaryen' ? { url, format: 'module', shortCircuit: true } : next(specifier, context)),
    });
  } else if (typeof m.register === 'function') {
    const hooks = `export async function resolve(specifier, context, next) {
      return specifier === 'binaryen' ? { url: ${JSON.stringify(url)}, format: 'module', shortCircuit: true } : next(specifier, context);
    }`;
    m.register(`data:text/javascript,${encodeURIComponent(hooks)}`);
  } else {
    fail(`Node ${process.versions.node} has no module hooks; the post-link step of an installed package needs Node 20.6 or newer (SNAIL_NODE)`);
  }
}

if (check) {
  try {
    await import(binaryenUrl);
  } catch (error) {
    fail(`binaryen (${binaryenUrl}) does not load in Node ${process.versions.node}: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.stdout.write(`binaryen: ${binaryenUrl}\n`);
  process.exit(0);
}

// postlink.mjs reads its arguments from process.argv.
process.argv = [process.argv[0], script, ...args];
await import(pathToFileURL(script).href);
