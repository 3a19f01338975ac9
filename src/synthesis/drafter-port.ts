/**
 * The drafter port (layer 1 contract + the in-process adapter): one call per claim (or redraft),
 * answered with a validated outcome, never a throw. A command drafter ({@link commandDrafter} in
 * command-drafter.ts) and an in-process function ({@link inProcessDrafter}) both end in
 * {@link checkDraft}, so every drafter is held to the same rules.
 */
import { type DraftBlock, parseDraftBlock } from './draft-block.js';
import { type DraftRequest, validateDraftRequest, validateDraftResponse } from './draft-schema.js';

/**
 * What a draft call produced:
 * - `drafted`: the names declared (as the response listed them, checked against the text), the
 *   temp file's text verbatim, and the modules of its `-- needs-import:` header;
 * - `declined`: the drafter would not draft this claim, and why;
 * - `protocol-error`: the drafter broke the protocol (bad response, forbidden block, lies about its
 *   names, wrote the target file…);
 * - `operational-error`: it could not be run (cannot start, timed out, crashed).
 *
 * @example
 * ```ts
 * const o: DraftOutcome = { kind: 'declined', detail: 'not a theorem' };
 * ```
 */
export type DraftOutcome =
  | {
      readonly kind: 'drafted';
      readonly declarations: readonly string[];
      readonly text: string;
      readonly imports: readonly string[];
    }
  | { readonly kind: 'declined'; readonly detail: string }
  | { readonly kind: 'protocol-error' | 'operational-error'; readonly detail: string };

/**
 * A drafter: turns one {@link DraftRequest} into a {@link DraftOutcome}. Implementations never
 * throw and stop when `signal` aborts.
 *
 * @example
 * ```ts
 * const outcome = await drafter.draft(request, AbortSignal.timeout(60_000));
 * if (outcome.kind === 'drafted') assembleDraft(target, { ...outcome, claim: request.claim, timestamp });
 * ```
 */
export interface DrafterPort {
  draft(req: DraftRequest, signal: AbortSignal): Promise<DraftOutcome>;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((v, i) => v === y[i]);
}

/**
 * Checks a drafter's raw response and (for `drafted`) the temp file's text: the response must be a
 * valid `draft-response/v1`, the text a valid declaration-only block ({@link parseDraftBlock}),
 * and the response's `declarations` exactly the names the text declares. Pure; never throws.
 *
 * @example
 * ```ts
 * checkDraft({ schema: 'draft-response/v1', status: 'drafted', declarations: ['t'], detail: null }, 'theorem t : True := by sorry\n');
 * // { kind: 'drafted', declarations: ['t'], text: 'theorem t : True := by sorry\n', imports: [] }
 * checkDraft({ schema: 'draft-response/v1', status: 'drafted', declarations: ['u'], detail: null }, 'theorem t : True := by sorry\n').kind;
 * // 'protocol-error'
 * ```
 */
export function checkDraft(response: unknown, text: string | null): DraftOutcome {
  const v = validateDraftResponse(response);
  if (!v.ok) {
    const first = v.issues
      .slice(0, 3)
      .map((i) => `${i.path || '(root)'}: ${i.message}`)
      .join('; ');
    return { kind: 'protocol-error', detail: `invalid draft-response/v1: ${first}` };
  }
  if (v.value.status === 'declined') return { kind: 'declined', detail: v.value.detail };
  if (text === null) return { kind: 'protocol-error', detail: 'drafted, but no draft text was written' };
  const parsed = parseDraftBlock(text);
  if (!parsed.ok) return { kind: 'protocol-error', detail: `draft refused: ${parsed.error}` };
  const block: DraftBlock = parsed.block;
  if (!sameNames(v.value.declarations, block.declarations)) {
    return {
      kind: 'protocol-error',
      detail: `the response lists ${JSON.stringify(v.value.declarations)} but the draft declares ${JSON.stringify(block.declarations)}`,
    };
  }
  return { kind: 'drafted', declarations: block.declarations, text, imports: block.imports };
}

/**
 * An in-process drafter function: returns the raw response and, for `drafted`, the block's text
 * (what a command drafter would write to the temp path).
 *
 * @example
 * ```ts
 * const fn: InProcessDrafterFn = async (req) => ({
 *   response: { schema: 'draft-response/v1', status: 'drafted', declarations: [req.claim.name], detail: null },
 *   text: `theorem ${req.claim.name} : True := by sorry\n`,
 * });
 * ```
 */
export type InProcessDrafterFn = (
  req: DraftRequest,
  signal: AbortSignal,
) => Promise<{ readonly response: unknown; readonly text?: string | null }>;

/**
 * A drafter that calls a function (tests, embedding). Its result is checked like a command
 * drafter's ({@link checkDraft}); a throw becomes an `operational-error`, an invalid request one
 * too (nothing is called).
 *
 * @example
 * ```ts
 * const drafter = inProcessDrafter(async (req) => ({ response: { schema: 'draft-response/v1', status: 'declined', declarations: [], detail: 'vague' } }));
 * ```
 */
export function inProcessDrafter(fn: InProcessDrafterFn): DrafterPort {
  return {
    async draft(req, signal) {
      const r = validateDraftRequest(req);
      if (!r.ok)
        return { kind: 'operational-error', detail: `invalid draft request: ${r.issues[0]?.message}` };
      try {
        const out = await fn(r.value, signal);
        return checkDraft(out.response, out.text ?? null);
      } catch (e) {
        return {
          kind: 'operational-error',
          detail: `in-process drafter threw: ${(e as Error)?.message ?? String(e)}`,
        };
      }
    },
  };
}
