/**
 * The synthesis machine's context and the claim lifecycle (layer 1, pure): the initial context,
 * starting a claim (tracker `start-claim`), ending it with a report line (tracker `reset-claim`),
 * and the scope-backed pseudo-claim. No I/O, no clock: time comes from actor outputs.
 */
import { resetClaim, startClaim } from '../../tracker/counters.js';
import type {
  ActiveClaim,
  ClaimReport,
  ClaimStatus,
  LoopClaim,
  SynthesisContext,
  SynthesisInput,
} from './types.js';

/**
 * The context a session starts with: an empty queue, empty provenance (a restart always starts
 * here: nothing of a previous session is remembered), the input's tracker.
 *
 * @example
 * ```ts
 * initialSynthesisContext(input).provenance; // []
 * ```
 */
export function initialSynthesisContext(input: SynthesisInput): SynthesisContext {
  return {
    input,
    tracker: input.tracker,
    queue: [],
    cursor: 0,
    active: null,
    provenance: [],
    reports: [],
    now: input.startedAt,
    halted: null,
    stoppedByHuman: false,
    extractError: null,
    log: [],
  };
}

/**
 * The scope-backed session's one pseudo-claim: the inner cycle on the existing scope.
 *
 * @example
 * ```ts
 * scopeClaim('Paper.lean').kind; // 'scope'
 * ```
 */
export function scopeClaim(targetFile: string): LoopClaim {
  return { id: 'scope', index: 1, title: `existing scope ${targetFile}`, text: '', name: '', kind: 'scope' };
}

function freshClaim(claim: LoopClaim): ActiveClaim {
  return {
    claim,
    drafts: 0,
    redrafts: 0,
    innerRuns: 0,
    cyclesUsed: 0,
    stuckUsed: 0,
    declarations: [],
    redraftReason: null,
    replace: null,
    draft: null,
    lastHandoff: null,
    routes: [],
    commits: [],
    commitDeclined: false,
  };
}

/**
 * Pops the next claim off the queue and starts it (tracker start-claim). The tracker refusing
 * (a claim already active — a defect) is logged and the claim starts anyway after a reset.
 *
 * @example
 * ```ts
 * beginClaim(ctx).active?.claim.id; // the claim at the cursor
 * ```
 */
export function beginClaim(ctx: SynthesisContext): Partial<SynthesisContext> {
  const claim = ctx.queue[ctx.cursor];
  if (claim === undefined) return {};
  let tracker = ctx.tracker;
  const log = [...ctx.log];
  let r = startClaim(tracker);
  if (!r.ok) {
    log.push(`tracker: ${r.error} (reset before starting ${claim.id})`);
    const reset = resetClaim(tracker);
    if (reset.ok) tracker = reset.state;
    r = startClaim(tracker);
  }
  if (r.ok) tracker = r.state;
  log.push(`claim ${claim.index}/${ctx.queue.length} ${claim.id}: started (${claim.title})`);
  return { tracker, cursor: ctx.cursor + 1, active: freshClaim(claim), log };
}

/**
 * The queue of a scope-backed session (one pseudo-claim), started at once.
 *
 * @example
 * ```ts
 * beginScope(ctx).active?.claim.kind; // 'scope'
 * ```
 */
export function beginScope(ctx: SynthesisContext): Partial<SynthesisContext> {
  const queue = [scopeClaim(ctx.input.targetFile)];
  return { ...beginClaim({ ...ctx, queue, cursor: 0 }), queue };
}

/** How a claim ends: its status and the reason. */
export interface ClaimEnd {
  readonly status: ClaimStatus;
  readonly reason: string | null;
}

/**
 * The report line of the active claim ending with `end`.
 *
 * @example
 * ```ts
 * claimReport(active, { status: 'proved', reason: null }).status; // 'proved'
 * ```
 */
export function claimReport(a: ActiveClaim, end: ClaimEnd): ClaimReport {
  return {
    claim: a.claim.id,
    index: a.claim.index,
    title: a.claim.title,
    status: end.status,
    reason: end.reason,
    declarations: [...a.declarations],
    drafts: a.drafts,
    innerRuns: a.innerRuns,
    routes: [...a.routes],
    commits: [...a.commits],
  };
}

/**
 * Ends the active claim: its report line, tracker reset-claim, no active claim.
 *
 * @example
 * ```ts
 * endClaim(ctx, { status: 'skipped', reason: 'already present' }).reports?.at(-1)?.status; // 'skipped'
 * ```
 */
export function endClaim(ctx: SynthesisContext, end: ClaimEnd): Partial<SynthesisContext> {
  const a = ctx.active;
  if (a === null) return {};
  const r = resetClaim(ctx.tracker);
  return {
    tracker: r.ok ? r.state : ctx.tracker,
    active: null,
    reports: [...ctx.reports, claimReport(a, end)],
    log: [...ctx.log, `claim ${a.claim.id}: ${end.status}${end.reason === null ? '' : ` — ${end.reason}`}`],
  };
}
