// The command line the two post-link tools share: IN.wasm OUT.wasm, a
// --stack-size and the tool's own boolean flags. Every failure names the tool
// and exits with status 2.
import fs from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * @param {string} tool  the tool's name in messages
 * @returns {(message: string) => never}
 */
export function failing(tool) {
  return (message) => {
    process.stderr.write(`${tool}: ${message}\n`);
    process.exit(2);
  };
}

/**
 * Parses the command line and reads the input module.
 * @param {{ tool: string, usage: string, stackSize: number, flags?: string[] }} spec
 *   the usage line, the default --stack-size and the names of the tool's boolean flags
 */
export function postlinkCommand({ tool, usage, stackSize: defaultStackSize, flags = [] }) {
  /** @type {(message: string) => never} */
  const fail = failing(tool);
  /** @type {Record<string, { type: 'string' | 'boolean', default: string | boolean }>} */
  const options = { 'stack-size': { type: 'string', default: String(defaultStackSize) } };
  for (const flag of flags) options[flag] = { type: 'boolean', default: false };
  /** @type {ReturnType<typeof parseArgs<{ allowPositionals: true, options: typeof options }>>} */
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options });
  } catch (error) {
    fail(`${error instanceof Error ? error.message.split('\n')[0].replace(/\.$/, '') : String(error)}; usage: ${usage}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 2) fail(`usage: ${usage}`);
  const [input, output] = positionals;
  const stackSize = Number(values['stack-size']);
  if (!Number.isInteger(stackSize) || stackSize <= 0) fail(`--stack-size must be a positive integer, got ${values['stack-size']}`);
  /** @type {Uint8Array} */
  let bytes;
  try {
    bytes = fs.readFileSync(input);
  } catch (e) {
    fail(`cannot read ${input}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { input, output, stackSize, bytes, flags: /** @type {Record<string, boolean>} */ (values), fail };
}
