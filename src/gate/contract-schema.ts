/**
 * `gate-task/v1` — the task contract the lead fixes before execution: problem, revision, owner,
 * candidate binding, allowed writes, prohibited operations, verification stage, criteria with
 * stable ids, the attempt profile and the evaluator policy.
 */
import { z } from 'zod';

/** Schema id of the task contract. */
export const GATE_TASK_SCHEMA = 'gate-task/v1';

/** Lower-case hex sha256. */
export const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'a lower-case hex sha256');

/** A git object id (sha1 or sha256 repositories). */
export const CommitIdSchema = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'a git commit id');

/**
 * Problem ids name a problem's whole history (and its ledger directory), so they are restricted
 * to a path-safe alphabet.
 */
export const ProblemIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'letters, digits, . _ - (max 128), not starting with . _ -');

/**
 * Candidate binding: which bytes are meant. `commit` alone never identifies a dirty working
 * tree, so `tree_digest` (sha256 of the working-tree manifest) is always present.
 */
export const CandidateBindingSchema = z.strictObject({
  commit: CommitIdSchema.nullable(),
  tree_digest: Sha256Schema,
});

/** Verification stages, weakest first. */
export const STAGES = ['source-only', 'unit', 'integration', 'production'] as const;
/** A verification stage. */
export const StageSchema = z.enum(STAGES);

/** How a CONFIRMED label on a criterion's question is to be read. */
export const InterpretationSchema = z.enum(['confirmed-is-good', 'confirmed-is-violation']);

/** One acceptance criterion. `id` is stable for the life of the problem. */
export const CriterionSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z][A-Za-z0-9._-]{0,63}$/, 'a criterion id (letter first, max 64)'),
  text: z.string().min(1),
  text_revision: z.number().int().min(1),
  required: z.boolean(),
  interpretation: InterpretationSchema,
});

/** Attempt profile. The seed's example profile is the default. */
export const ProfileSchema = z.strictObject({
  ordinary_repairs: z.number().int().min(0).max(1).default(1),
  gate_continuations: z.number().int().min(0).max(1).default(1),
  lead_directed_attempts: z.number().int().min(0).max(3).default(3),
});

/** Evaluator policy: one request per frozen packet, no retries, one total deadline. */
export const EvaluatorPolicySchema = z.strictObject({
  requests_per_packet: z.literal(1).default(1),
  retries: z.literal(0).default(0),
  deadline_ms: z.number().int().min(1).max(3_600_000),
});

/** The task contract record. */
export const TaskContractSchema = z
  .strictObject({
    schema: z.literal(GATE_TASK_SCHEMA),
    problem_id: ProblemIdSchema,
    revision: z.number().int().min(1),
    owner: z.string().min(1),
    candidate: CandidateBindingSchema,
    allowed_writes: z.array(z.string().min(1)),
    prohibited_operations: z.array(z.string().min(1)),
    stage: StageSchema,
    criteria: z.array(CriterionSchema).min(1),
    required_artifacts: z.array(z.string().min(1)).default([]),
    profile: ProfileSchema.default({ ordinary_repairs: 1, gate_continuations: 1, lead_directed_attempts: 3 }),
    evaluator_policy: EvaluatorPolicySchema,
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.criteria.forEach((k, i) => {
      if (seen.has(k.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['criteria', i, 'id'],
          message: `duplicate criterion id ${k.id}`,
          params: { code: 'duplicate_criterion' },
        });
      }
      seen.add(k.id);
    });
  });

/** A candidate binding. */
export type CandidateBinding = z.infer<typeof CandidateBindingSchema>;
/** A verification stage. */
export type Stage = z.infer<typeof StageSchema>;
/** A criterion. */
export type Criterion = z.infer<typeof CriterionSchema>;
/** An attempt profile. */
export type Profile = z.infer<typeof ProfileSchema>;
/** An evaluator policy. */
export type EvaluatorPolicy = z.infer<typeof EvaluatorPolicySchema>;
/** A task contract (parsed; defaults applied). */
export type TaskContract = z.infer<typeof TaskContractSchema>;

/**
 * Rank of a stage (source-only 0 … production 3).
 *
 * @example
 * ```ts
 * stageRank('unit') < stageRank('production'); // true
 * ```
 */
export function stageRank(stage: Stage): number {
  return STAGES.indexOf(stage);
}
