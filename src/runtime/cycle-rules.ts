/**
 * The cycle's decision rules (layer 1, pure): target choice, trivial goals, the four stuck
 * conditions, review timing and scope, the rerun guard for a relaunch, the parent-wrapped stuck
 * handoff and the run's final handoff. The machine's named guards and actions call these.
 */
import type { FileBaseline } from '../baseline/schema.js';
import {
  type BlockerClass,
  blockerClassFromPhrase,
  blockerSignature,
  type Handoff,
  type HandoffEvidence,
  type RerunVerdict,
  rerunGuard,
  type StopReason,
} from '../contract/index.js';
import type {
  AttemptRecord,
  CycleContext,
  DiagnosticsOutput,
  ReviewOutput,
  StuckVerdict,
  TargetInfo,
  WorkOutcome,
} from './cycle-types.js';

const TRIVIAL = /^\s*(?:by\s+)?(?:rfl|simp|trivial|decide|norm_num|exact\s+\S+)\s*$/;

/**
 * True when a goal is obviously solvable (rfl, simp, exact with a known lemma): the planning
 * search is skipped and the cycle goes straight to work (the trivial-goal shortcut). A goal may
 * carry an explicit hint `-- trivial` or `hint: <tactic>`.
 *
 * @example
 * ```ts
 * isTrivialGoal('rfl'); // true
 * isTrivialGoal('theorem t : a + b = b + a := sorry'); // false
 * ```
 */
export function isTrivialGoal(goal: string): boolean {
  if (/--\s*trivial\b/.test(goal)) return true;
  const hint = /hint:\s*(.+)$/.exec(goal);
  return TRIVIAL.test(hint?.[1] ?? goal);
}

/**
 * The per-target task triple of a worker dispatch.
 *
 * @example
 * ```ts
 * targetTask(ctx, target); // { target: 'A.lean:2', scope: 'sorry', mode: 'autoprove' }
 * ```
 */
export function targetTask(ctx: Pick<CycleContext, 'options'>, t: TargetInfo) {
  return { target: t.id, scope: 'sorry' as const, mode: ctx.options.mode };
}

/**
 * Chooses the target of this cycle: plan order, targets without a declared blocker first, never
 * one the rerun guard already refused this cycle.
 *
 * @example
 * ```ts
 * pickTarget(ctx)?.id; // 'Demo.lean:7'
 * ```
 */
export function pickTarget(
  ctx: Pick<CycleContext, 'targets' | 'plan' | 'blocked' | 'refused'>,
): TargetInfo | null {
  const order = new Map(ctx.plan.map((s, i) => [s.target, i]));
  const open = ctx.targets.filter((t) => !ctx.refused.includes(t.id));
  const rank = (t: TargetInfo) =>
    (ctx.blocked[t.id] !== undefined ? 1_000_000 : 0) + (order.get(t.id) ?? 10_000);
  return (
    [...open].sort((a, b) => rank(a) - rank(b) || ctx.targets.indexOf(a) - ctx.targets.indexOf(b))[0] ?? null
  );
}

/**
 * The rerun guard for dispatching `target`: null when the target has no declared blocker;
 * otherwise the verdict of {@link rerunGuard} for a dispatch carrying the prior blocker and the
 * evidence gathered since.
 *
 * @example
 * ```ts
 * relaunchVerdict(ctx, t)?.forbidden; // true: same task, same blocker, no new evidence
 * ```
 */
export function relaunchVerdict(
  ctx: Pick<CycleContext, 'options' | 'blocked' | 'evidenceFor'>,
  target: TargetInfo,
): RerunVerdict | null {
  const prior = ctx.blocked[target.id];
  if (prior === undefined) return null;
  return rerunGuard(
    {
      ...targetTask(ctx, target),
      prior_blocker: prior.blocker_signature,
      evidence_delta: [...(ctx.evidenceFor[target.id] ?? [])],
    },
    prior,
  );
}

/**
 * The attempt record of a worker outcome, for the stuck rules.
 *
 * @example
 * ```ts
 * attemptOf(3, outcome); // { cycle: 3, solved: false, signature: 'A.lean:4:unknown identifier', … }
 * ```
 */
export function attemptOf(cycle: number, outcome: WorkOutcome & { kind: 'handoff' }): AttemptRecord {
  const h = outcome.handoff;
  const solved = h.status === 'solved';
  const signature = solved
    ? null
    : (h.blocker_signature ??
      blockerSignature(
        h.target ?? outcome.dispatch.target,
        0,
        h.evidence.diagnostic_delta ?? h.failed_avenues[0] ?? h.status,
      ));
  return {
    cycle,
    solved,
    signature,
    snippets: [...h.evidence.attempts.map((a) => a.snippet), ...h.best_candidates.map((c) => c.candidate)],
    emptySearch: h.evidence.queries.length > 0 && h.evidence.top_candidates.length === 0,
  };
}

/** Inputs of {@link detectStuck}. */
export interface StuckInputs {
  readonly target: TargetInfo;
  readonly attempts: readonly AttemptRecord[];
  readonly gateErrors: readonly (readonly string[])[];
  readonly now: number;
  readonly lastDecreaseAt: number;
  readonly openCount: number;
  readonly stallMinutes: number;
  readonly maxFailuresPerTarget: number;
}

/**
 * The four stuck conditions of seed 002, checked in order:
 * 1. repeated-failure — the same blocker signature on two consecutive attempts, or
 *    `maxFailuresPerTarget` failures whose latest brought no new approach (no unseen snippet);
 * 2. repeated-build-error — the same project-gate error on three consecutive checkpoints
 *    (it repeated after two repair attempts);
 * 3. no-progress — no decrease of the open-target count for `stallMinutes`;
 * 4. empty-search — two attempts whose searches returned nothing for the same goal.
 * The blocker signature is `(file, line, primary_error_code_or_text_hash)`.
 *
 * @example
 * ```ts
 * detectStuck({ target, attempts: [a1, a2], … })?.condition; // 'repeated-failure'
 * ```
 */
export function detectStuck(i: StuckInputs): StuckVerdict | null {
  const fails = i.attempts.filter((a) => !a.solved);
  const last = i.attempts.at(-1);
  const prev = i.attempts.at(-2);
  const sigOf = (a: AttemptRecord | undefined) =>
    a?.signature ?? blockerSignature(i.target.file, i.target.line, 'no progress');
  if (last !== undefined && !last.solved) {
    if (prev !== undefined && !prev.solved && last.signature !== null && last.signature === prev.signature) {
      return {
        target: i.target.id,
        condition: 'repeated-failure',
        signature: last.signature,
        detail: `same blocker on two consecutive attempts: ${last.signature}`,
      };
    }
    if (fails.length >= i.maxFailuresPerTarget) {
      const seen = new Set(fails.slice(0, -1).flatMap((a) => a.snippets));
      if (last.snippets.every((s) => seen.has(s))) {
        return {
          target: i.target.id,
          condition: 'repeated-failure',
          signature: sigOf(last),
          detail: `failed ${fails.length} times with no new approach`,
        };
      }
    }
  }
  const g = i.gateErrors.slice(-3);
  if (g.length === 3 && g[0]!.length > 0) {
    const common = g[0]!.filter((e) => g[1]!.includes(e) && g[2]!.includes(e));
    const first = common[0];
    if (first !== undefined) {
      const m = /^(.*?):(\d+):(.*)$/.exec(first);
      return {
        target: i.target.id,
        condition: 'repeated-build-error',
        signature: m
          ? blockerSignature(m[1]!, Number(m[2]), m[3]!)
          : blockerSignature(i.target.file, 0, first),
        detail: `the same build error repeated after 2 repair attempts: ${first}`,
      };
    }
  }
  if (i.openCount > 0 && i.now - i.lastDecreaseAt >= i.stallMinutes * 60_000) {
    return {
      target: i.target.id,
      condition: 'no-progress',
      signature: sigOf(last),
      detail: `no decrease of the open-target count for ${i.stallMinutes}+ minutes`,
    };
  }
  const empties = i.attempts.filter((a) => a.emptySearch);
  if (empties.length >= 2) {
    return {
      target: i.target.id,
      condition: 'empty-search',
      signature: sigOf(last),
      detail: 'search returned empty twice for the same goal',
    };
  }
  return null;
}

/**
 * The stuck verdict of a statement-fence violation on `target`: the blocker signature is the
 * target's `(file, line, "header fence")`, the detail names the declaration and the change.
 *
 * @example
 * ```ts
 * fenceStuck(target, 'header fence: A.lean: theorem t: statement changed (…)').condition; // 'fence-violation'
 * ```
 */
export function fenceStuck(target: TargetInfo, detail: string): StuckVerdict {
  return {
    target: target.id,
    condition: 'fence-violation',
    signature: blockerSignature(target.file, target.line, 'header fence'),
    detail,
  };
}

/**
 * Whether a (non-stuck) review is due this cycle: `checkpoint` → after a checkpoint commit;
 * N → every N cycles; `never` → only stuck reviews.
 *
 * @example
 * ```ts
 * reviewDue('checkpoint', 3, true); // true
 * reviewDue(2, 3, true);            // false (cycle 3 is not a multiple of 2)
 * ```
 */
export function reviewDue(
  every: CycleContext['options']['reviewEvery'],
  cycle: number,
  committed: boolean,
): boolean {
  if (every === 'never') return false;
  if (every === 'checkpoint') return committed;
  return cycle % every === 0;
}

/**
 * The review scope matching the current work: a single sorry → `sorry` with its line; otherwise
 * the current file. Never `project` (a project review is never triggered automatically).
 *
 * @example
 * ```ts
 * reviewScopeFor('sorry', target); // { scope: 'sorry', file: 'A.lean', line: 4 }
 * ```
 */
export function reviewScopeFor(
  runScope: CycleContext['options']['scope'],
  t: TargetInfo | null,
): { scope: 'sorry' | 'file'; file: string | null; line: number | null } {
  if (runScope === 'sorry' && t !== null) return { scope: 'sorry', file: t.file, line: t.line };
  return { scope: 'file', file: t?.file ?? null, line: null };
}

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
 * Merges a returned baseline into the parent's: entries of the returned one replace the same
 * paths; the others are carried forward unchanged (external drift on them is never blessed).
 *
 * @example
 * ```ts
 * mergeBaseline(parentBaseline, worker.file_baseline);
 * ```
 */
export function mergeBaseline(base: FileBaseline, returned: FileBaseline): FileBaseline {
  const byPath = new Map(returned.files.map((f) => [f.path, f]));
  const files = base.files.map((f) => byPath.get(f.path) ?? f);
  for (const f of returned.files) if (!base.files.some((b) => b.path === f.path)) files.push(f);
  return { schema: base.schema, files };
}

/**
 * Maps a stuck review to a blocker class: the review's primary phrase, else the worker's class,
 * else `needs-helper-lemma` (with `guessed: true`).
 *
 * @example
 * ```ts
 * stuckClass(review, handoff); // { cls: 'missing-library-lemma', guessed: false }
 * ```
 */
export function stuckClass(
  review: ReviewOutput | null,
  worker: Handoff | null,
): { cls: BlockerClass; guessed: boolean } {
  const fromReview = review?.primaryBlocker ? blockerClassFromPhrase(review.primaryBlocker) : null;
  if (fromReview !== null) return { cls: fromReview, guessed: false };
  if (worker?.blocker_class) return { cls: worker.blocker_class, guessed: false };
  return { cls: 'needs-helper-lemma', guessed: true };
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
    'options' | 'handoffs' | 'filesOwned' | 'filesChanged' | 'baseline' | 'targets' | 'current'
  >,
  verdict: StuckVerdict,
  review: ReviewOutput | null,
): Handoff {
  const mine = ctx.handoffs.filter((h) => h.target === verdict.target);
  const lastWorker = mine.at(-1) ?? null;
  const { cls } = stuckClass(review, lastWorker);
  const base = finalHandoff(ctx, { status: 'stuck' });
  return {
    ...base,
    target: verdict.target,
    scope: 'sorry',
    // a fence violation is a safety guard firing, not a proof-triage class
    blocker_kind: verdict.condition === 'fence-violation' ? 'safety-guard' : 'proof',
    blocker_class: verdict.condition === 'fence-violation' ? null : cls,
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
 * The run's final handoff (run-contract/v1) for the run's own (target, scope, mode): custody of
 * the whole owned set with the latest accepted baseline, accumulated evidence, and blocker fields
 * exactly when the stop is blocker-driven (taken from the parent-wrapped stuck handoff).
 *
 * @example
 * ```ts
 * finalHandoff(ctx, { status: 'stopped', stopReason: 'max-cycles' });
 * ```
 */
export function finalHandoff(
  ctx: Pick<CycleContext, 'options' | 'handoffs' | 'filesOwned' | 'filesChanged' | 'baseline'>,
  kind: FinalKind,
): Handoff {
  const hs = ctx.handoffs;
  const stopReason = kind.status === 'stopped' ? (kind.stopReason ?? 'user-stop') : null;
  const operational = stopReason === 'protocol-error' || stopReason === 'operational-error';
  const driven = kind.status === 'stuck' || stopReason === 'max-stuck';
  const s = driven ? (kind.stuck ?? null) : null;
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
    failed_avenues: uniq([...hs.flatMap((h) => h.failed_avenues), ...(s?.failed_avenues ?? [])]),
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

/** The verdict of verifying a worker's edit (see {@link verifyEdit}). */
export interface EditVerification {
  /** The attempts of the current target, the latest downgraded when the claim did not hold. */
  readonly attempts: readonly AttemptRecord[];
  readonly confirmed: boolean;
  readonly line: string;
}

/**
 * Checks a worker's claim against the diagnostics of its changed file (the ladder's `edit`
 * question): a `solved` claim holds only when the target is no longer open and the file reports
 * no error; otherwise the latest attempt counts as a failure whose signature is the first error
 * (or `not verified`), so the stuck rules see it.
 *
 * @example
 * ```ts
 * verifyEdit(target, attempts, 'solved', diagnostics).confirmed; // false when A.lean:2 is still open
 * ```
 */
export function verifyEdit(
  t: TargetInfo,
  attempts: readonly AttemptRecord[],
  claimed: Handoff['status'],
  out: Pick<DiagnosticsOutput, 'tier' | 'targets' | 'errors' | 'tiersTried'>,
): EditVerification {
  const tiers = out.tiersTried && out.tiersTried.length > 1 ? out.tiersTried.join(' → ') : out.tier;
  const open = out.targets.some((x) => x.id === t.id);
  const errors = out.errors.filter((e) => e.startsWith(`${t.file}:`));
  if (claimed !== 'solved') {
    return { attempts, confirmed: true, line: `verify (${tiers}): ${t.file} checked (${claimed} claim)` };
  }
  if (!open && errors.length === 0) {
    return { attempts, confirmed: true, line: `verify (${tiers}): ${t.id} confirmed` };
  }
  const why = errors[0] ?? `${t.id} still open`;
  const last = attempts.at(-1);
  const downgraded =
    last === undefined
      ? attempts
      : [
          ...attempts.slice(0, -1),
          {
            ...last,
            solved: false,
            signature: blockerSignature(
              t.file,
              t.line,
              errors[0] ? errors[0].replace(/^.*?:\d+:/, '') : 'not verified',
            ),
          },
        ];
  return {
    attempts: downgraded,
    confirmed: false,
    line: `verify (${tiers}): ${t.id} not confirmed — ${why}`,
  };
}
