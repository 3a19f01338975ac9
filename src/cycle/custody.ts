/**
 * Custody across dispatches (layer 1, pure): the parent's baseline after a worker returns.
 */
import type { FileBaseline } from '../baseline/schema.js';

/**
 * Merges a returned baseline into the parent's: entries of the returned one replace the same
 * paths; the others are carried forward unchanged (external drift on them is never blessed).
 *
 * @example
 * ```ts
 * mergeBaseline(parentBaseline, worker.file_baseline);
 * ```
 */
export function mergeBaseline(base: FileBaseline, returned: FileBaseline): FileBaseline {
  const byPath = new Map(returned.files.map((f) => [f.path, f]));
  const files = base.files.map((f) => byPath.get(f.path) ?? f);
  for (const f of returned.files) if (!base.files.some((b) => b.path === f.path)) files.push(f);
  return { schema: base.schema, files };
}
