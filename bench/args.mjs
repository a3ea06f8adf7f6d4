// The command line of bench/run.mjs and bench/browser.mjs: the same options,
// a usage text for --help, and a clear refusal of anything else (an unknown
// option or group would otherwise end in a stack trace, or run nothing).
import { parseArgs } from 'node:util';

/** The groups of the suite (bench/suite.mjs), in the order it runs them. */
export const GROUPS = Object.freeze([
  'control', 'switch', 'interleaved', 'anatomy', 'start', 'fanout', 'asyncify', 'realistic', 'memory', 'scale', 'fairness', 'collection', 'cancellation', 'workers',
]);

/**
 * Reads the options; prints the usage and exits on --help (0) or a bad
 * command line (2).
 * @param {string} usage  the command, for the usage line ("node --expose-gc bench/run.mjs")
 * @param {string} what  what it runs and where its results go, for --help
 * @param {{ browser?: string[] }} [extra]  the browsers --browser may name (bench/browser.mjs), the first the default
 * @returns {{ quick: boolean, only: string[], out: string | undefined, browser: string | undefined }}
 */
export function benchArgs(usage, what, extra = {}) {
  const browsers = extra.browser;
  const text = `usage: ${usage} [--quick] [--only GROUP[,GROUP...]] [--out FILE]${browsers ? ` [--browser ${browsers.join('|')}]` : ''}

${what}

  --quick        fewer rounds and batch sizes: a quicker, noisier run
  --only GROUPS  run only these groups (for working on one figure; the report
                 wants a whole run): ${GROUPS.join(', ')}
  --out FILE     write the results there instead
${browsers ? `  --browser NAME the browser to run in (default ${browsers[0]})\n` : ''}  --help         print this
`;
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        only: { type: 'string', multiple: true, default: [] },
        out: { type: 'string' },
        help: { type: 'boolean', default: false },
        ...(browsers ? { browser: { type: 'string', default: browsers[0] } } : {}),
      },
    }));
  } catch (error) {
    process.stderr.write(`bench: ${/** @type {Error} */ (error).message}\n\n${text}`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(text);
    process.exit(0);
  }
  const only = values.only.flatMap((v) => v.split(',')).filter((g) => g !== '');
  const unknown = only.filter((g) => !GROUPS.includes(g));
  if (unknown.length) {
    process.stderr.write(`bench: no group ${unknown.map((g) => JSON.stringify(g)).join(', ')}; the groups are ${GROUPS.join(', ')}\n`);
    process.exit(2);
  }
  const browser = /** @type {string | undefined} */ (values.browser);
  if (browsers && !browsers.includes(/** @type {string} */ (browser))) {
    process.stderr.write(`bench: no browser ${JSON.stringify(browser)}; the browsers are ${browsers.join(', ')}\n`);
    process.exit(2);
  }
  return { quick: values.quick, only, out: values.out, browser };
}
