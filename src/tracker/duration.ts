/**
 * Duration syntax of the cycle tracker: digits with an optional `s`, `m` or `h` suffix (either
 * case); a bare number is minutes; an empty string or `0` means unlimited.
 */

const DURATION = /^(\d+)([mshMSH]?)$/;

/**
 * Parses a tracker duration into seconds (`0` = unlimited), or `null` when malformed.
 *
 * @example
 * ```ts
 * parseDuration('120m'); // 7200
 * parseDuration('90');   // 5400 (bare = minutes)
 * parseDuration('');     // 0 (unlimited)
 * parseDuration('1.5h'); // null
 * ```
 */
export function parseDuration(text: string): number | null {
  if (text === '') return 0;
  const m = DURATION.exec(text);
  if (m === null) return null;
  const n = Number(m[1]);
  if (!Number.isSafeInteger(n)) return null;
  const unit = (m[2] ?? '').toLowerCase();
  if (unit === 's') return n;
  if (unit === 'h') return n * 3600;
  return n * 60;
}

/**
 * Formats `elapsed/max` the way the tracker's `status` shows it: whole minutes when the limit is
 * a whole number of minutes (`12m/120m`), seconds otherwise (`40s/90s`), `Nm/unlimited` without a
 * limit.
 *
 * @example
 * ```ts
 * elapsedDisplay(125, 7200); // '2m/120m'
 * elapsedDisplay(40, 90);    // '40s/90s'
 * elapsedDisplay(125, 0);    // '2m/unlimited'
 * ```
 */
export function elapsedDisplay(elapsedSeconds: number, maxRuntimeSeconds: number): string {
  const e = Math.max(0, Math.floor(elapsedSeconds));
  if (maxRuntimeSeconds <= 0) return `${Math.floor(e / 60)}m/unlimited`;
  if (maxRuntimeSeconds % 60 === 0) return `${Math.floor(e / 60)}m/${maxRuntimeSeconds / 60}m`;
  return `${e}s/${maxRuntimeSeconds}s`;
}
