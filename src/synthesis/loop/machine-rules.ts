/**
 * The rest of the synthesis machine's logic, pure (layer 1): the redraft verdict and budget as the
 * machine asks them of its context, the `validate` actor's input, and the updates and reasons of
 * the endings that are not a claim report (a failed actor, an extraction error, a halt, the human's
 * stop). `machines/synthesis.ts` only wires these to states, as it does the reducers.
 */
import { redraftVerdict } from '../statement-policy.js';
import { refusedEnd, routedEnd } from './claim-endings.js';
import { type ClaimEnd, endClaim } from './context.js';
import type {
  CommitOutput,
  ExtractOutput,
  RedraftVerdict,
  SynthesisContext,
  ValidateInput,
} from './types.js';

/** A partial context: what one reducer changes. */
type Update = Partial<SynthesisContext>;

/**
 * The redraft rule (provenance + statement policy) for the active claim.
 *
 * @example
 * ```ts
 * redraftVerdictOf(ctx).allowed; // false when the declaration was not drafted in this session
 * ```
 */
export function redraftVerdictOf(c: SynthesisContext): RedraftVerdict {
  return redraftVerdict({
    policy: c.input.policy,
    explicit: c.input.policyExplicit,
    provenance: c.provenance,
    file: c.input.targetFile,
    declarations: c.active?.declarations ?? [],
  });
}

/**
 * True while the active claim has redrafts left (`redrafts < maxRedrafts`).
 *
 * @example
 * ```ts
 * redraftLeft({ ...ctx, active: { ...active, redrafts: 0 } }); // true when maxRedrafts ≥ 1
 * ```
 */
export function redraftLeft(c: Pick<SynthesisContext, 'active' | 'input'>): boolean {
  return (c.active?.redrafts ?? 0) < c.input.maxRedrafts;
}

/**
 * True when a redraft may happen: the rule allows it and a redraft is left.
 *
 * @example
 * ```ts
 * redraftPermitted(ctx); // false after maxRedrafts redrafts
 * ```
 */
export function redraftPermitted(c: SynthesisContext): boolean {
  return redraftVerdictOf(c).allowed && redraftLeft(c);
}

/**
 * True when the refused redraft halts the session (an explicit `--statement-policy preserve`).
 *
 * @example
 * ```ts
 * redraftHalts(ctx); // true under an explicit preserve that refuses the redraft
 * ```
 */
export function redraftHalts(c: SynthesisContext): boolean {
  const v = redraftVerdictOf(c);
  return !v.allowed && v.halt;
}

/**
 * The halt reason of a redraft that an explicit preserve refused.
 *
 * @example
 * ```ts
 * redraftHaltReason(ctx); // 'explicit --statement-policy preserve: redraft refused: …'
 * ```
 */
export function redraftHaltReason(c: SynthesisContext): string {
  const v = redraftVerdictOf(c);
  return `explicit --statement-policy preserve: ${v.allowed ? 'redraft' : v.reason}`;
}

/**
 * How a claim ends when the router asked for a redraft that did not happen: the routed ending when
 * the rule allowed it (no redraft left), else the refusal.
 *
 * @example
 * ```ts
 * redraftNotTaken(ctx).status; // 'stuck'
 * ```
 */
export function redraftNotTaken(c: SynthesisContext): ClaimEnd {
  const v = redraftVerdictOf(c);
  return v.allowed ? routedEnd(c) : refusedEnd(v);
}

/**
 * The `validate` actor's input: the active claim, the target file and the declarations to check.
 *
 * @example
 * ```ts
 * validateInput(ctx).targetFile; // ctx.input.targetFile
 * ```
 */
export function validateInput(c: SynthesisContext, fallback: ValidateInput['claim']): ValidateInput {
  return {
    claim: c.active?.claim ?? fallback,
    targetFile: c.input.targetFile,
    declarations: [...(c.active?.declarations ?? [])],
  };
}

/**
 * A thrown value as one line of text (an Error's message, else the value itself).
 *
 * @example
 * ```ts
 * errorText(new Error('boom')); // 'boom'
 * ```
 */
export function errorText(error: unknown): string {
  return String((error as { message?: unknown } | null | undefined)?.message ?? error);
}

/**
 * The `extract` actor failed: the output its failure stands for.
 *
 * @example
 * ```ts
 * extractFailure(ctx, new Error('no file')).ok; // false
 * ```
 */
export function extractFailure(c: Pick<SynthesisContext, 'now'>, error: unknown): ExtractOutput {
  return { now: c.now, ok: false, error: `claim extraction failed: ${errorText(error)}` };
}

/**
 * A per-claim actor failed: the claim ends stuck naming the phase and the error; the session goes on.
 *
 * @example
 * ```ts
 * failClaim(ctx, 'drafter', new Error('boom')).reports?.at(-1)?.reason; // 'drafter failed: boom'
 * ```
 */
export function failClaim(c: SynthesisContext, phase: string, error: unknown): Update {
  return endClaim(c, { status: 'stuck', reason: `${phase} failed: ${errorText(error)}` });
}

/**
 * The halt reason of a `draft:` commit that failed.
 *
 * @example
 * ```ts
 * commitHaltReason({ now: 1, committed: false, commit: null, error: 'hook' }); // 'draft: commit failed: hook'
 * ```
 */
export function commitHaltReason(out: Pick<CommitOutput, 'error'>): string {
  return `draft: commit failed: ${out.error ?? 'unknown'}`;
}

/**
 * The human stopped the session.
 *
 * @example
 * ```ts
 * stopByHuman(); // { stoppedByHuman: true }
 * ```
 */
export function stopByHuman(): Update {
  return { stoppedByHuman: true };
}
