#!/usr/bin/env node
// Generates docs/performance.md and docs/performance.svg from the benchmark
// results in bench/results/ (node.json, chromium.json, firefox.json,
// deno.json, bun.json), and the engine table of README.md (between its
// engine-table markers). No number in the report is written by hand.
//
//   node bench/report.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { formatTable } from './table.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resultsDir = path.join(root, 'bench/results');
/** The hosts, in the report's order, with the suites `npm test` runs there. */
const HOSTS = [
  { file: 'node', suites: 'types, C++ units, node suites, contract cases, CLI golden cases', command: 'npm run bench' },
  { file: 'chromium', suites: 'contract cases, browser suites', command: 'node bench/browser.mjs' },
  { file: 'firefox', suites: 'contract cases, browser suites', command: 'node bench/browser.mjs --browser firefox' },
  { file: 'deno', suites: 'contract cases, demo, Node host suites', command: 'deno run -A --v8-flags=--expose-gc bench/engine.mjs' },
  { file: 'bun', suites: 'contract cases (one known engine defect: a fetch abort settles late), demo, Node host suites', command: 'bun bench/engine.mjs' },
];
const reports = HOSTS
  .filter((h) => fs.existsSync(path.join(resultsDir, `${h.file}.json`)))
  .map((h) => ({ ...JSON.parse(fs.readFileSync(path.join(resultsDir, `${h.file}.json`), 'utf8')), host: h }));
if (reports.length === 0) {
  process.stderr.write('report: no results in bench/results/; run npm run bench first\n');
  process.exit(2);
}

/** Ratios held to a goal, as bars: green when met, red when not. */
function chart() {
  const rows = [];
  for (const r of reports) {
    for (const x of r.results) {
      // Goals stated as ratios only (absolute goals are in the table).
      if (x.ratio === undefined || !x.goal || !/\dx\b/.test(x.goal) || x.met === undefined) continue;
      rows.push({ label: `${r.env.split(' (')[0]}: ${x.name.replace(/^[^:]+: /, '')}`, ratio: x.ratio, met: x.met, goal: x.goal });
    }
  }
  const width = 900;
  const rowH = 26;
  const left = 430;
  const max = Math.max(2, ...rows.map((r) => r.ratio)) * 1.1;
  const scale = (/** @type {number} */ v) => ((width - left - 40) * v) / max;
  const esc = (/** @type {string} */ t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const bars = rows.map((r, i) => {
    const y = 30 + i * rowH;
    return [
      `<text x="${left - 8}" y="${y + 15}" text-anchor="end" font-size="12">${esc(r.label.slice(0, 64))}</text>`,
      `<rect x="${left}" y="${y + 3}" width="${scale(r.ratio).toFixed(1)}" height="16" fill="${r.met ? '#3a8f4b' : '#c0392b'}"/>`,
      `<text x="${left + scale(r.ratio) + 4}" y="${y + 15}" font-size="11">${r.ratio.toFixed(2)}x (${esc(r.goal)})</text>`,
    ].join('');
  }).join('\n');
  const height = 50 + rows.length * rowH;
  const one = left + scale(1);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="18" font-size="13" font-weight="bold">snail-core: ratio to the baseline measured in the same run (green: goal met)</text>
<line x1="${one}" y1="24" x2="${one}" y2="${height - 10}" stroke="#888" stroke-dasharray="4 3"/>
<text x="${one + 3}" y="${height - 12}" font-size="10" fill="#555">1x</text>
${bars}
</svg>
`;
}

/** @param {number} ns */
const time = (ns) => (ns >= 10000 ? `${(ns / 1000).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);
/**
 * One cell of the engine table: a row's ratio to its baseline, with the
 * baseline's median; a dash where the run has no such row.
 * @param {{ results: any[] }} r @param {(name: string) => boolean} which
 */
function cell(r, which) {
  const x = r.results.find((y) => which(y.name));
  if (!x || x.ratio === undefined) return '-';
  if (x.scale === 'bytes') return `${x.value.median.toFixed(0)} B (${x.ratio.toFixed(2)}x raw)`;
  return `${x.ratio.toFixed(2)}x (raw ${time(x.baseline.median)})`;
}

/** The fan-out row of the largest batch every host runs (256), else the largest. @param {{ results: any[] }} r */
function fanout(r) {
  const rows = r.results.filter((y) => y.name.startsWith('fan-out: batches of'));
  const size = (/** @type {any} */ y) => Number(/batches of (\d+)/.exec(y.name)?.[1]);
  const x = rows.find((y) => size(y) === 256) ?? rows.sort((a, b) => size(b) - size(a))[0];
  return x ? `${x.ratio.toFixed(2)}x (batches of ${size(x)}, raw ${time(x.baseline.median)} each)` : '-';
}

/** Raw JSPI against Asyncify in the same engine: above 1x the engine's JSPI is the slower. @param {{ results: any[] }} r */
function rawVsAsyncify(r) {
  const x = r.results.find((y) => y.name === 'asyncify: raw JSPI vs Asyncify (context)');
  if (!x) return '-';
  return `${x.ratio.toFixed(2)}x${x.ratio > 1 ? ' (raw JSPI slower than Asyncify)' : ''}`;
}

/** The engine table: each engine against its own raw JSPI, all rows from one run per engine. */
function engineTable() {
  const rows = [
    ['engine', 'version', 'suites that pass (npm test)', 'switch', 'start', 'interleaved waits', 'fan-out', 'memory per suspended task', 'raw JSPI vs Asyncify'],
    ...reports.map((r) => {
      const [name, ...version] = r.env.split(' ');
      return [
        name,
        version.join(' '),
        r.host.suites,
        cell(r, (n) => n === 'switch: suspend -> resume through the scheduler'),
        cell(r, (n) => n === 'start: task start -> finish, one at a time'),
        cell(r, (n) => n.startsWith('interleaved')),
        fanout(r),
        cell(r, (n) => n === 'memory: resident bytes per suspended task'),
        rawVsAsyncify(r),
      ];
    }),
  ];
  const line = (/** @type {string[]} */ cells) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(rows[0]), line(rows[0].map(() => '---')), ...rows.slice(1).map(line)].join('\n');
}

const engines = `Each engine against its own raw JSPI, from one run per engine (the sections
below): a switch (a task waiting on a resolved operation) and a start against a
raw JSPI round trip and a raw \`promising\` call (the raw figure in
parentheses), fan-out against a \`promising\` call each, the resident memory of
a suspended task against a bare suspended JSPI call (only where a fresh
process can be measured: not in a page), and a raw JSPI round trip against
Binaryen's Asyncify on the same tiny program. A dash: the run has no such row.

${engineTable()}
`;

const sections = reports.map((r) => `### ${r.env}

Measured ${r.date}${r.quick ? ' (quick run)' : ''} on ${r.machine}.

${formatTable(r, { markdown: true })}
`).join('\n');

const notes = fs.readFileSync(path.join(root, 'bench/analysis.md'), 'utf8');
const md = `# Performance

This page is generated by \`node bench/report.mjs\` from the JSON results of
${reports.map((r) => `\`${r.host.command}\` (${r.env.split(' ')[0]})`).join(', ')}; do not edit
it by hand. Every row is a median over interleaved rounds (min..max in
parentheses), and every ratio is taken against a baseline measured in the
same process, in the same run: where subject and baseline alternate round by
round, it is the median of the rounds' ratios, which a slow stretch of the
machine (shared by both sides of a round) does not decide.

![ratios against their baselines](performance.svg)

## Engines

${engines}
${sections}
${notes}`;
fs.writeFileSync(path.join(root, 'docs/performance.md'), md);
fs.writeFileSync(path.join(root, 'docs/performance.svg'), chart());
// The README carries the same engine table, between its markers.
const readmePath = path.join(root, 'README.md');
const readme = fs.readFileSync(readmePath, 'utf8');
const marked = /(<!-- engine-table: generated by node bench\/report\.mjs -->\n)[\s\S]*?(<!-- \/engine-table -->)/;
if (!marked.test(readme)) {
  process.stderr.write('report: README.md has no engine-table markers; its engine table was not updated\n');
} else {
  fs.writeFileSync(readmePath, readme.replace(marked, (_, open, close) => `${open}${engineTable()}\n${close}`));
}
process.stdout.write('report: wrote docs/performance.md, docs/performance.svg and the engine table of README.md\n');
