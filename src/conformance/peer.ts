/**
 * The `fast-check` package, loaded for `handoff-runtime/conformance` (layer 3): an optional peer
 * dependency, imported with a top-level `await import()` — a missing package is one line naming
 * what to install (src/errors/missing-peer.ts).
 */
import { importPeer } from '../errors/missing-peer.js';

/**
 * fast-check's default export (what `import fc from 'fast-check'` gives).
 *
 * @example
 * ```ts
 * import fc from './peer.js';
 * fc.sample(fc.nat(), 3);
 * ```
 */
const fc: typeof import('fast-check')['default'] = (
  await importPeer('handoff-runtime/conformance', 'fast-check', () => import('fast-check'))
).default;
export default fc;
