/**
 * Statement safety (layer 1, pure): the effective `--statement-policy` and whether a stuck
 * declaration may be redrafted — seed 002 § Statement Safety and § Session-Generated Provenance.
 *
 * Resolution: an explicit flag wins; without one the policy is `preserve`, or
 * `rewrite-generated-only` with a startup warning when the outer loop (formalize) is active.
 *
 * Redraft decision, in this order:
 * 1. `preserve` refuses every rewrite; when the user chose it explicitly the stuck restage halts
 *    the session with an error (`halt: true`), otherwise the claim just stops.
 * 2. A statement not in the session's provenance is user-authored: refused under every policy.
 * 3. `rewrite-generated-only`: the session-generated statement is replaced in place.
 * 4. `adjacent-drafts`: the statement stays; a new declaration is drafted beside it under the next
 *    free adjacent name ({@link adjacentName}: `<base>_v2`, `_v3`, …).
 *
 * The review router's `redraft` route asks {@link redraftVerdict}: the same decision for every
 * declaration the redraft would replace (one refused declaration refuses the whole redraft).
 */
import { type StatementPolicy, StatementPolicySchema } from './draft-schema.js';
import type { ProvenanceEntry, RedraftVerdict } from './loop/types.js';
import { emptyProvenance, isGenerated, type Provenance, withDrafted } from './provenance.js';

/**
 * The startup warning when formalize is active and no policy was given.
 *
 * @example
 * ```ts
 * resolveStatementPolicy({ flag: undefined, formalizeActive: true }).warnings; // [DEFAULT_POLICY_WARNING]
 * ```
 */
export const DEFAULT_POLICY_WARNING =
  'statement policy defaults to rewrite-generated-only because formalize is active: statements drafted in this session may be rewritten when stuck (pass --statement-policy preserve to keep every statement)';

/**
 * The effective policy, or a usage error for a value that is not a policy.
 *
 * @example
 * ```ts
 * const r: PolicyResolution = { ok: true, policy: 'preserve', explicit: true, warnings: [] };
 * ```
 */
export type PolicyResolution =
  | {
      readonly ok: true;
      readonly policy: StatementPolicy;
      /** Whether the user gave the flag (an explicit `preserve` makes a stuck restage halt). */
      readonly explicit: boolean;
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly error: string };

/**
 * Resolves `--statement-policy` (the flag's raw value, `undefined` when absent).
 *
 * @example
 * ```ts
 * resolveStatementPolicy({ flag: undefined, formalizeActive: false }); // { ok: true, policy: 'preserve', explicit: false, warnings: [] }
 * resolveStatementPolicy({ flag: 'adjacent-drafts', formalizeActive: true }); // { ok: true, policy: 'adjacent-drafts', explicit: true, warnings: [] }
 * resolveStatementPolicy({ flag: 'yolo', formalizeActive: true }).ok; // false
 * ```
 */
export function resolveStatementPolicy(input: {
  readonly flag: string | undefined;
  readonly formalizeActive: boolean;
}): PolicyResolution {
  if (input.flag !== undefined) {
    const r = StatementPolicySchema.safeParse(input.flag);
    if (!r.success) {
      return {
        ok: false,
        error: `--statement-policy must be one of ${StatementPolicySchema.options.join(', ')} (got ${JSON.stringify(input.flag)})`,
      };
    }
    return { ok: true, policy: r.data, explicit: true, warnings: [] };
  }
  if (input.formalizeActive)
    return {
      ok: true,
      policy: 'rewrite-generated-only',
      explicit: false,
      warnings: [DEFAULT_POLICY_WARNING],
    };
  return { ok: true, policy: 'preserve', explicit: false, warnings: [] };
}

/**
 * The adjacent name for a redraft of `name`: a trailing `_v<n>` is replaced, then `_v2`, `_v3`, …
 * is tried until a name not in `taken` is found.
 *
 * @example
 * ```ts
 * adjacentName('add_zero', []); // 'add_zero_v2'
 * adjacentName('add_zero_v2', ['add_zero_v3']); // 'add_zero_v4'
 * ```
 */
export function adjacentName(name: string, taken: readonly string[]): string {
  const m = /^(.*)_v(\d+)$/.exec(name);
  const base = m === null ? name : (m[1] as string);
  let n = m === null ? 2 : Number(m[2]) + 1;
  const used = new Set([...taken, name]);
  while (used.has(`${base}_v${n}`)) n++;
  return `${base}_v${n}`;
}

/**
 * Whether a redraft may proceed, and how: `replace` the statement in place, or draft an
 * `adjacent` declaration under `name`. A refusal says why, and whether the session halts.
 *
 * @example
 * ```ts
 * const d: RedraftDecision = { ok: false, reason: 'user-authored statement', halt: false };
 * ```
 */
export type RedraftDecision =
  | { readonly ok: true; readonly mode: 'replace' | 'adjacent'; readonly name: string }
  | { readonly ok: false; readonly reason: string; readonly halt: boolean };

/**
 * Decides a redraft of `name` in `file` (see the module's order of rules). `taken` lists the names
 * the file already declares, for the adjacent name.
 *
 * @example
 * ```ts
 * const p = withDrafted(emptyProvenance(), '/p/A.lean', ['t']);
 * redraftAllowed({ policy: 'rewrite-generated-only', provenance: p, file: '/p/A.lean', name: 't', explicitPreserve: false });
 * // { ok: true, mode: 'replace', name: 't' }
 * redraftAllowed({ policy: 'preserve', provenance: p, file: '/p/A.lean', name: 't', explicitPreserve: true });
 * // { ok: false, halt: true, reason: 'statement policy preserve (explicit) refuses to rewrite t; …' }
 * ```
 */
export function redraftAllowed(input: {
  readonly policy: StatementPolicy;
  readonly provenance: Provenance;
  readonly file: string;
  readonly name: string;
  readonly explicitPreserve: boolean;
  readonly taken?: readonly string[];
}): RedraftDecision {
  const { policy, name } = input;
  if (policy === 'preserve') {
    return input.explicitPreserve
      ? {
          ok: false,
          halt: true,
          reason: `statement policy preserve (explicit) refuses to rewrite ${name}; the stuck restage halts`,
        }
      : { ok: false, halt: false, reason: `statement policy preserve refuses to rewrite ${name}` };
  }
  if (!isGenerated(input.provenance, input.file, name)) {
    return {
      ok: false,
      halt: false,
      reason: `${name} is user-authored (not drafted in this session); no policy rewrites it`,
    };
  }
  if (policy === 'rewrite-generated-only') return { ok: true, mode: 'replace', name };
  return { ok: true, mode: 'adjacent', name: adjacentName(name, input.taken ?? []) };
}

/** What the review router's redraft rule looks at (the loop context's plain provenance list). */
export interface RedraftQuestion {
  readonly policy: StatementPolicy;
  /** `--statement-policy` was given on the command line. */
  readonly explicit: boolean;
  readonly provenance: readonly ProvenanceEntry[];
  readonly file: string;
  /** The declarations the redraft would replace (the stuck claim's). */
  readonly declarations: readonly string[];
}

/**
 * Decides a `redraft` route of the review router: {@link redraftAllowed} for each declaration the
 * redraft would replace. Never throws: a question without declarations is a refusal.
 *
 * @example
 * ```ts
 * redraftVerdict({ policy: 'rewrite-generated-only', explicit: false, file: 'P.lean',
 *   declarations: ['foo'], provenance: [{ file: 'P.lean', declaration: 'foo' }] });
 * // { allowed: true, how: 'rewrite' }
 * redraftVerdict({ policy: 'preserve', explicit: true, file: 'P.lean', declarations: ['foo'], provenance: [] });
 * // { allowed: false, halt: true, reason: 'redraft refused: statement policy preserve (explicit) refuses to rewrite foo; …' }
 * ```
 */
export function redraftVerdict(q: RedraftQuestion): RedraftVerdict {
  const halt = q.explicit && q.policy === 'preserve';
  if (q.declarations.length === 0) {
    return { allowed: false, halt, reason: 'redraft refused: no declaration to re-draft was identified' };
  }
  const provenance = withDrafted(
    emptyProvenance(),
    q.file,
    q.provenance.filter((p) => p.file === q.file).map((p) => p.declaration),
  );
  let how: 'rewrite' | 'adjacent' = 'rewrite';
  for (const name of q.declarations) {
    const d = redraftAllowed({ policy: q.policy, provenance, file: q.file, name, explicitPreserve: halt });
    if (!d.ok) return { allowed: false, halt: d.halt, reason: `redraft refused: ${d.reason}` };
    how = d.mode === 'adjacent' ? 'adjacent' : 'rewrite';
  }
  return { allowed: true, how };
}
