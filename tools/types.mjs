#!/usr/bin/env node
// Generates the TypeScript declarations of the package from the JSDoc and
// checks the public surface against the API report:
//
//   node tools/types.mjs            write dist/types; fail if the surface differs from api/
//   node tools/types.mjs --update   write dist/types and the new reports into api/ (npm run api)
//   node tools/types.mjs --out DIR [--reports DIR]   the same, elsewhere (for tests)
//
// tsc writes one declaration file per module into build/types; API
// Extractor then rolls each entry point's declarations up into one file
// (dist/types/host/browser/index.d.mts, host/node/index.d.mts,
// host/browser/adapter-contract.d.mts, the files package.json's "types"
// conditions name), so that the package ships only the public surface: no
// internal module paths a consumer's emitted declarations could come to
// depend on, and nothing the public surface does not reach. It also writes
// the API report of each entry point (api/*.api.md) and refuses a type the
// surface uses but does not export. `npm pack` runs this (the prepack
// script); the declarations are not kept in git, the reports are.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    update: { type: 'boolean', default: false },
    // For tests: where to write the declarations, and which reports to compare with.
    out: { type: 'string' },
    reports: { type: 'string' },
  },
});
const out = path.resolve(values.out ?? path.join(root, 'dist/types'));
const raw = values.out ? `${out}.work` : path.join(root, 'build/types');
const reports = path.resolve(values.reports ?? path.join(root, 'api'));
const newReports = values.out ? `${out}.api` : path.join(root, 'build/api');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const require = createRequire(import.meta.url);

/** @param {string} message */
function fail(message) {
  process.stderr.write(`types: ${message}\n`);
  process.exit(1);
}

if (!fs.existsSync(tsc)) {
  process.stderr.write('types: TypeScript is missing from node_modules; run npm install (or tools/bootstrap.sh) first\n');
  process.exit(2);
}
/** @type {typeof import('@microsoft/api-extractor')} */
let extractor;
try {
  extractor = require('@microsoft/api-extractor');
} catch {
  process.stderr.write('types: @microsoft/api-extractor is missing from node_modules; run npm install (or tools/bootstrap.sh) first\n');
  process.exit(2);
}

fs.rmSync(raw, { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tools/tsconfig.types.json'), '--outDir', raw], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) fail('tsc reported errors; the declarations were not written correctly');

for (const entry of fs.readdirSync(raw, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.mts')) continue;
  const file = path.join(entry.parentPath, entry.name);
  const text = fs.readFileSync(file, 'utf8');
  const fixed = publicSurface(reexports(text));
  if (fixed !== text) fs.writeFileSync(file, fixed);
}

/**
 * Turns a type that a module only passes on under its own name into a
 * re-export: JSDoc has no way to re-export a type, so a module writes
 * `@typedef {import('./tasks.mjs').TaskStateName} TaskStateName`, which tsc
 * declares as a second type (`export type TaskStateName =
 * import('./tasks.mjs').TaskStateName;`). The declarations that use the
 * first one would then name a type the entry point does not export, and a
 * consumer's emitted declarations could not name it. `export type {
 * TaskStateName }` of the imported type is the one type under one name.
 * @param {string} text  one .d.mts file
 */
function reexports(text) {
  return text.replace(/^export type (\w+)(<[^>=]+(?:=[^>]+)?>)? = import\(('[^']+')\)\.(\w+)(<[^>]+>)?;$/gm, (whole, name, params, from, target, args) => {
    const names = (params ?? '').replace(/[<>]/g, '').split(',').map((p) => p.split('=')[0].trim()).filter(Boolean).join(', ');
    if (name !== target || names !== (args ?? '').replace(/[<>]/g, '').split(',').map((a) => a.trim()).filter(Boolean).join(', ')) return whole;
    // A local binding too: the file's other declarations use the name.
    const imported = [...text.matchAll(/^import (?:type )?\{([^}]*)\} from/gm)]
      .some((m) => m[1].split(',').some((spec) => spec.trim().replace(/^type\s+/, '').split(/\s+as\s+/).at(-1) === name));
    return `${imported ? '' : `import type { ${name} } from ${from};\n`}export type { ${name} };`;
  });
}

/**
 * Leaves out of a class what JSDoc cannot yet keep out of tsc's output: the
 * members whose name starts with `_` (CONTRIBUTING.md: they belong to the
 * scheduler), an `@internal` constructor (kept as `private constructor();`,
 * so that the class is still a type and works with `instanceof` but only
 * snail-core makes its objects; tsc's stripInternal would drop it and leave
 * the class constructible), other `@internal` members, and `readonly` for a
 * field whose JSDoc says `@readonly` (TypeScript 7 drops it on a field
 * assigned in the constructor). The modules this applies to are
 * host/browser/tasks.mjs's Task (`_` members, its constructor, `id` and
 * `entry`) and the members the other modules mark `@internal`. tsc's
 * stripInternal would drop an @internal constructor and leave the class
 * constructible; API Extractor's trimmed roll-up analyses @internal members
 * before it drops them, so the internal types they name (Bridge,
 * ModuleLoader) would count as types the surface forgot to export.
 * @param {string} text  one .d.mts file
 */
function publicSurface(text) {
  const lines = text.split('\n');
  /** @type {string[]} */
  const kept = [];
  let inClass = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!inClass) {
      kept.push(line);
      inClass = /^export declare class \w+.*\{$/.test(line);
      continue;
    }
    if (line === '}') {
      kept.push(line);
      inClass = false;
      continue;
    }
    // One member: its JSDoc (if any), then its declaration up to the `;` that
    // ends it at depth 0.
    const member = [];
    let j = i;
    // A JSDoc on the declaration's own line (`/** @internal */ bridge;`) is read with it.
    if (lines[j].startsWith('    /**') && !/\*\/\s*\S/.test(lines[j])) {
      while (!lines[j].includes('*/')) member.push(lines[j++]);
      if (!/\*\/\s*\S/.test(lines[j])) member.push(lines[j++]);
    }
    let depth = 0;
    for (;;) {
      const l = lines[j++];
      member.push(l);
      for (const c of l) {
        if (c === '{' || c === '(' || c === '[') depth++;
        else if (c === '}' || c === ')' || c === ']') depth--;
      }
      if (depth === 0 && l.trimEnd().endsWith(';')) break;
      if (j >= lines.length) fail(`cannot read a member of a class in the declarations near: ${line}`);
    }
    i = j - 1;
    const declaration = member.find((l) => !/^\s*(\/\*\*|\*)/.test(l) || /\*\/\s*\S/.test(l)) ?? '';
    const name = /^\s*(?:\/\*\*.*?\*\/\s*)?(?:(?:static|readonly|get|set|private|protected)\s+)*([\w$]+)/.exec(declaration)?.[1] ?? '';
    const internal = member.some((l) => /@internal\b/.test(l));
    if (name === 'constructor' && internal) kept.push('    private constructor();');
    else if (name.startsWith('_') || internal) continue;
    else if (member.some((l) => /@readonly\b/.test(l)) && !/^\s*(readonly|get|set)\b/.test(declaration)) {
      kept.push(...member.map((l) => (l === declaration ? l.replace(/^(\s*)/, '$1readonly ') : l)));
    } else kept.push(...member);
  }
  return kept.join('\n');
}

// A package scope of their own, so that 'snail-core' in them is not the
// repository's package (a self-reference) but the installed one below.
fs.writeFileSync(path.join(raw, 'package.json'), JSON.stringify({ private: true, type: 'module' }));

// snail-core/node re-exports the package root: its roll-up names the root's
// declarations through the package ('snail-core'), which API Extractor
// leaves as an import, instead of declaring a second copy of each class.
const ROOT = '../browser/index.mjs';
for (const entry of fs.readdirSync(path.join(raw, 'host/node'))) {
  const file = path.join(raw, 'host/node', entry);
  const text = fs.readFileSync(file, 'utf8');
  const strays = [...text.matchAll(/(?:from |import\()['"](\.\.\/browser\/[^'"]+)['"]/g)].map((m) => m[1]).filter((s) => s !== ROOT && s !== '../browser/platform.mjs');
  if (strays.length) fail(`host/node/${entry.replace('.d.mts', '.mjs')} names ${[...new Set(strays)].join(', ')} in its declarations; name the package root's types through ${ROOT}`);
  fs.writeFileSync(file, text.replaceAll(`'${ROOT}'`, "'snail-core'").replaceAll(`"${ROOT}"`, '"snail-core"'));
}

const ENTRIES = [
  { name: 'snail-core', source: 'host/browser/index.d.mts', types: [] },
  { name: 'snail-core/node', source: 'host/node/index.d.mts', types: ['node'] },
  { name: 'snail-core/adapter-contract', source: 'host/browser/adapter-contract.d.mts', types: [] },
];

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(reports, { recursive: true });
const changed = [];
for (const entry of ENTRIES) {
  const rolled = path.join(out, entry.source);
  const reportName = `${entry.name.replace('/', '-')}.api.md`;
  const config = extractor.ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: path.join(raw, entry.source),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023', 'dom'],
            types: entry.types, strict: true, skipLibCheck: true,
          },
          files: [path.join(raw, entry.source)],
        },
      },
      apiReport: { enabled: true, reportFileName: reportName, reportFolder: reports, reportTempFolder: newReports },
      docModel: { enabled: false },
      tsdocMetadata: { enabled: false },
      dtsRollup: { enabled: true, untrimmedFilePath: rolled },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: 'error' } },
        extractorMessageReporting: {
          default: { logLevel: 'error' },
          // The surface has no release tags (alpha, beta, public): all of it is public.
          'ae-missing-release-tag': { logLevel: 'none' },
          'ae-internal-missing-underscore': { logLevel: 'none' },
          'ae-unresolved-link': { logLevel: 'none' },
          // JSDoc documents the surface; docs/api.md is its reference (api-docs.test.mjs).
          'ae-undocumented': { logLevel: 'none' },
        },
        // JSDoc is not TSDoc ({type} annotations, @typedef): its syntax is not checked here.
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: path.join(root, 'tools/types.mjs'),
    packageJsonFullPath: path.join(root, 'package.json'),
  });
  const result = extractor.Extractor.invoke(config, {
    localBuild: values.update,
    showVerboseMessages: false,
    messageCallback: (message) => {
      if (message.messageId === 'console-compiler-version-notice') message.handled = true;
    },
  });
  if (!result.succeeded && !(result.apiReportChanged && result.errorCount === 0 && !values.update)) {
    fail(`API Extractor reported ${result.errorCount} error(s) for ${entry.name} (above)`);
  }
  if (result.apiReportChanged) changed.push(path.relative(root, path.join(reports, reportName)));
  if (entry.name === 'snail-core') {
    // The root's roll-up as an installed package, for the node entry to import.
    const installed = path.join(raw, 'node_modules/snail-core');
    fs.mkdirSync(installed, { recursive: true });
    fs.writeFileSync(path.join(installed, 'package.json'), JSON.stringify({ name: 'snail-core', type: 'module', types: './index.d.mts' }));
    fs.copyFileSync(rolled, path.join(installed, 'index.d.mts'));
  }
}
// In the package, the node roll-up imports the root's from beside it.
const node = path.join(out, 'host/node/index.d.mts');
fs.writeFileSync(node, fs.readFileSync(node, 'utf8').replace(/ from (['"])snail-core\1;$/gm, " from '../browser/index.mjs';"));

if (changed.length && !values.update) {
  fail(`the public API differs from ${changed.join(', ')}: if the change is meant, run \`npm run api\` (node tools/types.mjs --update) and commit the reports; ${path.relative(root, newReports)}/ holds the new ones`);
}
if (changed.length) process.stdout.write(`types: updated ${changed.join(', ')}\n`);
