/**
 * `handoff-routes/v1` (layer 0): the route policy of a dynamic handoff session — the entry agent,
 * the allowlist of routes (who may hand to whom, which context keys travel, which are redacted),
 * per-route and per-session limits, and the authority lease's length.
 */
import { z } from 'zod';
import { MAX_RECORD_DEPTH, safeValidate, type ValidationResult } from '../validation/index.js';

const agentName = z
  .string()
  .min(1)
  .max(200)
  .refine((s) => s.trim() === s && !/[\u0000-\u001f\u007f]/.test(s), {
    message: 'an agent name has no surrounding blanks and no control characters',
  });

/**
 * An agent name: non-empty, no surrounding blanks, no control characters.
 *
 * @example
 * ```ts
 * AgentNameSchema.safeParse(' billing').success; // false
 * ```
 */
export const AgentNameSchema = agentName;

/**
 * Which keys of a request's context travel over a route.
 *
 * @example
 * ```ts
 * ContextFilterSchema.parse({ include: ['question'] }); // { include: ['question'], redact: [] }
 * ```
 */
export const ContextFilterSchema = z.strictObject({
  /** Only these top-level keys are forwarded (an absent key is simply not forwarded). */
  include: z.array(z.string().min(1)).default([]),
  /** These keys are removed even when included: never forwarded, never journaled in clear. */
  redact: z.array(z.string().min(1)).default([]),
});

/**
 * One allowlisted route.
 *
 * @example
 * ```ts
 * RouteSchema.parse({ from: 'triage', to: 'billing' }).context; // { include: [], redact: [] }
 * ```
 */
export const RouteSchema = z.strictObject({
  from: agentName,
  to: agentName,
  context: ContextFilterSchema.default({ include: [], redact: [] }),
  /** The task contract the receiving agent works under (an id the host resolves), when any. */
  task_contract: z.string().min(1).optional(),
  /** How many transfers over this route one session may grant. */
  max_per_session: z.number().int().min(1).optional(),
});

/**
 * The route policy record `handoff-routes/v1`.
 *
 * @example
 * ```ts
 * RoutePolicySchema.safeParse(JSON.parse(policyText)).success;
 * ```
 */
export const RoutePolicySchema = z
  .strictObject({
    schema: z.literal('handoff-routes/v1'),
    /** The agent that holds authority when a session opens. */
    entry: agentName,
    routes: z.array(RouteSchema),
    /** Seconds an authority lease lives after it is granted (or after the session opens). */
    lease_seconds: z.number().int().min(1),
    /** How many transfers one session may grant in all (default: unlimited). */
    max_transfers: z.number().int().min(1).optional(),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    p.routes.forEach((r, i) => {
      const key = JSON.stringify([r.from, r.to]);
      if (seen.has(key)) {
        ctx.addIssue({ code: 'custom', path: ['routes', i], message: `duplicate route ${r.from} → ${r.to}` });
      }
      seen.add(key);
      if (r.from === r.to) {
        ctx.addIssue({ code: 'custom', path: ['routes', i, 'to'], message: 'a route goes to another agent' });
      }
    });
  });

/** A route of the allowlist (defaults applied). */
export type Route = z.output<typeof RouteSchema>;
/** A validated route policy (defaults applied). */
export type RoutePolicy = z.output<typeof RoutePolicySchema>;

/**
 * Validates a `handoff-routes/v1` record; never throws (issues are returned).
 *
 * @example
 * ```ts
 * const r = validateRoutePolicy({ schema: 'handoff-routes/v1', entry: 'triage', routes: [], lease_seconds: 600 });
 * r.ok; // true
 * ```
 */
export function validateRoutePolicy(input: unknown): ValidationResult<RoutePolicy> {
  return safeValidate(RoutePolicySchema, input, { maxDepth: MAX_RECORD_DEPTH });
}
