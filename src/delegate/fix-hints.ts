/**
 * Fix hints for the usual worker mistakes (layer 1, pure): a refusal's detail says what to do
 * when a worker returned nothing, returned a string, or edited its files without advancing the
 * baseline — the three ways a first `delegate` worker most often goes wrong.
 */
import type { DelegateViolation } from './violations.js';

/** What a worker returns: a handoff record built from the dispatch. */
const RETURN_A_HANDOFF =
  'return handoffFor(dispatch, { files_changed, file_baseline: await advanceBaseline(dispatch.file_baseline, files_changed) })';

/**
 * The schema detail for an answer that is plainly not a record (nothing, or a string), or null
 * when the answer is something else (its validation issues say more).
 *
 * @example
 * ```ts
 * notARecordDetail(undefined); // 'the worker returned nothing (undefined); fix: return handoffFor(…)'
 * notARecordDetail({}); // null
 * ```
 */
export function notARecordDetail(answer: unknown): string | null {
  if (answer === undefined || answer === null)
    return `the worker returned nothing (${String(answer)}); fix: ${RETURN_A_HANDOFF}`;
  if (typeof answer === 'string') {
    const head = answer.trim().slice(0, 400);
    const quoted = JSON.stringify(head.length < answer.trim().length ? `${head}…` : head);
    return `the worker returned a string (${quoted}), not a handoff record; fix: ${RETURN_A_HANDOFF} — a framework's text answer is the agent's words, not the record`;
  }
  return null;
}

/**
 * `v` with a fix hint appended when it is a custody mistake with a known fix: owned files edited
 * but the baseline not advanced, or advanced but not listed in `files_changed`.
 *
 * @example
 * ```ts
 * withFixHint({ check: 'baseline', detail: 'owned file(s) differ from the returned baseline (drift nobody advanced): /r/a.ts (modified)' }).detail;
 * // '… (modified); fix: after editing, advance the baseline (file_baseline: await advanceBaseline(…)) and list the files in files_changed'
 * ```
 */
export function withFixHint(v: DelegateViolation): DelegateViolation {
  if (v.check !== 'baseline' || v.detail.includes('; fix: ')) return v;
  if (v.detail.includes('drift nobody advanced'))
    return {
      ...v,
      detail: `${v.detail}; fix: after editing, advance the baseline (file_baseline: await advanceBaseline(dispatch.file_baseline, files_changed)) and list the files in files_changed`,
    };
  if (v.detail.includes('which files_changed does not report'))
    return { ...v, detail: `${v.detail}; fix: list every file you changed in files_changed` };
  return v;
}
