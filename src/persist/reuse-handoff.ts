/**
 * The operational-error handoff of a reuse refused before any run exists (layer 1, pure).
 */
import type { FileBaseline } from '../baseline/schema.js';
import type { Handoff } from '../contract/handoff-schema.js';
import { emptyAccumulated, operationalErrorHandoff } from './knowledge.js';

/**
 * Builds the operational-error handoff for an intended task (autonomous drift refusal).
 *
 * @example
 * ```ts
 * operationalErrorHandoffForTask({ target, scope, mode, owned_files }, current, 'reconcile /p/A.lean');
 * ```
 */
export function operationalErrorHandoffForTask(
  inv: { target: string; scope: string; mode: string; owned_files: readonly string[] },
  baseline: FileBaseline,
  detail: string,
): Handoff {
  return operationalErrorHandoff(
    {
      current: {
        target: inv.target,
        scope: inv.scope as Handoff['scope'] & string,
        mode: inv.mode as Handoff['mode'] & string,
        files_owned: [...inv.owned_files],
        file_baseline: baseline,
      },
      accumulated: emptyAccumulated(),
    },
    detail,
  );
}
