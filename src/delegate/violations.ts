/**
 * The findings of a delegation (layer 1, pure): one named check per rule the cycle runtime applies
 * to a dispatch and to the handoff a worker returns, and the rules that turn the raw observations
 * (a type swap, workspace changes, the returned record) into findings.
 */
import { type Dispatch, type Handoff, sameTask, validateHandoff } from '../contract/index.js';
import { describeWorkspaceChanges, type WorkspaceChanges } from '../runtime/workspace-watch.js';
import { detachAnswer } from './detach.js';
import { notARecordDetail } from './fix-hints.js';

/**
 * Every check a delegation applies, in the order it applies them:
 * - `dispatch` — the dispatch is a valid run-contract/v1 record whose owned files are regular files
 *   at their own location;
 * - `external_drift` — the owned files still hold the bytes of the dispatch's baseline;
 * - `owned_type` — after the worker, no owned file (or folder on its path) became a link,
 *   directory or special file;
 * - `outside_owned` — no other project file was created, changed, removed or swapped for a link;
 * - `git_state` — no git control file changed (config, hooks, refs, …);
 * - `run_store` — nothing under the fs run store changed;
 * - `schema` — the answer is a valid run-contract/v1 handoff;
 * - `task_echo` — it echoes the dispatch's target, scope and mode;
 * - `owned_echo` — its `files_owned` is the dispatch's owned set;
 * - `baseline` — `files_changed` ⊆ owned, the returned baseline covers every owned file at its own
 *   path, advances only what `files_changed` reports and matches the bytes on disk;
 * - `unchanged_claim` — every file `files_changed` names holds other bytes than before the worker
 *   (no claim of a change nothing backs; `delegate` has no verifier to notice one);
 * - `statement_fence` — no declaration header of an owned file changed (files with a header
 *   extractor: `.lean` by default);
 * - `search_budget` — no more searches than the dispatch's `search-budget:N` grant, and no script
 *   fallback before the gate opened.
 *
 * @example
 * ```ts
 * DELEGATE_CHECKS.includes('baseline'); // true
 * ```
 */
export const DELEGATE_CHECKS = [
  'dispatch',
  'external_drift',
  'owned_type',
  'outside_owned',
  'git_state',
  'run_store',
  'schema',
  'task_echo',
  'owned_echo',
  'baseline',
  'unchanged_claim',
  'statement_fence',
  'search_budget',
] as const;

/**
 * One of {@link DELEGATE_CHECKS}.
 *
 * @example
 * ```ts
 * const c: DelegateCheck = 'outside_owned';
 * ```
 */
export type DelegateCheck = (typeof DELEGATE_CHECKS)[number];

/**
 * A failed check: which one, and what it found.
 *
 * @example
 * ```ts
 * const v: DelegateViolation = { check: 'git_state', detail: 'the worker changed git state: /r/.git/config' };
 * ```
 */
export interface DelegateViolation {
  readonly check: DelegateCheck;
  readonly detail: string;
}

/**
 * The findings of the workspace watch and the owned-file type check, one per zone: the type swap
 * (`owned_type`), other project files (`outside_owned`), git control files (`git_state`), the run
 * store (`run_store`). Empty when nothing was touched.
 *
 * @example
 * ```ts
 * tamperViolations(null, { project: ['notes.md'], git: [], store: [] });
 * // [{ check: 'outside_owned', detail: 'the worker wrote outside its owned files: notes.md' }]
 * ```
 */
export function tamperViolations(typeSwap: string | null, changes: WorkspaceChanges): DelegateViolation[] {
  const out: DelegateViolation[] = [];
  if (typeSwap !== null) out.push({ check: 'owned_type', detail: typeSwap });
  const zone = (check: DelegateCheck, c: WorkspaceChanges): void => {
    const d = describeWorkspaceChanges(c);
    if (d !== null) out.push({ check, detail: d });
  };
  zone('outside_owned', { project: changes.project, git: [], store: [] });
  zone('git_state', { project: [], git: changes.git, store: [] });
  zone('run_store', { project: [], git: [], store: changes.store });
  return out;
}

/**
 * The worker's answer read as a handoff, or the `schema` finding.
 *
 * @example
 * ```ts
 * const r: ReadHandoff = readHandoff(answer); if (!r.ok) r.violation.detail;
 * ```
 */
export type ReadHandoff =
  | { readonly ok: true; readonly handoff: Handoff }
  | { readonly ok: false; readonly violation: DelegateViolation };

/**
 * Reads a worker's answer as a run-contract/v1 handoff: detached first (read once into plain JSON
 * data, see `detachAnswer`), then validated. The first three issues name the defect.
 *
 * @example
 * ```ts
 * readHandoff({ status: 'solved' }).ok; // false: { check: 'schema', detail: 'invalid handoff record: schema: …' }
 * ```
 */
export function readHandoff(answer: unknown): ReadHandoff {
  const plain = notARecordDetail(answer);
  if (plain !== null)
    return { ok: false, violation: { check: 'schema', detail: `invalid handoff record: ${plain}` } };
  const detached = detachAnswer(answer);
  if (!detached.ok) {
    return {
      ok: false,
      violation: { check: 'schema', detail: `invalid handoff record: ${detached.detail}` },
    };
  }
  const v = validateHandoff(detached.value);
  if (v.ok) return { ok: true, handoff: v.value };
  const issues = v.issues
    .slice(0, 3)
    .map((i) => `${i.path || '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, violation: { check: 'schema', detail: `invalid handoff record: ${issues}` } };
}

/**
 * The echo findings: the handoff names the dispatched task (`task_echo`) and exactly its owned set
 * (`owned_echo`).
 *
 * @example
 * ```ts
 * echoViolations(dispatch, { ...handoff, target: 'other.ts:1' })[0]?.check; // 'task_echo'
 * ```
 */
export function echoViolations(
  dispatch: Pick<Dispatch, 'target' | 'scope' | 'mode' | 'owned_files'>,
  h: Pick<Handoff, 'target' | 'scope' | 'mode' | 'files_owned'>,
): DelegateViolation[] {
  const out: DelegateViolation[] = [];
  if (!sameTask(dispatch, h)) {
    out.push({
      check: 'task_echo',
      detail: `the handoff does not echo the dispatched task (${dispatch.target}, ${dispatch.scope}, ${dispatch.mode})`,
    });
  }
  const set = (xs: readonly string[]) => [...new Set(xs)].sort().join('\n');
  if (set(h.files_owned) !== set(dispatch.owned_files)) {
    out.push({ check: 'owned_echo', detail: 'files_owned does not echo the dispatch owned_files' });
  }
  return out;
}
