/**
 * Validators of the run-contract/v1 records. They never throw, whatever the input.
 */
import { type FileBaseline, FileBaselineSchema } from '../baseline/schema.js';
import { MAX_RECORD_DEPTH, safeValidate, type ValidationResult } from '../validation/index.js';
import { type Dispatch, DispatchSchema } from './dispatch-schema.js';
import { type Handoff, HandoffSchema } from './handoff-schema.js';

/**
 * Validates a dispatch record.
 *
 * @example
 * ```ts
 * const r = validateDispatch(JSON.parse(text));
 * if (r.ok) launch(r.value); else report(r.issues);
 * ```
 */
export function validateDispatch(input: unknown): ValidationResult<Dispatch> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      ok: false,
      issues: [{ path: '', code: 'not_an_object', message: 'a dispatch record is a JSON object' }],
    };
  }
  return safeValidate(DispatchSchema, input, { maxDepth: MAX_RECORD_DEPTH });
}

/**
 * Validates a handoff record, including every conditional-nullability rule.
 *
 * @example
 * ```ts
 * const r = validateHandoff(record); // { ok: false, issues: [{ path: 'blocker_class', code: 'blocker_class_required', … }] }
 * ```
 */
export function validateHandoff(input: unknown): ValidationResult<Handoff> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      ok: false,
      issues: [{ path: '', code: 'not_an_object', message: 'a handoff record is a JSON object' }],
    };
  }
  return safeValidate(HandoffSchema, input, { maxDepth: MAX_RECORD_DEPTH });
}

/**
 * Validates the structure of a file-baseline/v1 record (non-empty, absolute paths, hashes, no duplicates).
 *
 * @example
 * ```ts
 * validateBaseline({ schema: 'file-baseline/v1', files: [] }).ok; // false
 * ```
 */
export function validateBaseline(input: unknown): ValidationResult<FileBaseline> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      ok: false,
      issues: [{ path: '', code: 'not_an_object', message: 'a baseline record is a JSON object' }],
    };
  }
  return safeValidate(FileBaselineSchema, input, { maxDepth: MAX_RECORD_DEPTH });
}
