/**
 * The records of the drafter protocol (layer 0): `draft-request/v1` (the outer loop → a drafter)
 * and `draft-response/v1` (a drafter → the outer loop). Exact keys; validators never throw and
 * refuse over-deep input before the schema walks it. See docs/drafter-protocol.md.
 */
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { MAX_RECORD_DEPTH, safeValidate, type ValidationResult } from '../validation/index.js';

/**
 * Schema id of a draft request.
 *
 * @example
 * ```ts
 * const req = { schema: DRAFT_REQUEST_SCHEMA, … };
 * ```
 */
export const DRAFT_REQUEST_SCHEMA = 'draft-request/v1';

/**
 * Schema id of a draft response.
 *
 * @example
 * ```ts
 * process.stdout.write(`${JSON.stringify({ schema: DRAFT_RESPONSE_SCHEMA, status: 'declined', declarations: [], detail: 'not a theorem' })}\n`);
 * ```
 */
export const DRAFT_RESPONSE_SCHEMA = 'draft-response/v1';

/**
 * Longest declaration name a response may list (characters).
 *
 * @example
 * ```ts
 * 'x'.repeat(MAX_DECLARATION_NAME + 1); // refused in a response's `declarations`
 * ```
 */
export const MAX_DECLARATION_NAME = 512;

/**
 * The statement policies of `--statement-policy` (seed 002 § Statement Safety).
 *
 * @example
 * ```ts
 * StatementPolicySchema.parse('rewrite-generated-only');
 * ```
 */
export const StatementPolicySchema = z.enum(['preserve', 'rewrite-generated-only', 'adjacent-drafts']);

/**
 * A statement policy.
 *
 * @example
 * ```ts
 * const p: StatementPolicy = 'preserve';
 * ```
 */
export type StatementPolicy = z.infer<typeof StatementPolicySchema>;

const absolutePath = z
  .string()
  .min(1)
  .refine((p) => isAbsolute(p) && !p.includes('\0'), { message: 'must be an absolute path without NUL' });

/**
 * The claim a drafter formalizes: its queue id, its text (from the source document), an optional
 * title, the suggested declaration name (null: the drafter chooses one) and the claim's kind
 * (`theorem`, `lemma`, `definition`, `claim`…) — the claim queue's record minus its position.
 *
 * @example
 * ```ts
 * DraftClaimSchema.parse({ id: 'c1', text: 'Addition is commutative.', title: null, name: 'add_comm', kind: 'theorem' });
 * ```
 */
export const DraftClaimSchema = z
  .object({
    id: z.string().min(1),
    text: z.string(),
    title: z.string().nullable(),
    name: z.string().min(1).nullable(),
    kind: z.string().min(1),
  })
  .strict();

/**
 * A claim as a drafter receives it.
 *
 * @example
 * ```ts
 * const c: DraftClaim = { id: 'c1', text: 'n + 0 = n', title: null, name: 'add_zero', kind: 'theorem' };
 * ```
 */
export type DraftClaim = z.infer<typeof DraftClaimSchema>;

/**
 * `draft-request/v1`: one claim to draft (or a stuck declaration to redraft) into `temp_path`,
 * destined for `target_file` (which the drafter must not touch). `prior` is set for a redraft:
 * the declaration being redrafted and why.
 *
 * @example
 * ```ts
 * DraftRequestSchema.parse({
 *   schema: 'draft-request/v1',
 *   claim: { id: 'c1', text: 'n + 0 = n', title: null, name: 'add_zero', kind: 'theorem' },
 *   target_file: '/p/Demo/Basic.lean',
 *   temp_path: '/tmp/handoff-draft-1/draft.lean',
 *   policy: { statement_policy: 'rewrite-generated-only', caller: 'autoformalize' },
 *   mode: 'draft',
 *   prior: null,
 * });
 * ```
 */
export const DraftRequestSchema = z
  .object({
    schema: z.literal(DRAFT_REQUEST_SCHEMA),
    claim: DraftClaimSchema,
    target_file: absolutePath,
    temp_path: absolutePath,
    policy: z
      .object({
        statement_policy: StatementPolicySchema,
        caller: z.enum(['formalize', 'autoformalize']),
      })
      .strict(),
    mode: z.enum(['draft', 'redraft']),
    prior: z
      .object({
        declaration: z.string().min(1),
        reason: z.string(),
      })
      .strict()
      .nullable(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.temp_path === r.target_file)
      ctx.addIssue({
        code: 'custom',
        path: ['temp_path'],
        message: 'temp_path must differ from target_file',
      });
    if (r.mode === 'redraft' && r.prior === null)
      ctx.addIssue({ code: 'custom', path: ['prior'], message: 'a redraft names its prior declaration' });
    if (r.mode === 'draft' && r.prior !== null)
      ctx.addIssue({ code: 'custom', path: ['prior'], message: 'a first draft has no prior declaration' });
  });

/**
 * A draft request.
 *
 * @example
 * ```ts
 * const mode: DraftRequest['mode'] = 'redraft';
 * ```
 */
export type DraftRequest = z.infer<typeof DraftRequestSchema>;

const declarationName = z.string().min(1).max(MAX_DECLARATION_NAME);

/**
 * `draft-response/v1`: `drafted` with the names the temp file declares (at least one, no detail
 * required), or `declined` with no declarations and a reason in `detail`.
 *
 * @example
 * ```ts
 * DraftResponseSchema.parse({ schema: 'draft-response/v1', status: 'drafted', declarations: ['add_zero'], detail: null });
 * DraftResponseSchema.parse({ schema: 'draft-response/v1', status: 'declined', declarations: [], detail: 'not a mathematical claim' });
 * ```
 */
export const DraftResponseSchema = z.discriminatedUnion('status', [
  z
    .object({
      schema: z.literal(DRAFT_RESPONSE_SCHEMA),
      status: z.literal('drafted'),
      declarations: z.array(declarationName).min(1).max(1000),
      detail: z
        .string()
        .max(64 * 1024)
        .nullable(),
    })
    .strict(),
  z
    .object({
      schema: z.literal(DRAFT_RESPONSE_SCHEMA),
      status: z.literal('declined'),
      declarations: z.array(declarationName).max(0),
      detail: z
        .string()
        .min(1)
        .max(64 * 1024),
    })
    .strict(),
]);

/**
 * A draft response.
 *
 * @example
 * ```ts
 * const r: DraftResponse = { schema: 'draft-response/v1', status: 'declined', declarations: [], detail: 'vague' };
 * ```
 */
export type DraftResponse = z.infer<typeof DraftResponseSchema>;

/**
 * Validates a draft request (exact keys, absolute paths, `prior` iff `redraft`). Never throws.
 *
 * @example
 * ```ts
 * const r = validateDraftRequest(JSON.parse(stdin));
 * if (!r.ok) r.issues[0]?.message;
 * ```
 */
export function validateDraftRequest(input: unknown): ValidationResult<DraftRequest> {
  return safeValidate(DraftRequestSchema, input, { maxDepth: MAX_RECORD_DEPTH });
}

/**
 * Validates a draft response (exact keys, `declarations` non-empty iff `drafted`). Never throws;
 * input nested deeper than `MAX_RECORD_DEPTH` is refused (`too_deep`) before the schema runs.
 *
 * @example
 * ```ts
 * validateDraftResponse({ schema: 'draft-response/v1', status: 'drafted', declarations: [], detail: null }).ok; // false
 * ```
 */
export function validateDraftResponse(input: unknown): ValidationResult<DraftResponse> {
  return safeValidate(DraftResponseSchema, input, { maxDepth: MAX_RECORD_DEPTH });
}
