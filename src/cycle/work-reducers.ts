/**
 * Reducers of the work phase (layer 1, pure): a relaunch the rerun guard refused, the inline
 * fallback, a worker's outcome, the stuck verdicts after an attempt, and the verification of the
 * worker's edit.
 */

import type { Handoff } from '../contract/index.js';
import { kwSearchRemaining, recordKwSearch } from '../tracker/counters.js';
import { type CycleUpdate, currentCycle } from './context.js';
import { mergeBaseline } from './custody.js';
import { isFalsifyPass } from './falsification.js';
import { relaunchVerdict } from './relaunch.js';
import { refusedBatchEdits } from './restore-edits.js';
import { EMPTY_LEDGER, ledgerAfterHandoff } from './search-budget.js';
import { attemptOf, detectStuck, fenceStuck } from './stuck.js';
import type { CycleContext, DiagnosticsOutput, TargetInfo, WorkOutcome } from './types.js';
import { siblingClaims, verifiedFiles } from './verified-files.js';
import { downgradeLastAttempt, tiersLabel, verifyEdit } from './verify-edit.js';

/**
 * Records that the rerun guard refused relaunching the current target: it is skipped for the rest
 * of the cycle and its wrapped stuck handoff becomes the one a human (or the final record) sees.
 *
 * @example
 * ```ts
 * markRefused(ctx).refused; // ['A.lean:2']
 * ```
 */
export function markRefused(
  c: Pick<
    CycleContext,
    'current' | 'options' | 'blocked' | 'evidenceFor' | 'refused' | 'stuckHandoff' | 'log'
  >,
): CycleUpdate {
  const t = c.current;
  if (t === null) return {};
  const v = relaunchVerdict(c, t);
  return {
    refused: [...c.refused, t.id],
    stuckHandoff: c.blocked[t.id] ?? c.stuckHandoff,
    log: [...c.log, `guard: relaunch of ${t.id} refused — ${v?.reason ?? ''}`],
  };
}

/**
 * Switches to the inline worker after a permission denial aborted the delegation.
 *
 * @example
 * ```ts
 * switchToInline(ctx).delegation; // 'inline'
 * ```
 */
export function switchToInline(c: Pick<CycleContext, 'log'>): CycleUpdate {
  return {
    delegation: 'inline',
    log: [...c.log, 'work: permission denied — delegation aborted, continuing inline'],
  };
}

/**
 * Absorbs a worker outcome. Every outcome becomes `lastWork`; a handoff also adds an attempt for
 * the stuck rules, clears (solved) or consumes (relaunch) the target's blocker evidence, records
 * its searches against the tracker's budget and the target's fallback ledger, and adopts its
 * accepted files and baseline. A batch outcome's siblings (`out.batch`, `--batch-size` > 1) are
 * absorbed the same way for their own targets ({@link absorbHandoff}) after the primary: their
 * accepted files join this cycle's (verified and checkpointed with the primary's). A stuck
 * sibling's handoff is an attempt like any other: the stuck rules judge its target when it next
 * runs as the primary ({@link batchTargets} never takes a target with an attempt along). A sibling
 * that is not a handoff (a violation reaches the machine as the outcome itself, see
 * src/runtime/run-cycle.ts) is logged. A primary refused without ending the run
 * (`fence-violation`, `permission-denied`) still brings its siblings: their accepted files and
 * baselines are absorbed (they are in custody), their `solved` claims recorded as not verified and
 * counted as refuted: their edits wait in `refutedEdits` to be put back (src/cycle/restore-edits.ts).
 *
 * @example
 * ```ts
 * absorbWork(ctx, outcome).handoffs?.length; // one more than before (plus one per sibling handoff)
 * ```
 */
export function absorbWork(c: CycleContext, out: WorkOutcome): CycleUpdate {
  if (c.current === null || (out.kind !== 'handoff' && out.batch === undefined))
    return { lastWork: out, now: Math.max(c.now, out.now) };
  const primary = out.kind === 'handoff';
  let next: CycleContext = primary ? { ...c, ...absorbHandoff(c, c.current.id, out) } : c;
  for (const sib of out.batch ?? []) {
    if (sib.kind === 'handoff') {
      const id = sib.dispatch.target;
      next = { ...next, ...absorbHandoff(next, id, sib) };
      // the primary was refused, so no verification follows: a sibling's claim stays unverified
      if (!primary) {
        const t = c.targets.find((x) => x.id === id);
        next = { ...next, attempts: { ...next.attempts, [id]: unverified(next.attempts[id], t) } };
      }
    } else {
      next = { ...next, log: [...next.log, `work (batch): ${sib.kind} — ${sib.detail}`] };
    }
  }
  // a refused primary: its siblings' `solved` claims cannot be verified — counted as refuted, their
  // edits wait to be put back (src/cycle/restore-edits.ts)
  const refuted = primary ? [] : refusedBatchEdits(next, out);
  return {
    lastWork: out,
    ...(refuted.length > 0 ? { refutedEdits: [...(c.refutedEdits ?? []), ...refuted] } : {}),
    now: next.now,
    tracker: next.tracker,
    attempts: next.attempts,
    blocked: next.blocked,
    evidenceFor: next.evidenceFor,
    searchLedgers: next.searchLedgers,
    handoffs: next.handoffs,
    accepted: next.accepted,
    filesChanged: next.filesChanged,
    baseline: next.baseline,
    log: next.log,
  };
}

/** The attempts with the latest one downgraded to a `not verified` failure of `t` (pure). */
function unverified(
  attempts: CycleContext['attempts'][string] | undefined,
  t: TargetInfo | undefined,
): CycleContext['attempts'][string] {
  const all = attempts ?? [];
  return all.at(-1)?.solved === true ? downgradeLastAttempt(all, t, 'not verified') : all;
}

/**
 * Absorbs one handoff for target `id` (the primary's or a batch sibling's): its attempt, its
 * effect on the target's blocker and evidence, its searches (tracker budget and the target's
 * ledger), the handoff itself, its accepted files and its baseline.
 *
 * @example
 * ```ts
 * absorbHandoff(ctx, 'B.lean:2', siblingOutcome).attempts?.['B.lean:2']?.length; // 1
 * ```
 */
export function absorbHandoff(
  c: Pick<
    CycleContext,
    | 'tracker'
    | 'now'
    | 'attempts'
    | 'blocked'
    | 'evidenceFor'
    | 'searchLedgers'
    | 'handoffs'
    | 'accepted'
    | 'filesChanged'
    | 'baseline'
    | 'log'
  >,
  id: string,
  out: WorkOutcome & { kind: 'handoff' },
): CycleUpdate {
  // a falsify pass's `solved` means "artifacts produced": it is no attempt at the target, and the
  // target keeps its blocker and evidence
  const pass = isFalsifyPass(out);
  const attempts = pass
    ? c.attempts
    : { ...c.attempts, [id]: [...(c.attempts[id] ?? []), attemptOf(currentCycle(c), out)] };
  const solved = out.handoff.status === 'solved' && !pass;
  const blocked = { ...c.blocked };
  const evidenceFor = { ...c.evidenceFor };
  if (solved) {
    delete blocked[id];
    delete evidenceFor[id];
  } else if (blocked[id] !== undefined) {
    // the relaunch consumed its evidence; a new blocker needs new evidence again
    delete evidenceFor[id];
  }
  // the worker's searches count against the tracker's knowledge-search budget of this cycle
  let tracker = c.tracker;
  const searches = Math.min(out.handoff.evidence.queries.length, kwSearchRemaining(tracker, out.now));
  for (let i = 0; i < searches; i++) tracker = recordKwSearch(tracker);
  return {
    now: Math.max(c.now, out.now),
    tracker,
    attempts,
    blocked,
    evidenceFor,
    searchLedgers: {
      ...c.searchLedgers,
      [id]: ledgerAfterHandoff(c.searchLedgers[id] ?? EMPTY_LEDGER, out.handoff),
    },
    handoffs: [...c.handoffs, out.handoff],
    accepted: [...new Set([...c.accepted, ...out.accepted])],
    filesChanged: [...new Set([...c.filesChanged, ...out.accepted])],
    baseline: mergeBaseline(c.baseline, out.baseline),
    log: [...c.log, `work: ${id} → ${out.handoff.status}`],
  };
}

/**
 * A statement-fence violation: the current target is stuck at once (condition `fence-violation`).
 *
 * @example
 * ```ts
 * markFenceStuck(ctx, { kind: 'fence-violation', now: 0, detail: 'header fence: …', dispatch: null }).stuck?.condition; // 'fence-violation'
 * ```
 */
export function markFenceStuck(c: Pick<CycleContext, 'current' | 'log'>, out: WorkOutcome): CycleUpdate {
  const t = c.current;
  if (t === null || out.kind === 'handoff') return {};
  const v = fenceStuck(t, out.detail);
  return { stuck: v, lastStuck: v, log: [...c.log, `stuck: ${v.detail}`] };
}

/**
 * Checks the four stuck conditions for the current target after an attempt ({@link detectStuck});
 * a confirmed solve is never stuck.
 *
 * @example
 * ```ts
 * assessStuck(ctx).stuck?.condition; // 'repeated-failure' after the same blocker twice
 * ```
 */
export function assessStuck(c: CycleContext): CycleUpdate {
  const t = c.current;
  if (t === null) return {};
  const v = detectStuck({
    target: t,
    attempts: c.attempts[t.id] ?? [],
    gateErrors: c.gateErrors,
    now: c.now,
    lastDecreaseAt: c.lastDecreaseAt,
    openCount: c.lastCount ?? 0,
    stallMinutes: c.options.stallMinutes,
    maxFailuresPerTarget: c.options.maxFailuresPerTarget,
    ...(c.available.repair ? { repairAttempts: c.repairHistory, errors: c.verifyErrors[t.id] ?? [] } : {}),
  });
  const solvedNow = c.lastWork?.kind === 'handoff' && c.lastWork.handoff.status === 'solved';
  return solvedNow || v === null ? {} : { stuck: v, lastStuck: v, log: [...c.log, `stuck: ${v.detail}`] };
}

/**
 * Absorbs the diagnostics of the worker's edit ({@link verifyEdit}) over every file changed this
 * cycle: a `solved` claim that does not hold downgrades the latest attempt to a failure; the
 * errors in those files are kept for the target (repair triggers, pre-flight context). A batch's
 * siblings are verified the same way, each against its own target, after the primary. A falsify
 * pass claims no target: only its changed files must build.
 *
 * @example
 * ```ts
 * absorbVerify(ctx, diagnostics).log?.at(-1); // 'verify (file-fast): A.lean:2 confirmed'
 * ```
 */
export function absorbVerify(
  c: Pick<
    CycleContext,
    'current' | 'lastWork' | 'attempts' | 'now' | 'log' | 'accepted' | 'verifyErrors' | 'targets'
  >,
  out: DiagnosticsOutput,
): CycleUpdate {
  const t = c.current;
  const w = c.lastWork;
  if (t === null || w?.kind !== 'handoff') return {};
  const files = verifiedFiles(c);
  const errors = out.errors.filter((e) => files.some((f) => e.startsWith(`${f}:`)));
  const attempts = { ...c.attempts };
  const verifyErrors = { ...c.verifyErrors };
  const log = [...c.log];
  // the primary first, then each batch sibling's claim against the same diagnostics: a sibling's
  // `solved` that does not hold is downgraded like the primary's
  if (isFalsifyPass(w)) {
    // a falsify pass proves no target: its artifacts must build, the target stays open
    const built = errors.length === 0;
    return {
      now: Math.max(c.now, out.now),
      verifyErrors: { ...c.verifyErrors, [t.id]: errors },
      log: [
        ...c.log,
        `verify (${tiersLabel(out)}): falsification artifacts for ${t.id} ${built ? 'build' : `do not build — ${errors[0]}`}`,
      ],
    };
  }
  const claims: [TargetInfo, Handoff['status']][] = [[t, w.handoff.status], ...siblingClaims(c)];
  for (const [target, claimed] of claims) {
    const v = verifyEdit(target, attempts[target.id] ?? [], claimed, out, files);
    attempts[target.id] = v.attempts;
    verifyErrors[target.id] = errors;
    log.push(v.line);
  }
  return { now: Math.max(c.now, out.now), attempts, verifyErrors, log };
}
