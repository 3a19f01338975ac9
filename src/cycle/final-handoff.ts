/**
 * The handoff records the parent builds (layer 1, pure): the stuck class of a review, the
 * parent-wrapped stuck handoff of a target (what the rerun guard is evaluated against), and the
 * run's final run-contract/v1 handoff.
 */
import type { BlockerClass, BlockerKind, Handoff, HandoffEvidence, StopReason } from '../contract/index.js';
import { type BlockerClassTable, classOfPhrase, LEAN_BLOCKER_CLASSES } from '../profile/blocker-classes.js';
import { targetHandoffs } from './falsification.js';
import type { CycleContext, ReviewOutput, StuckVerdict } from './types.js';

function uniq<T>(xs: Iterable<T>, key: (x: T) => string = (x) => JSON.stringify(x)): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const x of xs) {
    const k = key(x);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(x);
    }
  }
  return out;
}

function mergedEvidence(hs: readonly Handoff[]): HandoffEvidence {
  const last = hs.at(-1);
  return {
    queries: uniq(hs.flatMap((h) => h.evidence.queries)),
    top_candidates: uniq(hs.flatMap((h) => h.evidence.top_candidates)),
    attempts: uniq(hs.flatMap((h) => h.evidence.attempts)),
    goal_delta: last?.evidence.goal_delta ?? null,
    diagnostic_delta: last?.evidence.diagnostic_delta ?? null,
  };
}

/**
 * Maps a stuck review to a blocker class: the review's primary phrase (read with the domain
 * profile's phrases, default the proof phrases), else the worker's class, else the table's
 * fallback (`needs-helper-lemma`, with `guessed: true`).
 *
 * @example
 * ```ts
 * stuckClass(review, handoff); // { cls: 'missing-library-lemma', guessed: false }
 * ```
 */
export function stuckClass(
  review: ReviewOutput | null,
  worker: Handoff | null,
  table: BlockerClassTable = LEAN_BLOCKER_CLASSES,
): { cls: BlockerClass; guessed: boolean } {
  const fromReview = review?.primaryBlocker ? classOfPhrase(table, review.primaryBlocker) : null;
  if (fromReview !== null) return { cls: fromReview, guessed: false };
  if (worker?.blocker_class) return { cls: worker.blocker_class, guessed: false };
  return { cls: table.fallback, guessed: true };
}

/** The blocker a stuck review settles on (see {@link stuckBlocker}). */
export interface StuckBlocker {
  readonly kind: BlockerKind;
  /** Set exactly when `kind` is `proof` (run-contract/v1). */
  readonly cls: BlockerClass | null;
}

/**
 * The blocker kind and class of a target declared stuck. A statement-fence violation is a
 * `safety-guard` (no class). A worker that declared a non-proof blocker (`capability`,
 * `false-statement`, `safety-guard`, `protocol`, `operational`) keeps its kind unchanged and gets
 * no class: the review classifies proof blockers only, so it cannot relabel a missing tool as a
 * missing lemma. Otherwise the blocker is `proof` with {@link stuckClass}.
 *
 * @example
 * ```ts
 * stuckBlocker(review, { ...handoff, blocker_kind: 'capability' }, 'repeated-failure');
 * // { kind: 'capability', cls: null }
 * ```
 */
export function stuckBlocker(
  review: ReviewOutput | null,
  worker: Handoff | null,
  condition: StuckVerdict['condition'] | null,
  table: BlockerClassTable = LEAN_BLOCKER_CLASSES,
): StuckBlocker {
  if (condition === 'fence-violation') return { kind: 'safety-guard', cls: null };
  const declared = worker?.status === 'solved' ? null : (worker?.blocker_kind ?? null);
  if (declared !== null && declared !== 'proof') return { kind: declared, cls: null };
  return { kind: 'proof', cls: stuckClass(review, worker, table).cls };
}

/**
 * The parent-wrapped stuck handoff for a target's task (what the rerun guard is evaluated
 * against, and what a prove-mode human reads): the stuck review block mapped into a complete
 * run-contract/v1 record.
 *
 * @example
 * ```ts
 * const h = wrapStuckHandoff(ctx, verdict, review); // status 'stuck', blocker fields set
 * ```
 */
export function wrapStuckHandoff(
  ctx: Pick<
    CycleContext,
    'options' | 'handoffs' | 'filesOwned' | 'filesChanged' | 'baseline' | 'targets' | 'current' | 'lastWork'
  >,
  verdict: StuckVerdict,
  review: ReviewOutput | null,
): Handoff {
  // a falsify pass's handoff is not the target's blocker (src/cycle/falsification.ts)
  const mine = targetHandoffs(ctx).filter((h) => h.target === verdict.target);
  const lastWorker = mine.at(-1) ?? null;
  const blocker = stuckBlocker(review, lastWorker, verdict.condition, ctx.options.blockerClasses);
  const base = finalHandoff(ctx, { status: 'stuck' });
  return {
    ...base,
    target: verdict.target,
    scope: 'sorry',
    // a fence violation is a safety guard firing, not a proof-triage class; a worker's
    // non-proof blocker (capability, …) keeps its kind
    blocker_kind: blocker.kind,
    blocker_class: blocker.cls,
    blocker_signature: verdict.signature,
    failed_avenues: uniq([
      ...mine.flatMap((h) => h.failed_avenues),
      `${verdict.condition}: ${verdict.detail}`,
    ]),
    evidence: {
      ...mergedEvidence(mine),
      queries: uniq([...mergedEvidence(mine).queries]),
    },
    // a changed statement is not a proof problem: the statement goes back to its author
    next_action: verdict.condition === 'fence-violation' ? 'redraft' : (review?.nextAction ?? 'stop'),
    new_evidence_required_for_rerun:
      lastWorker?.new_evidence_required_for_rerun ??
      `new evidence for ${verdict.target}: a changed goal or diagnostic, a verified candidate lemma, changed source, or a new tool`,
  };
}

/** How the run ends. */
export interface FinalKind {
  readonly status: Handoff['status'];
  readonly stopReason?: StopReason;
  readonly detail?: string;
  readonly stuck?: Handoff | null;
}

/**
 * The blocker of a run stuck with no target left but discovery errors (a failing build, an
 * unverifiable file): the first error is its signature, every error a failed avenue — never
 * `solved`, and the record says why (pure).
 *
 * @example
 * ```ts
 * errorsBlocker({ discoveryErrors: ['T.lean:0:unverifiable: not valid UTF-8 text'] })?.blocker_signature;
 * // 'T.lean:0:unverifiable: not valid UTF-8 text'
 * ```
 */
export function errorsBlocker(
  ctx: Partial<Pick<CycleContext, 'discoveryErrors'>>,
): Pick<
  Handoff,
  | 'blocker_kind'
  | 'blocker_class'
  | 'blocker_signature'
  | 'failed_avenues'
  | 'next_action'
  | 'new_evidence_required_for_rerun'
> | null {
  const errors = ctx.discoveryErrors ?? [];
  const first = errors[0];
  if (first === undefined) return null;
  return {
    blocker_kind: 'operational',
    blocker_class: null,
    blocker_signature: first,
    failed_avenues: errors.slice(0, 10).map((e) => `diagnostics: ${e}`),
    next_action: 'stop',
    new_evidence_required_for_rerun: `diagnostics without errors (first: ${first})`,
  };
}

/**
 * The run's final handoff (run-contract/v1) for the run's own (target, scope, mode): custody of
 * the whole owned set with the latest accepted baseline, accumulated evidence, and blocker fields
 * exactly when the stop is blocker-driven (taken from the parent-wrapped stuck handoff). A failed
 * edit the cycle put back is a failed avenue in words (`restored A.lean: the claim 'solved' did not
 * hold — …`).
 *
 * @example
 * ```ts
 * finalHandoff(ctx, { status: 'stopped', stopReason: 'max-cycles' });
 * ```
 */
export function finalHandoff(
  ctx: Pick<CycleContext, 'options' | 'handoffs' | 'filesOwned' | 'filesChanged' | 'baseline'> &
    Partial<Pick<CycleContext, 'discoveryErrors' | 'restoredEdits'>>,
  kind: FinalKind,
): Handoff {
  const hs = ctx.handoffs;
  const stopReason = kind.status === 'stopped' ? (kind.stopReason ?? 'user-stop') : null;
  const operational = stopReason === 'protocol-error' || stopReason === 'operational-error';
  const driven = kind.status === 'stuck' || stopReason === 'max-stuck';
  const s = driven ? (kind.stuck ?? errorsBlocker(ctx) ?? null) : null;
  const blockerKind = s?.blocker_kind ?? (driven ? 'operational' : null);
  return {
    schema: 'run-contract/v1',
    record: 'handoff',
    target: ctx.options.target,
    scope: ctx.options.scope,
    mode: ctx.options.mode,
    status: kind.status,
    stop_reason: stopReason,
    stop_detail: operational ? kind.detail?.trim() || `${stopReason}` : null,
    blocker_kind: driven ? blockerKind : null,
    blocker_class: driven && blockerKind === 'proof' ? (s?.blocker_class ?? 'needs-helper-lemma') : null,
    blocker_signature: driven ? (s?.blocker_signature ?? `${ctx.options.target}:0:stuck`) : null,
    attempted_tools: uniq(hs.flatMap((h) => h.attempted_tools)),
    best_candidates: uniq(hs.flatMap((h) => h.best_candidates)),
    // a failed edit put back is said in words: which, and why (`restored A.lean: the claim …`)
    failed_avenues: uniq([
      ...hs.flatMap((h) => h.failed_avenues),
      ...(s?.failed_avenues ?? []),
      ...(ctx.restoredEdits ?? []),
    ]),
    evidence: mergedEvidence(hs),
    files_owned: [...ctx.filesOwned],
    files_changed: uniq(ctx.filesChanged),
    file_baseline: ctx.baseline,
    artifacts: uniq(hs.flatMap((h) => h.artifacts)),
    next_action: kind.status === 'solved' ? 'stop' : (s?.next_action ?? 'stop'),
    new_evidence_required_for_rerun: driven
      ? (s?.new_evidence_required_for_rerun ?? 'new evidence addressing the recorded blocker')
      : null,
  };
}
