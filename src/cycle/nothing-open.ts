/**
 * When discovery may end a run `solved` (layer 1, pure): no open target and no diagnostics error.
 * An error alone (a `--diagnostics` command's failing build, an unverifiable file) is not solved.
 */
import type { DiagnosticsOutput } from './types.js';

/**
 * True when a discovery answer leaves nothing to do: no target open and no error reported.
 *
 * @example
 * ```ts
 * nothingOpen({ targets: [], errors: [] });                        // true
 * nothingOpen({ targets: [], errors: ['A.lean:3:type mismatch'] }); // false
 * ```
 */
export function nothingOpen(out: Pick<DiagnosticsOutput, 'targets' | 'errors'>): boolean {
  return out.targets.length === 0 && out.errors.length === 0;
}
