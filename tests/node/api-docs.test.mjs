// The reference documents agree with what they describe: docs/api.md with
// the exports of the package's entry points (their generated TypeScript
// declarations and the modules themselves), docs/cli.md with the command's
// options and exit codes, docs/guide.md with the example it builds.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { root } from './helpers.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
/** The entry points: specifier -> the source module's path in the package. */
const entryPoints = Object.fromEntries(Object.entries(pkg.exports)
  .filter(([key, target]) => key !== './package.json' && typeof target === 'object')
  .map(([key, target]) => [key === '.' ? 'snail-core' : `snail-core/${key.slice(2)}`, /** @type {any} */ (target).default]));

/** @type {string} */
let types;

before(() => {
  // The declarations as `npm pack` makes them (tools/types.mjs: one rolled-up
  // file per entry point), into a temporary directory.
  types = fs.mkdtempSync(path.join(os.tmpdir(), 'snail-api-'));
  const r = spawnSync(process.execPath, [path.join(root, 'tools/types.mjs'), '--out', path.join(types, 'dist')], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  types = path.join(types, 'dist');
});

after(() => {
  fs.rmSync(path.dirname(types), { recursive: true, force: true });
});

/** The declaration file of a source module (./host/x.mjs). @param {string} source */
function declarationOf(source) {
  return path.join(types, source.replace(/^\.\//, '').replace(/\.mjs$/, '.d.mts'));
}

/**
 * The names a declaration file exports, following `export * from`.
 * @param {string} file
 * @returns {Set<string>}
 */
function exportsOf(file) {
  assert.ok(fs.existsSync(file), `${path.relative(types, file)} was generated`);
  const code = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const names = new Set();
  for (const m of code.matchAll(/^export\s+(?:declare\s+)?(?:abstract\s+)?(?:class|function|const|let|var|type|interface|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1]);
  for (const m of code.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const part of m[1].split(',')) {
      const spec = part.trim().replace(/^type\s+/, '');
      if (spec) names.add(spec.split(/\s+as\s+/).at(-1)?.trim());
    }
  }
  for (const m of code.matchAll(/^export\s+\*\s+from\s+['"]([^'"]+)['"]/gm)) {
    for (const name of exportsOf(path.resolve(path.dirname(file), m[1].replace(/\.mjs$/, '.d.mts')))) names.add(name);
  }
  return names;
}

/**
 * The public members of a class in a declaration file: not private or
 * protected, not internal (a leading underscore), not the constructor.
 * @param {string} file @param {string} name
 */
function membersOf(file, name) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex((l) => new RegExp(`^export declare class ${name}\\b`).test(l));
  assert.ok(start >= 0, `class ${name} is declared in ${path.relative(types, file)}`);
  const members = new Set();
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('}')) break;
    const m = /^ {4}(?!private |protected )(?:static )?(?:readonly )?(?:get |set )?([A-Za-z_$][\w$]*)\??[(:<;]/.exec(line);
    if (m && !m[1].startsWith('_') && m[1] !== 'constructor' && m[1] !== 'toString') members.add(m[1]);
  }
  return members;
}

const apiText = fs.readFileSync(path.join(root, 'docs/api.md'), 'utf8');

/**
 * docs/api.md: its `## \`ENTRY\`` sections, each with its `### \`NAME\``
 * headings and, under them, `#### \`x.MEMBER\`` headings.
 */
function documented() {
  /** @type {Map<string, Map<string, Set<string>>>} */
  const sections = new Map();
  /** @type {Map<string, Set<string>> | null} */
  let section = null;
  /** @type {Set<string> | null} */
  let members = null;
  for (const line of apiText.split('\n')) {
    let m;
    if ((m = /^## `([^`]+)`/.exec(line))) {
      section = new Map();
      sections.set(m[1], section);
      members = null;
    } else if ((m = /^### `([A-Za-z_$][\w$]*)/.exec(line))) {
      assert.ok(section, `${m[1]} is documented outside an entry point's section`);
      assert.ok(!section.has(m[1]), `${m[1]} is documented twice`);
      members = new Set();
      section.set(m[1], members);
    } else if ((m = /^#### `(?:new )?[A-Za-z_$][\w$]*\.([A-Za-z_$][\w$]*)/.exec(line))) {
      assert.ok(members, `member ${m[1]} is documented outside a class`);
      members.add(m[1]);
    }
  }
  return sections;
}

test('api docs: every_entry_point_has_a_section_and_every_section_is_an_entry_point', () => {
  assert.deepEqual([...documented().keys()].sort(), Object.keys(entryPoints).sort());
});

test('api docs: the_documented_names_are_exactly_the_exports_of_each_entry_point', async () => {
  const sections = documented();
  const neutral = /** @type {Map<string, Set<string>>} */ (sections.get('snail-core'));
  for (const [specifier, source] of Object.entries(entryPoints)) {
    const declared = exportsOf(declarationOf(source));
    const names = new Set(/** @type {Map<string, Set<string>>} */ (sections.get(specifier)).keys());
    // snail-core/node re-exports the package root; its section lists what it adds.
    if (specifier === 'snail-core/node') for (const n of neutral.keys()) names.add(n);
    const undocumented = [...declared].filter((n) => !names.has(n)).sort();
    const unknown = [...names].filter((n) => !declared.has(n)).sort();
    assert.deepEqual({ undocumented, unknown }, { undocumented: [], unknown: [] }, `${specifier}: docs/api.md and ${source}`);

    // The declarations describe the module: every value it exports is declared.
    const module = await import(path.join(root, source));
    const missing = Object.keys(module).filter((n) => !declared.has(n)).sort();
    assert.deepEqual(missing, [], `${specifier}: exports without a declaration`);
  }
});

test('api docs: the_members_of_runtime_and_task_are_documented_and_exist', () => {
  const sections = documented();
  const neutral = /** @type {Map<string, Set<string>>} */ (sections.get('snail-core'));
  for (const [name, file] of [['Runtime', 'host/browser/index.d.mts'], ['Task', 'host/browser/index.d.mts']]) {
    const declared = [...membersOf(path.join(types, file), name)].sort();
    const docs = [.../** @type {Set<string>} */ (neutral.get(name))].sort();
    assert.ok(declared.length >= 8, `${name} has ${declared.length} public members: the parser found them`);
    assert.deepEqual(docs, declared, `${name}: the members docs/api.md documents and those its declaration has`);
  }
});

test('cli docs: every_option_of_the_help_is_in_cli_md_and_the_help_gives_every_exit_code_and_reason_of_cli_md', () => {
  const help = spawnSync(process.execPath, [path.join(root, 'host/cli/snail-core.mjs'), '--help'], { encoding: 'utf8' }).stdout;
  const cliText = fs.readFileSync(path.join(root, 'docs/cli.md'), 'utf8');
  const options = [...new Set([...help.matchAll(/(?<![\w-])(--[a-z][\w-]*|-[a-z])\b/g)].map((m) => m[1]))];
  assert.ok(options.length >= 8, options.join(' '));
  const missing = options.filter((o) => !cliText.includes(`\`${o}`) && !cliText.includes(` ${o} `));
  assert.deepEqual(missing, [], 'options of --help that docs/cli.md does not mention');
  // The exit codes of --help are the rows of cli.md's exit status table, each
  // with every reason the table gives, word for word: markdown, line breaks
  // and indentation aside.
  const words = (/** @type {string} */ text) => text.replace(/\\\|/g, '|').replace(/`/g, '').replace(/\s+/g, ' ').trim();
  /** @type {Record<string, string>} */
  const helpCodes = {};
  let code = '';
  for (const line of help.slice(help.indexOf('\nExit codes:\n') + 1).split('\n').slice(1)) {
    const row = /^ {2}(\d+|other) +(\S.*)$/.exec(line);
    if (row) {
      code = row[1];
      helpCodes[code] = row[2];
    } else if (/^ {8}\S/.test(line) && code) helpCodes[code] += ` ${line}`;
    else break;
  }
  const table = cliText.slice(cliText.indexOf('### Exit status'));
  const docCodes = Object.fromEntries([...table.slice(0, table.indexOf('\n\n', table.indexOf('| ---'))).matchAll(/^\| (\d+|other) \| (.*) \|$/gm)]
    .map((m) => [m[1], words(m[2])]));
  assert.deepEqual(Object.keys(docCodes), ['0', '1', '2', '70', '130', '141', '143', 'other']);
  assert.deepEqual(Object.fromEntries(Object.entries(helpCodes).map(([c, text]) => [c, words(text)])), docCodes,
    'the exit codes and reasons of --help and of the exit status table of docs/cli.md');
  for (const command of ['run', 'inspect', 'demo']) assert.match(cliText, new RegExp(`^## \`${command}\``, 'm'));
  // The message cli.md shows for a program that needs user imports is the
  // command's, as its golden case holds it.
  const needsImports = fs.readFileSync(path.join(root, 'tests/cli/cases/run-needs-user-imports/stderr'), 'utf8');
  assert.ok(cliText.includes(`\n\`\`\`\n${needsImports.replaceAll('needs-imports.wasm', 'app.wasm')}\`\`\`\n`), needsImports);
});

test('guide: its_programs_and_cmake_projects_are_the_examples_the_package_ships', () => {
  const guide = fs.readFileSync(path.join(root, 'docs/guide.md'), 'utf8');
  const block = (/** @type {string} */ lang) => [...guide.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
  const file = (/** @type {string} */ name) => fs.readFileSync(path.join(root, 'tools/cmake', name), 'utf8');
  assert.deepEqual(block('cpp'), [file('example/app.cpp')]);
  assert.deepEqual(block('c'), [file('example-c/app.c')]);
  assert.deepEqual(block('cmake'), [file('example/CMakeLists.txt'), file('example-c/CMakeLists.txt')]);
  // tests/node/package.test.mjs runs its JavaScript and its page against the installed package.
  assert.equal(block('js').length, 1);
  assert.equal(block('html').length, 1);
});

test('api docs: every error code snail-core throws is in the SnailError table of docs/api.md, and no other', () => {
  /** @param {string} dir @returns {string[]} */
  const sources = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.mjs') ? [p] : [];
  });
  const thrown = new Set(sources(path.join(root, 'host')).flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/code: '(ERR_[A-Z_]+)'/g)].map((m) => m[1])));
  const api = fs.readFileSync(path.join(root, 'docs/api.md'), 'utf8');
  const table = api.slice(api.indexOf('### `SnailError`'), api.indexOf('### `AbiError`'));
  const documented = new Set([...table.matchAll(/^\| `(ERR_[A-Z_]+)` \|/gm)].map((m) => m[1]));
  assert.ok(thrown.size > 10, `found ${thrown.size} codes in host/`);
  assert.deepEqual([...thrown].filter((c) => !documented.has(c)).sort(), [], 'thrown but not documented');
  assert.deepEqual([...documented].filter((c) => !thrown.has(c)).sort(), [], 'documented but never thrown');
});
