/**
 * `FactRule`: per fact key, its producer stage, its runtime type (a zod schema), whether evidence
 * is required, and an optional semantic validator that sees a fresh read-only view.
 */
import type { z } from 'zod';
import type { BatonView } from './baton-view.js';

/** Producer name of facts given when the baton is created. */
export const INPUT_PRODUCER = '__input__';

/**
 * A semantic validator: returns a finding (why the value is wrong) or null/undefined when it holds.
 * It receives a deep copy of the value and a fresh view of the input baton.
 */
export type FactValidator<T = unknown> = (value: T, view: BatonView) => string | null | undefined;

/** The rule for one fact key. */
export interface FactRule<T = unknown> {
  /** The fact key. */
  readonly key: string;
  /** The owning stage, or {@link INPUT_PRODUCER} for initial facts. */
  readonly producer_stage: string;
  /** Runtime type: the fact's value must parse with this schema. */
  readonly type: z.ZodType<T>;
  /** When true (the default), the fact must carry at least one evidence reference. */
  readonly evidence_required?: boolean;
  /** Optional semantic rule. */
  readonly validator?: FactValidator<T>;
  /** Human description of the semantic rule (shown in docs and errors). */
  readonly describe?: string;
}

/**
 * Declares a fact rule with its value type inferred from the schema.
 *
 * @example
 * ```ts
 * const rule = factRule({ key: 'funding_ok', producer_stage: 'fund_check', type: z.boolean(),
 *   validator: (v) => (v ? null : 'funding check failed') });
 * ```
 */
export function factRule<S extends z.ZodType>(rule: {
  readonly key: string;
  readonly producer_stage: string;
  readonly type: S;
  readonly evidence_required?: boolean;
  readonly validator?: FactValidator<z.output<S>>;
  readonly describe?: string;
}): FactRule<z.output<S>> {
  return Object.freeze({ ...rule }) as FactRule<z.output<S>>;
}
