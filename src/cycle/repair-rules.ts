/**
 * The rules of repair mode (layer 1, pure; seed 002 § Repair Mode): when compiler-guided repair is
 * escalated to, its budgets per error signature and per cycle, the improvement definition, the
 * ledger of attempts and the no-improvement rule that makes a target stuck.
 */
import { blockerSignature } from '../contract/blocker-signature.js';
import type { CycleOptions } from './types.js';

/**
 * Repair attempts of one cycle: per error signature, in total, and consecutive attempts without
 * improvement per signature.
 *
 * @example
 * ```ts
 * const l: RepairLedger = { perSignature: { 'A.lean:9:type mismatch': 1 }, total: 1, noImprovement: {} };
 * ```
 */
export interface RepairLedger {
  readonly perSignature: Readonly<Record<string, number>>;
  readonly total: number;
  readonly noImprovement: Readonly<Record<string, number>>;
}

/**
 * The ledger at the start of a cycle.
 *
 * @example
 * ```ts
 * recordRepair(EMPTY_REPAIR_LEDGER, 'A.lean:9:type mismatch', 'neutral').total; // 1
 * ```
 */
export const EMPTY_REPAIR_LEDGER: RepairLedger = Object.freeze({
  perSignature: Object.freeze({}),
  total: 0,
  noImprovement: Object.freeze({}),
});

/** A count kept under a signature key (own properties only: `__proto__` is just a key). */
function countOf(record: Readonly<Record<string, number>>, key: string): number {
  if (!Object.hasOwn(record, key)) return 0;
  const n = record[key];
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

/** A copy of `record` with `key` set to `value`, as an own data property. */
function withCount(
  record: Readonly<Record<string, number>>,
  key: string,
  value: number,
): Readonly<Record<string, number>> {
  const next: Record<string, number> = {};
  for (const k of Object.keys(record))
    Object.defineProperty(next, k, {
      value: record[k],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
  return next;
}

/**
 * Why repair mode is escalated to, or null (any one trigger suffices, checked in the seed's
 * order): the last two blocker signatures are equal (and known); the same build error came back
 * after two attempts; three or more distinct errors are active in scope.
 *
 * @example
 * ```ts
 * repairTrigger({ signatures: ['A.lean:9:x', 'A.lean:9:x'], buildErrorRepeats: 0, distinctErrors: 1 });
 * // 'same blocker signature 2 iterations'
 * ```
 */
export function repairTrigger(h: {
  readonly signatures: readonly (string | null)[];
  readonly buildErrorRepeats: number;
  readonly distinctErrors: number;
}): string | null {
  const n = h.signatures.length;
  const last = n >= 1 ? h.signatures[n - 1] : null;
  const prev = n >= 2 ? h.signatures[n - 2] : null;
  if (typeof last === 'string' && last === prev) return 'same blocker signature 2 iterations';
  if (h.buildErrorRepeats >= 2) return 'same build error after 2 attempts';
  if (h.distinctErrors >= 3) return '3 distinct errors in scope';
  return null;
}

/**
 * Whether one more repair attempt on `signature` fits the budgets: fewer than
 * `--repair-per-signature` attempts on it and fewer than `--repair-per-cycle` in total this cycle.
 *
 * @example
 * ```ts
 * repairBudget(EMPTY_REPAIR_LEDGER, 'A.lean:9:x', options); // { ok: true }
 * ```
 */
export function repairBudget(
  ledger: RepairLedger,
  signature: string,
  options: CycleOptions,
): { readonly ok: true } | { readonly ok: false; readonly reason: string } {
  const used = countOf(ledger.perSignature, signature);
  if (!(used < options.repairPerSignature)) {
    return {
      ok: false,
      reason: `repair: budget exhausted — ${used}/${options.repairPerSignature} attempts on ${signature} this cycle`,
    };
  }
  const total = Number.isFinite(ledger.total) ? ledger.total : Number.POSITIVE_INFINITY;
  if (!(total < options.repairPerCycle)) {
    return {
      ok: false,
      reason: `repair: budget exhausted — ${ledger.total}/${options.repairPerCycle} attempts this cycle`,
    };
  }
  return { ok: true };
}

/**
 * The outcome of one repair attempt: `improved` when the error count in scope went down or the
 * blocker `signature` (present before) is gone after; anything else — errors changed without a
 * lower count, or nothing changed — is `neutral`.
 *
 * @example
 * ```ts
 * repairOutcome({ errors: 2, signatures: ['s', 't'] }, { errors: 2, signatures: ['t', 'u'] }, 's'); // 'improved'
 * repairOutcome({ errors: 2, signatures: ['s', 't'] }, { errors: 2, signatures: ['s', 'u'] }, 's'); // 'neutral'
 * ```
 */
export function repairOutcome(
  before: { readonly errors: number; readonly signatures: readonly string[] },
  after: { readonly errors: number; readonly signatures: readonly string[] },
  signature: string,
): 'improved' | 'neutral' {
  if (after.errors < before.errors) return 'improved';
  if (before.signatures.includes(signature) && !after.signatures.includes(signature)) return 'improved';
  return 'neutral';
}

/**
 * Records one repair attempt: it counts toward both budgets whatever its outcome; `improved`
 * resets the signature's no-improvement streak, `neutral` extends it.
 *
 * @example
 * ```ts
 * const l = recordRepair(EMPTY_REPAIR_LEDGER, 's', 'neutral'); // { perSignature: { s: 1 }, total: 1, noImprovement: { s: 1 } }
 * ```
 */
export function recordRepair(
  ledger: RepairLedger,
  signature: string,
  outcome: 'improved' | 'neutral',
): RepairLedger {
  const total = Number.isFinite(ledger.total) && ledger.total > 0 ? ledger.total : 0;
  return {
    perSignature: withCount(ledger.perSignature, signature, countOf(ledger.perSignature, signature) + 1),
    total: total + 1,
    noImprovement: withCount(
      ledger.noImprovement,
      signature,
      outcome === 'improved' ? 0 : countOf(ledger.noImprovement, signature) + 1,
    ),
  };
}

/**
 * The no-improvement rule: two consecutive repair attempts on `signature` without improvement
 * make the target stuck (review and replan forced).
 *
 * @example
 * ```ts
 * repairExhausted(recordRepair(recordRepair(EMPTY_REPAIR_LEDGER, 's', 'neutral'), 's', 'neutral'), 's'); // true
 * ```
 */
export function repairExhausted(ledger: RepairLedger, signature: string): boolean {
  return countOf(ledger.noImprovement, signature) >= 2;
}

/**
 * The blocker signature of one diagnostics error `file:line:text`; a string without that shape
 * gets file `''` and line 0.
 *
 * @example
 * ```ts
 * errorSignature('A.lean:9:type mismatch'); // 'A.lean:9:type mismatch'
 * errorSignature('oops'); // ':0:oops'
 * ```
 */
export function errorSignature(error: string): string {
  const m = /^(.*?):(\d+):([\s\S]*)$/.exec(String(error));
  return m
    ? blockerSignature(m[1] as string, Number(m[2]), m[3] as string)
    : blockerSignature('', 0, String(error));
}

/**
 * The patch-only rule of a repair worker, on the owned files it edited on disk (the runtime
 * applies the diff itself): null when it edited none, else the refusal's text.
 *
 * @example
 * ```ts
 * repairEditViolation(['/repo/A.lean']); // 'the repair worker is patch-only but edited /repo/A.lean (its diff belongs in artifacts)'
 * ```
 */
export function repairEditViolation(edited: readonly string[]): string | null {
  return edited.length === 0
    ? null
    : `the repair worker is patch-only but edited ${edited.join(', ')} (its diff belongs in artifacts)`;
}

/**
 * The shape of a repair worker's answer: `files_changed: []` and exactly one `unified-diff`
 * artifact; null when it holds, else the refusal's text.
 *
 * @example
 * ```ts
 * repairAnswerViolation({ files_changed: [], artifacts: [] }); // 'a repair handoff carries … (got 0 changed file(s), 0 diff(s))'
 * ```
 */
export function repairAnswerViolation(h: {
  readonly files_changed: readonly string[];
  readonly artifacts: readonly { readonly kind: string }[];
}): string | null {
  const diffs = h.artifacts.filter((a) => a.kind === 'unified-diff').length;
  return h.files_changed.length === 0 && diffs === 1
    ? null
    : `a repair handoff carries files_changed: [] and exactly one unified-diff artifact (got ${h.files_changed.length} changed file(s), ${diffs} diff(s))`;
}
