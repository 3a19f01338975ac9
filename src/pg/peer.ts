/**
 * The `pg` package, loaded for `handoff-runtime/pg`'s backends (layer 3): `pg` is an optional peer
 * dependency, so it is imported here with a top-level `await import()` — a missing package becomes
 * one line naming what to install (`handoff-runtime/pg needs the optional peer "pg": npm install
 * pg`) instead of node's ERR_MODULE_NOT_FOUND from deep inside the package. A static `import pg
 * from 'pg'` would fail at link time, before any code could say so.
 */
import { HandoffError } from '../errors/index.js';

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

async function loadPg(): Promise<typeof import('pg')> {
  try {
    return await import('pg');
  } catch (e) {
    if (isMissingPeer(e, 'pg')) throw missingPeerError('handoff-runtime/pg', 'pg');
    throw e;
  }
}

/**
 * The `pg` module's default export (what `import pg from 'pg'` gives).
 *
 * @example
 * ```ts
 * import pg from '../pg/peer.js';
 * const pool = new pg.Pool({ connectionString });
 * ```
 */
const pg: typeof import('pg')['default'] = (await loadPg()).default;
export default pg;
