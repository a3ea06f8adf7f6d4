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

/** The value of the input `selector` finds. @param {import('./harness.mjs').Page} page @param {string} selector */
const valueOf = (page, selector) => page.$eval(selector, (e) => /** @type {HTMLInputElement} */ (e).value);

/** Replaces what the input `selector` finds holds by `text`, as typing would. @param {import('./harness.mjs').Page} page @param {string} selector @param {string} text */
async function fill(page, selector, text) {
  await page.$eval(selector, (e) => { /** @type {HTMLInputElement} */ (e).value = ''; });
  await page.type(selector, text);
}

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
  // Why six are queued, in the page's words.
  assert.equal(await textOf(page, '#why-queued'), '6 queued: at most 4 tasks may have entered Wasm at once (admission control, maxEntered) and 4 have (started and not finished); a queued task starts when one of them finishes.');
  assert.equal(await valueOf(page, '#bound'), '4');

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
    ran: Number(document.getElementById('peak-ran')?.textContent),
    points: ['queued', 'ran', 'suspended'].map((k) => (document.getElementById(`line-${k}`)?.getAttribute('points') ?? '').split(' ').filter(Boolean).length),
  }));
  const [queuedPeak, suspendedPeak] = chart.peaks.map(Number);
  assert.ok(queuedPeak >= 6 && queuedPeak <= 10, `the queued line's peak (${queuedPeak}) lies between the six left waiting and the ten dispatched`);
  assert.equal(suspendedPeak, 4);
  assert.ok(chart.ran >= 4, `the ran line's peak (${chart.ran}) counts the four workers the click woke`);
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

  // The log of what the user did, in order, each with its time.
  const actions = await page.$$eval('#actions li', (items) => items.map((li) => [li.querySelector('time')?.textContent ?? '', li.textContent?.slice((li.querySelector('time')?.textContent ?? '').length)]));
  assert.ok(actions.every(([time]) => /^\d+\.\d s$/.test(time)), `every action has its time: ${JSON.stringify(actions)}`);
  assert.deepEqual(actions.map(([, text]) => text), [
    // Task #1 is the program's own visits task.
    'Dispatch: 10 workers (#2 to #11)',
    'Go: 4 workers waited for it',
    `Cancel: ${ids[5]} (queued)`,
    `Cancel: ${ids[0]} (suspended)`,
    'Drain: waiting for 4 live tasks',
    'Go: 4 workers waited for it',
    'Drain: no task is live',
    'Dispatch: 10 workers (#12 to #21)',
    'Close: 10 live',
    'Close: cancelled 10, stuck 0',
  ]);
  assert.equal(await textOf(page, '#why-queued'), 'The runtime is closed.');

  // The storage survived: a reload counts a second visit.
  await page.reload();
  await shows({ live: 0, returned: 1 }, 'ready');
  assert.match(await textOf(page, '#visits') ?? '', /run in this browser 2 times /);
  await fsp.access(path.join(root, 'test-results/taskview.png'));
});

test('live task view: the admission bound is a control, and a new bound reloads the page with it', async (t) => {
  const page = await browser.newPage();
  t.after(() => page.close());
  const log = collectConsole(page);
  await page.goto(`${openUrl}?maxEntered=4&workers=5&db=taskview-bound`);
  await waitInPage(page, () => document.getElementById('status')?.textContent === 'ready', undefined, { timeout: 20_000 });
  await fill(page, '#bound', '2');
  await Promise.all([page.waitForNavigation(), page.click('#apply-bound')]);
  assert.match(page.url(), /maxEntered=2/);
  await waitInPage(page, () => document.getElementById('status')?.textContent === 'ready', undefined, { timeout: 20_000 });
  assert.equal(await valueOf(page, '#bound'), '2');
  assert.equal(new URL(page.url()).searchParams.get('workers'), '5', 'the other parameters are kept');
  assert.equal(await page.evaluate(() => /** @type {any} */ (globalThis).taskView.rt.limits.maxEntered), 2);
  await page.click('#dispatch');
  await waitInPage(page, () => document.getElementById('count-queued')?.textContent === '3' && document.getElementById('count-suspended')?.textContent === '2', undefined, { timeout: 20_000 });
  assert.match(await textOf(page, '#why-queued') ?? '', /^3 queued: at most 2 tasks may have entered Wasm at once/);
  // A bound that is not a whole number is refused in the log, and the page stays.
  await fill(page, '#bound', '0');
  await page.click('#apply-bound');
  assert.match(await textOf(page, '#actions li:last-child') ?? '', /Admission bound: 0 is not a whole number from 1 to 10000; kept 2$/);
  assert.equal(new URL(page.url()).searchParams.get('maxEntered'), '2');
  assert.equal(log.hasErrors(), false, log.format());
});

// The screenshot of the view in a fixed state, compared with the checked-in
// one. With clock=manual the chart's samples and the log's times advance only
// when the test samples, so every run draws the same picture.
// SNAIL_UPDATE_SCREENSHOTS=1 records a new one: each browser draws text its own
// way, so each has its own (tests/browser/screenshots/taskview.png for
// Chromium, taskview-firefox.png for Firefox).
const baselineOf = (/** @type {string} */ id) => path.join(root, `tests/browser/screenshots/taskview${id === 'chromium' ? '' : `-${id}`}.png`);

test('live task view: looks as recorded, axes, ticks and legend included', async (t) => {
  const BASELINE = baselineOf(browser.id);
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720, deviceScaleFactor: 1 });
  t.after(() => page.close());
  const log = collectConsole(page);
  await page.goto(`${openUrl}?maxEntered=4&workers=10&db=taskview-screenshot&clock=manual`);
  await waitInPage(page, () => document.getElementById('status')?.textContent === 'ready' && /1 time /.test(document.getElementById('visits')?.textContent ?? ''), undefined, { timeout: 20_000 });
  const sample = (/** @type {number} */ n) => page.evaluate((n) => { for (let i = 0; i < n; i++) /** @type {any} */ (globalThis).taskView.sample(); }, n);
  await sample(20);
  await page.click('#dispatch');
  await waitInPage(page, () => document.getElementById('count-queued')?.textContent === '6'
    && [...document.querySelectorAll('#tasks tr')].filter((r) => r.cells[3].textContent === 'snail.event_wait("click #go")').length === 4, undefined, { timeout: 20_000 });
  await sample(40);
  // Structure first: what the picture must show, whatever the pixels.
  const chart = await page.evaluate(() => ({
    y: [...document.querySelectorAll('#y-ticks text')].map((e) => e.textContent),
    x: [...document.querySelectorAll('#x-ticks text')].map((e) => e.textContent),
    titles: [...document.querySelectorAll('#chart > text')].map((e) => e.textContent),
    peaks: ['queued', 'ran', 'suspended'].map((k) => document.getElementById(`peak-${k}`)?.textContent),
    actions: [...document.querySelectorAll('#actions li')].map((li) => li.textContent),
  }));
  assert.deepEqual(chart, {
    y: ['0', '5', '10'],
    x: ['30', '25', '20', '15', '10', '5', 'now'],
    titles: ['tasks', 'seconds ago'],
    // The first sample counts the visits task, which ran while the page loaded.
    peaks: ['6', '4', '4'],
    actions: ['2.0 sDispatch: 10 workers (#2 to #11)'],
  });
  // Nothing moves: the live view renders every frame, the same state the same way.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const shot = Buffer.from(await page.screenshot({ fullPage: true }));
  await fsp.mkdir(path.join(root, 'test-results'), { recursive: true });
  await fsp.writeFile(path.join(root, 'test-results/taskview-fixed.png'), shot);
  if (process.env.SNAIL_UPDATE_SCREENSHOTS === '1') {
    await fsp.mkdir(path.dirname(BASELINE), { recursive: true });
    await fsp.writeFile(BASELINE, shot);
  }
  const baseline = await fsp.readFile(BASELINE).catch(() => null);
  assert.ok(baseline, `${path.relative(root, BASELINE)} is missing: record it with SNAIL_UPDATE_SCREENSHOTS=1`);
  const diff = await page.evaluate(async ({ a, b }) => {
    /** @param {string} base64 */
    const pixels = async (base64) => {
      const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${base64}`)).blob());
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
      context.drawImage(bitmap, 0, 0);
      return { width: bitmap.width, height: bitmap.height, data: context.getImageData(0, 0, bitmap.width, bitmap.height).data };
    };
    const [x, y] = [await pixels(a), await pixels(b)];
    if (x.width !== y.width || x.height !== y.height) return { size: `${x.width}x${x.height} against ${y.width}x${y.height}`, differing: 1 };
    let differing = 0;
    for (let i = 0; i < x.data.length; i += 4) {
      const d = Math.max(Math.abs(x.data[i] - y.data[i]), Math.abs(x.data[i + 1] - y.data[i + 1]), Math.abs(x.data[i + 2] - y.data[i + 2]));
      if (d > 40) differing++;
    }
    return { size: `${x.width}x${x.height}`, differing: differing / (x.width * x.height) };
  }, { a: shot.toString('base64'), b: baseline.toString('base64') });
  // Anti-aliasing and the scheduler's count of yields may differ in a few
  // pixels between runs (0.004 % measured); one colour changed on the page
  // changes 0.12 %, a label or a line more.
  assert.ok(diff.differing <= 0.0005, `the view differs from ${path.relative(root, BASELINE)} in ${(diff.differing * 100).toFixed(2)} % of its pixels (${diff.size}); test-results/taskview-fixed.png is how it looks now`);
  assert.equal(log.hasErrors(), false, log.format());
});
