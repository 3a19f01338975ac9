/**
 * A store's refusal in one line (layer 1, pure), for a stop detail.
 */
import type { StoreResult } from '../store/store-types.js';

/**
 * One line naming a store's refusal, for a stop detail.
 *
 * @example
 * ```ts
 * storeRefusal({ outcome: 'nothing_written', code: 'busy', detail: 'run is locked' }); // 'nothing_written (busy): run is locked'
 * ```
 */
export function storeRefusal(r: Pick<StoreResult, 'outcome' | 'code' | 'detail'>): string {
  return `${r.outcome}${r.code === undefined ? '' : ` (${r.code})`}${r.detail === undefined ? '' : `: ${r.detail}`}`;
}
