// The file grant under a concurrent attacker: a second process
// (fixtures/swap-attacker.mjs) swaps a granted subdirectory and a granted file
// for symbolic links to an outside directory in a loop, while this process
// writes and reads through them. Used by node-files-race.test.mjs (a bounded
// run) and tools/race-files.mjs (as long as one likes).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { GrantedFiles } from '../../host/node/files.mjs';
import { nodeArmed } from '../../host/node/fsutil.mjs';
import { ServiceError } from '../../host/browser/services.mjs';
import { statusName } from '../../host/browser/status.mjs';

const attacker = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/swap-attacker.mjs');
const OUTSIDE = 'OUTSIDE: must never be read, replaced or joined';

/**
 * Everything in a directory tree (links not followed): names, kinds, sizes,
 * inode numbers, modification times and contents.
 * @param {string} dir
 */
function snapshot(dir) {
  /** @type {string[]} */
  const out = [];
  const walk = (/** @type {string} */ d) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      const content = st.isFile() ? fs.readFileSync(p, 'latin1') : st.isSymbolicLink() ? `-> ${fs.readlinkSync(p)}` : '';
      out.push(`${path.relative(dir, p)} ${st.mode.toString(8)} ${st.size} ${st.ino} ${st.mtimeMs} ${content}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * Runs `operations` writes and reads (in turn: data/sub/f.txt, data/f.txt)
 * against the attacker, `concurrency` at a time.
 * @param {{ operations: number, concurrency?: number, files?: (grant: string) => GrantedFiles }} options
 */
export async function raceGrant({ operations, concurrency = 8, files: makeFiles }) {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'snail-race-')));
  const grant = path.join(tmp, 'grant');
  const outside = path.join(tmp, 'outside');
  fs.mkdirSync(path.join(grant, 'sub'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(grant, 'f.txt'), 'inside');
  fs.writeFileSync(path.join(grant, 'sub', 'f.txt'), 'inside sub');
  fs.writeFileSync(path.join(outside, 'f.txt'), OUTSIDE);
  fs.writeFileSync(path.join(outside, 'keep.txt'), OUTSIDE);
  const before = snapshot(outside);
  // Every entry made or removed in the outside directory, even for a moment.
  /** @type {string[]} */
  const outsideEvents = [];
  const watcher = fs.watch(outside, (type, name) => { outsideEvents.push(`${type} ${name}`); });

  const files = makeFiles ? makeFiles(grant) : new GrantedFiles([{ path: grant, as: 'data' }]);
  const child = spawn(process.execPath, [attacker, grant, outside], { stdio: ['pipe', 'pipe', 'inherit'] });
  let childOut = '';
  child.stdout.setEncoding('utf8');
  const ready = new Promise((resolve, reject) => {
    child.stdout.on('data', (t) => {
      childOut += t;
      if (childOut.startsWith('ready\n')) resolve(undefined);
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the attacker exited early (${code})`)));
  });
  await ready;
  const exited = new Promise((resolve) => child.on('exit', resolve));

  /** @type {Record<string, number>} */
  const outcomes = {};
  /** @type {string[]} */
  const wrongReads = [];
  /** @type {unknown[]} */
  const unexpected = [];
  const signal = new AbortController().signal;
  let next = 0;
  const worker = async () => {
    while (next < operations) {
      const i = next++;
      const target = i % 2 === 0 ? 'data/sub/f.txt' : 'data/f.txt';
      const writing = i % 4 < 2;
      const what = `${writing ? 'write' : 'read'} ${target}`;
      try {
        if (writing) {
          await files.write(signal, target, new TextEncoder().encode(`written ${i}`));
        } else {
          const text = new TextDecoder().decode(await files.read(signal, target));
          if (!/^(inside|inside sub|written \d+)$/.test(text)) wrongReads.push(`${target}: ${JSON.stringify(text)}`);
        }
        outcomes[`${what} ok`] = (outcomes[`${what} ok`] ?? 0) + 1;
      } catch (error) {
        if (!(error instanceof ServiceError)) {
          unexpected.push(error);
          continue;
        }
        const key = `${what} ${statusName(error.status)}`;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    child.stdin.end();
    await exited;
    watcher.close();
  }
  const rounds = Number(childOut.split('\n')[1]);
  // The attacker put everything back: anything left is ours.
  const leftovers = snapshot(grant).filter((line) => /\.tmp /.test(line));
  const after = snapshot(outside);
  const armed = { descriptors: nodeArmed.descriptors, tempFiles: nodeArmed.tempFiles };
  fs.rmSync(tmp, { recursive: true, force: true });
  return {
    rounds, outcomes, wrongReads, unexpected, leftovers, armed,
    outsideChanged: before.join('\n') !== after.join('\n') ? { before, after } : null,
    outsideEvents,
  };
}
