/**
 * Structured validation results shared by every record validator: validators never throw on bad
 * input; they return `{ ok: true, value }` or `{ ok: false, issues }`.
 */
import type { z } from 'zod';
import { depthIssue } from './depth.js';

/** One defect found in a record. `path` is dotted (`context.search_results.0.tool`), `''` for the root. */
export interface ValidationIssue {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/**
 * Outcome of a validator. `warnings` (optional, either branch) lists what was accepted but is worth
 * saying — e.g. unknown keys of a run-contract record, kept as they are. A warning never makes a
 * record invalid.
 */
export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T; readonly warnings?: readonly ValidationIssue[] }
  | {
      readonly ok: false;
      readonly issues: readonly ValidationIssue[];
      readonly warnings?: readonly ValidationIssue[];
    };

/**
 * Formats a zod path (`['context', 'diagnostics', 0]`) as a dotted string.
 *
 * @example
 * ```ts
 * formatPath(['a', 0, 'b']); // 'a.0.b'
 * ```
 */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

/** Options of {@link safeValidate}. */
export interface SafeValidateOptions {
  /**
   * Refuse input nested deeper than this (usually `MAX_RECORD_DEPTH`) with one `too_deep` issue,
   * measured without recursion before the schema sees the input. Default: no depth check.
   */
  readonly maxDepth?: number;
}

/**
 * Runs a zod schema without ever throwing and maps its issues to {@link ValidationIssue}s. With
 * `maxDepth`, over-deep input is refused (`too_deep`) before the schema runs.
 *
 * @example
 * ```ts
 * const r = safeValidate(DispatchSchema, JSON.parse(text), { maxDepth: MAX_RECORD_DEPTH });
 * if (!r.ok) for (const i of r.issues) console.error(i.path, i.message);
 * ```
 */
export function safeValidate<S extends z.ZodType>(
  schema: S,
  input: unknown,
  options: SafeValidateOptions = {},
): ValidationResult<z.output<S>> {
  if (options.maxDepth !== undefined) {
    const deep = depthIssue(input, options.maxDepth);
    if (deep !== null) return { ok: false, issues: [deep] };
  }
  try {
    const r = schema.safeParse(input);
    if (r.success) return { ok: true, value: r.data };
    return {
      ok: false,
      issues: r.error.issues.map((i) => ({
        path: formatPath(i.path),
        code: (i.code === 'custom' && (i.params as { code?: string } | undefined)?.code) || i.code,
        message: i.message,
      })),
    };
  } catch (e) {
    return {
      ok: false,
      issues: [{ path: '', code: 'unvalidatable', message: `input could not be inspected: ${String(e)}` }],
    };
  }
}
