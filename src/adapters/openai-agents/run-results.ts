/**
 * Telling the results of checked tool calls apart from any other tool output in a run (layer 3,
 * adapter): each result this adapter issues is frozen and registered, so a host can pick them out
 * of `RunResult.newItems` — and a model or another tool cannot forge one.
 */
import { deepFreeze } from '../../canonical/index.js';
import type { CheckedToolResult } from './tool-result.js';

const issued = new WeakSet<object>();

/**
 * Freezes `result` and registers it as issued by this adapter (module-internal).
 *
 * @example
 * ```ts
 * return issueResult({ outcome: 'accepted', handoff, violations: [], cite: null });
 * ```
 */
export function issueResult(result: CheckedToolResult): CheckedToolResult {
  const frozen = deepFreeze({ ...result, violations: result.violations.map((v) => ({ ...v })) });
  issued.add(frozen);
  return frozen;
}

/**
 * True when `value` is a result a checked tool of this adapter returned in this process.
 *
 * @example
 * ```ts
 * isCheckedToolResult(item.output); // true for a delegateTool / checkedAgentTool output
 * ```
 */
export function isCheckedToolResult(value: unknown): value is CheckedToolResult {
  return typeof value === 'object' && value !== null && issued.has(value);
}

/**
 * The checked tool results among a run's items (`RunResult.newItems`), in order: the outputs of
 * every `delegateTool` and `checkedAgentTool` call of the run.
 *
 * @example
 * ```ts
 * const result = await run(agent, 'fill the greeting');
 * for (const r of checkedResults(result.newItems)) console.log(r.outcome, r.cite);
 * ```
 */
export function checkedResults(items: readonly unknown[]): CheckedToolResult[] {
  const out: CheckedToolResult[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const output = (item as { output?: unknown }).output;
    if (isCheckedToolResult(output)) out.push(output);
  }
  return out;
}
