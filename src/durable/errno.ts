/**
 * The errno code of a thrown file-system error.
 */

/**
 * The errno code (`ENOENT`, `EEXIST`…) of a thrown value, or `''` when it has none.
 *
 * @example
 * ```ts
 * try { fsl.open(p, O.O_RDONLY); } catch (e) { if (errnoOf(e) === 'ENOENT') … }
 * ```
 */
export function errnoOf(e: unknown): string {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string'
    ? (e as { code: string }).code
    : '';
}
