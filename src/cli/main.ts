/**
 * `handoff` — the command-line surface. Dispatches `handoff <group> …` to a lazily loaded verb
 * module (one file per group in this folder), prints help and version, and maps thrown
 * {@link HandoffError}s to structured stderr and exit codes (the table in `exit-codes.ts`).
 */
import { readFileSync } from 'node:fs';
import { isHandoffError } from '../errors/index.js';
import { type CliCommand, EXIT_USAGE } from './command.js';
import { suggestName } from './did-you-mean.js';
import { humanErrorLine, wantsJsonError } from './error-line.js';
import { errorExitCode } from './exit-codes.js';
import { HelpRequest } from './help-request.js';
import { type CliIo, escapingIo } from './io.js';
import { toTerminalJson } from './terminal-text.js';
import { verbHelpText } from './verb-help.js';

/**
 * The verb groups and their one-line summaries (`handoff --help`). Each group is a module of this
 * folder with the same name, loaded on demand so `handoff validate` never pays for xstate or pg;
 * the module declares its own sub-verbs ({@link CliCommand.verbs}). A group whose module is not
 * part of this build answers with a usage error.
 *
 * @example
 * ```ts
 * GROUPS.gate; // 'gate protocol: collect, evaluate, route, ledger, run'
 * ```
 */
export const GROUPS: Readonly<Record<string, string>> = {
  validate: 'validate a dispatch, handoff or baseline record',
  dispatch: 'worker-side entry check of a dispatch record',
  guard: 'evaluate the rerun guard for a relaunch',
  baseline: 'record, check and advance file-baseline/v1 custody',
  store: 'run-store/v1 journal: create, append, set-handoff, load, validate',
  persist: 'run persistence controller (start … finish, reuse, custody)',
  tracker: 'cycle budgets: init, tick, can-deep, status, stop …',
  run: 'run the six-phase cycle with a worker command',
  formalize: 'the synthesis outer loop, guided: claims → drafts (human-approved) → proofs',
  autoformalize: 'the synthesis outer loop, autonomous: claims → drafts → proofs → router',
  chain: 'handoff chain: batons, seams, receipts, examples',
  transfer: 'dynamic handoff: route allowlist, context filter, one active agent under a lease',
  gate: 'gate protocol: collect, evaluate, route, ledger, run',
  envelope: 'dev-loop handoff envelope: build, validate, prefix',
  viz: 'draw a protocol machine: mermaid, dot, json, html/svg',
  inspect: "draw a stored run's path over its machine",
  audit: "replay a stored run's recorded transitions through its machine",
  conformance: 'throw generated dispatches at a worker and check every handoff',
  schemas: 'write or check the generated JSON Schema files',
  demo: 'the demonstration run by `npm start`',
};

function packageVersion(): string {
  const url = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

function topHelp(): string {
  const width = Math.max(...Object.keys(GROUPS).map((k) => k.length));
  const lines = Object.entries(GROUPS).map(([k, summary]) => `  ${k.padEnd(width)}  ${summary}`);
  return [
    'usage: handoff <command> [options]',
    '',
    'Verifiable agent handoffs: typed records, rerun guard, custody, journal, gate, chain.',
    '',
    'commands:',
    ...lines,
    '',
    'handoff <command> --help shows the command’s options. handoff --version prints the version.',
    'Exit codes: 0 ok, 2 usage; each command documents the rest.',
    '',
  ].join('\n');
}

/** Groups served by another group's module: `[module, exported command]` (default `[name, 'command']`). */
const GROUP_MODULES: Readonly<Record<string, readonly [string, string]>> = {
  autoformalize: ['formalize', 'autoformalizeCommand'],
};

/**
 * The module of verb group `name` (a key of {@link GROUPS}), or `undefined` when this build does
 * not ship it.
 *
 * @example
 * ```ts
 * (await loadGroup('gate'))?.verbs; // ['bind', 'collect', 'evaluate', …]
 * ```
 */
export async function loadGroup(name: string): Promise<CliCommand | undefined> {
  const [file, exported] = GROUP_MODULES[name] ?? [name, 'command'];
  try {
    const mod = (await import(new URL(`./${file}.js`, import.meta.url).href)) as Record<
      string,
      CliCommand | undefined
    >;
    return mod[exported];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String(e).includes(`${file}.js`)) {
      return undefined;
    }
    throw e;
  }
}

/** True for `--help` or `-h` alone (`handoff store append --help`). */
function isHelpOnly(args: readonly string[]): boolean {
  return args.length === 1 && (args[0] === '--help' || args[0] === '-h');
}

/**
 * The help text for `handoff <name> [<verb>] --help`: the verb's own help (generated from the
 * group's help and the verb's option table, verb-help.ts) when `verb` is one of the group's verbs,
 * else the group's help.
 *
 * @example
 * ```ts
 * helpOf('store', await loadGroup('store'), 'append'); // 'usage: handoff store append --run-id ID …'
 * ```
 */
export function helpOf(name: string, command: CliCommand, verb: string | undefined): string {
  if (verb === undefined || !command.verbs.includes(verb)) {
    return command.help.endsWith('\n') ? command.help : `${command.help}\n`;
  }
  const options = command.verbOptions?.[verb];
  return verbHelpText({
    group: name,
    verb,
    groupHelp: command.help,
    verbs: command.verbs,
    ...(options === undefined ? {} : { options }),
  });
}

/**
 * Runs the CLI with `argv` (without node and script) and resolves to the exit code. Every verb
 * writes through {@link escapingIo}`(io)`: control characters in its output (worker strings
 * above all) are shown as `\uXXXX` escapes, never obeyed by the terminal.
 *
 * @example
 * ```ts
 * process.exitCode = await main(process.argv.slice(2), processIo());
 * ```
 */
export async function main(argv: readonly string[], given: CliIo): Promise<number> {
  const io = escapingIo(given);
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    io.out(topHelp());
    return first === undefined ? EXIT_USAGE : 0;
  }
  if (first === '--version' || first === '-V') {
    io.out(`${packageVersion()}\n`);
    return 0;
  }
  if (!Object.hasOwn(GROUPS, first)) {
    const near = suggestName(first, Object.keys(GROUPS));
    io.err(
      `handoff: unknown command '${first}' (${near === null ? '' : `did you mean ${near}? `}handoff --help lists the commands)\n`,
    );
    return EXIT_USAGE;
  }
  const command = await loadGroup(first);
  if (command === undefined) {
    io.err(`handoff: command '${first}' is not available in this build\n`);
    return EXIT_USAGE;
  }
  if (rest[0] === '--help' || rest[0] === '-h') {
    io.out(command.help.endsWith('\n') ? command.help : `${command.help}\n`);
    return 0;
  }
  if (rest[0] !== undefined && command.verbs.includes(rest[0]) && isHelpOnly(rest.slice(1))) {
    io.out(helpOf(first, command, rest[0]));
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    // `--help`/`-h` parsed as an option of a verb (`handoff gate collect --help`)
    if (e instanceof HelpRequest) {
      io.out(helpOf(first, command, rest[0]));
      return 0;
    }
    if (isHandoffError(e)) {
      io.err(
        wantsJsonError(first, rest)
          ? `${toTerminalJson({ error: e.code, message: e.message, details: e.details }, 0)}\n`
          : `${humanErrorLine(first, e)}\n`,
      );
      return errorExitCode(e.code, first);
    }
    io.err(`handoff ${first}: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    return 70;
  }
}
