#!/usr/bin/env node
// Generates the TypeScript declarations of the package from the JSDoc:
// dist/types/host/**/*.d.mts, which package.json's "types" conditions name.
//
//   node tools/types.mjs
//
// `npm pack` and `npm publish` run it (the prepack script); the declarations
// are not kept in git.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist/types');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
if (!fs.existsSync(tsc)) {
  process.stderr.write('types: TypeScript is missing from node_modules; run npm install (or tools/bootstrap.sh) first\n');
  process.exit(2);
}
fs.rmSync(out, { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tools/tsconfig.types.json')], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  process.stderr.write('types: tsc reported errors; the declarations were not written correctly\n');
  process.exit(1);
}
// TypeScript 7 keeps a JSDoc `@private` on a property as a comment only and
// emits the property without a type (`bridge;`), which consumers compiling
// with noImplicitAny and without skipLibCheck reject. TypeScript 5 emitted
// `private bridge;`, which they accept: restore that form.
const privateUntyped = /(\/\*\*[^*]*?@private\b[^*]*?\*\/\s*)(?!private\b)([A-Za-z_$][\w$]*);/g;
for (const entry of fs.readdirSync(out, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.mts')) continue;
  const file = path.join(entry.parentPath, entry.name);
  const text = fs.readFileSync(file, 'utf8');
  const fixed = publicSurface(text.replace(privateUntyped, '$1private $2;'));
  if (fixed !== text) fs.writeFileSync(file, fixed);
}

/**
 * Leaves the internal members of classes out of the declarations, so that a
 * consumer's compiler refuses them: members whose name starts with `_`
 * (CONTRIBUTING.md) and members whose JSDoc says `@internal` (a setter of a
 * public getter, for example). An internal constructor becomes
 * `private constructor();`: the class is still a type and works with
 * `instanceof`, but only snail-core makes its objects. A field whose JSDoc
 * says `@readonly` is declared `readonly`.
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
    if (lines[j].startsWith('    /**')) {
      while (!lines[j].includes('*/')) member.push(lines[j++]);
      member.push(lines[j++]);
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
      if (j >= lines.length) throw new Error(`types: cannot read a member of a class in the declarations near: ${line}`);
    }
    i = j - 1;
    const declaration = member.find((l) => !/^\s*(\/\*\*|\*)/.test(l)) ?? '';
    const name = /^\s*(?:(?:static|readonly|get|set|private|protected)\s+)*([\w$]+)/.exec(declaration)?.[1] ?? '';
    const internal = member.some((l) => /@internal\b/.test(l));
    if (name === 'constructor' && internal) kept.push('    private constructor();');
    else if (name.startsWith('_') || internal) continue;
    else if (member.some((l) => /@readonly\b/.test(l)) && !/^\s*(readonly|get|set)\b/.test(declaration)) {
      // TypeScript 7 drops `@readonly` on a field assigned in the constructor.
      kept.push(...member.map((l) => (l === declaration ? l.replace(/^(\s*)/, '$1readonly ') : l)));
    } else kept.push(...member);
  }
  return kept.join('\n');
}

for (const entry of ['host/browser/index.d.mts', 'host/node/index.d.mts', 'host/browser/adapter-contract.d.mts']) {
  const file = path.join(out, entry);
  if (!fs.existsSync(file)) {
    process.stderr.write(`types: dist/types/${entry} was not generated\n`);
    process.exit(1);
  }
  // The API speaks of WebAssembly, AbortSignal, Response and the page's
  // elements, which TypeScript declares in its DOM library: each entry point
  // brings it in, so that a Node project without "dom" in its lib compiles.
  fs.writeFileSync(file, `/// <reference lib="dom" />\n${fs.readFileSync(file, 'utf8')}`);
}
