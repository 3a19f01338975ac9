/**
 * The session's result (layer 1, pure): the machine's output (one report line per claim —
 * claims never started are `not-attempted`), the exit code consistent with `handoff run`, and
 * the per-claim report lines the CLI prints.
 */
import { claimReport } from './context.js';
import type { ClaimReport, SynthesisContext, SynthesisOutput } from './types.js';

/**
 * The synthesis machine's output from its final context.
 *
 * @example
 * ```ts
 * synthesisOutput(ctx).reports.map((r) => r.status); // ['skipped', 'proved', 'stuck']
 * ```
 */
export function synthesisOutput(ctx: SynthesisContext): SynthesisOutput {
  const reports: ClaimReport[] = [...ctx.reports];
  if (ctx.active !== null) {
    reports.push(
      claimReport(ctx.active, {
        status: 'stuck',
        reason: ctx.halted ?? 'the session ended during this claim',
      }),
    );
  }
  for (const c of ctx.queue.slice(ctx.cursor)) {
    reports.push({
      claim: c.id,
      index: c.index,
      title: c.title,
      status: 'not-attempted',
      reason: ctx.halted
        ? 'the session halted before this claim'
        : ctx.stoppedByHuman
          ? 'the human stopped the session'
          : 'session runtime budget (--max-total-runtime) spent',
      declarations: [],
      drafts: 0,
      innerRuns: 0,
      routes: [],
      commits: [],
    });
  }
  const ending: SynthesisOutput['ending'] =
    ctx.extractError !== null
      ? 'extract-failed'
      : ctx.halted !== null
        ? 'halted'
        : ctx.stoppedByHuman
          ? 'human-stop'
          : ctx.cursor < ctx.queue.length
            ? 'runtime'
            : 'done';
  return {
    reports,
    ending,
    error: ctx.extractError ?? ctx.halted,
    provenance: [...ctx.provenance],
    tracker: ctx.tracker,
    log: [...ctx.log],
  };
}

/** Exit codes of `handoff formalize` / `autoformalize` (the `handoff run` table). */
export const SYNTHESIS_EXIT = { ok: 0, budget: 1, usage: 2, blocker: 3, error: 4 } as const;

/**
 * The exit code of a session: 2 the queue could not be extracted; 4 halted (explicit preserve
 * refusing a redraft, a failed `draft:` commit); 3 a claim ended stuck; 1 the session stopped
 * early (runtime budget, human stop) or a claim was left formalized without a proof; else 0
 * (every claim proved, skipped as present, or declined by the drafter).
 *
 * @example
 * ```ts
 * synthesisExitCode(output); // 3 when a claim is stuck
 * ```
 */
export function synthesisExitCode(o: Pick<SynthesisOutput, 'ending' | 'reports'>): number {
  if (o.ending === 'extract-failed') return SYNTHESIS_EXIT.usage;
  if (o.ending === 'halted') return SYNTHESIS_EXIT.error;
  if (o.reports.some((r) => r.status === 'stuck')) return SYNTHESIS_EXIT.blocker;
  if (o.ending !== 'done' || o.reports.some((r) => r.status === 'formalized' || r.status === 'not-attempted'))
    return SYNTHESIS_EXIT.budget;
  return SYNTHESIS_EXIT.ok;
}

/**
 * One line per claim: `#<index> <claim> <status>[: reason]` (plain text; the CLI escapes it).
 *
 * @example
 * ```ts
 * reportLines(output)[0]; // '#1 claim-1 skipped: already present: Paper.one declared in Paper.lean'
 * ```
 */
export function reportLines(o: Pick<SynthesisOutput, 'reports'>): string[] {
  return o.reports.map((r) => {
    const extra = [
      r.declarations.length > 0 ? `declarations ${r.declarations.join(', ')}` : '',
      r.routes.length > 0 ? `routes ${r.routes.join(' → ')}` : '',
    ].filter((x) => x !== '');
    return `#${r.index} ${r.claim} ${r.status}${r.reason === null ? '' : `: ${r.reason}`}${extra.length > 0 ? ` [${extra.join('; ')}]` : ''}`;
  });
}
