// Every function copied with ownCopy() (own-code.mjs) sees, in its copy, only
// its parameters, what it declares and the globals: a name it took from its
// module would throw a ReferenceError, in the copy alone, on the first run of
// the line that reads it. This reads each call `ownCopy(f, ...)` in the sources,
// and type-checks f's code (comments removed: JSDoc types are not names it
// reads) on its own: a name it cannot find is one its copy would not see.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';

import { root } from './helpers.mjs';

const ts = createRequire(import.meta.url)('typescript5');

/** The sources that may call ownCopy(). */
const SOURCES = ['host/browser', 'bench'].flatMap((dir) => fs.readdirSync(path.join(root, dir))
  .filter((f) => f.endsWith('.mjs'))
  .map((f) => path.join(dir, f)));

/**
 * The calls of ownCopy() in a source: the function's code without comments,
 * and the names its call gives it.
 * @param {string} file
 */
function copiesIn(file) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  /** @type {Map<string, any>} */
  const functions = new Map();
  /** @type {string[]} */
  const calls = [];
  /** @param {any} node */
  const visit = (node) => {
    if (ts.isFunctionDeclaration(node) && node.name) functions.set(node.name.text, node);
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ownCopy') {
      const [fn] = node.arguments;
      assert.ok(node.arguments.length <= 2 && ts.isIdentifier(fn), `${file}: ownCopy() takes the name of a function declared in its file`);
      calls.push(fn.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const printer = ts.createPrinter({ removeComments: true });
  return calls.map((name) => {
    const fn = functions.get(name);
    assert.ok(fn, `${file}: ownCopy(${name}) copies a function declared in the same file`);
    return { file, name, code: printer.printNode(ts.EmitHint.Unspecified, fn, source) };
  });
}

/**
 * The names `code` reads that neither it nor the globals declare.
 * @param {string} code
 */
function unseenNames(code) {
  const name = 'copy.js';
  const text = `export const copy = (${code});\n`;
  const options = { allowJs: true, checkJs: true, noEmit: true, target: ts.ScriptTarget.ES2023, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'], types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (/** @type {string} */ file, /** @type {any} */ language) => (file === name ? ts.createSourceFile(name, text, language) : read(file, language));
  const program = ts.createProgram([name], options, host);
  const diagnostics = program.getSemanticDiagnostics(program.getSourceFile(name));
  // 2304: Cannot find name; 2552: Cannot find name, did you mean.
  return diagnostics.filter((/** @type {any} */ d) => d.code === 2304 || d.code === 2552)
    .map((/** @type {any} */ d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

test('ownCopy_copies_functions_that_read_no_name_of_their_module', () => {
  const copies = SOURCES.flatMap(copiesIn);
  // The runtime's lent and leased waits and operation starts, and the benchmark's floor.
  const names = copies.map((c) => c.name).sort();
  for (const want of ['bareWait', 'bookkeptWait', 'leasedWaitOf', 'lentWaitOf', 'operationStarts']) assert.ok(names.includes(want), `ownCopy(${want}) found in ${names.join(', ')}`);
  for (const c of copies) {
    assert.deepEqual(unseenNames(c.code), [], `${c.file}: ${c.name}'s copy reads names of its module`);
  }
});

test('ownCopy_names_check_finds_a_name_of_the_module', () => {
  // The check itself: a function that reads a name of its module, and one that takes it as a parameter.
  assert.deepEqual(unseenNames('function leaky(a) { return (x) => a + outside(x) + Math.max(x, 1); }'), ["Cannot find name 'outside'."]);
  assert.deepEqual(unseenNames('function closed(a, outside) { return (x) => a + outside(x) + Math.max(x, 1); }'), []);
});
