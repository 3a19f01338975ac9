/**
 * What each actor of the synthesis machine is asked (layer 1, pure): built from the context, so
 * the machine's `invoke.input` functions stay one call each.
 */
import { runtimeLeftMs } from './router.js';
import type {
  ApproveInput,
  AssembleInput,
  CommitInput,
  DraftInput,
  GolfInput,
  InspectInput,
  LoopClaim,
  ProveInput,
  SynthesisContext,
} from './types.js';

const NONE: LoopClaim = { id: '', index: 0, title: '', text: '', name: '', kind: 'none' };

/**
 * Input of `inspectTarget`.
 *
 * @example
 * ```ts
 * inspectInput(ctx).claim.name; // 'Paper.add_comm'
 * ```
 */
export function inspectInput(ctx: SynthesisContext): InspectInput {
  return { claim: ctx.active?.claim ?? NONE, targetFile: ctx.input.targetFile };
}

/**
 * Input of the `drafter`: the claim, the policy, and for a redraft why and what it replaces.
 *
 * @example
 * ```ts
 * draftInput(ctx).attempt; // 1 for the first draft
 * ```
 */
export function draftInput(ctx: SynthesisContext): DraftInput {
  const a = ctx.active;
  return {
    claim: a?.claim ?? NONE,
    targetFile: ctx.input.targetFile,
    policy: ctx.input.policy,
    attempt: (a?.drafts ?? 0) + 1,
    reason: a?.redraftReason ?? null,
    previous: [...(a?.declarations ?? [])],
    replace: a?.replace ?? null,
  };
}

/**
 * The guided-mode question: approve, skip or stop on this draft.
 *
 * @example
 * ```ts
 * approveInput(ctx).options; // ['approve', 'skip', 'stop']
 * ```
 */
export function approveInput(ctx: SynthesisContext): ApproveInput {
  const d = ctx.active?.draft;
  return {
    question: 'draft',
    claim: ctx.active?.claim ?? NONE,
    declarations: d?.kind === 'drafted' ? [...d.declarations] : [],
    text: d?.kind === 'drafted' ? d.text : '',
    message: null,
    options: ['approve', 'skip', 'stop'],
  };
}

/**
 * Input of the `human` actor for guided `--commit ask`: the validated draft is in the working
 * tree; the human answers `commit` (the `draft:` commit is made), `keep` (it stays uncommitted)
 * or `stop`.
 *
 * @example
 * ```ts
 * commitQuestion(ctx).options; // ['commit', 'keep', 'stop']
 * commitQuestion(ctx).message; // 'draft: <claim title> (<declarations>)'
 * ```
 */
export function commitQuestion(ctx: SynthesisContext): ApproveInput {
  const d = ctx.active?.draft;
  const c = commitInput(ctx);
  return {
    question: 'commit',
    claim: c.claim,
    declarations: c.declarations,
    text: d?.kind === 'drafted' ? d.text : '',
    message: c.message,
    options: ['commit', 'keep', 'stop'],
  };
}

/** Whether the claim's work may be committed: `--commit` is not `never` and its draft's commit was not declined. */
const commitsOn = (ctx: SynthesisContext): boolean =>
  ctx.input.commit !== 'never' && ctx.active?.commitDeclined !== true;

/**
 * Input of `assemble` (null when there is no draft to assemble: the machine never asks then).
 *
 * @example
 * ```ts
 * assembleInput(ctx)?.remove; // the previous declarations on a rewrite, else []
 * ```
 */
export function assembleInput(ctx: SynthesisContext): AssembleInput | null {
  const a = ctx.active;
  if (a === null || a.draft?.kind !== 'drafted') return null;
  return {
    claim: a.claim,
    targetFile: ctx.input.targetFile,
    draft: a.draft,
    remove: a.replace === 'rewrite' ? [...a.declarations] : [],
  };
}

/**
 * The `draft:` commit's message: `draft: <claim title> (<declarations>)`, one line.
 *
 * @example
 * ```ts
 * draftCommitMessage('Addition commutes', ['Paper.add_comm']); // 'draft: Addition commutes (Paper.add_comm)'
 * ```
 */
export function draftCommitMessage(title: string, declarations: readonly string[]): string {
  const oneLine = title.replace(/\s+/g, ' ').trim().slice(0, 72);
  return `draft: ${oneLine || 'claim'} (${declarations.join(', ')})`;
}

/**
 * Input of `committer`.
 *
 * @example
 * ```ts
 * commitInput(ctx).message; // 'draft: … (…)'
 * ```
 */
export function commitInput(ctx: SynthesisContext): CommitInput {
  const a = ctx.active;
  const declarations = [...(a?.declarations ?? [])];
  return {
    claim: a?.claim ?? NONE,
    targetFile: ctx.input.targetFile,
    declarations,
    message: draftCommitMessage(a?.claim.title ?? '', declarations),
  };
}

/**
 * Input of `prove` (the inner cycle): what is left of the claim's budgets and the session's time.
 *
 * @example
 * ```ts
 * proveInput(ctx).maxCycles; // --max-cycles minus the cycles this claim already used
 * ```
 */
export function proveInput(ctx: SynthesisContext): ProveInput {
  const a = ctx.active;
  const h = a?.lastHandoff ?? null;
  const route = h !== null && h.status !== 'solved' ? h.next_action : null;
  return {
    claim: a?.claim ?? NONE,
    targetFile: ctx.input.targetFile,
    declarations: [...(a?.declarations ?? [])],
    maxCycles: Math.max(1, ctx.input.maxCycles - (a?.cyclesUsed ?? 0)),
    maxStuck: Math.max(1, ctx.input.maxStuck - (a?.stuckUsed ?? 0)),
    runtimeLeftMs: runtimeLeftMs(ctx),
    route,
    priorHandoff: h,
    commit: commitsOn(ctx),
  };
}

/**
 * Input of `golf`.
 *
 * @example
 * ```ts
 * golfInput(ctx).declarations; // the claim's declarations
 * ```
 */
export function golfInput(ctx: SynthesisContext): GolfInput {
  const a = ctx.active;
  return {
    claim: a?.claim ?? NONE,
    targetFile: ctx.input.targetFile,
    declarations: [...(a?.declarations ?? [])],
    priorHandoff: a?.lastHandoff ?? null,
    commit: commitsOn(ctx),
  };
}
