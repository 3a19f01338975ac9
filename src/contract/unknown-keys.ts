/**
 * Unknown keys in run-contract/v1 and file-baseline/v1 records (layer 1, pure).
 *
 * The reference validator checks only for *missing* keys at the record root, in a dispatch's
 * `context`, in a handoff's `evidence` and in a baseline (root and entries), so a record that a
 * newer reference wrote — with keys we do not know yet — is valid there. We accept the same records
 * and keep those keys as they are (a stored or echoed record never loses them), but say so: each
 * unknown key is a `unknown_key` warning of the validation result. No rule reads an unknown key, so
 * none can change a verdict.
 *
 * One key is refused wherever unknown keys are accepted: `__proto__`. A JavaScript object cannot
 * carry it as data (assigning it replaces the object's prototype, and the schema layer drops it
 * silently), so accepting it would either lose the key or let a worker graft properties onto a
 * record. It is a `forbidden_key` error instead.
 */
import { BaselineEntrySchema, FileBaselineSchema } from '../baseline/schema.js';
import type { ValidationIssue } from '../validation/index.js';
import { DispatchContextSchema, DispatchSchema } from './dispatch-schema.js';
import { HandoffEvidenceSchema, HandoffSchema } from './handoff-schema.js';

/** The {@link ValidationIssue} code of an accepted, unknown key (a warning). */
export const UNKNOWN_KEY = 'unknown_key';
/** The {@link ValidationIssue} code of a key that is never accepted (`__proto__`). */
export const FORBIDDEN_KEY = 'forbidden_key';

/** Which record a key scan is for. */
export type KeyScanKind = 'dispatch' | 'handoff' | 'baseline';

/** What a key scan found. */
export interface KeyScan {
  /** Unknown keys, kept as they are: warnings. */
  readonly warnings: readonly ValidationIssue[];
  /** `__proto__` keys where unknown keys are accepted: errors. */
  readonly errors: readonly ValidationIssue[];
}

/** The known keys of each scanned shape, read from the schemas on the first scan (they are lazy). */
interface KnownKeys {
  readonly dispatch: ReadonlySet<string>;
  readonly context: ReadonlySet<string>;
  readonly handoff: ReadonlySet<string>;
  readonly evidence: ReadonlySet<string>;
  readonly baseline: ReadonlySet<string>;
  readonly entry: ReadonlySet<string>;
}
let known: KnownKeys | undefined;
const keysOf = (shape: object): ReadonlySet<string> => new Set(Object.keys(shape));
function knownKeys(): KnownKeys {
  if (known === undefined) {
    known = {
      dispatch: keysOf(DispatchSchema.shape),
      context: keysOf(DispatchContextSchema.shape),
      handoff: keysOf(HandoffSchema.shape),
      evidence: keysOf(HandoffEvidenceSchema.shape),
      baseline: keysOf(FileBaselineSchema.shape),
      entry: keysOf(BaselineEntrySchema.shape),
    };
  }
  return known;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`;
}

function scanObject(
  value: unknown,
  known: ReadonlySet<string>,
  prefix: string,
  record: string,
  warnings: ValidationIssue[],
  errors: ValidationIssue[],
): void {
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    if (known.has(key)) continue;
    const path = join(prefix, key);
    if (key === '__proto__') {
      errors.push({
        path,
        code: FORBIDDEN_KEY,
        message: `the key __proto__ is never accepted in a ${record} record (it cannot be kept as data)`,
      });
    } else {
      warnings.push({
        path,
        code: UNKNOWN_KEY,
        message: `unknown key ${JSON.stringify(key)} accepted and kept as is; no ${record} rule reads it`,
      });
    }
  }
}

function scanBaseline(
  value: unknown,
  prefix: string,
  warnings: ValidationIssue[],
  errors: ValidationIssue[],
): void {
  if (!isPlainObject(value)) return;
  scanObject(value, knownKeys().baseline, prefix, 'file-baseline/v1', warnings, errors);
  const files = value.files;
  if (!Array.isArray(files)) return;
  files.forEach((f, i) => {
    scanObject(f, knownKeys().entry, join(prefix, `files.${i}`), 'file-baseline/v1', warnings, errors);
  });
}

/**
 * Finds the unknown keys of a record where the reference accepts them: the root, a dispatch's
 * `context`, a handoff's `evidence`, and the embedded baseline (root and entries). Keys inside the
 * typed shapes that keep exact keys (parameters, budget, search results, candidates, attempts,
 * artifacts) are not listed here — the schema refuses them.
 *
 * @example
 * ```ts
 * scanUnknownKeys('handoff', { ...handoff, reviewer_note: 'x' }).warnings;
 * // [{ path: 'reviewer_note', code: 'unknown_key', message: … }]
 * ```
 */
export function scanUnknownKeys(kind: KeyScanKind, input: unknown): KeyScan {
  const warnings: ValidationIssue[] = [];
  const errors: ValidationIssue[] = [];
  if (!isPlainObject(input)) return { warnings, errors };
  if (kind === 'baseline') {
    scanBaseline(input, '', warnings, errors);
  } else if (kind === 'dispatch') {
    scanObject(input, knownKeys().dispatch, '', 'run-contract/v1 dispatch', warnings, errors);
    scanObject(input.context, knownKeys().context, 'context', 'run-contract/v1 dispatch', warnings, errors);
    scanBaseline(input.file_baseline, 'file_baseline', warnings, errors);
  } else {
    scanObject(input, knownKeys().handoff, '', 'run-contract/v1 handoff', warnings, errors);
    scanObject(input.evidence, knownKeys().evidence, 'evidence', 'run-contract/v1 handoff', warnings, errors);
    scanBaseline(input.file_baseline, 'file_baseline', warnings, errors);
  }
  return { warnings, errors };
}
