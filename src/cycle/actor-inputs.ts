/**
 * The inputs the cycle machine hands its six actors (layer 1, pure): every request is built from
 * the context alone, so the machine's `invoke.input` entries are one call each and the requests
 * can be tested without an actor.
 */
import type { Handoff } from '../contract/index.js';
import { kwSearchRemaining } from '../tracker/counters.js';
import { selectBatch } from './batch.js';
import { currentCycle } from './context.js';
import { isFalsifyPass, targetHandoffs } from './falsification.js';
import { reviewScopeFor } from './review.js';
import { EMPTY_LEDGER, searchGrant } from './search-budget.js';
import { isTrivialGoal } from './targets.js';
import type {
  CheckpointInput,
  CycleContext,
  DiagnosticsInput,
  HumanInput,
  PlannerInput,
  PreflightContext,
  ReviewInput,
  TargetInfo,
  WorkerInput,
} from './types.js';
import { tierPlan, type VerificationQuestion } from './verification-ladder.js';
import { verifiedFiles } from './verified-files.js';

/** Options the human is offered after a clear blocker (seed 000 § Human-in-the-loop). */
export const BLOCKER_OPTIONS = ['continue-with-evidence', 'formalize', 'review-stuck', 'stop'] as const;

/**
 * The diagnostics request for a question: the ladder's starting tier and ceiling
 * (see {@link tierPlan}).
 *
 * @example
 * ```ts
 * diagnosticsRequest({ kind: 'checkpoint' }); // { question: 'checkpoint', tier: 'project', maxTier: 'project', files: [] }
 * ```
 */
export function diagnosticsRequest(q: VerificationQuestion, files: readonly string[] = []): DiagnosticsInput {
  const plan = tierPlan(q);
  return { question: q.kind, tier: plan.start, maxTier: plan.max, files: [...files] };
}

/**
 * The diagnostics request verifying the last worker edit: the ladder's `edit` question on every
 * file changed this cycle, the target's first ({@link verifiedFiles}); `file-deps` first when the
 * edit changed imports or a module another owned file imports.
 *
 * @example
 * ```ts
 * verifyRequest(ctx); // { question: 'edit', tier: 'file-fast', maxTier: 'module', files: ['A.lean'] }
 * ```
 */
export function verifyRequest(
  c: Pick<CycleContext, 'lastWork' | 'current' | 'accepted' | 'targets'>,
): DiagnosticsInput {
  const w = c.lastWork;
  const deps = w?.kind === 'handoff' && (w.importsChanged || w.dependentsChanged === true);
  return diagnosticsRequest({ kind: 'edit', importsChanged: deps }, verifiedFiles(c));
}

/**
 * The planner's input: a first plan of the cycle (`plan`) or the replan after a review, with the
 * tracker's knowledge-search budget left.
 *
 * @example
 * ```ts
 * plannerInput(ctx, 'replan').searchBudget; // 3 at the start of a cycle
 * ```
 */
export function plannerInput(
  c: Pick<CycleContext, 'tracker' | 'now' | 'targets' | 'blocked' | 'stuck' | 'review'>,
  kind: PlannerInput['kind'],
): PlannerInput {
  return {
    kind,
    cycle: currentCycle(c),
    targets: c.targets,
    blocked: Object.keys(c.blocked),
    searchBudget: kwSearchRemaining(c.tracker, c.now),
    stuck: kind === 'plan' ? null : c.stuck,
    review: kind === 'plan' ? null : c.review,
  };
}

/**
 * The worker's input for the current target ({@link targetWorkerInput}); with `--batch-size` N > 1
 * (and a delegating run) it carries `batch`: up to N-1 further open targets ({@link batchTargets}),
 * each with its own full input built the same way, and `maxDelegates` for the runtime.
 *
 * @throws Error when no target is chosen (the machine dispatches only after choosing one).
 * @example
 * ```ts
 * workerInput({ ...ctx, options: { ...ctx.options, batchSize: 2 } }).batch?.map((i) => i.target.id); // ['B.lean:2']
 * ```
 */
export function workerInput(c: CycleContext): WorkerInput {
  const primary = targetWorkerInput(c);
  const siblings = batchTargets(c);
  if (siblings.length === 0) return primary;
  return {
    ...primary,
    maxDelegates: c.options.maxDelegates,
    batch: siblings.map((t) => targetWorkerInput({ ...c, current: t })),
  };
}

/**
 * The further targets a fill dispatch of the current target takes along (`--batch-size` N > 1,
 * never inline): up to N-1 open targets in the planner's order ({@link selectBatch}), each owning
 * a file (its own) disjoint from the current target's and from each other's. Only a fresh target
 * is taken along: one the rerun guard refused, one that is blocked (a relaunch needs the guard) or
 * one with an attempt already (the stuck rules judge it, and they run for the primary) runs only
 * as the primary.
 *
 * @example
 * ```ts
 * batchTargets(ctx).map((t) => t.id); // ['B.lean:2'] with batchSize 2, targets A.lean:2, A.lean:5, B.lean:2
 * ```
 */
export function batchTargets(
  c: Pick<
    CycleContext,
    'current' | 'targets' | 'plan' | 'blocked' | 'refused' | 'options' | 'delegation' | 'attempts'
  >,
): TargetInfo[] {
  const t = c.current;
  const size = c.options.batchSize;
  if (t === null || !(size > 1) || c.delegation === 'inline') return [];
  const order = new Map(c.plan.map((s, i) => [s.target, i]));
  const rank = (x: TargetInfo) => order.get(x.id) ?? 10_000;
  const fresh = (x: TargetInfo) =>
    x.id !== t.id &&
    !c.refused.includes(x.id) &&
    c.blocked[x.id] === undefined &&
    (c.attempts[x.id] ?? []).length === 0;
  const open = c.targets
    .filter(fresh)
    .sort((a, b) => rank(a) - rank(b) || c.targets.indexOf(a) - c.targets.indexOf(b));
  return selectBatch([t, ...open], size, (x) => [x.file]).slice(1);
}

/**
 * The worker's input for one target (the context's current one): the prior blocker and the evidence gathered for a
 * relaunch, the last failure, the search grant and ledger, the budgets and the custody baseline.
 *
 * @throws Error when no target is chosen (the machine dispatches only after choosing one).
 * @example
 * ```ts
 * targetWorkerInput(ctx).searchBudget; // min(2, the tracker's knowledge-search budget left)
 * ```
 */
export function targetWorkerInput(c: CycleContext): WorkerInput {
  const t = c.current;
  if (t === null) throw new Error('the cycle dispatches a worker only after choosing a target');
  const prior = c.blocked[t.id];
  const attempts = c.attempts[t.id] ?? [];
  const lastFail = [...attempts].reverse().find((a) => !a.solved);
  const ledger = c.searchLedgers[t.id] ?? EMPTY_LEDGER;
  return {
    target: t,
    cycle: currentCycle(c),
    mode: c.options.mode,
    priorBlocker: prior?.blocker_signature ?? null,
    evidenceDelta: prior ? [...(c.evidenceFor[t.id] ?? [])] : [],
    priorFailure: lastFail?.signature ?? null,
    searchResults: c.searches,
    searchBudget: searchGrant(c.tracker, c.now, ledger).budget,
    searchLedger: ledger,
    trivial: isTrivialGoal(t.goal),
    inline: c.delegation === 'inline',
    budget: {
      max_cycles: c.options.maxCycles,
      max_stuck_cycles: c.options.maxStuck,
      runtime: c.options.maxRuntime === '' ? null : c.options.maxRuntime,
    },
    baseline: c.baseline,
    preflight: preflightFor(c),
  };
}

/**
 * The pre-flight context of a dispatch on the current target (seed 002 § Pre-flight Context):
 * the last verify errors of the target (else the last gate's errors on its file), the snippets
 * already tried on it with their results (worker attempts and candidates, each once), no code
 * actions.
 *
 * @example
 * ```ts
 * preflightFor(ctx).candidatesTested; // [{ snippet: 'omega', result: 'failed' }]
 * ```
 */
export function preflightFor(
  c: Pick<CycleContext, 'current' | 'verifyErrors' | 'gateErrors' | 'handoffs'>,
): PreflightContext {
  const t = c.current;
  if (t === null) return { diagnostics: [], candidatesTested: [], codeActions: [] };
  const diagnostics =
    c.verifyErrors[t.id] ?? (c.gateErrors.at(-1) ?? []).filter((e) => e.startsWith(`${t.file}:`));
  const seen = new Set<string>();
  const candidatesTested: { snippet: string; result: string }[] = [];
  for (const h of c.handoffs) {
    if (h.target !== t.id) continue;
    const tried = [
      ...h.evidence.attempts,
      ...h.best_candidates.map((b) => ({ snippet: b.candidate, result: b.outcome })),
    ];
    for (const a of tried) {
      const k = JSON.stringify([a.snippet, a.result]);
      if (seen.has(k)) continue;
      seen.add(k);
      candidatesTested.push({ snippet: a.snippet, result: a.result });
    }
  }
  return { diagnostics: [...diagnostics], candidatesTested, codeActions: [] };
}

/**
 * The checkpointer's input: the files accepted this cycle (never a rolled-back deep file; never a
 * failed edit the cycle put back before the gate, src/cycle/restore-edits.ts; none when the
 * target's `solved` claim did not hold and no batch sibling worked) and a one-line summary: the target's verified outcome (`solved`, `not verified`, `repaired`,
 * `falsification artifacts`, or the handoff's status), then each other target worked this cycle (a batch sibling) as `solved` or
 * `open` by its verified attempt.
 *
 * @example
 * ```ts
 * checkpointInput(ctx).summary; // 'cycle 1: A.lean:2 solved'
 * ```
 */
export function checkpointInput(
  c: Pick<
    CycleContext,
    'tracker' | 'accepted' | 'current' | 'lastWork' | 'options' | 'rolledBack' | 'attempts'
  >,
): CheckpointInput {
  const cycle = currentCycle(c);
  const w = c.lastWork;
  const t = c.current;
  // the target's outcome as verified: a `solved` claim that verification downgraded is "not
  // verified"; an applied repair diff is "repaired" (the target is proved by a later attempt)
  const repaired = w?.kind === 'handoff' && w.handoff.artifacts.some((a) => a.kind === 'unified-diff');
  const claimed = w?.kind === 'handoff' ? w.handoff.status : '';
  const status = isFalsifyPass(w)
    ? 'falsification artifacts'
    : repaired
      ? 'repaired'
      : claimed === 'solved' && t !== null && c.attempts[t.id]?.at(-1)?.solved === false
        ? 'not verified'
        : claimed;
  // the other targets worked this cycle (a batch's siblings), each by its own verified attempt
  const others = Object.entries(c.attempts).flatMap(([id, as]) => {
    const last = as.filter((a) => a.cycle === cycle).at(-1);
    return id === t?.id || last === undefined ? [] : [`, ${id} ${last.solved ? 'solved' : 'open'}`];
  });
  // files of a rolled-back deep invocation are never staged
  const rolledBack = (f: string) => c.rolledBack.some((r) => f === r || f.endsWith(`/${r}`));
  // an edit whose `solved` claim did not hold is not committed (alone: a batch's siblings keep theirs)
  const refuted = status === 'not verified' && (w?.kind !== 'handoff' || (w.batch ?? []).length === 0);
  return {
    cycle,
    files: refuted ? [] : c.accepted.filter((f) => !rolledBack(f)),
    summary: `cycle ${cycle}: ${t?.id ?? ''} ${status}${others.join('')}`.trim(),
    commit: c.options.commit,
  };
}

/**
 * The handoff a review reads: the last one, except after a falsify pass, whose `solved` only says
 * its artifacts were produced — then the one before it, so the target's blocker (a worker's
 * `false-statement`, say) keeps its kind.
 *
 * @example
 * ```ts
 * reviewedHandoff(ctx)?.blocker_kind; // 'false-statement' after a counterexample pass
 * ```
 */
export function reviewedHandoff(c: Pick<CycleContext, 'handoffs' | 'lastWork'>): Handoff | null {
  return targetHandoffs(c).at(-1) ?? null;
}

/**
 * The reviewer's input after the checkpoint: a stuck-mode review when this cycle declared the
 * target stuck, a normal one otherwise; scoped to the sorry or the current file.
 *
 * @example
 * ```ts
 * reviewInput(ctx).mode; // 'stuck' when ctx.stuck is set
 * ```
 */
export function reviewInput(
  c: Pick<CycleContext, 'tracker' | 'stuck' | 'options' | 'current' | 'handoffs' | 'lastWork'>,
): ReviewInput {
  return {
    cycle: currentCycle(c),
    mode: c.stuck !== null ? 'stuck' : 'normal',
    ...reviewScopeFor(c.options.scope, c.current),
    stuck: c.stuck,
    lastHandoff: reviewedHandoff(c),
  };
}

/**
 * The reviewer's input when a prove-mode human asks to review the stuck target again (after the
 * cycle's tick: the cycle is the one that declared it, the verdict the last one).
 *
 * @example
 * ```ts
 * stuckReviewInput(ctx).stuck === ctx.lastStuck; // true
 * ```
 */
export function stuckReviewInput(
  c: Pick<CycleContext, 'tracker' | 'lastStuck' | 'options' | 'current' | 'handoffs' | 'lastWork'>,
): ReviewInput {
  return {
    cycle: c.tracker.cycles,
    mode: 'stuck',
    ...reviewScopeFor(c.options.scope, c.current),
    stuck: c.lastStuck,
    lastHandoff: reviewedHandoff(c),
  };
}

/**
 * The human's question approving the cycle's plan (prove with `--planning=ask`).
 *
 * @example
 * ```ts
 * approvePlanQuestion(ctx).options; // ['approve', 'stop']
 * ```
 */
export function approvePlanQuestion(c: Pick<CycleContext, 'log'>): HumanInput {
  return { question: 'approve-plan', options: ['approve', 'stop'], summary: c.log.at(-1) ?? '' };
}

/**
 * The human's question approving a checkpoint commit (`--commit=ask`).
 *
 * @example
 * ```ts
 * approveCommitQuestion(ctx).summary; // 'commit A.lean'
 * ```
 */
export function approveCommitQuestion(c: Pick<CycleContext, 'accepted'>): HumanInput {
  return {
    question: 'approve-commit',
    options: ['commit', 'skip', 'stop'],
    summary: `commit ${c.accepted.join(', ')}`,
  };
}

/**
 * The human's question approving a replan (prove).
 *
 * @example
 * ```ts
 * approveReplanQuestion(ctx).options; // ['approve', 'decline', 'stop']
 * ```
 */
export function approveReplanQuestion(c: Pick<CycleContext, 'log'>): HumanInput {
  return {
    question: 'approve-replan',
    options: ['approve', 'decline', 'stop'],
    summary: c.log.at(-1) ?? '',
  };
}

/**
 * The human's question at a boundary without a blocker (prove): continue or stop.
 *
 * @example
 * ```ts
 * continueQuestion(ctx).summary; // 'cycle 1 done; 2 open target(s) before it'
 * ```
 */
export function continueQuestion(c: Pick<CycleContext, 'tracker' | 'lastCount'>): HumanInput {
  return {
    question: 'continue',
    options: ['continue', 'stop'],
    summary: `cycle ${c.tracker.cycles} done; ${c.lastCount ?? 0} open target(s) before it`,
  };
}

/**
 * The human's question after a clear blocker (prove): the {@link BLOCKER_OPTIONS}.
 *
 * @example
 * ```ts
 * blockerQuestion(ctx).summary; // 'A.lean:2 is stuck: A.lean:2:omega failed'
 * ```
 */
export function blockerQuestion(c: Pick<CycleContext, 'stuckHandoff'>): HumanInput {
  return {
    question: 'blocker',
    options: [...BLOCKER_OPTIONS],
    summary: c.stuckHandoff
      ? `${c.stuckHandoff.target} is stuck: ${c.stuckHandoff.blocker_signature}`
      : 'a target is stuck',
  };
}
