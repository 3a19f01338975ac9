/**
 * The synthesis machine's reducers (layer 1, pure): `(context, actor output) → context update`,
 * one per action of `machines/synthesis.ts`. Provenance grows only here, when a validated draft
 * is in the target; nothing here does I/O.
 */
import { produce } from 'immer';
import { currentRoute } from './router.js';
import type {
  ActiveClaim,
  ApproveOutput,
  AssembleOutput,
  CommitOutput,
  DraftOutput,
  ExtractOutput,
  GolfOutput,
  ProveOutput,
  RedraftVerdict,
  SynthesisContext,
  ValidateOutput,
} from './types.js';

type Update = Partial<SynthesisContext>;

function withActive(ctx: SynthesisContext, f: (a: ActiveClaim) => ActiveClaim, now?: number): Update {
  if (ctx.active === null) return now === undefined ? {} : { now: Math.max(ctx.now, now) };
  return { active: f(ctx.active), ...(now === undefined ? {} : { now: Math.max(ctx.now, now) }) };
}

/**
 * The claim queue from the `extract` actor (or the extraction error).
 *
 * @example
 * ```ts
 * absorbExtract(ctx, { now: 1, ok: true, claims }).queue; // claims
 * ```
 */
export function absorbExtract(ctx: SynthesisContext, out: ExtractOutput): Update {
  const now = Math.max(ctx.now, out.now);
  if (!out.ok) return { now, extractError: out.error, log: [...ctx.log, `extract: ${out.error}`] };
  return {
    now,
    queue: [...out.claims],
    cursor: 0,
    log: [...ctx.log, `extract: ${out.claims.length} claim(s) in document order`],
  };
}

/**
 * Records the time of any actor output (the only clock the loop reads).
 *
 * @example
 * ```ts
 * absorbNow(ctx, { now: 5 }).now; // 5
 * ```
 */
export function absorbNow(ctx: SynthesisContext, out: { readonly now: number }): Update {
  return { now: Math.max(ctx.now, out.now) };
}

/**
 * A draft came back: counted, kept for assembly.
 *
 * @example
 * ```ts
 * absorbDraft(ctx, drafted).active?.drafts; // 1
 * ```
 */
export function absorbDraft(ctx: SynthesisContext, out: DraftOutput): Update {
  return withActive(ctx, (a) => ({ ...a, drafts: a.drafts + 1, draft: out }), out.now);
}

/**
 * The draft was written into the target: its new declarations are the claim's now (a `rewrite`
 * replaced the previous ones; an `adjacent` draft sits beside them).
 *
 * @example
 * ```ts
 * absorbAssemble(ctx, { now: 2, ok: true, added: ['foo'], skipped: [], error: null }).active?.declarations; // ['foo']
 * ```
 */
export function absorbAssemble(ctx: SynthesisContext, out: AssembleOutput): Update {
  return withActive(
    ctx,
    (a) => ({
      ...a,
      // the claim is the latest draft: a `rewrite` took the previous one out, an `adjacent` draft
      // leaves it in the file (still session-generated) beside the new one, which is proved
      declarations: [...out.added],
    }),
    out.now,
  );
}

/**
 * A validated draft: its declarations join the session-generated provenance set.
 *
 * @example
 * ```ts
 * absorbValidated(ctx, { now: 3, ok: true, errors: [] }).provenance; // […, { file, declaration: 'foo' }]
 * ```
 */
export function absorbValidated(ctx: SynthesisContext, out: ValidateOutput): Update {
  const a = ctx.active;
  const now = Math.max(ctx.now, out.now);
  if (a === null) return { now };
  const file = ctx.input.targetFile;
  const provenance = produce(ctx.provenance as ProvenanceList, (p) => {
    for (const d of a.declarations) {
      if (!p.some((x) => x.file === file && x.declaration === d)) p.push({ file, declaration: d });
    }
  });
  return {
    now,
    provenance,
    log: [...ctx.log, `draft ${a.claim.id}: ${a.declarations.join(', ')} checks; session-generated`],
  };
}
type ProvenanceList = { file: string; declaration: string }[];

/**
 * A draft failed validation (the host restored the target): the next draft is a fresh one.
 *
 * @example
 * ```ts
 * absorbInvalid(ctx, { now: 3, ok: false, errors: ['P.lean:4: unknown identifier'] }).active?.redrafts; // 1
 * ```
 */
export function absorbInvalid(ctx: SynthesisContext, out: ValidateOutput): Update {
  return withActive(
    ctx,
    (a) => ({
      ...a,
      redrafts: a.redrafts + 1,
      declarations: a.replace === 'adjacent' ? a.declarations : [],
      redraftReason: `the draft did not check: ${out.errors.slice(0, 3).join('; ') || 'diagnostics failed'}`,
      replace: a.replace === 'adjacent' ? 'adjacent' : null,
      routes: [...a.routes, 'redraft (validation)'],
    }),
    out.now,
  );
}

/**
 * A `draft:` commit was made.
 *
 * @example
 * ```ts
 * absorbCommit(ctx, { now: 4, committed: true, commit: 'abc123', error: null }).active?.commits; // ['abc123']
 * ```
 */
export function absorbCommit(ctx: SynthesisContext, out: CommitOutput): Update {
  return withActive(
    ctx,
    (a) => ({ ...a, commits: out.commit === null ? a.commits : [...a.commits, out.commit] }),
    out.now,
  );
}

/**
 * An inner-cycle run ended: its handoff and the budgets it used (claim and session tracker).
 *
 * @example
 * ```ts
 * absorbProve(ctx, { now: 9, handoff, cycles: 2, stuckCycles: 1 }).active?.cyclesUsed; // 2
 * ```
 */
export function absorbProve(ctx: SynthesisContext, out: ProveOutput): Update {
  const t = ctx.tracker;
  return {
    ...withActive(
      ctx,
      (a) => ({
        ...a,
        innerRuns: a.innerRuns + 1,
        cyclesUsed: a.cyclesUsed + out.cycles,
        stuckUsed: a.stuckUsed + out.stuckCycles,
        lastHandoff: out.handoff,
        declarations:
          a.claim.kind === 'scope' &&
          out.stuckDeclaration !== null &&
          !a.declarations.includes(out.stuckDeclaration)
            ? [...a.declarations, out.stuckDeclaration]
            : a.declarations,
      }),
      out.now,
    ),
    tracker: {
      ...t,
      cycles: t.cycles + out.cycles,
      cycles_total: t.cycles_total + out.cycles,
      consecutive_stuck: out.stuckCycles > 0 ? t.consecutive_stuck + out.stuckCycles : 0,
      stuck_cycles_total: t.stuck_cycles_total + out.stuckCycles,
    },
  };
}

/**
 * A golf pass ended: its handoff is the claim's last. The `golf` route was already recorded when
 * the router took it ({@link noteRoute}); the pass adds no second entry.
 *
 * @example
 * ```ts
 * absorbGolf(ctx, { now: 10, handoff }).active?.lastHandoff; // handoff
 * ```
 */
export function absorbGolf(ctx: SynthesisContext, out: GolfOutput): Update {
  return withActive(ctx, (a) => ({ ...a, lastHandoff: out.handoff }), out.now);
}

/**
 * The human's answer to the guided `--commit ask` question: `keep` declines the draft's commit
 * (nothing of the claim is committed), `commit` allows it.
 *
 * @example
 * ```ts
 * absorbCommitAnswer(ctx, { now: 4, answer: 'keep' }).active?.commitDeclined; // true
 * ```
 */
export function absorbCommitAnswer(ctx: SynthesisContext, out: ApproveOutput): Update {
  return withActive(ctx, (a) => ({ ...a, commitDeclined: out.answer === 'keep' }), out.now);
}

/**
 * The router sends the claim through the inner cycle again (`continue`, `deep`, `repair`).
 *
 * @example
 * ```ts
 * noteRoute(ctx).active?.routes; // ['continue']
 * ```
 */
export function noteRoute(ctx: SynthesisContext): Update {
  const r = currentRoute(ctx);
  const name = r.to === 'again' ? r.action : r.to;
  return withActive(ctx, (a) => ({ ...a, routes: [...a.routes, name] }));
}

/**
 * A redraft the rule allowed: the next draft replaces (or sits beside) the claim's declarations.
 *
 * @example
 * ```ts
 * allowRedraft(ctx, { allowed: true, how: 'rewrite' }).active?.replace; // 'rewrite'
 * ```
 */
export function allowRedraft(ctx: SynthesisContext, v: RedraftVerdict): Update {
  const h = ctx.active?.lastHandoff ?? null;
  return withActive(ctx, (a) => ({
    ...a,
    redrafts: a.redrafts + 1,
    replace: v.allowed ? v.how : null,
    redraftReason: `the review router asked for a redraft${h?.blocker_signature ? ` (${h.blocker_signature})` : ''}`,
    routes: [...a.routes, 'redraft'],
  }));
}

/**
 * The session halts (explicit preserve refusing a redraft, a failed `draft:` commit).
 *
 * @example
 * ```ts
 * haltSession(ctx, 'redraft refused …').halted; // 'redraft refused …'
 * ```
 */
export function haltSession(ctx: SynthesisContext, reason: string): Update {
  return { halted: reason, log: [...ctx.log, `halt: ${reason}`] };
}
