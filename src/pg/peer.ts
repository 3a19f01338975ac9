/**
 * The `pg` package, loaded for `handoff-runtime/pg`'s backends (layer 3): `pg` is an optional peer
 * dependency, so it is imported with a top-level `await import()` — a missing package is one line
 * naming what to install (src/errors/missing-peer.ts).
 */
import { importPeer } from '../errors/missing-peer.js';

/**
 * The `pg` module's default export (what `import pg from 'pg'` gives).
 *
 * @example
 * ```ts
 * import pg from '../pg/peer.js';
 * const pool = new pg.Pool({ connectionString });
 * ```
 */
const pg: typeof import('pg')['default'] = (await importPeer('handoff-runtime/pg', 'pg', () => import('pg')))
  .default;
export default pg;
