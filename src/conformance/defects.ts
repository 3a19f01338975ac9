/**
 * The malformed-dispatch catalogue (layer 1, pure): each defect turns a valid dispatch into the
 * stdin text a conforming worker must refuse with a protocol-error handoff.
 */
import type { FileBaseline } from '../baseline/schema.js';
import type { Dispatch } from '../contract/index.js';
import type { Defect } from './report-schema.js';

/** What a defect needs besides the dispatch. */
export interface DefectContext {
  /** A real baseline of a file outside the owned set (for `baseline-not-covering`). */
  readonly foreignBaseline: FileBaseline;
}

/**
 * One-line description of each defect (for reports and docs).
 *
 * @example
 * ```ts
 * DEFECT_DESCRIPTIONS['empty-stdin']; // 'stdin is empty'
 * ```
 */
export const DEFECT_DESCRIPTIONS: Readonly<Record<Defect, string>> = {
  'not-json': 'stdin is plain text, not JSON',
  'truncated-json': 'the dispatch JSON is cut off halfway',
  'wrong-schema-id': 'schema is run-contract/v0 instead of run-contract/v1',
  'missing-context-member': 'context.goal_state is omitted (members are never omitted)',
  'inline-with-parameters': 'worker is null (inline pass) but parameters is not {}',
  'baseline-not-covering': 'file_baseline covers a different file, not the owned files',
  'boolean-for-int': 'budget.max_cycles is true instead of an integer',
  'unknown-key':
    'budget carries an unknown key (budget has exact keys; unknown keys at the root are accepted)',
  'empty-stdin': 'stdin is empty',
};

/**
 * The stdin text for a valid dispatch damaged by `defect` (`null`: the valid dispatch itself).
 *
 * @example
 * ```ts
 * const text = malformedInput('wrong-schema-id', dispatch, { foreignBaseline });
 * JSON.parse(text).schema; // 'run-contract/v0'
 * ```
 */
export function malformedInput(defect: Defect | null, d: Dispatch, ctx: DefectContext): string {
  const json = (v: unknown) => `${JSON.stringify(v)}\n`;
  switch (defect) {
    case null:
      return json(d);
    case 'not-json':
      return 'this is not a dispatch\n';
    case 'truncated-json': {
      const text = JSON.stringify(d);
      return text.slice(0, Math.floor(text.length / 2));
    }
    case 'wrong-schema-id':
      return json({ ...d, schema: 'run-contract/v0' });
    case 'missing-context-member': {
      const { goal_state: _omitted, ...context } = d.context;
      return json({ ...d, context });
    }
    case 'inline-with-parameters':
      return json({ ...d, worker: null, parameters: { search_mode: 'full' } });
    case 'baseline-not-covering':
      return json({ ...d, file_baseline: ctx.foreignBaseline });
    case 'boolean-for-int':
      return json({ ...d, budget: { ...d.budget, max_cycles: true } });
    case 'unknown-key':
      return json({ ...d, budget: { ...d.budget, surprise: 'an unknown member' } });
    case 'empty-stdin':
      return '';
  }
}
