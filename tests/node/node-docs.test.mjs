// docs/node.md promises what the code does: its option table is nodeHost()'s
// options and its name-encoding examples are the encoding.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { nodeHost } from '../../host/node/index.mjs';
import { encodeName } from '../../host/node/storage.mjs';
import { root } from './helpers.mjs';

const doc = fs.readFileSync(path.join(root, 'docs/node.md'), 'utf8');

test('node docs: the_option_table_lists_exactly_the_options_of_nodeHost', () => {
  const section = doc.slice(doc.indexOf('## One entry point'), doc.indexOf('## Files and permissions'));
  const documented = [...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
  assert.throws(() => nodeHost(/** @type {any} */ ({ nope: 1 })), (e) => {
    const listed = /its options are (.*)$/.exec(/** @type {Error} */ (e).message)?.[1].split(', ');
    assert.deepEqual([...(listed ?? [])].sort(), [...documented].sort());
    return true;
  });
});

test('node docs: the_encoding_examples_hold', () => {
  assert.equal(encodeName('A'), '^a');
  assert.equal(encodeName('/'), '~2f');
  for (const kept of ['a', 'z', '0', '9', '-', '_', '.']) assert.equal(encodeName(kept), kept);
  assert.match(doc, /`A` → `\^a`/);
  assert.match(doc, /`\/` → `~2f`/);
});
