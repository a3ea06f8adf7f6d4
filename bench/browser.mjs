#!/usr/bin/env node
// Runs the benchmark suite in Debian's Chromium or Firefox ESR (puppeteer-core)
// and writes bench/results/chromium.json or firefox.json. Memory is not
// measured there: a page cannot read its resident memory.
//
//   node bench/browser.mjs [--quick] [--only GROUP[,GROUP...]] [--out FILE] [--browser chromium|firefox]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { launchBrowser, openBlankPage, runInPage, startServer } from '../tests/browser/harness.mjs';
import { benchArgs } from './args.mjs';
import { judge, median, spread } from './suite.mjs';
import { formatTable } from './table.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const values = benchArgs('node bench/browser.mjs', 'Runs the benchmark suite in headless Chromium or Firefox and writes bench/results/BROWSER.json\n(BROWSER-partial.json with --only); node bench/report.mjs makes the report.', { browser: ['chromium', 'firefox'] });

const only = values.only;
const id = /** @type {'chromium' | 'firefox'} */ (values.browser);
// A partial run does not replace the whole run's results, which the report reads.
const out = values.out ?? path.join(root, 'bench/results', only.length ? `${id}-partial.json` : `${id}.json`);
const server = await startServer();
// --expose-gc: rounds that each leave thousands of finished JSPI stacks collect
// them before the next (bench/suite.mjs, cancellation). A Firefox page has no
// way to force a collection.
// Firefox rounds performance.now() to a millisecond (20 µs with the first
// preference alone) unless told otherwise.
const browser = id === 'chromium'
  ? await launchBrowser({ browser: id, args: ['--js-flags=--expose-gc'], protocolTimeout: 60 * 60_000 })
  : await launchBrowser({ browser: id, prefs: { 'privacy.reduceTimerPrecision': false, 'privacy.reduceTimerPrecision.unconditional': false }, protocolTimeout: 60 * 60_000 });
/** The browser and its version, as the report names it ("Chromium 156.0.8078.114", "Firefox 153.8.0"). */
const env = `${browser.name} ${browser.version.replace(/^[^/]*\//, '')}`;
/**
 * Runs the suite (or some of its groups) in a fresh page.
 * @param {{ only: string[], skip: string[] }} groups
 */
async function runInFreshPage({ only, skip }) {
  const { page, log } = await openBlankPage(browser, server.url);
  page.on('console', (m) => { if (m.text().startsWith('bench: ')) process.stderr.write(`${m.text()}\n`); });
  const report = await runInPage(page, async ({ id, quick, only, skip }) => {
    const { runSuite } = await import('/bench/suite.mjs');
    const program = (/** @type {string} */ name) => `/build/programs/bench/${name}.wasm`;
    const suite = await runSuite({
      env: id,
      quick,
      only,
      skip,
      // Batches of 1,024 beside 1,000 suspended tasks, with the baseline's bare
      // promising calls beside the runtime's tasks (over 5,000 JSPI stacks at
      // once), crash the renderer here; the runtime alone runs them.
      fanoutBatches: [64, 256],
      // A second round of 10,000 sleepers crashes the renderer here, even with
      // the first round's stacks collected: one measured round per page,
      // after a warm-up of 1,000 (mergeCancellation() puts the pages' rounds
      // together).
      cancellationRounds: 1,
      program,
      bytes: async (name) => new Uint8Array(await (await fetch(program(name))).arrayBuffer()),
      loopDelay: () => {
        // A MessageChannel probe: how late each message arrives after it was posted.
        const channel = new MessageChannel();
        /** @type {number[]} */
        const delays = [];
        let running = false;
        let sent = 0;
        channel.port1.onmessage = () => {
          delays.push(performance.now() - sent);
          if (running) setTimeout(post, 1);
        };
        const post = () => { sent = performance.now(); channel.port2.postMessage(0); };
        return {
          start: () => { running = true; post(); },
          stop: () => {
            running = false;
            const s = [...delays].sort((a, b) => a - b);
            const at = (/** @type {number} */ q) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
            return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? 0, samples: s.length };
          },
        };
      },
      log: (line) => console.log(`bench: ${line}`),
      gc: /** @type {any} */ (globalThis).gc,
      minorGc: typeof (/** @type {any} */ (globalThis).gc) === 'function' ? () => /** @type {any} */ (globalThis).gc({ type: 'minor' }) : undefined,
    });
    return { ...suite, machine: navigator.userAgent };
  }, { id, quick: values.quick, only, skip }, { log, timeoutMs: 60 * 60_000, what: 'the benchmark suite' });
  await page.close();
  return { ...report, env };
}

/**
 * The cancellation group's rounds, each measured in a page of its own, as one
 * result: the spread of the rounds, and the median of their ratios.
 * @param {{ results: import('./suite.mjs').Result[] }[]} pages
 * @returns {import('./suite.mjs').Result}
 */
function mergeCancellation(pages) {
  const rounds = pages.map((p) => {
    const r = p.results.find((x) => x.name.startsWith('cancellation:'));
    if (!r || !r.baseline || r.ratio === undefined) throw new Error('a cancellation page returned no cancellation result');
    return { value: r.value.median, baseline: r.baseline.median, ratio: r.ratio, result: r };
  });
  const bare = (/** @type {number[]} */ xs) => { const { min, median: m, max } = spread(xs); return { min, median: m, max }; };
  const first = rounds[0].result;
  /** @type {import('./suite.mjs').Result} */
  const merged = {
    ...first,
    subject: `close() of a runtime with every task sleeping (${rounds.length} pages, each with one warm-up round and one measured)`,
    value: bare(rounds.map((r) => r.value)),
    baseline: bare(rounds.map((r) => r.baseline)),
    ratio: median(rounds.map((r) => r.ratio)),
    counters: { cancelled: rounds.reduce((sum, r) => sum + (r.result.counters?.cancelled ?? 0), 0) },
    met: undefined,
  };
  judge(merged);
  return merged;
}

try {
  // The collection group suspends 10,000 more calls: after the other groups'
  // stacks, the renderer crashes, so it gets a page of its own. The
  // cancellation group's rounds get a page each (see cancellationRounds).
  const wanted = (/** @type {string} */ group) => only.length === 0 || only.includes(group);
  const others = only.length === 0 || only.some((group) => group !== 'collection' && group !== 'cancellation');
  const report = others ? await runInFreshPage({ only, skip: ['collection', 'cancellation'] }) : null;
  const cancellationPages = [];
  for (let i = 0; wanted('cancellation') && i < (values.quick ? 1 : 3); i++) {
    cancellationPages.push(await runInFreshPage({ only: ['cancellation'], skip: [] }));
  }
  const collected = wanted('collection') ? await runInFreshPage({ only: ['collection'], skip: [] }) : null;
  const results = [
    ...(report?.results ?? []),
    ...(cancellationPages.length ? [mergeCancellation(cancellationPages)] : []),
    ...(collected?.results ?? []),
  ];
  const base = report ?? cancellationPages[0] ?? collected;
  const full = { ...base, results, date: new Date().toISOString(), quick: values.quick };
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(full, null, 2)}\n`);
  process.stdout.write(`${formatTable(full)}\n\nwritten to ${path.relative(process.cwd(), out)}\n`);
} finally {
  await browser.close();
  await server.close();
}
