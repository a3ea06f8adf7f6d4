// The command line of snail-core (host/cli/snail-core.mjs): its usage text,
// and argv parsed into a command with a message of ours for every mistake
// (docs/cli.md). Like the command itself, it must stay loadable by Node
// releases without JSPI: no newer syntax, no import of the runtime.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The package root: host/cli is two directories below it. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const USAGE = `Usage: snail-core <command> [options]

Runs WebAssembly programs built for snail-core: tasks that suspend on
JavaScript promises through JSPI, under one scheduler.

Commands:
  run FILE.wasm [--entry NAME] [--arg N] [--stats] [--trace OUT.json] [-- ARGS...]
                 loads FILE.wasm, dispatches one entry as a root task, waits
                 until every task has finished and exits with the value the
                 entry returned
  inspect FILE.wasm [--json]
                 lists the program's entries, handler globals and imports
                 (waits, host services, user imports) and says whether it
                 follows the snail-core ABI, and if not, why
  demo [--trace OUT.json]
                 runs the bundled demo (build/programs/demo.wasm) with --stats
                 and prints a summary of the scheduler's work

Options of run:
  --entry NAME   the entry to dispatch (default: main)
  --arg N        the 32-bit integer passed to the entry (default: 0);
                 write --arg=-N for a negative number
  --stats        prints the scheduler's counters to stderr after the run
  --dir PATH     lets the program read and write files under directory PATH,
                 which it names as written here (--dir data: "data/x.txt");
                 repeatable. Without it the program has no files
  --allow-net HOST
                 lets snail::fetch reach HOST (host or host:port, '*' for any);
                 repeatable. Without it the program has no network
  --env NAME     passes this process's environment variable NAME to the
                 program; repeatable. Without it the program sees none
  --storage DIR  keeps the program's storage in directory DIR, durably
                 (default: in memory, gone when the run ends)
  --trace OUT.json
                 writes every task event to OUT.json in the Chrome trace-event
                 format (a track per task); open it in https://ui.perfetto.dev
                 or chrome://tracing
  -- ARGS...     everything after -- is the program's argv, after FILE.wasm

Options of inspect:
  --json         prints the report as JSON

Other options:
  -h, --help     prints this help
  -v, --version  prints the version of snail-core

Ctrl-C (or SIGTERM) cancels every live task and waits until they have
unwound (C++ destructors run); a second one ends the process at once. While a
task computes without waiting, it takes effect when the task waits or ends.

Exit codes:
  0     the entry returned 0 (inspect: the module follows the ABI)
  1     the entry task failed: it trapped, or an import threw into it; or the
        program failed during its initialisation (inspect: the module does
        not follow the ABI)
  2     bad usage or bad input: an unknown option, a missing or unreadable
        file, bytes that are not WebAssembly, an entry the module does not
        have, a module that does not follow the ABI or needs user imports, a
        trace file that cannot be written, a Node without JSPI (inspect: the
        file cannot be read or is not WebAssembly)
  70    an internal error of snail-core: a bug, reported with its stack;
        please report it
  130   interrupted by Ctrl-C (SIGINT)
  141   standard output was closed by its reader (snail-core run app.wasm |
        head): the command stops without a message
  143   terminated by SIGTERM (kill, docker stop, a CI timeout)
  other the entry's return value modulo 256 (value & 255): a program may
        return 1, 2 or 130 itself

Needs Node 25 or newer; Node 24 is re-run with --experimental-wasm-jspi.
`;

/** The options every command accepts; each command rejects those it does not use. */
const OPTIONS = /** @type {const} */ ({
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  entry: { type: 'string' },
  arg: { type: 'string' },
  stats: { type: 'boolean' },
  dir: { type: 'string', multiple: true },
  'allow-net': { type: 'string', multiple: true },
  env: { type: 'string', multiple: true },
  storage: { type: 'string' },
  trace: { type: 'string' },
  json: { type: 'boolean' },
});

/** Options that only `run` takes. */
const RUN_OPTIONS = ['entry', 'arg', 'stats', 'trace', 'dir', 'allow-net', 'env', 'storage'];

/** Options that only `inspect` takes. */
const INSPECT_OPTIONS = ['json'];

/** Options of run that demo takes too. */
const DEMO_OPTIONS = ['trace'];

/** A mistake on the command line: one message line and an optional hint; exit code 2. */
export class CliError extends Error {
  /** @param {string} message @param {{ hint?: string }} [options] */
  constructor(message, options = {}) {
    super(message);
    this.hint = options.hint;
  }
}

/**
 * @typedef {object} Command
 * @property {'run' | 'inspect' | 'demo' | 'help' | 'version' | 'none'} name
 * @property {string} [file]  the program's path
 * @property {string} [entry]
 * @property {number} [arg]
 * @property {boolean} [stats]
 * @property {string[]} [programArgs]  argv after the file name
 * @property {{ dirs: string[], allowNet: string[], env: string[], storage?: string }} [grants]
 *   what --dir, --allow-net, --env and --storage grant the program (docs/node.md)
 * @property {string} [trace]  where --trace writes the trace file
 * @property {boolean} [json]  inspect --json
 */

/**
 * Parses argv into a command. Options are parsed leniently so that every
 * mistake gets a message of ours rather than util.parseArgs' own.
 * @param {string[]} argv
 * @returns {Command}
 */
export function parseCommand(argv) {
  const { tokens = [] } = parseArgs({ args: argv, options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  // --help wins over every other argument before the first "--" (the
  // program's own arguments follow it), mistakes included: whoever wrote them
  // may be asking for help about them. "--entry --help" asks for help too,
  // although util.parseArgs takes --help as the value of --entry there. No
  // option takes "--" as its value, so the first "--" always ends the options.
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  if (options.some((arg) => arg === '--help' || arg === '-h')
      || tokens.some((token) => token.kind === 'option' && token.name === 'help' && token.index < options.length)) {
    return { name: 'help' };
  }
  /** @type {string[]} */
  const positionals = [];
  /** @type {string[]} */
  const programArgs = [];
  /** @type {Record<string, string | boolean | string[]>} */
  const values = {};
  /** @type {string[]} */
  const given = [];
  let terminated = false;
  for (const token of tokens) {
    if (token.kind === 'option-terminator') {
      terminated = true;
    } else if (token.kind === 'positional') {
      (terminated ? programArgs : positionals).push(token.value);
    } else {
      // Own properties only: "--constructor" is no option either.
      const spec = Object.hasOwn(OPTIONS, token.name) ? /** @type {Record<string, { type: string }>} */ (OPTIONS)[token.name] : undefined;
      if (!spec) {
        throw new CliError(`unknown option ${token.rawName}`, {
          hint: 'snail-core --help lists the options; put the program\'s own arguments after --',
        });
      }
      if (spec.type === 'boolean') {
        if (token.value !== undefined) throw new CliError(`option ${token.rawName} takes no value, got "${token.value}"`, { hint: `${token.rawName} is a switch: write ${token.rawName} alone` });
        values[token.name] = true;
      } else {
        // util.parseArgs takes the next argument as the value even when it looks
        // like an option; "--entry --stats" is far more likely a forgotten value.
        const value = token.value;
        if (value === undefined || (!token.inlineValue && value.startsWith('-') && !/^-\d/.test(value))) {
          throw new CliError(`option ${token.rawName} needs a value`, {
            hint: `write ${token.rawName}=VALUE for a value that starts with -`,
          });
        }
        values[token.name] = /** @type {{ multiple?: boolean }} */ (spec).multiple
          ? [.../** @type {string[]} */ (values[token.name] ?? []), value]
          : value;
      }
      given.push(token.name);
    }
  }

  if (values.version) return { name: 'version' };
  if (positionals.length === 0) {
    if (given.length > 0 || programArgs.length > 0) {
      throw new CliError('no command given', { hint: 'snail-core run FILE.wasm, snail-core inspect FILE.wasm or snail-core demo; see snail-core --help' });
    }
    return { name: 'none' };
  }

  const [command, ...rest] = positionals;
  if (command === 'run') {
    const foreign = given.find((name) => INSPECT_OPTIONS.includes(name));
    if (foreign) throw new CliError(`run takes no option --${foreign}`, { hint: `--${foreign} is an option of inspect: snail-core inspect FILE.wasm --${foreign}` });
    if (rest.length === 0) {
      throw new CliError('run needs the path of a .wasm file', { hint: 'snail-core run FILE.wasm [options] [-- ARGS...]; snail-core --help lists the options' });
    }
    if (rest.length > 1) {
      throw new CliError(`run takes one file, got also "${rest[1]}"`, { hint: `put the program's own arguments after --: snail-core run ${rest[0]} -- ${rest.slice(1).join(' ')}` });
    }
    return {
      name: 'run',
      file: rest[0],
      entry: values.entry === undefined ? 'main' : String(values.entry),
      arg: values.arg === undefined ? 0 : parseArg(String(values.arg)),
      stats: values.stats === true,
      programArgs,
      grants: {
        dirs: /** @type {string[]} */ (values.dir ?? []),
        allowNet: /** @type {string[]} */ (values['allow-net'] ?? []),
        env: /** @type {string[]} */ (values.env ?? []),
        storage: values.storage === undefined ? undefined : String(values.storage),
      },
      trace: values.trace === undefined ? undefined : String(values.trace),
    };
  }
  if (command === 'inspect') {
    const extra = given.find((name) => RUN_OPTIONS.includes(name));
    if (extra) throw new CliError(`inspect takes no option --${extra}`, { hint: `--${extra} is an option of run: snail-core run FILE.wasm --${extra} ...` });
    if (programArgs.length > 0) throw new CliError(`inspect takes no program arguments, got "${programArgs[0]}"`, { hint: 'snail-core inspect FILE.wasm [--json]' });
    if (rest.length === 0) throw new CliError('inspect needs the path of a .wasm file', { hint: 'snail-core inspect FILE.wasm [--json]' });
    if (rest.length > 1) throw new CliError(`inspect takes one file, got also "${rest[1]}"`, { hint: 'inspect one file at a time: snail-core inspect FILE.wasm' });
    return { name: 'inspect', file: rest[0], json: values.json === true };
  }
  if (command === 'demo') {
    const extra = given.find((name) => (RUN_OPTIONS.includes(name) && !DEMO_OPTIONS.includes(name)) || INSPECT_OPTIONS.includes(name));
    const demo = path.join(root, 'build/programs/demo.wasm');
    if (extra) {
      throw new CliError(`demo takes no option --${extra}`, {
        hint: INSPECT_OPTIONS.includes(extra) ? `snail-core inspect ${demo} --${extra}` : `snail-core run ${demo} takes the options of run`,
      });
    }
    if (rest.length > 0 || programArgs.length > 0) {
      throw new CliError(`demo takes no arguments, got "${[...rest, ...programArgs][0]}"`, { hint: `snail-core run ${demo} -- ARGS... passes arguments to the demo program` });
    }
    return {
      name: 'demo',
      file: demo,
      entry: 'main',
      arg: 0,
      stats: true,
      programArgs: [],
      trace: values.trace === undefined ? undefined : String(values.trace),
    };
  }
  throw new CliError(`unknown command "${command}"`, { hint: 'the commands are run, inspect and demo; see snail-core --help' });
}

/**
 * The value of --arg: an integer the runtime accepts as an entry's i32 argument.
 * @param {string} text
 */
function parseArg(text) {
  const t = text.trim();
  const value = /^[+-]?\d+$/.test(t) || /^0x[0-9a-f]+$/i.test(t) ? Number(t) : NaN;
  if (!Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 32) {
    throw new CliError(`--arg takes a 32-bit integer, got "${text}"`, { hint: 'an integer from -2147483648 to 4294967295, for example --arg 42 or --arg=-1' });
  }
  return value;
}

/**
 * The nodeHost() options for the grants of run.
 * @param {Command['grants']} grants
 */
export function grantsOf(grants) {
  if (!grants) return {};
  return { dirs: grants.dirs, allowNet: grants.allowNet, env: grants.env, storageDir: grants.storage };
}
