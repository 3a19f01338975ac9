/**
 * How the CLI reports a thrown {@link HandoffError} on stderr (pure): one line a person can act
 * on — what failed and the fix — by default; the machine form (`{"error","message","details"}`
 * on one line) with `--json`, and always for the seeds' helper groups whose docs pin that form
 * as their refusal contract (baseline, store, persist, envelope, chain, gate). The tracker keeps
 * its own `error=…` lines (tracker.ts).
 */
import type { HandoffErrorCode } from '../errors/index.js';

/**
 * The verb groups whose refusals are JSON on stderr by contract (docs/baseline.md, docs/store.md,
 * docs/persist.md, docs/envelope.md, docs/chain.md, docs/gate.md): scripts parse them.
 *
 * @example
 * ```ts
 * JSON_ERROR_GROUPS.has('store'); // true
 * JSON_ERROR_GROUPS.has('run'); // false: a person's line unless --json
 * ```
 */
export const JSON_ERROR_GROUPS: ReadonlySet<string> = new Set([
  'baseline',
  'store',
  'persist',
  'envelope',
  'chain',
  'gate',
]);

/** The fix to say after an error of these codes (`usage` gets the group's `--help`). */
const FIXES: Partial<Record<HandoffErrorCode, string>> = {
  bad_run_id: 'a run id looks like 20261130T120000Z-1a2b3c4d; `handoff store list` prints them',
  no_such_run: '`handoff store list` prints the runs this store holds (--root/--project pick the store)',
  bad_prior_run: '`handoff store list` prints the runs this store holds',
  rerun_forbidden: 'add --evidence TEXT naming what changed since the prior blocker, or hand it on',
  no_runs_dir: 'no run was persisted here yet: run with --persist, or point --root/--project at the store',
  no_storage_root: 'give --root DIR or --project DIR',
};

/** A thrown error as the CLI shows it. */
export interface ShownError {
  readonly code: HandoffErrorCode;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * True when the error of `group` invoked with `argv` is printed in the machine form: `--json`
 * among its options (before a literal `--`), or a group in {@link JSON_ERROR_GROUPS}.
 *
 * @example
 * ```ts
 * wantsJsonError('run', ['--target', 'x', '--json']); // true
 * wantsJsonError('run', ['--target', 'x', '--', '--json']); // false: after -- it is data
 * wantsJsonError('store', ['load']); // true
 * ```
 */
export function wantsJsonError(group: string, argv: readonly string[]): boolean {
  if (JSON_ERROR_GROUPS.has(group)) return true;
  const dd = argv.indexOf('--');
  return (dd === -1 ? argv : argv.slice(0, dd)).includes('--json');
}

/**
 * The one line a person reads for an error of `group`: `handoff <group>: <what failed> (<fix>)`.
 * A multi-line message keeps its first line; a usage error without its own pointer ends with
 * the group's `--help`; other codes name their code (for `--json` and the docs) and, where one is
 * known, the fix.
 *
 * @example
 * ```ts
 * humanErrorLine('run', { code: 'usage', message: 'unknown option --targt (did you mean --target?)' });
 * // 'handoff run: unknown option --targt (did you mean --target?)'
 * humanErrorLine('inspect', { code: 'no_such_run', message: 'no run 20261130T120000Z-1a2b3c4d' });
 * // 'handoff inspect: no run 20261130T120000Z-1a2b3c4d [no_such_run] — `handoff store list` prints …'
 * ```
 */
export function humanErrorLine(group: string, e: ShownError): string {
  const first = e.message.split('\n').find((l) => l.trim() !== '') ?? e.code;
  const what = first.trim();
  if (e.code === 'usage') {
    return /--help|did you mean/.test(what)
      ? `handoff ${group}: ${what}`
      : `handoff ${group}: ${what} (handoff ${group} --help shows the usage)`;
  }
  const fix = FIXES[e.code];
  return `handoff ${group}: ${what} [${e.code}]${fix === undefined ? '' : ` — ${fix}`}`;
}
