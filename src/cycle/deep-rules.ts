/**
 * The rules of deep mode (layer 1, pure; seed 002 § Deep Mode, Deep Safety Definitions, Deep
 * Snapshot and Rollback, Deep Scope Fence, Header Fence, Deep Regression Gate): which files deep
 * manages, the budgets it is sent, the scope fence, the regression gate, the rollback policy and
 * when deep is wanted at all. Every rollback reason reads `deep: <trigger> — <detail>`.
 */
import { blockerSignature, normalizeErrorText } from '../contract/blocker-signature.js';
import type { CycleOptions, PlanStep, StuckCondition, StuckVerdict, TargetInfo } from './types.js';

/**
 * What the regression gate reads of one diagnostics answer: the open targets (sorries) and the
 * errors (`file:line:text`).
 *
 * @example
 * ```ts
 * const pre: DiagnosticsView = { targets: [{ id: 'A.lean:4', file: 'A.lean', line: 4, goal: '' }], errors: [] };
 * ```
 */
export interface DiagnosticsView {
  readonly targets: readonly TargetInfo[];
  readonly errors: readonly string[];
}

/**
 * A planner-declared path as a project-relative file, or null when it is not one: absolute paths
 * (`/x`, `C:\x`, `\\host`), `..` segments, backslashes, NUL and empty paths are refused; `.`
 * segments and repeated slashes are dropped.
 */
function plannerFile(path: unknown): string | null {
  if (typeof path !== 'string' || path === '' || path.includes('\0') || path.includes('\\')) return null;
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return null;
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.includes('..')) return null;
  return segments.join('/');
}

/**
 * The deep-managed files of one deep invocation: what is snapshotted, fenced and compared.
 * `--deep-scope=target` → the target's file; `cross-file` → the step's declared files plus the
 * target's file, sorted and unique. Declared files are planner data: absolute paths and paths
 * with `..` segments are dropped, never followed.
 *
 * @example
 * ```ts
 * deepManagedFiles({ ...options, deepScope: 'cross-file' }, t, { target: t.id, note: '', files: ['B.lean', '/etc/passwd'] });
 * // ['A.lean', 'B.lean']
 * ```
 */
export function deepManagedFiles(options: CycleOptions, target: TargetInfo, step: PlanStep | null): string[] {
  if (options.deepScope !== 'cross-file') return [target.file];
  const declared = step !== null && Array.isArray(step.files) ? (step.files as readonly unknown[]) : [];
  const files = new Set<string>([target.file]);
  for (const f of declared) {
    const rel = plannerFile(f);
    if (rel !== null) files.add(rel);
  }
  return [...files].sort();
}

/**
 * The deep worker's budgets, copied into its dispatch `parameters` (`deep_budget`).
 *
 * @example
 * ```ts
 * deepParameters(options, ['A.lean']);
 * // { deep_budget: { scope: 'target', max_files: 2, max_lines: 200, sorry_budget: 2, time_budget: '20m', files: ['A.lean'] } }
 * ```
 */
export function deepParameters(options: CycleOptions, files: readonly string[]): Record<string, unknown> {
  return {
    deep_budget: {
      scope: options.deepScope,
      max_files: options.deepMaxFiles,
      max_lines: options.deepMaxLines,
      sorry_budget: options.deepSorryBudget,
      time_budget: options.deepTimeBudget,
      files: [...files],
    },
  };
}

/**
 * The deep scope fence: the rollback reason when one deep invocation changed more files than
 * `--deep-max-files` or more lines (added + removed) than `--deep-max-lines`, else null. A line
 * count that is not a finite, non-negative number fails closed (the fence fires).
 *
 * @example
 * ```ts
 * scopeFence(['A.lean', 'B.lean', 'C.lean'], 10, options); // 'deep: scope exceeded — 3 files / 10 lines' (max-files 2)
 * scopeFence(['A.lean'], 10, options); // null
 * ```
 */
export function scopeFence(
  changedFiles: readonly string[],
  linesChanged: number,
  options: CycleOptions,
): string | null {
  const files = new Set(changedFiles).size;
  const badCount = typeof linesChanged !== 'number' || !Number.isFinite(linesChanged) || linesChanged < 0;
  if (badCount || files > options.deepMaxFiles || linesChanged > options.deepMaxLines) {
    return `deep: scope exceeded — ${files} files / ${linesChanged} lines`;
  }
  return null;
}

/**
 * A regression found by the deep regression gate, in the seed's order of checks.
 *
 * @example
 * ```ts
 * const r: Regression = { kind: 'sorry-count', reason: 'deep: regression — sorry count +2' };
 * ```
 */
export type Regression = {
  readonly kind: 'sorry-count' | 'new-errors' | 'new-blockers';
  readonly reason: string;
};

interface ParsedError {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** A diagnostics error `file:line:text`; a malformed one has no file (`''`) and line 0. */
function parseError(error: string): ParsedError {
  const m = /^(.*?):(\d+):([\s\S]*)$/.exec(error);
  return m
    ? { file: m[1] as string, line: Number(m[2]), text: m[3] as string }
    : { file: '', line: 0, text: error };
}

/**
 * The part of a diagnostics view that concerns `files`: its sorry count, its errors (keyed by
 * file and normalized text, line ignored) and their blocker signatures. Malformed errors (no
 * `file:line:` prefix) cannot be placed outside the set, so they are counted, fail-closed.
 */
function restrict(view: DiagnosticsView, files: ReadonlySet<string>) {
  const sorries = view.targets.filter((t) => files.has(t.file)).length;
  const errorKeys = new Set<string>();
  const signatures = new Set<string>();
  let errors = 0;
  for (const raw of view.errors) {
    const e = parseError(String(raw));
    if (e.file !== '' && !files.has(e.file)) continue;
    errors++;
    errorKeys.add(`${e.file}\u0000${normalizeErrorText(e.text)}`);
    signatures.add(blockerSignature(e.file, e.line, e.text));
  }
  return { sorries, errors, errorKeys, signatures };
}

/**
 * The deep regression gate: compares the diagnostics of the deep-managed `files` after a deep
 * invocation with those captured before it (the same file set on both sides), in the seed's
 * order — the sorry count went up; an error (file and text, line ignored) is new; a blocker
 * signature (`blockerSignature(file, line, text)`) is new. Null when none holds.
 *
 * @example
 * ```ts
 * regressionOf({ targets: [t], errors: [] }, { targets: [t, t2], errors: [] }, ['A.lean']);
 * // { kind: 'sorry-count', reason: 'deep: regression — sorry count +1' }
 * ```
 */
export function regressionOf(
  pre: DiagnosticsView,
  post: DiagnosticsView,
  files: readonly string[],
): Regression | null {
  const set = new Set(files);
  const a = restrict(pre, set);
  const b = restrict(post, set);
  if (b.sorries > a.sorries) {
    return { kind: 'sorry-count', reason: `deep: regression — sorry count +${b.sorries - a.sorries}` };
  }
  for (const k of b.errorKeys) {
    if (!a.errorKeys.has(k)) return { kind: 'new-errors', reason: 'deep: regression — new errors' };
  }
  for (const s of b.signatures) {
    if (!a.signatures.has(s)) return { kind: 'new-blockers', reason: 'deep: regression — new blockers' };
  }
  return null;
}

/**
 * Whether a deep invocation improved the deep-managed `files`: fewer sorries or fewer errors
 * than before it. (Its negation is the seed's "no improvement".)
 *
 * @example
 * ```ts
 * improvedAfterDeep({ targets: [t], errors: [] }, { targets: [], errors: [] }, ['A.lean']); // true
 * ```
 */
export function improvedAfterDeep(
  pre: DiagnosticsView,
  post: DiagnosticsView,
  files: readonly string[],
): boolean {
  const set = new Set(files);
  const a = restrict(pre, set);
  const b = restrict(post, set);
  return b.sorries < a.sorries || b.errors < a.errors;
}

/**
 * The verdict on one deep invocation: whether its files are rolled back, the rollback reason
 * (`deep: <trigger> — <detail>`, null when kept) and a regression that was only logged (gate
 * `off`, or policy `never`).
 *
 * @example
 * ```ts
 * const j: DeepJudgement = { rollback: true, reason: 'deep: regression — new errors', logged: null };
 * ```
 */
export type DeepJudgement = {
  readonly rollback: boolean;
  readonly reason: string | null;
  readonly logged: string | null;
};

/**
 * Judges one deep invocation, first trigger wins: the header fence (`fence`, its detail) and the
 * scope fence (`scope`, its reason) always roll back, whatever the policy; then
 * `--deep-rollback`: `on-regression` rolls back a regression when the gate is `strict`;
 * `on-no-improvement` also rolls back when nothing improved; `always` rolls back after every
 * call; `never` keeps everything. A regression the gate (`off`) or the policy (`never`) does not
 * act on is returned in `logged`.
 *
 * @example
 * ```ts
 * judgeDeep({ options, fence: null, scope: null, regression: null, improved: false });
 * // on-regression: { rollback: false, reason: null, logged: null }
 * judgeDeep({ options, fence: 'A.lean: t statement changed', scope: null, regression: null, improved: true });
 * // { rollback: true, reason: 'deep: header changed — A.lean: t statement changed', logged: null }
 * ```
 */
export function judgeDeep(j: {
  options: CycleOptions;
  fence: string | null;
  scope: string | null;
  regression: Regression | null;
  improved: boolean;
}): DeepJudgement {
  if (j.fence !== null) return { rollback: true, reason: `deep: header changed — ${j.fence}`, logged: null };
  if (j.scope !== null) return { rollback: true, reason: j.scope, logged: null };
  const policy = j.options.deepRollback;
  const gated = j.regression !== null && j.options.deepRegressionGate === 'strict' && policy !== 'never';
  if (gated) return { rollback: true, reason: (j.regression as Regression).reason, logged: null };
  const logged = j.regression?.reason ?? null;
  if (policy === 'on-no-improvement' && !j.improved) {
    return { rollback: true, reason: 'deep: no improvement — sorry count and diagnostics unchanged', logged };
  }
  if (policy === 'always') {
    return { rollback: true, reason: 'deep: always — rollback after every deep call', logged };
  }
  return { rollback: false, reason: null, logged };
}

/**
 * The stuck reason when restoring a deep snapshot failed: the cycle stops, the target is stuck
 * and the checkpoint is skipped.
 *
 * @example
 * ```ts
 * DEEP_ROLLBACK_FAILED; // 'deep: rollback failed'
 * ```
 */
export const DEEP_ROLLBACK_FAILED = 'deep: rollback failed';

/** Stuck conditions deep mode never answers: a header change (redraft) or deep's own rollback. */
const NOT_FOR_DEEP: ReadonlySet<StuckCondition> = new Set<StuckCondition>([
  'fence-violation',
  'deep-rollback',
]);

/**
 * Whether deep mode should run on the current target (`--deep`): `never` → `no`; `ask` → `ask`
 * (the human decides) when the target is stuck; `stuck` → `deep` when it is stuck; `always` →
 * `deep` when the work pass left it open. A stuck verdict for a header change or for deep's own
 * rollback never leads back into deep (nor into asking for it).
 *
 * @example
 * ```ts
 * deepWanted({ ...options, deep: 'stuck' }, verdict, true); // 'deep'
 * deepWanted({ ...options, deep: 'stuck' }, { ...verdict, condition: 'deep-rollback' }, true); // 'no'
 * ```
 */
export function deepWanted(
  options: CycleOptions,
  stuck: StuckVerdict | null,
  targetStillOpen: boolean,
): 'deep' | 'ask' | 'no' {
  if (stuck !== null && NOT_FOR_DEEP.has(stuck.condition)) return 'no';
  switch (options.deep) {
    case 'ask':
      return stuck !== null ? 'ask' : 'no';
    case 'stuck':
      return stuck !== null ? 'deep' : 'no';
    case 'always':
      return targetStillOpen ? 'deep' : 'no';
    default:
      return 'no';
  }
}
