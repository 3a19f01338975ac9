/**
 * `StageSpec`: a stage's name and the fact keys it requires and provides.
 */
import { z } from 'zod';
import { deepFreeze } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import { safeValidate } from '../validation/index.js';

const key = z.string().min(1);

function duplicates(xs: readonly string[]): string[] {
  return [...new Set(xs.filter((x, i) => xs.indexOf(x) !== i))];
}

/** Stage spec record: no duplicate keys, no overlap between `requires` and `provides`. */
export const StageSpecSchema = z
  .strictObject({
    name: key,
    requires: z.array(key).default([]),
    provides: z.array(key).default([]),
  })
  .superRefine((s, ctx) => {
    for (const field of ['requires', 'provides'] as const) {
      const d = duplicates(s[field]);
      if (d.length > 0)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `duplicate keys: ${d.join(', ')}`,
          params: { code: 'duplicate_key' },
        });
    }
    const overlap = s.requires.filter((k) => s.provides.includes(k));
    if (overlap.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['provides'],
        message: `keys both required and provided: ${overlap.join(', ')}`,
        params: { code: 'requires_provides_overlap' },
      });
    }
  });

/** A resolved, frozen stage spec. */
export type StageSpec = Readonly<{ name: string; requires: readonly string[]; provides: readonly string[] }>;

/**
 * Validates and freezes a stage spec.
 *
 * @example
 * ```ts
 * const settle = stageSpec({ name: 'settle', requires: ['month'], provides: ['net_total', 'pay_lines'] });
 * ```
 * @throws HandoffError `invalid_record` for duplicates, overlap or blank names.
 */
export function stageSpec(input: z.input<typeof StageSpecSchema>): StageSpec {
  const r = safeValidate(StageSpecSchema, input);
  if (!r.ok) {
    throw new HandoffError(
      'invalid_record',
      `invalid stage spec ${JSON.stringify(input?.name)}: ${r.issues.map((i) => i.message).join('; ')}`,
      {
        details: { issues: r.issues },
      },
    );
  }
  return deepFreeze(r.value);
}
