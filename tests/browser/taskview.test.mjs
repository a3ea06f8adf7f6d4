// The live task view (examples/browser/), served by tools/serve.mjs as the
// README says, driven through its own buttons: the counts, the table and the
// chart while workers run, after a cancel, after a drain and after close. A
// screenshot is kept as test-results/taskview.png.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fsp from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { collectConsole, isDisabled, launchBrowser, root, textOf, waitInPage } from './harness.mjs';

/** @type {Awaited<ReturnType<typeof launchBrowser>>} */
let browser;
/** @type {import('node:child_process').ChildProcess} */
let server;
/** The URL tools/serve.mjs printed. */
let openUrl = '';
let serverOutput = '';

before(async () => {
  // The README's command is `npm run serve`, which builds and then runs this.
  server = spawn(process.execPath, [path.join(root, 'tools/serve.mjs'), '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stderr?.on('data', (chunk) => { serverOutput += chunk; });
  openUrl = await new Promise((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`tools/serve.mjs exited (${code}): ${serverOutput}`)));
    server.stdout?.on('data', (chunk) => {
      serverOutput += chunk;
      const m = /^open (http:\/\/\S+)$/m.exec(serverOutput);
      if (m) resolve(m[1]);
    });
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

test('serve: prints the live view\'s URL and serves it with correct content types', async () => {
  assert.match(openUrl, /^http:\/\/127\.0\.0\.1:\d+\/examples\/browser\/$/);
  const { hostname, port } = new URL(openUrl);
  // node:http sends the path as written (fetch would normalise the `..` away).
  const type = (/** @type {string} */ p) => new Promise((resolve, reject) => {
    http.get({ hostname, port, path: p }, (res) => {
      res.resume();
      res.on('end', () => resolve(`${res.statusCode} ${res.headers.location ?? res.headers['content-type']}`));
    }).on('error', reject);
  });
  assert.deepEqual({
    page: await type('/examples/browser/'),
    noSlash: await type('/examples/browser'),
    module: await type('/examples/browser/taskview.mjs'),
    runtime: await type('/host/browser/index.mjs'),
    program: await type('/build/programs/taskview.wasm'),
    missing: await type('/nothing/here.html'),
    escape: await type('/examples/../../../etc/passwd'),
    encodedEscape: await type('/examples/%2e%2e/%2e%2e/%2e%2e/etc/passwd'),
  }, {
    page: '200 text/html; charset=utf-8',
    noSlash: '301 /examples/browser/',
    module: '200 text/javascript; charset=utf-8',
    runtime: '200 text/javascript; charset=utf-8',
    program: '200 application/wasm',
    missing: '404 text/plain; charset=utf-8',
    escape: '403 text/plain; charset=utf-8',
    encodedEscape: '403 text/plain; charset=utf-8',
  });
});

test('live task view: shows the right counts while workers run, after cancel, drain and close', async (t) => {
  const page = await browser.newPage();
  t.after(() => page.close());
  const log = collectConsole(page);
  // Four tasks may enter Wasm at once, so that ten workers leave six queued.
  await page.goto(`${openUrl}?maxEntered=4&workers=10&db=taskview-test`);

  const KEYS = ['queued', 'executing', 'suspended', 'live', 'returned', 'cancelled', 'stored'];
  const counts = () => page.evaluate((keys) => Object.fromEntries(keys.map((k) => [k, Number(document.getElementById(`count-${k}`)?.textContent)])), KEYS);
  /** Waits until the page shows `expected` (a subset of the counts) and, if given, the status. */
  const shows = async (/** @type {Record<string, number>} */ expected, /** @type {string} */ status = '') => {
    try {
      await waitInPage(page, ({ expected, status }) => {
        const ok = Object.entries(expected).every(([k, v]) => document.getElementById(`count-${k}`)?.textContent === String(v));
        return ok && (!status || document.getElementById('status')?.textContent === status);
      }, { expected, status }, { timeout: 20_000 });
    } catch (error) {
      const now = await counts().catch(() => ({}));
      const st = await textOf(page, '#status').catch(() => '?');
      throw new Error(`the view never showed ${JSON.stringify(expected)} ${status}; it shows ${JSON.stringify(now)} ${st}\n${log.format()}`, { cause: error });
    }
  };
  /** The table: task, entry, state, waiting on. */
  const table = () => page.$$eval('#tasks tr', (rows) => rows.map((r) => [...r.cells].slice(0, 4).map((c) => c.textContent)));
  const WAIT_GO = 'snail.event_wait("click #go")';
  /** Every suspended worker waits for the click (the sleeps are over). */
  const allAtTheClick = async () => {
    await waitInPage(page, (wait) => [...document.querySelectorAll('#tasks tr')]
      .every((r) => r.cells[2].textContent !== 'suspended' || r.cells[3].textContent === wait), WAIT_GO, { timeout: 20_000 });
  };

  // The program's `visits` task ran at load and counted itself in IndexedDB.
  await shows({ live: 0, returned: 1 }, 'ready');
  assert.match(await textOf(page, '#visits') ?? '', /run in this browser 1 time /);

  await page.click('#dispatch');
  await shows({ queued: 6, executing: 0, suspended: 4, live: 10 });
  await allAtTheClick();
  const running = await table();
  assert.deepEqual(running.map((r) => r[2]), [...Array(4).fill('suspended'), ...Array(6).fill('queued')]);
  assert.deepEqual(running.map((r) => r[1]), Array(10).fill('worker'));
  assert.deepEqual(running.slice(0, 4).map((r) => r[3]), Array(4).fill(WAIT_GO));
  assert.deepEqual(running.slice(4).map((r) => r[3]), Array(6).fill(''));

  // Go: the four waiting workers store their result and return; four more enter.
  await page.click('#go');
  await shows({ queued: 2, suspended: 4, live: 6, returned: 5, stored: 4 });
  await allAtTheClick();

  // Cancel a queued worker (the last row) and a suspended one (the first).
  const ids = (await table()).map((r) => r[0]);
  await page.click(`#tasks tr[data-task="${ids[5].slice(1)}"] button`);
  await shows({ queued: 1, suspended: 4, live: 5, cancelled: 1 });
  await page.click(`#tasks tr[data-task="${ids[0].slice(1)}"] button`);
  await shows({ queued: 0, suspended: 4, live: 4, cancelled: 2 });
  await allAtTheClick();
  const afterCancel = await table();
  assert.equal(afterCancel.length, 4);
  assert.ok(!afterCancel.some((r) => r[0] === ids[0] || r[0] === ids[5]), 'the cancelled tasks left the table');

  // Drain waits for the live set to empty, which takes one more Go.
  await page.click('#drain');
  await shows({ live: 4 }, 'draining: 4 live');
  await page.click('#go');
  await shows({ queued: 0, executing: 0, suspended: 0, live: 0, returned: 9, cancelled: 2, stored: 8 }, 'drained');
  assert.deepEqual(await table(), []);

  // The chart saw the peaks: at least the six left queued (more when a turn
  // ended before all four starts were granted), four suspended, and tasks
  // that ran.
  const chart = await page.evaluate(() => ({
    peaks: ['queued', 'suspended'].map((k) => document.getElementById(`peak-${k}`)?.textContent),
    ran: Number(document.getElementById('peak-executing')?.textContent),
    points: ['queued', 'executing', 'suspended'].map((k) => (document.getElementById(`line-${k}`)?.getAttribute('points') ?? '').split(' ').filter(Boolean).length),
  }));
  const [queuedPeak, suspendedPeak] = chart.peaks.map(Number);
  assert.ok(queuedPeak >= 6 && queuedPeak <= 10, `the queued line's peak (${queuedPeak}) lies between the six left waiting and the ten dispatched`);
  assert.equal(suspendedPeak, 4);
  assert.ok(chart.ran >= 4, `the executing line's peak (${chart.ran}) counts the four workers the click woke`);
  assert.ok(chart.points.every((n) => n > 1 && n === chart.points[0]), `every line has the same samples: ${chart.points}`);

  // Close cancels what is live and reports it.
  await page.click('#dispatch');
  await shows({ live: 10, queued: 6 });
  await fsp.mkdir(path.join(root, 'test-results'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'test-results/taskview.png'), fullPage: true });
  await page.click('#close');
  await shows({ queued: 0, suspended: 0, live: 0, cancelled: 12 }, 'closed: cancelled 10, stuck 0');
  assert.deepEqual(await table(), []);
  assert.equal(await isDisabled(page, '#dispatch'), true);
  assert.equal(log.hasErrors(), false, log.format());
  assert.deepEqual(log.failedRequests, []);

  // The storage survived: a reload counts a second visit.
  await page.reload();
  await shows({ live: 0, returned: 1 }, 'ready');
  assert.match(await textOf(page, '#visits') ?? '', /run in this browser 2 times /);
  await fsp.access(path.join(root, 'test-results/taskview.png'));
});
