/**
 * The review router inside the cycle (layer 1, pure; seed 002 § Review Router): after a stuck
 * review, its `next_action` (src/cycle/router.ts `routeFor`) sends the stuck target to deep mode,
 * repair mode or falsification, hands `redraft`/`golf` to an active outer loop, or resumes with
 * the revised plan (`continue`, and `stop`: the halted target stays blocked — the rerun guard
 * refuses it without new evidence — so the run goes on to the next target or ends stuck). A target is routed at most once per cycle, so the cycle
 * always reaches its boundary.
 */
import type { Handoff } from '../contract/index.js';
import type { CycleUpdate } from './context.js';
import { falsificationWanted } from './falsification.js';
import { routeFor } from './router.js';
import type { CycleContext, WorkerInput } from './types.js';

/** Where a stuck review sends the run. */
export type ReviewRoute = 'resume' | 'deep' | 'repair' | 'falsify' | 'outer' | 'halt';

/** The stuck target of the review: this cycle's verdict, else the last one, else the current target. */
function stuckTarget(c: Pick<CycleContext, 'stuck' | 'lastStuck' | 'current'>): string | null {
  return c.stuck?.target ?? c.lastStuck?.target ?? c.current?.id ?? null;
}

/** The next action the stuck review settled on (the wrapped stuck handoff's, else the review's). */
function nextActionOf(c: Pick<CycleContext, 'stuckHandoff' | 'review'>): Handoff['next_action'] {
  return c.stuckHandoff?.next_action ?? c.review?.nextAction ?? 'continue';
}

/**
 * The route of a stuck review: `falsify` when falsification is wanted (autoprove: the review
 * flagged it); otherwise {@link routeFor} of its `next_action` — `deep`/`repair` only when that
 * mode is available (deep: not under `--deep=never`, and under prove's `--deep=ask` — whose human
 * already answered for the stuck target at `work.askDeep` — only after the human's own
 * `review-stuck`) and the target is the current one, else `resume`. A target already routed
 * this cycle, or a normal review, resumes.
 *
 * @example
 * ```ts
 * reviewRoute({ ...ctx, stuckHandoff: { ...h, next_action: 'deep' }, available: { deep: true, repair: false } }); // 'deep'
 * ```
 */
export function reviewRoute(
  c: Pick<
    CycleContext,
    | 'stuck'
    | 'lastStuck'
    | 'current'
    | 'review'
    | 'stuckHandoff'
    | 'routed'
    | 'options'
    | 'available'
    | 'humanAnswer'
  >,
): ReviewRoute {
  const id = stuckTarget(c);
  if (c.review?.mode !== 'stuck' || id === null || c.routed.includes(id)) return 'resume';
  const here = c.current !== null && c.current.id === id;
  if (
    here &&
    c.options.mode === 'autoprove' &&
    falsificationWanted(c.options.mode, c.options.falsification, c.review, false)
  )
    return 'falsify';
  const r = routeFor(nextActionOf(c), c.options.outerLoop).route;
  if (r === 'deep') {
    // `--deep=never` is the user's word: a review cannot override it. prove's `--deep=ask` is the
    // human's: answered at `work.askDeep` when the target became stuck, so only the human's own
    // `review-stuck` request (prove's `boundary.stuckRoute`) lets the review's route stand
    const asked =
      c.options.mode === 'prove' && c.options.deep === 'ask' && c.humanAnswer?.answer !== 'review-stuck';
    return here && c.available.deep && c.options.deep !== 'never' && !asked ? 'deep' : 'resume';
  }
  if (r === 'repair') return here && c.available.repair ? 'repair' : 'resume';
  return r;
}

/**
 * Marks the stuck target routed for this cycle and re-opens the work phase on it: what the cycle
 * already checkpointed is not staged again. A deep rollback earlier in the cycle restored its
 * files and dropped them from the accepted set; the routed pass starts from those restored bytes,
 * so its own verified work on them is staged again (`rolledBack` only ever guards the rolled-back
 * pass: a second rollback marks the files again).
 *
 * @example
 * ```ts
 * markRouted(ctx, { route: 'deep' }).routed; // ['A.lean:2']
 * ```
 */
export function markRouted(
  c: Pick<
    CycleContext,
    'stuck' | 'lastStuck' | 'current' | 'routed' | 'committedThisCycle' | 'accepted' | 'rolledBack' | 'log'
  >,
  p: { readonly route: ReviewRoute },
): CycleUpdate {
  const id = stuckTarget(c);
  if (id === null) return {};
  return {
    routed: [...c.routed, id],
    accepted: c.committedThisCycle ? [] : c.accepted,
    ...(c.rolledBack.length > 0 ? { rolledBack: [] } : {}),
    log: [...c.log, `router: ${id} → ${p.route}`],
  };
}

/**
 * The evidence a routed dispatch carries (its `evidence_delta`, added to the dispatch itself, never
 * to the target's stored evidence): the stuck review's decision and its evidence. A route is a
 * new, auditable plan for the blocked target, so the rerun guard lets the routed worker run once;
 * a route that never dispatches (e.g. can-deep denied) leaves nothing behind.
 *
 * @example
 * ```ts
 * routedEvidence(ctx, 'deep'); // ['stuck review: next_action deep', …the review's evidence]
 * ```
 */
export function routedEvidence(c: Pick<CycleContext, 'review'>, route: string): string[] {
  return [`stuck review: next_action ${route}`, ...(c.review?.evidence ?? [])];
}

/**
 * The run ends stuck with the stuck review's `next_action` (`redraft`/`golf` for the outer loop).
 *
 * @example
 * ```ts
 * endWithNextAction(ctx).nextActionOverride; // 'redraft'
 * ```
 */
export function endWithNextAction(c: Pick<CycleContext, 'stuckHandoff' | 'review' | 'log'>): CycleUpdate {
  const next = nextActionOf(c);
  return { nextActionOverride: next, log: [...c.log, `router: next_action ${next} — the run ends stuck`] };
}

/**
 * A routed dispatch's worker input: the routed evidence joins its `evidence_delta` when the
 * target was routed this cycle and is blocked.
 *
 * @example
 * ```ts
 * withRoutedEvidence(ctx, workerInput(ctx), 'deep').evidenceDelta; // [..., 'stuck review: next_action deep']
 * ```
 */
export function withRoutedEvidence(
  c: Pick<CycleContext, 'routed' | 'blocked' | 'review'>,
  input: WorkerInput,
  route: string,
): WorkerInput {
  const id = input.target.id;
  if (!c.routed.includes(id) || c.blocked[id] === undefined) return input;
  return { ...input, evidenceDelta: [...input.evidenceDelta, ...routedEvidence(c, route)] };
}
