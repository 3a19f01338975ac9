/**
 * The run-contract/v1 dispatch record (parent → worker): every key required, typed per-worker
 * parameters, a context whose members are never omitted, and a file baseline covering the owned
 * files. Like the reference validator, the root and the context accept unknown keys (kept as they
 * are, reported as warnings by `validateDispatch`); the nested typed shapes (parameters, budget,
 * search results, tested candidates) keep exact keys, as in the reference.
 */
import type { z } from 'zod';
import { FileBaselineSchema, uncoveredPaths } from '../baseline/schema.js';
import { lazySchema } from '../validation/lazy-schema.js';
import { zod } from '../validation/zod-sync.js';
import { ModeSchema, RUN_CONTRACT_SCHEMA, ScopeSchema, WorkerSchema } from './enums.js';

const str = () => zod().string();
const strArray = () => zod().array(zod().string());

/** Parameters of a `sorry-filler-deep` worker. */
export const SorryFillerDeepParamsSchema = lazySchema((z) =>
  z.strictObject({
    fast_pass_error: str(),
    permission_level: str(),
    deep_budget: z.strictObject({ scope: str(), max_files: z.number().int(), max_lines: z.number().int() }),
  }),
);
/** Parameters of a `proof-repair` worker. */
export const ProofRepairParamsSchema = lazySchema((z) =>
  z.strictObject({
    error: z.strictObject({
      errorType: str(),
      message: str(),
      file: str(),
      line: z.number().int(),
      goal: str(),
      localContext: strArray(),
    }),
  }),
);
/** Parameters of a `proof-golfer` worker. */
export const ProofGolferParamsSchema = lazySchema((z) =>
  z.strictObject({
    search_mode: z.enum(['off', 'quick', 'full']),
    golfable_patterns: strArray(),
    candidate_targets: strArray(),
  }),
);
/** Parameters of an `axiom-eliminator` worker. */
export const AxiomEliminatorParamsSchema = lazySchema((z) =>
  z.strictObject({ axioms: strArray(), permission_level: str() }),
);
/** Parameters of an inline pass (`worker: null`): exactly `{}`. */
export const InlineParamsSchema = lazySchema((z) => z.strictObject({}));

/** The parameter schema for each worker kind; `inline` is the `null` worker. */
export const WORKER_PARAMETER_SCHEMAS = {
  'sorry-filler-deep': SorryFillerDeepParamsSchema,
  'proof-repair': ProofRepairParamsSchema,
  'proof-golfer': ProofGolferParamsSchema,
  'axiom-eliminator': AxiomEliminatorParamsSchema,
  inline: InlineParamsSchema,
} as const;

/** Run budget: null members mean unbounded; runtime is a duration like `120m`. */
export const BudgetSchema = lazySchema((z) =>
  z.strictObject({
    max_cycles: z.number().int().min(1).nullable(),
    max_stuck_cycles: z.number().int().min(1).nullable(),
    runtime: z
      .string()
      .regex(/^[0-9]+[smhSMH]?$/, 'a duration: digits with an optional s/m/h suffix (bare = minutes)')
      .nullable(),
  }),
);

/**
 * The pre-flight context: all seven members required; empty is null or [], never omitted. Unknown
 * members are accepted and kept.
 */
export const DispatchContextSchema = lazySchema((z) =>
  z.looseObject({
    prior_failure: str().nullable(),
    goal_state: str().nullable(),
    diagnostics: strArray(),
    search_results: z.array(z.strictObject({ tool: str(), query: str(), top: strArray() })),
    candidates_tested: z.array(z.strictObject({ snippet: str(), result: str() })),
    code_actions: strArray(),
    scratch_location: str().min(1),
  }),
);

const ParametersSchema = lazySchema((z) => z.record(z.string(), z.unknown()));

/** The dispatch record (unknown root keys accepted and kept). */
export const DispatchSchema = lazySchema((z) =>
  z
    .looseObject({
      schema: z.literal(RUN_CONTRACT_SCHEMA),
      record: z.literal('dispatch'),
      target: str().min(1),
      scope: ScopeSchema,
      mode: ModeSchema,
      worker: WorkerSchema.nullable(),
      parameters: ParametersSchema,
      capabilities: strArray(),
      owned_files: strArray(),
      file_baseline: FileBaselineSchema,
      prior_blocker: str().nullable(),
      evidence_delta: strArray(),
      budget: BudgetSchema,
      context: DispatchContextSchema,
    })
    .superRefine((d, ctx) => {
      const schema = WORKER_PARAMETER_SCHEMAS[d.worker ?? 'inline'];
      const r = schema.safeParse(d.parameters);
      if (!r.success) {
        for (const i of r.error.issues) {
          ctx.addIssue({
            code: 'custom',
            path: ['parameters', ...i.path],
            message: `${d.worker === null ? 'inline pass takes {} exactly' : `parameters of ${d.worker}`}: ${i.message}`,
            params: { code: 'bad_parameters' },
          });
        }
      }
      for (const p of uncoveredPaths(d.file_baseline, d.owned_files)) {
        ctx.addIssue({
          code: 'custom',
          path: ['file_baseline', 'files'],
          message: `file_baseline does not cover owned file ${p}`,
          params: { code: 'baseline_not_covering' },
        });
      }
      const seen = new Set<string>();
      d.owned_files.forEach((p, i) => {
        if (seen.has(p)) {
          ctx.addIssue({
            code: 'custom',
            path: ['owned_files', i],
            message: `duplicate owned file ${p}`,
            params: { code: 'duplicate_path' },
          });
        }
        seen.add(p);
      });
    }),
);

/** A run-contract/v1 dispatch record. */
export type Dispatch = z.infer<typeof DispatchSchema>;
/** The dispatch context. */
export type DispatchContext = z.infer<typeof DispatchContextSchema>;

/**
 * A pre-flight context with nothing known yet: every member null or empty, the scratch location set.
 *
 * @example
 * ```ts
 * const context = { ...emptyContext('/tmp/scratch'), goal_state: '⊢ a = a' };
 * ```
 */
export function emptyContext(scratchLocation: string): DispatchContext {
  return {
    prior_failure: null,
    goal_state: null,
    diagnostics: [],
    search_results: [],
    candidates_tested: [],
    code_actions: [],
    scratch_location: scratchLocation,
  };
}
/** The dispatch budget. */
export type Budget = z.infer<typeof BudgetSchema>;
