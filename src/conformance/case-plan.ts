/**
 * The conformance case plan (layer 1, pure): from a seed, the list of cases the harness runs —
 * each a dispatch template from {@link arbDispatch}, the owned files' layout and contents inside a
 * fresh project, the target line, and (for malformed cases) the defect to inject.
 */

import type { Dispatch } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import { arbDispatch } from './arbitraries.js';
import fc from './peer.js';
import { CONFORMANCE_ROLES, type ConformanceRole, DEFECTS, type Defect } from './report-schema.js';

/**
 * The declaration header every case's first owned file starts with, so the statement fence
 * (`headers-unchanged`) always has a statement to protect.
 *
 * @example
 * ```ts
 * planCases({ runs: 1, seed: 0 })[0]?.files[0]?.content.startsWith(`${FENCED_HEADER}\n`); // true
 * ```
 */
export const FENCED_HEADER = 'theorem t (n : Nat) : n + 0 = n := by';

/** One owned file of a case, relative to the case's project directory. */
export interface PlannedFile {
  /** Project-relative path (`f0/…`): each owned file lives in its own numbered folder. */
  readonly rel: string;
  /** Whether the file exists before dispatch (the first owned file always does). */
  readonly exists: boolean;
  /** The file's contents when it exists. */
  readonly content: string;
}

/** One planned case. */
export interface CasePlan {
  readonly case_id: string;
  readonly kind: 'valid' | 'malformed';
  readonly defect?: Defect;
  /** A valid dispatch template; owned_files, file_baseline and target are replaced per project. */
  readonly template: Dispatch;
  readonly files: readonly PlannedFile[];
  /** 1-based line of the first owned file named by the target (`<abs path>:<line>`). */
  readonly targetLine: number;
  /** The role every dispatch of the plan is sent in (`fill` unless {@link PlanOptions.role} says otherwise). */
  readonly role: ConformanceRole;
}

/** Options of {@link planCases}. */
export interface PlanOptions {
  readonly runs: number;
  readonly seed: number;
  /** Defects to cycle through for malformed cases (default: all). Empty: every case is valid. */
  readonly defects?: readonly Defect[];
  /**
   * The role to send every case in (default `fill`). In `repair` and `falsify` the first owned
   * file is exactly {@link ROLE_TARGET_TEXT} and the target its `sorry` line (line 2), so a
   * repair diff and a falsification pass have one known theorem to work on; the seeded stream
   * (paths, other files, dispatch members) stays the one of `fill`.
   */
  readonly role?: ConformanceRole;
}

/**
 * The first owned file of a repair or falsify case: `theorem t` with its proof a single `sorry`
 * on line 2 (the target).
 *
 * @example
 * ```ts
 * ROLE_TARGET_TEXT.split('\n')[1]; // '  sorry'
 * ```
 */
export const ROLE_TARGET_TEXT = `${FENCED_HEADER}\n  sorry\n`;

/**
 * The search grant the harness adds to every fourth case from the third (`search-budget:1`): the
 * worker may run at most one knowledge search (`evidence.queries`) and no script fallback.
 *
 * @example
 * ```ts
 * planCases({ runs: 3, seed: 0 })[2]?.template.capabilities.includes(SEARCH_GRANT); // true
 * ```
 */
export const SEARCH_GRANT = 'search-budget:1';

const LINES = [
  FENCED_HEADER,
  '  sorry -- hint: simp',
  '  sorry -- hint: rfl',
  '  sorry -- hint: omega',
  '  sorry',
  '-- a comment',
  'def x : Nat := 1',
  '',
] as const;

const arbContent = fc.array(fc.constantFrom(...LINES), { minLength: 1, maxLength: 6 });

const arbCase = fc.record({
  dispatch: arbDispatch(),
  contents: fc.array(arbContent, { minLength: 3, maxLength: 3 }),
  line: fc.nat(),
});

/**
 * Plans `runs` cases deterministically from `seed` (fast-check `fc.sample`; no other randomness).
 * Even-numbered cases (0, 2, …) are valid; odd-numbered ones are malformed and cycle through the
 * defect list in catalogue order. The first owned file always exists and starts with
 * {@link FENCED_HEADER}; the others hold a few generated Lean-like lines when they exist. Cases 3,
 * 7, 11, … (all valid) carry the {@link SEARCH_GRANT} capability.
 *
 * @example
 * ```ts
 * const plan = planCases({ runs: 4, seed: 7 });
 * plan.map((c) => c.kind); // ['valid', 'malformed', 'valid', 'malformed']
 * ```
 * @throws HandoffError `usage` when runs is not a positive integer, the seed not a 32-bit integer or the role unknown.
 */
export function planCases(o: PlanOptions): CasePlan[] {
  if (!Number.isInteger(o.runs) || o.runs < 1) {
    throw new HandoffError('usage', `runs must be a positive integer, got ${String(o.runs)}`);
  }
  if (!Number.isInteger(o.seed) || o.seed < -(2 ** 31) || o.seed >= 2 ** 31) {
    throw new HandoffError('usage', `seed must be a 32-bit integer, got ${String(o.seed)}`);
  }
  const defects = o.defects ?? DEFECTS;
  const role = o.role ?? 'fill';
  if (!CONFORMANCE_ROLES.includes(role)) {
    throw new HandoffError(
      'usage',
      `role must be one of ${CONFORMANCE_ROLES.join(', ')}, got ${String(role)}`,
    );
  }
  const samples = fc.sample(arbCase, { seed: o.seed, numRuns: o.runs });
  const width = String(o.runs).length;
  let malformedIndex = 0;
  return samples.map((s, i): CasePlan => {
    const case_id = `case-${String(i + 1).padStart(width, '0')}`;
    const files = s.dispatch.owned_files.map((abs, k): PlannedFile => {
      const generated = s.contents[k % s.contents.length] ?? ['sorry'];
      const lines = k === 0 ? [FENCED_HEADER, ...generated] : generated;
      const entry = s.dispatch.file_baseline.files.find((f) => f.path === abs);
      return {
        rel: `f${k}${abs}`,
        exists: k === 0 || entry?.exists === true,
        content: `${lines.join('\n')}\n`,
      };
    });
    if (role !== 'fill' && files[0] !== undefined) files[0] = { ...files[0], content: ROLE_TARGET_TEXT };
    const firstLines = (files[0]?.content ?? '').split('\n').length - 1;
    const targetLine = role === 'fill' ? 1 + (s.line % Math.max(1, firstLines)) : 2;
    const malformed = defects.length > 0 && i % 2 === 1;
    if (!malformed) {
      // every fourth case from the third (case-03, case-07, …) grants a search budget, so the
      // search-budget check is exercised (appended, not drawn: the seeded stream stays the same)
      const template =
        i % 4 === 2
          ? { ...s.dispatch, capabilities: [...s.dispatch.capabilities, SEARCH_GRANT] }
          : s.dispatch;
      return { case_id, kind: 'valid', template, files, targetLine, role };
    }
    const defect = defects[malformedIndex++ % defects.length] as Defect;
    return { case_id, kind: 'malformed', defect, template: s.dispatch, files, targetLine, role };
  });
}
