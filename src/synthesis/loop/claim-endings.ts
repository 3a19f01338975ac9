/**
 * How a claim ends, per actor outcome (layer 1, pure): the `{ status, reason }` each ending
 * transition of `machines/synthesis.ts` passes to its `finishClaim` action.
 */
import type { ClaimEnd } from './context.js';
import { budgetReason, currentRoute } from './router.js';
import type {
  AssembleOutput,
  DraftOutput,
  GolfOutput,
  RedraftVerdict,
  SynthesisContext,
  ValidateOutput,
} from './types.js';

/**
 * The claim's declaration is already in the target (formalized by a prior run).
 *
 * @example
 * ```ts
 * alreadyPresent(ctx).status; // 'skipped'
 * ```
 */
export function alreadyPresent(ctx: SynthesisContext): ClaimEnd {
  const name = ctx.active?.claim.name ?? '';
  return { status: 'skipped', reason: `already present: ${name} is declared in ${ctx.input.targetFile}` };
}

/**
 * The drafter declined or failed.
 *
 * @example
 * ```ts
 * draftEnded({ now: 1, kind: 'declined', reason: 'not a mathematical statement' }).status; // 'declined'
 * ```
 */
export function draftEnded(out: DraftOutput): ClaimEnd {
  if (out.kind === 'declined') return { status: 'declined', reason: `drafter declined: ${out.reason}` };
  if (out.kind === 'error') return { status: 'stuck', reason: `drafter failed: ${out.reason}` };
  return { status: 'stuck', reason: 'unexpected draft outcome' };
}

/**
 * The assembled draft added nothing or could not be written.
 *
 * @example
 * ```ts
 * assembleEnded(ctx, { now: 2, ok: true, added: [], skipped: ['foo'], error: null }).status; // 'skipped'
 * ```
 */
export function assembleEnded(ctx: SynthesisContext, out: AssembleOutput): ClaimEnd {
  if (!out.ok) return { status: 'stuck', reason: `draft not assembled: ${out.error ?? 'refused'}` };
  const first = (ctx.active?.drafts ?? 0) <= 1;
  if (first)
    return {
      status: 'skipped',
      reason: `already present: ${out.skipped.join(', ')} declared in ${ctx.input.targetFile}`,
    };
  return {
    status: 'stuck',
    reason: `redraft added no new declaration (${out.skipped.join(', ') || 'nothing'} already present)`,
  };
}

/**
 * The draft did not check and no redraft is left.
 *
 * @example
 * ```ts
 * invalidEnded({ now: 3, ok: false, errors: ['P.lean:3: parse error'] }).status; // 'stuck'
 * ```
 */
export function invalidEnded(out: ValidateOutput): ClaimEnd {
  return {
    status: 'stuck',
    reason: `the draft does not check: ${out.errors.slice(0, 3).join('; ') || 'diagnostics failed'}`,
  };
}

/**
 * The claim ends after the router (no further route, or its budget spent).
 *
 * @example
 * ```ts
 * routedEnd(ctx); // { status: 'stuck', reason: 'stuck at P.lean:7: …; next_action stop' }
 * ```
 */
export function routedEnd(ctx: SynthesisContext): ClaimEnd {
  const r = currentRoute(ctx);
  switch (r.to) {
    case 'proved':
      return { status: 'proved', reason: null };
    case 'unproved':
      return ctx.active?.claim.kind === 'scope'
        ? { status: 'stuck', reason: r.reason }
        : { status: 'formalized', reason: r.reason };
    case 'again':
      return { status: 'stuck', reason: `${r.action} route not taken: ${budgetReason(ctx)}` };
    case 'redraft':
      return { status: 'stuck', reason: 'redraft route not taken: no redraft left for this claim' };
    case 'golf':
      return { status: 'stuck', reason: 'golf pass did not prove it' };
    default:
      return { status: 'stuck', reason: r.reason };
  }
}

/**
 * A golf pass ended: `proved` when the claim's declarations are clean afterwards, else the
 * router's ending for the golf pass's handoff.
 *
 * @example
 * ```ts
 * golfEnded(ctx, { now: 7, handoff: solvedHandoff }); // { status: 'proved', reason: 'proved by the golf pass' }
 * ```
 */
export function golfEnded(ctx: SynthesisContext, out: GolfOutput): ClaimEnd {
  if (out.handoff.status === 'solved') return { status: 'proved', reason: 'proved by the golf pass' };
  return routedEnd({ ...ctx, active: ctx.active && { ...ctx.active, lastHandoff: out.handoff } });
}

/**
 * A redraft the rule refused (the reason is the rule's).
 *
 * @example
 * ```ts
 * refusedEnd({ allowed: false, halt: false, reason: 'redraft refused: …' }).status; // 'stuck'
 * ```
 */
export function refusedEnd(v: RedraftVerdict): ClaimEnd {
  return { status: 'stuck', reason: v.allowed ? 'redraft not taken' : v.reason };
}

/**
 * The human skipped (or stopped at) a draft in guided mode.
 *
 * @example
 * ```ts
 * humanEnded('skip').status; // 'declined'
 * ```
 */
export function humanEnded(answer: string, at: 'draft' | 'commit' = 'draft'): ClaimEnd {
  if (at === 'commit')
    return {
      status: 'declined',
      reason:
        'the human stopped the session at the draft: commit question (the draft stays in the working tree, uncommitted)',
    };
  return {
    status: 'declined',
    reason: answer === 'skip' ? 'the human skipped the draft' : 'the human stopped the session at this draft',
  };
}
