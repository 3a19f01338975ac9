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
import { HelpRequest } from './help-request.js';
import { type CliIo, printJson, readInput } from './io.js';

const HELP = [
  'usage: handoff baseline record -- <path>...',
  '       handoff baseline check --baseline <FILE|-> [--only <path>]...',
  '       handoff baseline advance --baseline <FILE|-> -- <path>...',
  '',
  'record   prints a file-baseline/v1 record: per path the absolute lexical path, realpath,',
  '         existence, sha256 and size of the exact bytes (never mtime, never git).',
  'check    prints a file-baseline-check/v1 result: per entry error|deleted|retargeted|created|',
  '         modified|unchanged, result match|drift|error, and the entries --only left unchecked.',
  'advance  prints the new baseline: only the named entries are re-recorded, every other entry',
  '         is carried forward unchanged (external drift is never blessed).',
  '',
  'Put -- before paths; every path is data. A --only value that starts with a dash is written',
  '--only=<path>. Relative paths resolve against the working directory; a selector matches an',
  'exact stored path first. --baseline - reads the baseline from stdin, byte-exact (use a quoted',
  "heredoc: <<'EOF'). A path containing U+FFFD is refused (exit 2): it is what Node makes of",
  'bytes that are not UTF-8, so the name would not round-trip.',
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
  requireIntactPaths(paths);
  return paths;
}

/** Options of each verb; `help` is parsed like any option, so `--only -h` is a usage error, not help. */
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;
const VERB_OPTIONS = {
  record: { ...HELP_OPTION },
  check: {
    ...HELP_OPTION,
    baseline: { type: 'string', multiple: true },
    only: { type: 'string', multiple: true },
  },
  advance: { ...HELP_OPTION, baseline: { type: 'string', multiple: true } },
} as const;

/**
 * Refuses path arguments that cannot have come through argv intact: Node decodes argv as UTF-8
 * and replaces undecodable bytes with U+FFFD, so such a name would silently name another (absent)
 * file and a later check would match while the real file drifts. Fail closed instead.
 */
function requireIntactPaths(paths: readonly string[]): void {
  const mangled = paths.filter((p) => p.includes('\uFFFD'));
  if (mangled.length > 0) {
    throw inputRefusal(
      'usage',
      'path argument(s) contain U+FFFD: bytes that are not UTF-8 cannot pass through argv losslessly; use the library API',
      { paths: mangled },
    );
  }
}

function baselineSource(values: Record<string, unknown>): string {
  const given = (values.baseline as string[] | undefined) ?? [];
  if (given.length > 1) throw inputRefusal('usage', '--baseline given more than once', { baseline: given });
  return requireString({ baseline: given[0] }, 'baseline');
}

/** The `baseline` verb group. */
export const command: CliCommand = {
  verbs: Object.keys(VERB_OPTIONS),
  verbOptions: VERB_OPTIONS,
  help: HELP,
  async run(argv, io) {
    const [verb, ...args] = argv;
    if (verb === '--help' || verb === '-h') {
      io.out(`${HELP}\n`);
      return 0;
    }
    if (verb !== 'record' && verb !== 'check' && verb !== 'advance') {
      throw inputRefusal(
        'usage',
        verb === undefined
          ? 'baseline needs a verb: record, check or advance'
          : `unknown baseline verb ${JSON.stringify(verb)} (record, check or advance)`,
      );
    }
    const { values, positionals, rest } = parseVerbArgs(args, VERB_OPTIONS[verb]);
    // the verb's own help (main answers it from the verb's option table)
    if (values.help === true) throw new HelpRequest();
    switch (verb) {
      case 'record': {
        const paths = pathsOf(positionals, rest, 'record');
        const record = await recordBaseline(paths, { cwd: io.cwd });
        printJson(io, record);
        // the record keeps a missing path (exists: false) — a person is told, once per path
        for (const f of record.files.filter((x) => !x.exists)) {
          io.err(
            `handoff baseline: warning: ${JSON.stringify(f.path)} does not exist (recorded as exists: false; a typo? a later check reports it created if it appears)\n`,
          );
        }
        return 0;
      }
      case 'check': {
        if (positionals.length > 0 || rest.length > 0) {
          throw inputRefusal('usage', 'baseline check takes no positional paths; select entries with --only');
        }
        const source = baselineSource(values);
        const only = (values.only as string[] | undefined) ?? [];
        requireIntactPaths(only);
        const baseline = await loadBaseline(io, source);
        const check = await checkBaseline(baseline, { only, cwd: io.cwd });
        printJson(io, check);
        return baselineCheckExitCode(check.result);
      }
      case 'advance': {
        const source = baselineSource(values);
        const changed = pathsOf(positionals, rest, 'advance');
        const baseline = await loadBaseline(io, source);
        printJson(io, await advanceBaseline(baseline, changed, { cwd: io.cwd }));
        return 0;
      }
    }
  },
};
