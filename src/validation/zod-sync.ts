/**
 * zod, loaded when the first schema is built rather than when a module that declares schemas is
 * imported. zod is 95 modules; a worker that imports `handoff-runtime/contract` only to build its
 * handoff should not pay for them (issue 28 item 7). Where Node can `require()` an ES module
 * (`process.features.require_module`: Node 20.19+, 22.12+) zod's ES entry is required on first use
 * — the very module instance `import 'zod'` gives everyone else (one module cache), so schemas
 * built here mix freely with the caller's own zod schemas. On an older Node it is imported up front,
 * as before.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';

/**
 * The `z` namespace of zod, as `import { z } from 'zod'` gives it.
 *
 * @example
 * ```ts
 * import type { ZodNamespace } from './zod-sync.js';
 * const point = (z: ZodNamespace) => z.strictObject({ x: z.number() });
 * ```
 */
export type ZodNamespace = typeof z;

const canRequireEsm = (process.features as { require_module?: boolean }).require_module === true;
let loaded: ZodNamespace | undefined = canRequireEsm ? undefined : (await import('zod')).z;

/**
 * The `z` namespace of zod, loaded on the first call (synchronously, through Node's `require()` of
 * zod's ES module entry) and cached. Call it inside a schema builder, never at a module's top level.
 *
 * @example
 * ```ts
 * import { zod } from './zod-sync.js';
 * const z = zod();
 * z.string().safeParse('x').success; // true
 * ```
 */
export function zod(): ZodNamespace {
  if (loaded === undefined) {
    const require = createRequire(import.meta.url);
    const entry = fileURLToPath(import.meta.resolve('zod'));
    loaded = (require(entry) as { z: ZodNamespace }).z;
  }
  return loaded;
}
