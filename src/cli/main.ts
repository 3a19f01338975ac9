/**
 * `handoff` — the command-line surface. Dispatches `handoff <group> …` to a lazily loaded verb
 * module (one file per group in this folder), prints help and version, and maps thrown
 * {@link HandoffError}s to structured stderr and exit codes (the table in `exit-codes.ts`).
 */
import { readFileSync } from 'node:fs';
import { isHandoffError } from '../errors/index.js';
import { type CliCommand, EXIT_USAGE } from './command.js';
import { errorExitCode } from './exit-codes.js';
import { HelpRequest } from './help-request.js';
import { type CliIo, escapingIo } from './io.js';
import { toTerminalJson } from './terminal-text.js';

/**
 * One entry of the verb table: the group's module file (without extension), its summary, and
 * its sub-verbs (`handoff <group> <verb> …`; empty for a group without verbs). Every group and
 * every sub-verb answers `--help` with its help text and exit 0.
 */
interface GroupEntry {
  readonly file: string;
  readonly summary: string;
  readonly verbs: readonly string[];
}

/**
 * The verb groups. Modules load on demand so `handoff validate` never pays for xstate or pg.
 * A group whose module is not part of this build answers with a usage error.
 *
 * @example
 * ```ts
 * GROUPS.gate?.verbs; // ['bind', 'collect', 'evaluate', …]
 * ```
 */
export const GROUPS: Readonly<Record<string, GroupEntry>> = {
  validate: { file: 'validate', summary: 'validate a dispatch, handoff or baseline record', verbs: [] },
  dispatch: { file: 'dispatch', summary: 'worker-side entry check of a dispatch record', verbs: ['check'] },
  guard: { file: 'guard', summary: 'evaluate the rerun guard for a relaunch', verbs: [] },
  baseline: {
    file: 'baseline',
    summary: 'record, check and advance file-baseline/v1 custody',
    verbs: ['record', 'check', 'advance'],
  },
  store: {
    file: 'store',
    summary: 'run-store/v1 journal: create, append, set-handoff, load, validate',
    verbs: ['create', 'append', 'set-handoff', 'load', 'list', 'validate'],
  },
  persist: {
    file: 'persist',
    summary: 'run persistence controller (start … finish, reuse, custody)',
    verbs: [
      'start',
      'note',
      'review',
      'replan',
      'dispatch',
      'handoff',
      'progress',
      'finish',
      'status',
      'reuse',
      'custody',
    ],
  },
  tracker: {
    file: 'tracker',
    summary: 'cycle budgets: init, tick, can-deep, status, stop …',
    verbs: [
      'init',
      'tick',
      'can-deep',
      'deep',
      'kw-search-can',
      'kw-search',
      'start-claim',
      'reset-claim',
      'status',
      'stop',
    ],
  },
  run: { file: 'run', summary: 'run the six-phase cycle with a worker command', verbs: [] },
  chain: { file: 'chain', summary: 'handoff chain: batons, seams, receipts, examples', verbs: ['example'] },
  gate: {
    file: 'gate',
    summary: 'gate protocol: collect, evaluate, route, ledger, run',
    verbs: [
      'bind',
      'collect',
      'evaluate',
      'route',
      'register',
      'directive',
      'reserve',
      'start',
      'consume',
      'release',
      'reconcile',
      'status',
      'run',
    ],
  },
  envelope: {
    file: 'envelope',
    summary: 'dev-loop handoff envelope: build, validate, prefix',
    verbs: ['build', 'validate', 'prefix'],
  },
  viz: {
    file: 'viz',
    summary: 'draw a protocol machine: mermaid, dot, json, html/svg',
    verbs: ['cycle', 'chain', 'gate'],
  },
  inspect: { file: 'inspect', summary: "draw a stored run's path over its machine", verbs: [] },
  conformance: {
    file: 'conformance',
    summary: 'throw generated dispatches at a worker and check every handoff',
    verbs: ['worker'],
  },
  schemas: {
    file: 'schemas',
    summary: 'write or check the generated JSON Schema files',
    verbs: ['write', 'check'],
  },
  demo: { file: 'demo', summary: 'the demonstration run by `npm start`', verbs: [] },
};

function packageVersion(): string {
  const url = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

function topHelp(): string {
  const width = Math.max(...Object.keys(GROUPS).map((k) => k.length));
  const lines = Object.entries(GROUPS).map(([k, g]) => `  ${k.padEnd(width)}  ${g.summary}`);
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

async function loadGroup(entry: GroupEntry): Promise<CliCommand | undefined> {
  try {
    const mod = (await import(new URL(`./${entry.file}.js`, import.meta.url).href)) as {
      command?: CliCommand;
    };
    return mod.command;
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      String(e).includes(`${entry.file}.js`)
    ) {
      return undefined;
    }
    throw e;
  }
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
  const entry = GROUPS[first];
  if (entry === undefined || !Object.hasOwn(GROUPS, first)) {
    io.err(`handoff: unknown command '${first}'\n\n${topHelp()}`);
    return EXIT_USAGE;
  }
  const command = await loadGroup(entry);
  if (command === undefined) {
    io.err(`handoff: command '${first}' is not available in this build\n`);
    return EXIT_USAGE;
  }
  if (rest[0] === '--help' || rest[0] === '-h') {
    io.out(command.help.endsWith('\n') ? command.help : `${command.help}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    // `--help`/`-h` parsed as an option of a verb (`handoff gate collect --help`)
    if (e instanceof HelpRequest) {
      io.out(command.help.endsWith('\n') ? command.help : `${command.help}\n`);
      return 0;
    }
    if (isHandoffError(e)) {
      io.err(`${toTerminalJson({ error: e.code, message: e.message, details: e.details }, 0)}\n`);
      return errorExitCode(e.code, first);
    }
    io.err(`handoff ${first}: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    return 70;
  }
}
