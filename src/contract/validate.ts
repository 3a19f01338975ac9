/**
 * Validators of the run-contract/v1 records. They never throw, whatever the input. Unknown keys
 * where the reference accepts them (root, context, evidence, baseline) are kept in `value` and
 * listed in `warnings` (`unknown_key`); a `__proto__` key there is an error (`forbidden_key`).
 */
import { type FileBaseline, FileBaselineSchema } from '../baseline/schema.js';
import { MAX_RECORD_DEPTH } from '../validation/depth.js';
import { safeValidate, type ValidationResult } from '../validation/result.js';
import { type Dispatch, DispatchSchema } from './dispatch-schema.js';
import { type Handoff, HandoffSchema } from './handoff-schema.js';
import { type KeyScanKind, scanUnknownKeys } from './unknown-keys.js';

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The parsed value with the input's key order at every level (the schema layer puts known keys
 * first): a validated record is echoed and stored as it was written. Values are the parsed ones;
 * only own keys of the parsed value are copied (a `__proto__` never reaches here: it is refused).
 */
function inInputOrder(parsed: unknown, input: unknown): unknown {
  if (Array.isArray(parsed) && Array.isArray(input)) return parsed.map((v, i) => inInputOrder(v, input[i]));
  if (!isPlain(parsed) || !isPlain(input)) return parsed;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(input)) {
    if (Object.hasOwn(parsed, k)) out[k] = inInputOrder(parsed[k], input[k]);
  }
  for (const k of Object.keys(parsed)) if (!Object.hasOwn(out, k)) out[k] = parsed[k];
  return out;
}

function withKeyScan<T>(kind: KeyScanKind, input: unknown, r: ValidationResult<T>): ValidationResult<T> {
  if (r.ok === false && r.issues.some((i) => i.code === 'too_deep')) return r;
  const scan = scanUnknownKeys(kind, input);
  const warnings = scan.warnings.length > 0 ? { warnings: scan.warnings } : {};
  if (scan.errors.length > 0) {
    return { ok: false, issues: [...scan.errors, ...(r.ok ? [] : r.issues)], ...warnings };
  }
  if (r.ok) return { ok: true, value: inInputOrder(r.value, input) as T, ...warnings };
  return { ...r, ...warnings };
}

/**
 * Validates a dispatch record. Unknown keys at the root, in `context` and in the baseline are kept
 * and reported in `warnings`.
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
  return withKeyScan('dispatch', input, safeValidate(DispatchSchema, input, { maxDepth: MAX_RECORD_DEPTH }));
}

/**
 * Validates a handoff record, including every conditional-nullability rule. Unknown keys at the
 * root, in `evidence` and in the baseline are kept and reported in `warnings`.
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
  return withKeyScan('handoff', input, safeValidate(HandoffSchema, input, { maxDepth: MAX_RECORD_DEPTH }));
}

/**
 * Validates the structure of a file-baseline/v1 record (non-empty, absolute paths, hashes, no
 * duplicates). Paths are judged by the serialized grammar — POSIX, Windows drive or UNC — so a
 * record written on any host validates here; checking or advancing it needs local paths
 * (`requireBaseline`). Unknown keys are kept and reported in `warnings`.
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
  return withKeyScan(
    'baseline',
    input,
    safeValidate(FileBaselineSchema, input, { maxDepth: MAX_RECORD_DEPTH }),
  );
}
