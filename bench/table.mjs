// Formats benchmark results as a readable table (terminal and Markdown).

/** The machine, for the report. */
export function machine() {
  const g = /** @type {any} */ (globalThis);
  if (!g.process?.versions?.node) return g.navigator?.userAgent ?? 'unknown';
  const os = g.process.getBuiltinModule('node:os');
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()} ${os.arch()}`;
}

/** @param {number} v @param {string} scale */
function fmt(v, scale) {
  if (scale === 'ns') return v >= 10000 ? `${(v / 1000).toFixed(1)} µs` : `${v.toFixed(0)} ns`;
  if (scale === 'bytes') return v >= 10240 ? `${(v / 1024).toFixed(1)} KiB` : `${v.toFixed(0)} B`;
  if (scale === 'ms') return `${v.toFixed(2)} ms`;
  return `${v} ${scale}`;
}

/**
 * @param {{ env: string, results: import('./suite.mjs').Result[] }} report
 * @param {{ markdown?: boolean }} [options]
 */
export function formatTable(report, options = {}) {
  const rows = [['benchmark', 'median (min..max)', 'baseline', 'ratio', 'goal', 'met']];
  for (const r of report.results) {
    rows.push([
      r.name,
      `${fmt(r.value.median, r.scale)} (${fmt(r.value.min, r.scale)}..${fmt(r.value.max, r.scale)})`,
      r.baseline ? `${r.baselineName}: ${fmt(r.baseline.median, r.scale)}` : '',
      r.ratio !== undefined ? `${r.ratio.toFixed(2)}x` : '',
      r.goal ?? '',
      r.met === undefined ? '' : r.met ? 'yes' : 'no',
    ]);
  }
  if (options.markdown) {
    const line = (/** @type {string[]} */ cells) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
    return [line(rows[0]), line(rows[0].map(() => '---')), ...rows.slice(1).map(line)].join('\n');
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const out = rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
  out.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  return [`${report.env}`, ...out].join('\n');
}
