/**
 * The empty run as the library says it (pure): a run whose first diagnosis found no target and
 * that dispatched no worker did nothing. {@link runProject} ends it `stopped`/`queue-empty` with
 * the words "no targets found: <why>" unless its caller accepts an empty run (`allowEmpty`, the
 * CLI's `--allow-empty`); either way the result says `empty: true`, which the CLI maps to exit 5.
 * The record rule itself is `isEmptyRun`/`emptyRunHandoff` (src/cycle/target-exists.ts).
 */
import type { Handoff } from '../contract/index.js';
import { emptyRunHandoff, isEmptyRun } from '../cycle/target-exists.js';

/**
 * Why a run found no target, and what to do about it (the empty run's words).
 *
 * @example
 * ```ts
 * emptyWhy('.', 'lean', ['sorry'], false);
 * // 'the lean profile found no sorry marker under . (--allow-empty accepts an empty run)'
 * ```
 */
export function emptyWhy(
  target: string,
  profileName: string,
  markers: readonly string[],
  customDiagnostics: boolean,
): string {
  const found = customDiagnostics
    ? `the --diagnostics command reported no target under ${target}`
    : `the ${profileName} profile found no ${markers.join('/')} marker under ${target}`;
  return `${found} (--allow-empty accepts an empty run)`;
}

/** What {@link emptyRunVerdict} decides. */
export interface EmptyRunVerdict {
  /** True when the run found no target and dispatched nothing. */
  readonly empty: boolean;
  /** The run's final record: the empty run's `stopped`/`queue-empty` unless `allowEmpty`. */
  readonly handoff: Handoff;
}

/**
 * The final record of a run as the library reports it: an empty run (see `isEmptyRun`) is
 * `stopped`/`queue-empty` saying why, unless `allowEmpty` keeps the cycle's `solved`. A run that
 * stored a final handoff (`finalCite`) is never empty: the store and the result never disagree.
 *
 * @example
 * ```ts
 * emptyRunVerdict(solvedNothing, { initialCount: 0, handoffs: [] }, null, { allowEmpty: false, why: 'the lean profile…' });
 * // { empty: true, handoff: { status: 'stopped', stop_reason: 'queue-empty', … } }
 * ```
 */
export function emptyRunVerdict(
  final: Handoff,
  ctx: { readonly initialCount: number | null; readonly handoffs: readonly unknown[] },
  finalCite: string | null,
  o: { readonly allowEmpty: boolean; readonly why: string },
): EmptyRunVerdict {
  const empty = finalCite === null && isEmptyRun(final, ctx);
  return { empty, handoff: empty && !o.allowEmpty ? emptyRunHandoff(final, o.why) : final };
}
