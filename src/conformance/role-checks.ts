/**
 * The role checks of a conformance case (layer 1, pure): what a repair or falsify worker must
 * return beyond the ordinary checks, judged with the runtime's own rules — the patch parser and
 * scope check of src/patch for a repair diff, `declarationNameAt` and `negationViolation` of
 * src/cycle/falsification for a falsify pass — so a worker passing here is not refused by the
 * delegating worker for its role.
 */
import { relative } from 'node:path';
import type { Handoff } from '../contract/index.js';
import { declarationNameAt, negationViolation } from '../cycle/falsification.js';
import { repairAnswerViolation, repairEditViolation } from '../cycle/repair-rules.js';
import { describePatchError, parsePatch, patchTargets } from '../patch/index.js';
import type { CheckId, ConformanceRole } from './report-schema.js';

/**
 * What the harness observed for a role case (a valid case sent in `repair` or `falsify`).
 *
 * @example
 * ```ts
 * const o: RoleObservation = { role: 'falsify', projectRoot: root, targetLine: 2, policy: 'salvage', targetBefore, targetAfter };
 * ```
 */
export interface RoleObservation {
  readonly role: Exclude<ConformanceRole, 'fill'>;
  /** The case project's root (owned paths are absolute under it; a diff names them relative to it). */
  readonly projectRoot: string;
  /** 1-based line of the target in the first owned file. */
  readonly targetLine: number;
  /** The falsification policy the dispatch carries (falsify). */
  readonly policy: 'salvage' | 'negate' | 'off';
  /** The first owned file's text before dispatch. */
  readonly targetBefore: string;
  /** Its text after the worker, or null when it is absent or was not read (a swapped path). */
  readonly targetAfter: string | null;
}

/**
 * One role finding: a check id, whether it passed and its detail.
 *
 * @example
 * ```ts
 * const f: RoleFinding = { check: 'repair-one-diff', passed: true, detail: 'files_changed: [] and one unified-diff artifact' };
 * ```
 */
export interface RoleFinding {
  readonly check: CheckId;
  readonly passed: boolean;
  readonly detail: string;
}

/**
 * The repair checks, in order, each applied only when the one before passed (one flaw, one
 * finding): `repair-patch-only` (no owned file changed on disk: the runtime applies the diff
 * itself), `repair-one-diff` (`files_changed: []` and exactly one `unified-diff` artifact) and
 * `repair-diff-owned` (the diff parses and touches only owned files, as src/patch judges it).
 */
function repairFindings(
  o: RoleObservation,
  h: Handoff,
  owned: readonly string[],
  changed: readonly string[],
): RoleFinding[] {
  const ownedSet = new Set(owned);
  // the runtime's own rules (src/cycle/repair-rules.ts), so conformance rates what it enforces
  const edited = repairEditViolation(changed.filter((f) => ownedSet.has(f)));
  const out: RoleFinding[] = [];
  out.push({
    check: 'repair-patch-only',
    passed: edited === null,
    detail: edited ?? 'no owned file edited: the diff is left to the runtime',
  });
  if (edited !== null) return out;
  const shape = repairAnswerViolation(h);
  out.push({
    check: 'repair-one-diff',
    passed: shape === null,
    detail: shape ?? 'files_changed: [] and one unified-diff artifact',
  });
  if (shape !== null) return out;
  const diffs = h.artifacts.filter((a) => a.kind === 'unified-diff');
  const parsed = parsePatch(diffs[0]?.content ?? '');
  const scoped = parsed.ok
    ? patchTargets(
        parsed.files,
        owned.map((f) => relative(o.projectRoot, f)),
      )
    : parsed;
  out.push({
    check: 'repair-diff-owned',
    passed: scoped.ok,
    detail: scoped.ok
      ? `the diff touches only owned files (${scoped.files.map((t) => t.path).join(', ')})`
      : `repair diff refused: ${describePatchError(scoped.error)}`,
  });
  return out;
}

/**
 * `falsify-no-negation`, applied when the pass changed the target file: `negationViolation` over
 * the file before and after, for the theorem at the target line (`declarationNameAt`).
 */
function falsifyFindings(o: RoleObservation): RoleFinding[] {
  if (o.targetAfter === null || o.targetAfter === o.targetBefore) return [];
  const name = declarationNameAt(o.targetBefore, o.targetLine);
  const unsafe =
    name === null
      ? `falsification: no theorem or lemma at line ${o.targetLine} to check the pass against`
      : negationViolation(o.targetBefore, o.targetAfter, name, o.policy);
  return [
    {
      check: 'falsify-no-negation',
      passed: unsafe === null,
      detail: unsafe ?? `the pass proves no negation of ${name ?? 'the target'} while its sorry stays`,
    },
  ];
}

/**
 * The role findings of a valid case whose handoff is valid: the repair checks or the falsify
 * check (see the module comment); `owned` are the dispatch's owned files and `changed` the paths
 * changed on disk while the worker ran (absolute). Never throws on worker output.
 *
 * @example
 * ```ts
 * roleFindings(obs, handoff, dispatch.owned_files, changed);
 * // [{ check: 'repair-patch-only', passed: false, detail: 'the repair worker is patch-only but edited …' }]
 * ```
 */
export function roleFindings(
  o: RoleObservation,
  h: Handoff,
  owned: readonly string[],
  changed: readonly string[],
): RoleFinding[] {
  return o.role === 'repair' ? repairFindings(o, h, owned, changed) : falsifyFindings(o);
}
