/**
 * What a sandboxed gate worker may change (layer 1, pure): the paths `allowed_writes` matches,
 * never under `.git/` or `.handoff/` whatever the globs say. Everything else it writes stays in
 * the sandbox's layer, is discarded and becomes a `scope_violation` of the exact checks.
 */
import { matchesAny } from './globs.js';

/**
 * Whether a sandboxed gate worker may change a repository-relative path (pure): `allowed_writes`
 * matches it, and it is not under `.git/` or `.handoff/` whatever the globs say.
 *
 * @example
 * ```ts
 * gateWorkerMay(['src/**'], 'src/a.ts'); // true
 * gateWorkerMay(['**'], '.git/config'); // false
 * ```
 */
export function gateWorkerMay(allowed: readonly string[], rel: string): boolean {
  const top = rel.split('/')[0];
  if (top === '.git' || top === '.handoff') return false;
  return matchesAny(allowed, rel);
}
