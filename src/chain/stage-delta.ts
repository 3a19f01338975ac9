/**
 * `StageDelta`: the only way a stage changes anything — the facts it delivers (each with its
 * evidence) and the artifact references it adds.
 */
import { z } from 'zod';
import { HandoffError } from '../errors/index.js';
import { safeValidate } from '../validation/index.js';

const ref = z.string().refine((s) => s.trim() !== '', { message: 'blank reference' });

/** One delivered fact: key, value and the evidence that backs it. */
export const FactValueSchema = z.strictObject({
  key: z.string().min(1),
  value: z.unknown(),
  evidence_refs: z.array(ref).default([]),
});

/** A delivered fact (value is whatever the stage produced; the seam type-checks it). */
export interface FactValue {
  readonly key: string;
  readonly value: unknown;
  readonly evidence_refs: readonly string[];
}

/** Stage delta record: unique fact keys, no blank references. */
export const StageDeltaSchema = z
  .strictObject({
    facts: z.array(FactValueSchema),
    artifact_refs: z.array(ref).default([]),
  })
  .superRefine((d, ctx) => {
    const keys = d.facts.map((f) => f.key);
    const dup = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
    if (dup.length > 0)
      ctx.addIssue({
        code: 'custom',
        path: ['facts'],
        message: `duplicate fact keys: ${dup.join(', ')}`,
        params: { code: 'duplicate_key' },
      });
  });

/** What a stage returns. */
export interface StageDelta {
  readonly facts: readonly FactValue[];
  readonly artifact_refs: readonly string[];
}

/** Shorthand accepted by {@link stageDelta}: key → value, or key → `{ value, evidence }`. */
export type FactInput = { readonly value: unknown; readonly evidence?: readonly string[] };

/**
 * Builds a {@link StageDelta} from a key → `{ value, evidence }` map.
 *
 * @example
 * ```ts
 * return stageDelta({ funding_ok: { value: true, evidence: ['bank://cap'] } }, ['doc://funding-note']);
 * ```
 * @throws HandoffError `invalid_record` for blank references.
 */
export function stageDelta(
  facts: Readonly<Record<string, FactInput>>,
  artifactRefs: readonly string[] = [],
): StageDelta {
  const input = {
    facts: Object.entries(facts).map(([key, f]) => ({
      key,
      value: f.value,
      evidence_refs: [...(f.evidence ?? [])],
    })),
    artifact_refs: [...artifactRefs],
  };
  const r = parseStageDelta(input);
  if (!r.ok) throw new HandoffError('invalid_record', `invalid stage delta: ${r.detail}`);
  return r.delta;
}

/**
 * Checks that an unknown value is a well-formed {@link StageDelta}; never throws.
 *
 * @example
 * ```ts
 * const r = parseStageDelta(await stage(view)); if (!r.ok) fail('invalid_stage_delta', r.detail);
 * ```
 */
export function parseStageDelta(
  value: unknown,
): { ok: true; delta: StageDelta } | { ok: false; detail: string } {
  const r = safeValidate(StageDeltaSchema, value);
  if (r.ok) return { ok: true, delta: r.value };
  return {
    ok: false,
    detail: r.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '),
  };
}
