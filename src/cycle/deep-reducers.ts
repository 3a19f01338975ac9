/**
 * Deep mode's reducers and actor inputs (layer 1, pure; seed 002 § Deep Mode): the tracker
 * preflight, the path-scoped snapshot of exactly the deep-managed files, the pre-deep
 * diagnostics, the deep dispatch, the judgement (header fence, scope fence, regression gate,
 * rollback policy — src/cycle/deep-rules.ts) and its two ends: accepted deep work, or a rollback
 * whose files are never staged (a failed rollback ends the run stuck, without a checkpoint).
 */
import { blockerSignature } from '../contract/index.js';
import { canDeep, recordDeep } from '../tracker/counters.js';
import { diagnosticsRequest, workerInput } from './actor-inputs.js';
import type { CycleUpdate } from './context.js';
import { mergeBaseline } from './custody.js';
import {
  DEEP_ROLLBACK_FAILED,
  deepManagedFiles,
  deepParameters,
  improvedAfterDeep,
  judgeDeep,
  regressionOf,
  scopeFence,
} from './deep-rules.js';
import { wrapStuckHandoff } from './final-handoff.js';
import { withRoutedEvidence } from './review-routing.js';
import { fenceStuck } from './stuck.js';
import type {
  CycleContext,
  DeepRun,
  DiagnosticsInput,
  DiagnosticsOutput,
  RestoreInput,
  RestoreOutput,
  SnapshotInput,
  SnapshotOutput,
  StuckVerdict,
  WorkerInput,
  WorkOutcome,
} from './types.js';
import { verifyEdit } from './verify-edit.js';

/**
 * True when `path` (as a worker reported it: absolute or project-relative) is the
 * project-relative file `rel`.
 *
 * @example
 * ```ts
 * sameFile('/p/A.lean', 'A.lean'); // true
 * sameFile('/p/BA.lean', 'A.lean'); // false
 * ```
 */
export function sameFile(path: string, rel: string): boolean {
  return path === rel || path.endsWith(`/${rel}`);
}

/**
 * Why the tracker's `can-deep` denies deep mode now (`max-deep-per-cycle`,
 * `max-consecutive-deep`, `max-runtime`), or null when it allows it.
 *
 * @example
 * ```ts
 * deepDenial(ctx); // null on the first deep of a cycle
 * ```
 */
export function deepDenial(c: Pick<CycleContext, 'tracker' | 'now'>): string | null {
  const p = canDeep(c.tracker, c.now);
  return p.ok ? null : p.reason;
}

/**
 * A `can-deep` denial: deep is skipped for this target without marking it stuck (a policy
 * denial), or because the session's runtime is spent (the next tick stops the run).
 *
 * @example
 * ```ts
 * skipDeep(ctx).log?.at(-1); // 'deep: skipped for A.lean:2 — can-deep denied (max-deep-per-cycle)'
 * ```
 */
export function skipDeep(c: Pick<CycleContext, 'tracker' | 'now' | 'current' | 'log'>): CycleUpdate {
  const why = deepDenial(c) ?? 'denied';
  const next = why === 'max-runtime' ? '; the next tick stops the run' : '';
  return { log: [...c.log, `deep: skipped for ${c.current?.id ?? '?'} — can-deep denied (${why})${next}`] };
}

/**
 * Enters deep mode on the current target: records the invocation with the tracker (`deep`) and
 * opens the deep run over the deep-managed files (the target's file, or the plan step's declared
 * set with `--deep-scope=cross-file`).
 *
 * @example
 * ```ts
 * startDeep(ctx).deep?.files; // ['A.lean']
 * ```
 */
export function startDeep(
  c: Pick<CycleContext, 'current' | 'plan' | 'options' | 'tracker' | 'baseline' | 'filesChanged' | 'log'>,
): CycleUpdate {
  const t = c.current;
  if (t === null) return {};
  const step = c.plan.find((s) => s.target === t.id) ?? null;
  const files = deepManagedFiles(c.options, t, step);
  const deep: DeepRun = {
    target: t.id,
    files,
    snapshotId: null,
    pre: null,
    post: null,
    preBaseline: c.baseline,
    changedBefore: [...c.filesChanged],
    changed: [],
    linesChanged: 0,
    fence: null,
    improved: false,
    rollback: null,
  };
  return {
    tracker: recordDeep(c.tracker),
    deep,
    log: [...c.log, `deep: entering on ${t.id} — ${files.join(', ')}`],
  };
}

/**
 * The snapshotter's input: exactly the deep-managed files, labelled `deep-snapshot: <target>`.
 *
 * @example
 * ```ts
 * snapshotInput(ctx); // { files: ['A.lean'], label: 'deep-snapshot: A.lean:2' }
 * ```
 */
export function snapshotInput(c: Pick<CycleContext, 'deep'>): SnapshotInput {
  return { files: [...(c.deep?.files ?? [])], label: `deep-snapshot: ${c.deep?.target ?? ''}` };
}

/**
 * Absorbs the snapshot: its id is what a rollback restores.
 *
 * @example
 * ```ts
 * absorbSnapshot(ctx, { now: 1, id: 'snap-1', files: ['A.lean'] }).deep?.snapshotId; // 'snap-1'
 * ```
 */
export function absorbSnapshot(
  c: Pick<CycleContext, 'deep' | 'now' | 'log'>,
  out: SnapshotOutput,
): CycleUpdate {
  if (c.deep === null) return {};
  return {
    now: Math.max(c.now, out.now),
    deep: { ...c.deep, snapshotId: out.id },
    log: [...c.log, `deep: snapshot ${out.id} of ${out.files.join(', ')}`],
  };
}

/**
 * The diagnostics request over the deep-managed files (the pre-deep baseline and the comparison
 * after the deep pass ask the same question of the same set).
 *
 * @example
 * ```ts
 * deepDiagnosticsRequest(ctx).files; // ['A.lean']
 * ```
 */
export function deepDiagnosticsRequest(c: Pick<CycleContext, 'deep'>): DiagnosticsInput {
  const files = c.deep?.files ?? [];
  return diagnosticsRequest({ kind: 'edit', importsChanged: files.length > 1 }, files);
}

/**
 * Absorbs the pre-deep diagnostics of the deep-managed files (captured before the dispatch).
 *
 * @example
 * ```ts
 * absorbDeepBaseline(ctx, diagnostics).deep?.pre?.errors; // the errors before deep
 * ```
 */
export function absorbDeepBaseline(
  c: Pick<CycleContext, 'deep' | 'now'>,
  out: DiagnosticsOutput,
): CycleUpdate {
  if (c.deep === null) return {};
  return {
    now: Math.max(c.now, out.now),
    deep: { ...c.deep, pre: { targets: out.targets, errors: out.errors } },
  };
}

/**
 * The deep worker's input: the ordinary worker input with `role: 'deep'`, the deep-managed files
 * as `ownedFiles` and the deep budgets in `parameters` (`deep_budget`).
 *
 * @example
 * ```ts
 * deepWorkerInput(ctx).parameters; // { deep_budget: { scope: 'target', max_files: 2, … } }
 * ```
 */
export function deepWorkerInput(c: CycleContext): WorkerInput {
  const files = c.deep?.files ?? (c.current ? [c.current.file] : []);
  return {
    ...withRoutedEvidence(c, workerInput(c), 'deep'),
    role: 'deep',
    ownedFiles: [...files],
    parameters: deepParameters(c.options, files),
  };
}

/**
 * Records what the deep worker changed (its accepted files and line count) for the judgement.
 * Apply after `absorbWork`.
 *
 * @example
 * ```ts
 * noteDeepWork(ctx, outcome).deep?.linesChanged; // 12
 * ```
 */
export function noteDeepWork(c: Pick<CycleContext, 'deep'>, out: WorkOutcome): CycleUpdate {
  if (c.deep === null || out.kind !== 'handoff') return {};
  return { deep: { ...c.deep, changed: [...out.accepted], linesChanged: out.linesChanged ?? 0 } };
}

/**
 * The deep worker changed a declaration header (a `fence-violation` outcome): the deep pass is
 * rolled back, whatever the rollback policy.
 *
 * @example
 * ```ts
 * deepFenceViolation(ctx, fenceOutcome).deep?.rollback; // 'deep: header fence — …'
 * ```
 */
export function deepFenceViolation(c: Pick<CycleContext, 'deep' | 'options'>, out: WorkOutcome): CycleUpdate {
  if (c.deep === null || out.kind === 'handoff') return {};
  const j = judgeDeep({
    options: c.options,
    fence: out.detail,
    scope: null,
    regression: null,
    improved: false,
  });
  return {
    deep: { ...c.deep, fence: out.detail, rollback: j.reason ?? `deep: header fence — ${out.detail}` },
  };
}

/**
 * The deep pass failed (the worker reported an operational failure or a permission denial, or an
 * actor failed): what it may have written is rolled back (`deep: worker failed — <detail>`).
 *
 * @example
 * ```ts
 * deepFailed(ctx, { phase: 'deep worker', error: 'boom' }).deep?.rollback; // 'deep: deep worker failed — boom'
 * ```
 */
export function deepFailed(
  c: Pick<CycleContext, 'deep' | 'lastWork'>,
  p: { readonly phase: string; readonly error?: unknown },
): CycleUpdate {
  if (c.deep === null) return {};
  const w = c.lastWork;
  const detail =
    p.error !== undefined ? String(p.error) : w !== null && w.kind !== 'handoff' ? w.detail : 'unknown error';
  return { deep: { ...c.deep, rollback: `deep: ${p.phase} failed — ${detail}` } };
}

/**
 * Absorbs the diagnostics after the deep pass and judges it: the deep worker's claim is verified
 * like any edit, then scope fence, regression gate and rollback policy decide ({@link judgeDeep}).
 * A rollback sets `deep.rollback` to its reason; a regression the gate lets through is logged.
 *
 * @example
 * ```ts
 * judgeDeepPass(ctx, post).deep?.rollback; // 'deep: regression — sorry count +1'
 * ```
 */
export function judgeDeepPass(c: CycleContext, out: DiagnosticsOutput): CycleUpdate {
  const d = c.deep;
  if (d === null) return {};
  const post = { targets: out.targets, errors: out.errors };
  const pre = d.pre ?? { targets: [], errors: [] };
  const regression = regressionOf(pre, post, d.files);
  const improved = improvedAfterDeep(pre, post, d.files);
  const scope = scopeFence(d.changed, d.linesChanged, c.options);
  const j = judgeDeep({ options: c.options, fence: d.fence, scope, regression, improved });
  const t = c.current;
  const w = c.lastWork;
  const log = [...c.log];
  let attempts = c.attempts;
  if (t !== null && w?.kind === 'handoff') {
    const v = verifyEdit(t, c.attempts[t.id] ?? [], w.handoff.status, out, d.files);
    attempts = { ...c.attempts, [t.id]: v.attempts };
    log.push(v.line);
  }
  if (j.logged !== null) log.push(j.logged);
  return {
    now: Math.max(c.now, out.now),
    attempts,
    deep: { ...d, post, improved, rollback: j.rollback ? (j.reason ?? 'deep: rollback') : null },
    log,
  };
}

/**
 * The restorer's input: the snapshot's files back to their exact pre-deep bytes.
 *
 * @example
 * ```ts
 * restoreInput(ctx); // { snapshotId: 'snap-1', files: ['A.lean'], reason: 'deep: scope exceeded — 3 files / 10 lines' }
 * ```
 */
export function restoreInput(c: Pick<CycleContext, 'deep'>): RestoreInput {
  return {
    snapshotId: c.deep?.snapshotId ?? '',
    files: [...(c.deep?.files ?? [])],
    reason: c.deep?.rollback ?? 'deep: rollback',
  };
}

function deepVerdict(c: Pick<CycleContext, 'current' | 'options' | 'deep'>, detail: string): StuckVerdict {
  const t = c.current;
  const id = c.deep?.target ?? t?.id ?? '';
  // a header change in deep mode goes back to the statement's author when an outer loop exists
  if (t !== null && c.deep?.fence && c.options.outerLoop) return fenceStuck(t, detail);
  return {
    target: id,
    condition: 'deep-rollback',
    signature: blockerSignature(t?.file ?? id, t?.line ?? 0, 'deep rollback'),
    detail,
  };
}

/**
 * A successful rollback: the deep-managed files are back to their pre-deep bytes and custody,
 * removed from this cycle's accepted files (never staged) and from the changed files the run had
 * not changed before deep; the target is stuck (`deep-rollback`, detail = the reason).
 *
 * @example
 * ```ts
 * absorbRollback(ctx, { now: 2, ok: true, restored: ['A.lean'], detail: null }).stuck?.detail; // the rollback reason
 * ```
 */
export function absorbRollback(c: CycleContext, out: RestoreOutput): CycleUpdate {
  const d = c.deep;
  if (d === null) return {};
  const reason = d.rollback ?? 'deep: rollback';
  const inDeep = (f: string) => d.files.some((rel) => sameFile(f, rel)) || d.changed.includes(f);
  const v = deepVerdict(c, reason);
  return {
    now: Math.max(c.now, out.now),
    accepted: c.accepted.filter((f) => !inDeep(f)),
    // a file the run changed before deep stays changed (the rollback restores the pre-deep bytes)
    filesChanged: c.filesChanged.filter((f) => d.changedBefore.includes(f) || !inDeep(f)),
    rolledBack: [...new Set([...c.rolledBack, ...d.files, ...d.changed])],
    baseline: mergeBaseline(c.baseline, d.preBaseline),
    stuck: v,
    lastStuck: v,
    log: [...c.log, `deep: rolled back ${d.files.join(', ')} — ${reason}`, `stuck: ${reason}`],
  };
}

/**
 * A failed rollback (the restorer answered `ok: false` or failed): the run ends stuck
 * "deep: rollback failed" without a checkpoint; the stuck handoff carries the abort reason.
 *
 * @example
 * ```ts
 * rollbackFailed(ctx, { detail: 'conflict' }).stuckHandoff?.failed_avenues; // [..., 'deep: rollback failed — conflict']
 * ```
 */
export function rollbackFailed(c: CycleContext, p: { readonly detail: string | null }): CycleUpdate {
  const d = c.deep;
  const v: StuckVerdict = {
    ...deepVerdict({ ...c, deep: d && { ...d, fence: null } }, DEEP_ROLLBACK_FAILED),
  };
  const wrapped = wrapStuckHandoff(c, v, c.review);
  const abort = `${DEEP_ROLLBACK_FAILED} — ${p.detail ?? 'the restorer failed'}${d?.rollback ? ` (rolling back: ${d.rollback})` : ''}`;
  const handoff = {
    ...wrapped,
    blocker_kind: 'operational' as const,
    blocker_class: null,
    failed_avenues: [...wrapped.failed_avenues, abort],
    next_action: 'stop' as const,
  };
  return {
    stuck: v,
    lastStuck: v,
    stuckHandoff: handoff,
    blocked: { ...c.blocked, [v.target]: handoff },
    // nothing of this cycle is staged
    accepted: [],
    log: [...c.log, `stuck: ${abort}`],
  };
}

/**
 * Accepted deep work: its files go to the checkpoint; when the deep pass improved the file set
 * the target's stuck verdict of this cycle is cleared.
 *
 * @example
 * ```ts
 * acceptDeep({ ...ctx, deep: { ...run, improved: true } }).stuck; // null
 * ```
 */
export function acceptDeep(c: Pick<CycleContext, 'deep' | 'stuck' | 'log'>): CycleUpdate {
  const d = c.deep;
  if (d === null) return {};
  const clear = d.improved && c.stuck?.target === d.target;
  return {
    ...(clear ? { stuck: null } : {}),
    log: [...c.log, `deep: accepted on ${d.target} (${d.improved ? 'improved' : 'no improvement'})`],
  };
}

/**
 * True when the restorer reported a failed rollback.
 *
 * @example
 * ```ts
 * restoreFailed({ now: 0, ok: false, restored: [], detail: 'conflict' }); // true
 * ```
 */
export function restoreFailed(out: RestoreOutput): boolean {
  return !out.ok;
}
