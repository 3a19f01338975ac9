/**
 * The verification ladder (layer 1, pure; seed 002 § Build Target Policy): use the lightest tier
 * that answers the question. Tiers, lightest first: `file-fast` (one file against already-built
 * imports), `file-deps` (one file after building its imports), `module` (build the module and
 * its changed dependencies), `project` (the project gate). Each question the runtime asks has a
 * starting tier and a ceiling; a diagnostics answer flagged `inconclusive` (e.g. imports not
 * built) climbs one tier, never past the ceiling. The project gate runs only at checkpoints.
 */
import type { VerificationTier } from './types.js';

/** The tiers, lightest first. */
export const TIERS: readonly VerificationTier[] = ['file-fast', 'file-deps', 'module', 'project'];

/** What the runtime asks diagnostics. */
export type VerificationQuestion =
  /** Which targets are open in the run's scope (plan discovery, the final check). */
  | { readonly kind: 'discover' }
  /** Does a worker's changed file check (imports changed → its dependencies must be built). */
  | { readonly kind: 'edit'; readonly importsChanged: boolean }
  /** The project gate before a checkpoint commit. */
  | { readonly kind: 'checkpoint' };

/** A question's starting tier and ceiling. */
export interface TierPlan {
  readonly start: VerificationTier;
  readonly max: VerificationTier;
}

/**
 * The tiers a question may use: discovery and unchanged-import edits start at `file-fast`, an
 * edit that changed imports at `file-deps`; both may climb to `module` but never to the project
 * gate, which is the checkpoint's (and only the checkpoint's) tier.
 *
 * @example
 * ```ts
 * tierPlan({ kind: 'edit', importsChanged: true }); // { start: 'file-deps', max: 'module' }
 * tierPlan({ kind: 'checkpoint' });                 // { start: 'project', max: 'project' }
 * ```
 */
export function tierPlan(q: VerificationQuestion): TierPlan {
  switch (q.kind) {
    case 'checkpoint':
      return { start: 'project', max: 'project' };
    case 'edit':
      return { start: q.importsChanged ? 'file-deps' : 'file-fast', max: 'module' };
    default:
      return { start: 'file-fast', max: 'module' };
  }
}

/**
 * The next heavier tier within `max`, or null at the ceiling.
 *
 * @example
 * ```ts
 * nextTier('file-fast', 'module'); // 'file-deps'
 * nextTier('module', 'module');    // null
 * ```
 */
export function nextTier(t: VerificationTier, max: VerificationTier): VerificationTier | null {
  const i = TIERS.indexOf(t);
  return i < TIERS.indexOf(max) ? (TIERS[i + 1] ?? null) : null;
}

const IMPORT_LINE = /^\s*(?:import\s|from\s+\S+\s+import\s|#include\s|require\s)/;

/**
 * The import lines of a source text (Lean/TS/Python `import`, `from … import`, `#include`,
 * `require`), trimmed, in order.
 *
 * @example
 * ```ts
 * importLines('import Mathlib.Tactic\ntheorem t : True := trivial\n'); // ['import Mathlib.Tactic']
 * ```
 */
export function importLines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => IMPORT_LINE.test(l))
    .map((l) => l.trim());
}

/**
 * True when an edit changed a file's imports (added, removed or reordered import lines).
 *
 * @example
 * ```ts
 * importsChanged('theorem t := sorry', 'import Foo\ntheorem t := foo'); // true
 * ```
 */
export function importsChanged(before: string, after: string): boolean {
  return importLines(before).join('\n') !== importLines(after).join('\n');
}
