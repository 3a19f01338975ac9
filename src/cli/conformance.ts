/**
 * `handoff conformance worker [--runs N] [--seed S] [--timeout MS] [--defects LIST] [--role ROLE] [--json] [--sandbox auto|on|off] [--sandbox-network deny|allow] -- CMD ARGS…`:
 * throws generated valid and malformed dispatches at a worker command and checks every handoff.
 * Exit 0 every check passed, 3 some check failed, 2 usage.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
// the harness (and with it the optional peer fast-check) is loaded by the verb, not with this module:
// `handoff conformance --help` and the usage errors work without fast-check
import { DEFAULT_RUNS, DEFAULT_SEED, DEFAULT_TIMEOUT_MS } from '../conformance/defaults.js';
import { formatReport } from '../conformance/format.js';
import {
  CONFORMANCE_ROLES,
  type ConformanceReport,
  type ConformanceRole,
  DEFECTS,
  type Defect,
} from '../conformance/report-schema.js';
import { HandoffError } from '../errors/index.js';
import { optionalString, parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import { type CliIo, printJson } from './io.js';
import { loadConformance } from './optional-peer.js';
import { chooseSandbox, SANDBOX_HELP, SANDBOX_OPTIONS, sandboxFlags } from './sandbox-flags.js';
import { escapeLine } from './terminal-text.js';

/**
 * Exit code when at least one check failed.
 *
 * @example
 * ```ts
 * process.exitCode = report.failed === 0 ? 0 : EXIT_NONCONFORMING;
 * ```
 */
export const EXIT_NONCONFORMING = 3;

function integerOption(values: Record<string, unknown>, name: string, fallback: number, min: number): number {
  const raw = optionalString(values as Parameters<typeof optionalString>[0], name);
  if (raw === undefined) return fallback;
  if (!/^-?[0-9]+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw)) || Number(raw) < min) {
    throw new HandoffError('usage', `--${name} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

function roleOption(raw: string | undefined): ConformanceRole | undefined {
  if (raw === undefined) return undefined;
  const role = CONFORMANCE_ROLES.find((r) => r === raw);
  if (role === undefined) {
    throw new HandoffError(
      'usage',
      `--role must be one of ${CONFORMANCE_ROLES.join(', ')}, got ${JSON.stringify(raw)}`,
    );
  }
  return role;
}

function defectsOption(raw: string | undefined): readonly Defect[] | undefined {
  if (raw === undefined || raw === 'all') return undefined;
  if (raw === 'none') return [];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = names.filter((n) => !(DEFECTS as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new HandoffError(
      'usage',
      `unknown defect(s) ${JSON.stringify(unknown)}; known: ${DEFECTS.join(', ')}`,
    );
  }
  return names as Defect[];
}

/**
 * The report as the summary shows it: every string a worker (or its command line) shaped is
 * escaped to one line (`escapeLine`), so a newline in a finding's detail cannot forge a line of
 * the summary (`verdict: the worker conforms`). The `--json` record keeps the original text.
 *
 * @example
 * ```ts
 * io.out(formatReport(forSummary(report)));
 * ```
 */
export function forSummary(r: ConformanceReport): ConformanceReport {
  const opt = (s: string | null): string | null => (s === null ? null : escapeLine(s));
  return {
    ...r,
    worker: r.worker.map(escapeLine),
    cases: r.cases.map((c) => ({ ...c, status: opt(c.status), stop_reason: opt(c.stop_reason) })),
    findings: r.findings.map((f) => ({ ...f, detail: escapeLine(f.detail) })),
  };
}

/**
 * The worker runs inside a fresh temporary project, so a relative argument that names an
 * existing file here (`worker.py`, `./bin/worker`) is made absolute; everything else is passed as is.
 */
async function absolutizeCommand(argv: readonly string[], cwd: string): Promise<string[]> {
  return Promise.all(
    argv.map(async (a) => {
      if (a === '' || a.startsWith('-') || isAbsolute(a)) return a;
      const abs = resolve(cwd, a);
      const s = await stat(abs).catch(() => null);
      return s?.isFile() ? abs : a;
    }),
  );
}

const HELP = [
  'usage: handoff conformance worker [--runs N] [--seed S] [--timeout MS] [--defects LIST] [--role ROLE] [--json]',
  '         [--sandbox auto|on|off] [--sandbox-network deny|allow] -- CMD ARGS…',
  '',
  'Runs CMD (an argument array, never a shell string) once per case, each in a fresh temporary',
  'project: a git repository with real owned files committed, a small run store in .handoff/, and',
  'a real file-baseline/v1. Even cases send a valid run-contract/v1 dispatch; odd cases send a',
  'malformed one (not JSON, truncated JSON, wrong schema id, missing context member, inline worker',
  'with parameters, baseline not covering owned files, boolean for an int, unknown key, empty stdin).',
  'Checks: nothing left running or holding stdout after the worker exited, git control files and',
  'the run store untouched, owned files still regular files, declaration headers unchanged (the',
  'statement fence); framing, progress lines, handoff validity, no terminal control characters in',
  'worker strings; for malformed input a protocol-error handoff and no file changed; for valid input',
  'the echoed identity, files_owned/files_changed, no write outside the owned set, and a returned',
  'baseline that covers the owned files and matches the disk (unchanged when nothing changed), and',
  'no more searches than a search-budget:N capability grants (case 3, 7, … carry search-budget:1).',
  'In-process workers (a function, as delegate takes it): runConformance({ worker }) in the library.',
  '',
  'options:',
  `  --runs N        number of cases (default ${DEFAULT_RUNS})`,
  `  --seed S        fast-check seed; the same seed sends the same cases (default ${DEFAULT_SEED})`,
  `  --timeout MS    per-case budget; a worker still running is killed (default ${DEFAULT_TIMEOUT_MS})`,
  '  --defects LIST  comma-separated defects for malformed cases, `all` (default) or `none`',
  '  --role ROLE     fill (default), repair (a proof-repair dispatch: one unified diff, no edit,',
  '                  only owned files in the diff) or falsify (no proof of the negation of the',
  '                  target while its sorry stays)',
  '  --json          print the conformance-report/v1 record instead of the summary',
  SANDBOX_HELP,
  '                  In the sandbox the worker sees the case project read-only under a private',
  '                  layer: its owned files reach the project and are checked as before; any other',
  '                  write is discarded and named by its check ("writes outside the owned files',
  '                  (discarded by the sandbox): …"), so the report shows what the worker tried.',
  '',
  'Relative arguments naming existing files (worker.py) are made absolute: the worker runs with',
  'its cwd in the temporary project (HANDOFF_PROJECT_ROOT is set to it).',
  'Exit: 0 every check passed, 3 some check failed, 2 usage.',
].join('\n');

/**
 * The `conformance` verb group.
 *
 * @example
 * ```ts
 * await command.run(['worker', '--runs', '12', '--', 'python3', 'worker.py'], io); // 0 | 3
 * ```
 */
export const command: CliCommand = {
  verbs: ['worker'],
  help: HELP,
  async run(argv: readonly string[], io: CliIo): Promise<number> {
    const { values, positionals, rest } = parseVerbArgs(argv, {
      runs: { type: 'string' },
      seed: { type: 'string' },
      timeout: { type: 'string' },
      defects: { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      ...SANDBOX_OPTIONS,
    });
    if (values.help === true) {
      io.out(`${HELP}\n`);
      return 0;
    }
    if (positionals[0] !== 'worker' || positionals.length !== 1) {
      throw new HandoffError(
        'usage',
        positionals.length === 0
          ? 'missing verb: handoff conformance worker [options] -- CMD ARGS…'
          : `unknown arguments ${JSON.stringify(positionals)}: handoff conformance worker [options] -- CMD ARGS…`,
      );
    }
    if (rest.length === 0 || rest[0] === '') {
      throw new HandoffError(
        'usage',
        'missing worker command after --: handoff conformance worker -- CMD ARGS…',
      );
    }
    const runs = integerOption(values, 'runs', DEFAULT_RUNS, 1);
    const seed = integerOption(values, 'seed', DEFAULT_SEED, -(2 ** 31));
    const timeoutMs = integerOption(values, 'timeout', DEFAULT_TIMEOUT_MS, 1);
    const defects = defectsOption(optionalString(values, 'defects'));
    const role = roleOption(optionalString(values, 'role'));
    const flags = sandboxFlags(values);
    const resolved = await absolutizeCommand(rest, io.cwd);
    // the cases are fresh temp directories, as the machine's own probe makes them
    const sandbox = await chooseSandbox(flags, undefined, (line) => io.err(`${line}\n`));
    const { runConformance } = await loadConformance();
    const report = await runConformance({
      command: resolved,
      runs,
      seed,
      timeoutMs,
      ...(defects === undefined ? {} : { defects }),
      ...(role === undefined ? {} : { role }),
      sandbox,
    });
    const shown = { ...report, worker: rest };
    if (values.json === true) printJson(io, shown);
    else io.out(formatReport(forSummary(shown)));
    return report.failed === 0 ? 0 : EXIT_NONCONFORMING;
  },
};
