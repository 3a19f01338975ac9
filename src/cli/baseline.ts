/**
 * `handoff baseline record|check|advance`: file-baseline/v1 custody on the command line.
 * Every path is data (argument arrays; `--` ends options); a baseline read from stdin is byte-exact.
 * Exit: 0 match/success, 2 usage / malformed baseline / unknown path / duplicates, 3 drift,
 * 4 operational error (errors together with drift → 4 with the full per-entry report).
 */
import { advanceBaseline } from '../baseline/advance.js';
import { checkBaseline } from '../baseline/check.js';
import { baselineCheckExitCode } from '../baseline/classify.js';
import { recordBaseline } from '../baseline/record.js';
import { inputRefusal } from '../baseline/refusal.js';
import { parseBaselineBytes } from '../baseline/require-baseline.js';
import type { FileBaseline } from '../baseline/schema.js';
import { parseVerbArgs, requireString } from './args.js';
import type { CliCommand } from './command.js';
import { type CliIo, printJson, readInput } from './io.js';

const HELP = [
  'usage: handoff baseline record -- <path>...',
  '       handoff baseline check --baseline <FILE|-> [--only <path>]...',
  '       handoff baseline advance --baseline <FILE|-> -- <path>...',
  '',
  'record   prints a file-baseline/v1 record: per path the absolute lexical path, realpath,',
  '         existence, sha256 and size of the exact bytes (never mtime, never git).',
  'check    prints a file-baseline-check/v1 result: per entry error|deleted|created|retargeted|',
  '         modified|unchanged, result match|drift|error, and the entries --only left unchecked.',
  'advance  prints the new baseline: only the named entries are re-recorded, every other entry',
  '         is carried forward unchanged (external drift is never blessed).',
  '',
  'Put -- before paths; every path is data. A --only value that starts with a dash is written',
  '--only=<path>. Relative paths resolve against the working directory; a selector matches an',
  'exact stored path first. --baseline - reads the baseline from stdin, byte-exact (use a quoted',
  "heredoc: <<'EOF').",
  '',
  'Exit: 0 match/success, 2 usage/malformed baseline/unknown path/duplicates, 3 drift,',
  '4 operational error (a target exists but is unreadable or not a regular file; with drift too).',
].join('\n');

async function loadBaseline(io: CliIo, source: string): Promise<FileBaseline> {
  return parseBaselineBytes(await readInput(io, source), source === '-' ? 'stdin' : source);
}

function pathsOf(positionals: readonly string[], rest: readonly string[], verb: string): string[] {
  const paths = [...positionals, ...rest];
  if (paths.length === 0) throw inputRefusal('usage', `baseline ${verb} needs at least one path after --`);
  return paths;
}

/** The `baseline` verb group. */
export const command: CliCommand = {
  summary: 'record, check and advance file-baseline/v1 custody',
  help: HELP,
  async run(argv, io) {
    const [verb, ...args] = argv;
    const head = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
    if (head.includes('--help') || head.includes('-h')) {
      io.out(`${HELP}\n`);
      return 0;
    }
    switch (verb) {
      case 'record': {
        const { positionals, rest } = parseVerbArgs(args, {});
        printJson(io, await recordBaseline(pathsOf(positionals, rest, 'record'), { cwd: io.cwd }));
        return 0;
      }
      case 'check': {
        const { values, positionals, rest } = parseVerbArgs(args, {
          baseline: { type: 'string' },
          only: { type: 'string', multiple: true },
        });
        if (positionals.length > 0 || rest.length > 0) {
          throw inputRefusal('usage', 'baseline check takes no positional paths; select entries with --only');
        }
        const source = requireString(values, 'baseline');
        const only = (values.only as string[] | undefined) ?? [];
        const baseline = await loadBaseline(io, source);
        const check = await checkBaseline(baseline, { only, cwd: io.cwd });
        printJson(io, check);
        return baselineCheckExitCode(check.result);
      }
      case 'advance': {
        const { values, positionals, rest } = parseVerbArgs(args, { baseline: { type: 'string' } });
        const source = requireString(values, 'baseline');
        const changed = pathsOf(positionals, rest, 'advance');
        const baseline = await loadBaseline(io, source);
        printJson(io, await advanceBaseline(baseline, changed, { cwd: io.cwd }));
        return 0;
      }
      default:
        throw inputRefusal(
          'usage',
          verb === undefined
            ? 'baseline needs a verb: record, check or advance'
            : `unknown baseline verb ${JSON.stringify(verb)} (record, check or advance)`,
        );
    }
  },
};
