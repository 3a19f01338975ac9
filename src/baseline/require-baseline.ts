/**
 * Fail-closed loading of a file-baseline/v1 record: anything that is not a complete, valid,
 * non-empty baseline is an input error, never a match.
 */
import { integralFloatIssue, safeValidate } from '../validation/index.js';
import { inputRefusal } from './refusal.js';
import { type FileBaseline, FileBaselineSchema, localPathIssues } from './schema.js';

/**
 * Returns `value` as a validated {@link FileBaseline} that this host can check and advance, or
 * throws. Besides the record's own rules, every path and realpath must be absolute *on this host*:
 * a Windows drive or UNC path is a valid record (it validates as data, see `validateBaseline`),
 * but on POSIX it is refused here rather than resolved against the working directory — custody
 * never checks, creates or writes `./C:\x` in place of `C:\x`. Unknown keys are kept.
 *
 * @example
 * ```ts
 * const baseline = requireBaseline(JSON.parse(text));
 * ```
 * @throws HandoffError `invalid_record` (exit 2) with `details.issues` (`not_local_path` for a
 * path that is not absolute on this host).
 */
export function requireBaseline(value: unknown): FileBaseline {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw inputRefusal('invalid_record', 'malformed baseline: a file-baseline/v1 record is a JSON object', {
      issues: [{ path: '', code: 'not_an_object', message: 'a baseline record is a JSON object' }],
    });
  }
  const r = safeValidate(FileBaselineSchema, value);
  if (!r.ok) {
    const first = r.issues[0];
    throw inputRefusal(
      'invalid_record',
      `malformed baseline: ${first === undefined ? 'invalid' : `${first.path || '(root)'}: ${first.message}`}`,
      { issues: r.issues },
    );
  }
  const foreign = localPathIssues(r.value);
  if (foreign.length > 0) {
    throw inputRefusal('invalid_record', `malformed baseline: ${foreign[0]?.path}: ${foreign[0]?.message}`, {
      issues: foreign,
    });
  }
  return withAbsentNulls(r.value);
}

/** A missing sha256/size of an absent entry (as the reference accepts it) read as null. */
function withAbsentNulls(b: FileBaseline): FileBaseline {
  if (b.files.every((e) => e.sha256 !== undefined && e.size !== undefined)) return b;
  return {
    ...b,
    files: b.files.map((e) =>
      e.sha256 !== undefined && e.size !== undefined
        ? e
        : { ...e, sha256: e.sha256 ?? null, size: e.size ?? null },
    ),
  };
}

/**
 * Decodes baseline bytes (strict UTF-8, no BOM stripping, no other transformation) and parses
 * them as JSON, then validates them with {@link requireBaseline}.
 *
 * @example
 * ```ts
 * const baseline = parseBaselineBytes(await readFile('baseline.json'));
 * ```
 * @throws HandoffError `invalid_record` (exit 2) for invalid UTF-8, bad JSON, a bad record, or an
 * integral float in an integer field (`"size": 12.0`, `integral_float`).
 */
export function parseBaselineBytes(bytes: Uint8Array, source = 'baseline'): FileBaseline {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw inputRefusal('invalid_record', `malformed baseline: ${source} is not valid UTF-8`, {
      issues: [{ path: '', code: 'not_utf8', message: 'not valid UTF-8' }],
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw inputRefusal('invalid_record', `malformed baseline JSON in ${source}: ${(e as Error).message}`, {
      issues: [{ path: '', code: 'not_json', message: (e as Error).message }],
    });
  }
  const baseline = requireBaseline(value);
  // `size: 12.0` is not an integer for the reference (exit 2), so not here either
  const float = integralFloatIssue(text, value, (v) => safeValidate(FileBaselineSchema, v).ok);
  if (float !== null) {
    throw inputRefusal('invalid_record', `malformed baseline: ${float.path}: ${float.message}`, {
      issues: [float],
    });
  }
  return baseline;
}
