/**
 * Repository slugs (`owner/name`): trimmed, lower-cased, exactly two safe segments.
 */

function isSafeSegment(s: string | undefined): s is string {
  return s !== undefined && s.length > 0 && s !== '.' && s !== '..' && !/[\\/\s]/.test(s);
}

/**
 * The normalized slug, or `null` when `value` is not a valid `owner/name`.
 *
 * @example
 * ```ts
 * normalizeRepoSlug(' Acme/App '); // 'acme/app'
 * normalizeRepoSlug('a/b/c'); // null
 * ```
 */
export function normalizeRepoSlug(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const parts = value.trim().split('/');
  if (parts.length !== 2) return null;
  const [owner, name] = parts;
  if (!isSafeSegment(owner) || !isSafeSegment(name)) return null;
  return `${owner.toLowerCase()}/${name.toLowerCase()}`;
}
