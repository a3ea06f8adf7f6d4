// The package from a bundler: a tiny app that imports 'snail-core' and a
// program, built with Vite into a temporary directory, runs in the browser under test from
// the built files alone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { build } from 'vite';

import { BROWSER_NAME, collectConsole, launchBrowser, root, startServer, waitInPage } from './harness.mjs';

/** @type {string} */
let dir;
/** @type {Awaited<ReturnType<typeof launchBrowser>>} */
let browser;

before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'snail-core-vite-'));
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

// The program as docs/guide.md says a Vite app reaches one the package ships.
const guide = fs.readFileSync(path.join(root, 'docs/guide.md'), 'utf8');
const viteImport = /^- Vite: `(import helloUrl from '([^']+)')`, then\n {2}`Runtime\.load\(helloUrl\)`/m.exec(guide);
assert.ok(viteImport, 'the guide says how a Vite app imports a shipped program');

const APP = `import { Runtime } from 'snail-core';
${viteImport[1]};

const out = [];
const rt = await Runtime.load(helloUrl, { stdout: (text) => { out.push(text); } });
const task = rt.dispatch('main');
await rt.drain();
const report = await rt.close();
document.getElementById('out').textContent = out.join('');
document.body.dataset.state = task.state;
document.body.dataset.cancelled = String(report.cancelled.length);
`;

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>snail-core with Vite</title></head>
<body><pre id="out"></pre><script type="module" src="./main.js"></script></body>
</html>
`;

test(`vite: an app importing snail-core builds and runs hello in ${BROWSER_NAME}`, async (t) => {
  const app = path.join(dir, 'app');
  await fsp.mkdir(path.join(app, 'node_modules'), { recursive: true });
  await fsp.writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await fsp.writeFile(path.join(app, 'index.html'), PAGE);
  await fsp.writeFile(path.join(app, 'main.js'), APP);
  // As if installed: node_modules/snail-core is the package (its root).
  await fsp.symlink(root, path.join(app, 'node_modules/snail-core'), 'dir');

  /** @type {string[]} */
  const warnings = [];
  await build({
    root: app,
    configFile: false,
    logLevel: 'silent',
    customLogger: {
      info() {}, warnOnce(m) { warnings.push(m); }, warn(m) { warnings.push(m); }, error(m) { warnings.push(m); },
      clearScreen() {}, hasErrorLogged: () => false, hasWarned: false,
    },
    build: { outDir: path.join(dir, 'dist'), emptyOutDir: true, target: 'esnext' },
  });
  if (warnings.length) t.diagnostic(`vite said: ${warnings.join(' | ')}`);
  // The browser entry reaches nothing of Node, so Vite has nothing to externalise.
  assert.deepEqual(warnings.filter((w) => /externali[sz]ed|node:|browser compatibility/i.test(w)), []);

  const files = await fsp.readdir(path.join(dir, 'dist/assets'));
  const scripts = files.filter((f) => f.endsWith('.js'));
  const programs = files.filter((f) => f.endsWith('.wasm'));
  assert.equal(programs.length, 1, `one program among the assets: ${files}`);
  assert.ok(scripts.length >= 1, `a bundle among the assets: ${files}`);
  const bundle = (await Promise.all(scripts.map((f) => fsp.readFile(path.join(dir, 'dist/assets', f), 'utf8')))).join('\n');
  assert.match(bundle, /WebAssembly\.promising/, 'the runtime is in the bundle');
  assert.doesNotMatch(bundle, /node:|getBuiltinModule|__vite-browser-external/, 'nothing of Node is in the bundle');

  // Only the built files are served: nothing of the repository.
  const server = await startServer({ root: path.join(dir, 'dist') });
  t.after(() => server.close());
  const page = await browser.newPage();
  t.after(() => page.close());
  const log = collectConsole(page);
  await page.goto(`${server.url}/index.html`);
  await waitInPage(page, () => document.body.dataset.state !== undefined, null, { timeout: 30_000 })
    .catch((e) => { throw new Error(`the app never finished\n${log.format()}`, { cause: e }); });
  const r = await page.evaluate(() => ({ out: document.getElementById('out')?.textContent, ...document.body.dataset }));
  assert.equal(r.state, 'returned', log.format());
  assert.equal(r.cancelled, '0');
  assert.equal(r.out, [
    '[root] hello from the root task',
    '[child b, rebound] child b bound its own printer',
    '[child b, rebound] child b still has it after a yield',
    "[root] child a woke up after 5 ms and still has the root's printer",
    '[root] children returned 1 and 2',
    '',
  ].join('\n'));
  assert.equal(log.hasErrors(), false, log.format());
  assert.deepEqual(server.requests.filter((q) => q.status !== 200), []);
  const wasm = server.requests.filter((q) => q.path.endsWith('.wasm'));
  assert.deepEqual(wasm.map((q) => q.path), [`/assets/${programs[0]}`]);
});
