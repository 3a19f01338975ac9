/**
 * Criterion-id stability across contract revisions (pure). A new revision may change a
 * criterion's text only with a bumped `text_revision`; an id never changes its interpretation
 * (that would move it to a different requirement); a retired id is never reused; the profile
 * never widens beyond what the problem first declared.
 */
import type { ValidationIssue, ValidationResult } from '../validation/index.js';
import type { TaskContract } from './contract-schema.js';

/**
 * Checks that `next` is an admissible revision after `history` (all earlier revisions of the same
 * problem, in order). An empty history accepts any revision-1 contract.
 *
 * Issue codes: `problem_mismatch`, `revision_not_next`, `text_changed_without_bump`,
 * `text_revision_regressed`, `interpretation_changed`, `id_reused`, `profile_widened`.
 *
 * @example
 * ```ts
 * const r = checkContractRevision([rev1], rev2);
 * if (!r.ok) r.issues.map((i) => i.code); // ['text_changed_without_bump']
 * ```
 */
export function checkContractRevision(
  history: readonly TaskContract[],
  next: TaskContract,
): ValidationResult<TaskContract> {
  const issues: ValidationIssue[] = [];
  const prev = history[history.length - 1];
  if (prev === undefined) {
    if (next.revision !== 1) {
      issues.push({ path: 'revision', code: 'revision_not_next', message: 'the first revision is 1' });
    }
    return issues.length === 0 ? { ok: true, value: next } : { ok: false, issues };
  }
  if (history.some((h) => h.problem_id !== next.problem_id)) {
    issues.push({
      path: 'problem_id',
      code: 'problem_mismatch',
      message: 'history belongs to another problem',
    });
  }
  if (next.revision !== prev.revision + 1) {
    issues.push({
      path: 'revision',
      code: 'revision_not_next',
      message: `expected revision ${prev.revision + 1}, got ${next.revision}`,
    });
  }
  const lastSeen = new Map<string, { rev: number; c: TaskContract['criteria'][number] }>();
  for (const h of history) for (const c of h.criteria) lastSeen.set(c.id, { rev: h.revision, c });
  const inPrev = new Set(prev.criteria.map((c) => c.id));
  next.criteria.forEach((c, i) => {
    const seen = lastSeen.get(c.id);
    if (seen === undefined) return;
    const path = `criteria.${i}`;
    if (!inPrev.has(c.id)) {
      issues.push({
        path: `${path}.id`,
        code: 'id_reused',
        message: `criterion id ${c.id} was retired after revision ${seen.rev} and cannot be reused`,
      });
      return;
    }
    if (c.interpretation !== seen.c.interpretation) {
      issues.push({
        path: `${path}.interpretation`,
        code: 'interpretation_changed',
        message: `criterion ${c.id} cannot change its interpretation; retire it and use a new id`,
      });
    }
    if (c.text_revision < seen.c.text_revision) {
      issues.push({
        path: `${path}.text_revision`,
        code: 'text_revision_regressed',
        message: `criterion ${c.id} text_revision went back from ${seen.c.text_revision}`,
      });
    } else if (c.text !== seen.c.text && c.text_revision === seen.c.text_revision) {
      issues.push({
        path: `${path}.text_revision`,
        code: 'text_changed_without_bump',
        message: `criterion ${c.id} changed its text without bumping text_revision`,
      });
    } else if (c.text === seen.c.text && c.text_revision !== seen.c.text_revision) {
      issues.push({
        path: `${path}.text_revision`,
        code: 'text_revision_without_change',
        message: `criterion ${c.id} bumped text_revision without a text change`,
      });
    }
  });
  const first = history[0] as TaskContract;
  for (const k of ['ordinary_repairs', 'gate_continuations', 'lead_directed_attempts'] as const) {
    if (next.profile[k] > first.profile[k]) {
      issues.push({
        path: `profile.${k}`,
        code: 'profile_widened',
        message: `profile.${k} cannot widen beyond the declared ${first.profile[k]}`,
      });
    }
  }
  return issues.length === 0 ? { ok: true, value: next } : { ok: false, issues };
}
