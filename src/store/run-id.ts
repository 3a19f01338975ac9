/**
 * Run ids and timestamps: `YYYYMMDDTHHMMSSZ-<8 hex>`, the hex being the first 8 characters of
 * sha256(`target|scope|mode|tracker_session_id-or-"none"|created`).
 */
import { sha256Hex } from '../canonical/index.js';
import { RUN_ID_PATTERN, TimestampSchema } from './schema.js';

/**
 * True when `created` is exactly `YYYY-MM-DDTHH:MM:SSZ` and names a real instant.
 *
 * @example
 * ```ts
 * isTimestamp('2026-11-30T10:00:00Z'); // true
 * isTimestamp('2026-11-30T10:00:00.000Z'); // false
 * ```
 */
export function isTimestamp(created: string): boolean {
  return TimestampSchema.safeParse(created).success;
}

/**
 * Formats a Date as `YYYY-MM-DDTHH:MM:SSZ` (UTC, seconds precision).
 *
 * @example
 * ```ts
 * formatTimestamp(new Date(0)); // '1970-01-01T00:00:00Z'
 * ```
 */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.[0-9]{3}Z$/, 'Z');
}

/**
 * True when `runId` is exactly in the run-id format (so it is safe as a directory name).
 *
 * @example
 * ```ts
 * isRunId('20261130T100000Z-0a1b2c3d'); // true
 * isRunId('../x'); // false
 * ```
 */
export function isRunId(runId: unknown): runId is string {
  return typeof runId === 'string' && RUN_ID_PATTERN.test(runId);
}

/**
 * Derives a run id.
 *
 * @example
 * ```ts
 * makeRunId('Foo.lean:42', 'sorry', 'prove', null, '2026-11-30T10:00:00Z');
 * // '20261130T100000Z-' + sha256Hex('Foo.lean:42|sorry|prove|none|2026-11-30T10:00:00Z').slice(0, 8)
 * ```
 * @throws RangeError when `created` is not a `YYYY-MM-DDTHH:MM:SSZ` timestamp.
 */
export function makeRunId(
  target: string,
  scope: string,
  mode: string,
  trackerSessionId: string | null,
  created: string,
): string {
  if (!isTimestamp(created)) throw new RangeError(`bad timestamp: ${JSON.stringify(created)}`);
  const hex = sha256Hex(`${target}|${scope}|${mode}|${trackerSessionId ?? 'none'}|${created}`).slice(0, 8);
  return `${created.replace(/[-:]/g, '')}-${hex}`;
}
