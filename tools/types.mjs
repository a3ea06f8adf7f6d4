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
  const fixed = text.replace(privateUntyped, '$1private $2;');
  if (fixed !== text) fs.writeFileSync(file, fixed);
}

for (const entry of ['host/browser/index.d.mts', 'host/node/index.d.mts', 'host/browser/adapter-contract.d.mts']) {
  if (!fs.existsSync(path.join(out, entry))) {
    process.stderr.write(`types: dist/types/${entry} was not generated\n`);
    process.exit(1);
  }
}
