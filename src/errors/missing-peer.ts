/**
 * A missing optional peer dependency, said in one line (layer 0 rule + one loader): the library's
 * entry points that need a peer (`handoff-runtime/pg` → `pg`, `handoff-runtime/conformance` →
 * `fast-check`) load it with a top-level `await import()` through {@link importPeer}, so a
 * consumer without it reads `handoff-runtime/pg needs the optional peer "pg": npm install pg`
 * instead of node's ERR_MODULE_NOT_FOUND from deep inside the package. A static import would fail
 * at link time, before any code could say so.
 */
import { HandoffError } from './handoff-error.js';

/**
 * The error for a missing optional peer `pkg` of the entry point `entry` (pure).
 *
 * @example
 * ```ts
 * missingPeerError('handoff-runtime/pg', 'pg').message;
 * // 'handoff-runtime/pg needs the optional peer "pg": npm install pg'
 * ```
 */
export function missingPeerError(entry: string, pkg: string): HandoffError {
  return new HandoffError('usage', `${entry} needs the optional peer "${pkg}": npm install ${pkg}`, {
    details: { package: pkg },
  });
}

/**
 * True when `e` is node's "package not found" error for `pkg` itself (pure).
 *
 * @example
 * ```ts
 * isMissingPeer({ code: 'ERR_MODULE_NOT_FOUND', message: "Cannot find package 'pg' imported from /x" }, 'pg'); // true
 * ```
 */
export function isMissingPeer(e: unknown, pkg: string): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  return (
    err?.code === 'ERR_MODULE_NOT_FOUND' &&
    typeof err.message === 'string' &&
    err.message.includes(`Cannot find package '${pkg}'`)
  );
}

/**
 * Runs `load` (the peer's dynamic import) and turns "package not found" into
 * {@link missingPeerError}; any other failure is rethrown as it is.
 *
 * @example
 * ```ts
 * const pg = (await importPeer('handoff-runtime/pg', 'pg', () => import('pg'))).default;
 * ```
 * @throws HandoffError `usage` when `pkg` is not installed.
 */
export async function importPeer<T>(entry: string, pkg: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if (isMissingPeer(e, pkg)) throw missingPeerError(entry, pkg);
    throw e;
  }
}
