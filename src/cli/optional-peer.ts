/**
 * The optional peer dependencies as the CLI loads them: `pg` (PostgreSQL backends, behind
 * `--pg`/`--ledger-pg`) and `fast-check` (`handoff conformance`). Each is imported on demand, so a
 * verb that does not need it runs without it, and a verb that does fails with a usage error (exit 2)
 * naming the package to install instead of a module-resolution stack trace.
 */
import { HandoffError } from '../errors/index.js';

/** Environment variable naming the run store's PostgreSQL URL (`handoff store`, when no root is given). */
export const PG_URL_ENV = 'HANDOFF_PG_URL';

/** Environment variable naming the gate ledger's PostgreSQL URL (`handoff gate`, when no ledger is given). */
export const LEDGER_PG_URL_ENV = 'HANDOFF_LEDGER_PG_URL';

/** The `handoff-runtime/pg` entry point. */
export type PgModule = typeof import('../pg/index.js');

/** The `handoff-runtime/conformance` entry point. */
export type ConformanceModule = typeof import('../conformance/index.js');

/**
 * True when `e` is node's "package not found" error for `pkg` itself (not for a file inside it,
 * nor for another package).
 *
 * @example
 * ```ts
 * isMissingPackage(await import('pg').catch((e) => e), 'pg'); // true when pg is not installed
 * ```
 */
export function isMissingPackage(e: unknown, pkg: string): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  return (
    err?.code === 'ERR_MODULE_NOT_FOUND' &&
    typeof err.message === 'string' &&
    err.message.includes(`Cannot find package '${pkg}'`)
  );
}

async function loadPeer<T>(pkg: string, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    // the library entry point's own guard (src/pg/peer.ts) names the package too
    const guarded = e instanceof HandoffError && e.details.package === pkg;
    if (!isMissingPackage(e, pkg) && !guarded) throw e;
    throw new HandoffError(
      'usage',
      `${feature} needs the optional peer dependency '${pkg}', which is not installed (npm install ${pkg})`,
      { details: { package: pkg } },
    );
  }
}

/**
 * Loads the PostgreSQL backends, or throws a `usage` error naming `pg` when it is not installed.
 *
 * @example
 * ```ts
 * const { createPgStore } = await loadPg('--pg');
 * ```
 * @throws HandoffError `usage` when `pg` is not installed.
 */
export function loadPg(feature: string): Promise<PgModule> {
  return loadPeer('pg', feature, () => import('../pg/index.js'));
}

/**
 * Loads the conformance harness, or throws a `usage` error naming `fast-check` when it is not
 * installed.
 *
 * @example
 * ```ts
 * const { runConformance } = await loadConformance();
 * ```
 * @throws HandoffError `usage` when `fast-check` is not installed.
 */
export function loadConformance(): Promise<ConformanceModule> {
  return loadPeer('fast-check', 'handoff conformance', () => import('../conformance/index.js'));
}
