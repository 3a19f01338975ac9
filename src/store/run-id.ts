/**
 * Run ids and timestamps: `YYYYMMDDTHHMMSSZ-<8 hex>`, the hex drawn at random (nanoid's
 * `customAlphabet` over hex digits), so two runs of the same task created in the same second get
 * different ids. (The reference derives the hex from sha256 of `target|scope|mode|session|created`,
 * which makes such runs collide with `run_exists`; see docs/store.md.) Stores take an
 * `runIdSuffix` {@link IdSource} for deterministic tests.
 */
import { hexIdSource, type IdSource } from '../ids/index.js';
import { RUN_ID_PATTERN, TimestampSchema } from './schema.js';

/**
 * The default source of a run id's 8 hex digits: random, drawn with nanoid.
 *
 * @example
 * ```ts
 * randomRunIdSuffix(); // e.g. '3f9c0a7e'
 * ```
 */
export const randomRunIdSuffix: IdSource = hexIdSource(8);

const SUFFIX = /^[0-9a-f]{8}$/;

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
 * Makes a run id for a run created at `created`: the compact timestamp and 8 hex digits from
 * `suffix` (random by default).
 *
 * @example
 * ```ts
 * makeRunId('2026-11-30T10:00:00Z'); // '20261130T100000Z-3f9c0a7e' (random hex)
 * makeRunId('2026-11-30T10:00:00Z', () => '0a1b2c3d'); // '20261130T100000Z-0a1b2c3d'
 * ```
 * @throws RangeError when `created` is not a `YYYY-MM-DDTHH:MM:SSZ` timestamp, or `suffix`
 * returns anything but 8 lower-case hex digits.
 */
export function makeRunId(created: string, suffix: IdSource = randomRunIdSuffix): string {
  if (!isTimestamp(created)) throw new RangeError(`bad timestamp: ${JSON.stringify(created)}`);
  const hex = suffix();
  if (!SUFFIX.test(hex))
    throw new RangeError(`a run id suffix is 8 lower-case hex digits, got ${JSON.stringify(hex)}`);
  return `${created.replace(/[-:]/g, '')}-${hex}`;
}
