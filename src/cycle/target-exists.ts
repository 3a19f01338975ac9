/**
 * Does a run's `--target` name something (layer 1, pure)? A target is a file, a directory, or a
 * `file:line` whose line carries a marker (src/runtime/marker-diagnostics.ts resolves targets the
 * same way). A target that names nothing is a usage error before any worker runs: a typo must not
 * end `solved`. And a run that found no target at all is an empty run, said in words.
 */

/** What a path of the project is. */
export type PathKind = 'file' | 'directory' | 'missing';

/** What the file system says about a target (gathered by the caller; this file reads nothing). */
export interface TargetFacts {
  /** The target as given (`nosuch`, `src`, `A.lean:4`). */
  readonly target: string;
  /** What the whole target names, taken as a path. */
  readonly whole: PathKind;
  /**
   * When `whole` is missing and the target ends in `:<line>`: the file part, what it names, its
   * line count and the lines that carry a marker (null when markers are not checked: a
   * diagnostics command defines the targets).
   */
  readonly split?: {
    readonly file: string;
    readonly line: number;
    readonly kind: PathKind;
    readonly lineCount: number;
    readonly markerLines: readonly number[] | null;
  };
  /**
   * The target reads as `file:line` but the run's scope is not `sorry`, where the runtime takes it
   * as a path (and finds nothing).
   */
  readonly lineOutsideSorry?: boolean;
  /** The profile's markers, for the message (`sorry`, `TODO(agent)`). */
  readonly markers: readonly string[];
  /**
   * The profile whose built-in scan reads the files, and the extensions it reads (`.lean`): a file
   * target of another extension names nothing that scan would ever look at. Absent when a
   * diagnostics command defines the targets.
   */
  readonly scan?: { readonly profile: string; readonly sourceExtensions: readonly string[] };
}

/** The extension of a path, lower case with its dot (`.lean`), or '' without one. */
function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}

/** Why a file is outside the profile's scan, or null when the scan reads it. */
function outsideScan(file: string, scan: TargetFacts['scan']): string | null {
  if (scan === undefined || scan.sourceExtensions.includes(extensionOf(file))) return null;
  const hint =
    scan.profile === 'lean' ? '; a TypeScript, JavaScript or Python project wants --profile code' : '';
  return `${file} is not a source file of the ${scan.profile} profile (it reads ${scan.sourceExtensions.join(' ')}${hint})`;
}

/** The verdict on a target: it names something, or why it names nothing. */
export type TargetVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Whether `facts.target` names a file, a directory or a marked line, and if not, why not.
 *
 * @example
 * ```ts
 * targetVerdict({ target: 'nosuch', whole: 'missing', markers: ['sorry'] });
 * // { ok: false, reason: 'no such file or directory' }
 * targetVerdict({ target: 'index.ts', whole: 'file', markers: ['sorry'],
 *   scan: { profile: 'lean', sourceExtensions: ['.lean'] } });
 * // { ok: false, reason: 'index.ts is not a source file of the lean profile (it reads .lean; …)' }
 * targetVerdict({ target: 'A.lean:9', whole: 'missing', markers: ['sorry'],
 *   split: { file: 'A.lean', line: 9, kind: 'file', lineCount: 12, markerLines: [4] } });
 * // { ok: false, reason: 'line 9 of A.lean carries no sorry marker (marked lines: 4)' }
 * ```
 */
export function targetVerdict(facts: TargetFacts): TargetVerdict {
  if (facts.whole === 'directory') return { ok: true };
  if (facts.whole === 'file') {
    const outside = outsideScan(facts.target, facts.scan);
    return outside === null ? { ok: true } : { ok: false, reason: outside };
  }
  const s = facts.split;
  if (s === undefined && facts.lineOutsideSorry === true)
    return { ok: false, reason: 'no such file or directory (a FILE:LINE target needs --scope sorry)' };
  if (s === undefined) return { ok: false, reason: 'no such file or directory' };
  if (s.kind === 'missing') return { ok: false, reason: `no such file: ${s.file}` };
  if (s.kind === 'directory')
    return { ok: false, reason: `${s.file} is a directory (FILE:LINE names a line of a file)` };
  const outside = outsideScan(s.file, facts.scan);
  if (outside !== null) return { ok: false, reason: outside };
  if (s.line < 1 || s.line > s.lineCount)
    return { ok: false, reason: `${s.file} has ${s.lineCount} lines, no line ${s.line}` };
  if (s.markerLines === null || s.markerLines.includes(s.line)) return { ok: true };
  const words = facts.markers.join('/');
  const marked =
    s.markerLines.length === 0
      ? `${s.file} has none`
      : `marked lines: ${s.markerLines.slice(0, 8).join(', ')}${s.markerLines.length > 8 ? ', …' : ''}`;
  return { ok: false, reason: `line ${s.line} of ${s.file} carries no ${words} marker (${marked})` };
}

/**
 * The one-line usage error of a target that names nothing.
 *
 * @example
 * ```ts
 * noTargetMessage('nosuch', '/repo', 'no such file or directory');
 * // 'no target "nosuch" in /repo: no such file or directory'
 * ```
 */
export function noTargetMessage(target: string, projectRoot: string, reason: string): string {
  return `no target ${JSON.stringify(target)} in ${projectRoot}: ${reason}`;
}

/**
 * True when a run found no target at all: it ended `solved` without a single worker handoff and
 * its first diagnosis counted none (or never ran). Such a run did nothing; it is not a success
 * unless the caller asked for that (`--allow-empty`).
 *
 * @example
 * ```ts
 * isEmptyRun({ status: 'solved' }, { initialCount: 0, handoffs: [] }); // true
 * isEmptyRun({ status: 'solved' }, { initialCount: 2, handoffs: [h1, h2] }); // false
 * ```
 */
export function isEmptyRun(
  final: { readonly status: string },
  ctx: { readonly initialCount: number | null; readonly handoffs: readonly unknown[] },
): boolean {
  return final.status === 'solved' && (ctx.initialCount ?? 0) === 0 && ctx.handoffs.length === 0;
}

/** The words an empty run's final handoff carries (in `failed_avenues`) and its summary line says. */
export const NO_TARGETS_FOUND = 'no targets found';

/**
 * The final handoff of an empty run: not `solved` but `stopped` with `queue-empty` (nothing was
 * there to work on; run-contract/v1's non-blocker stop, so a rerun is never forbidden), and the
 * words "no targets found" with `why` as the first failed avenue.
 *
 * @example
 * ```ts
 * const h = emptyRunHandoff(final, 'the lean profile looks for sorry');
 * h.status; // 'stopped'
 * h.failed_avenues[0]; // 'no targets found: the lean profile looks for sorry'
 * ```
 */
export function emptyRunHandoff<
  H extends {
    readonly status: string;
    readonly stop_reason: string | null;
    readonly next_action: string;
    readonly failed_avenues: readonly string[];
  },
>(final: H, why: string): H {
  return {
    ...final,
    status: 'stopped',
    stop_reason: 'queue-empty',
    next_action: 'stop',
    failed_avenues: [`${NO_TARGETS_FOUND}: ${why}`, ...final.failed_avenues],
  };
}
