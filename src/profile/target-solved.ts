/**
 * When a target counts as solved (layer 1, pure): the declaration that held it no longer contains
 * any of the profile's escape hatches, anywhere in it, in text the checks could read. A moved
 * marker (a blank line above it), a respelled one (`admit`, `exact sorryAx _`), bare CR line
 * endings, a NUL byte or an oversized comment never make a target solved: the first three are
 * still found in the declaration, the last two make the file unverifiable.
 */
import { checkedText } from './checked-text.js';
import {
  declarationAt,
  type HatchPolicy,
  type HatchScan,
  PREAMBLE,
  scanEscapeHatches,
} from './escape-hatches.js';

/** The verdict on one target. */
export type SolvedVerdict = { readonly solved: true } | { readonly solved: false; readonly reason: string };

/**
 * Whether declaration `key` is free of escape hatches in a scanned text: null when it is, else
 * why not (a hatch still in it, or the declaration gone).
 *
 * @example
 * ```ts
 * const s = scanEscapeHatches('theorem t : True := by\n\n  sorry\n', { words: ['sorry'] });
 * openInDeclaration(s, 'theorem t'); // '`sorry` still in theorem t (line 3)'
 * ```
 */
export function openInDeclaration(scan: HatchScan, key: string): string | null {
  if (!scan.ok) return scan.reason;
  const left = scan.hatches.find((h) => h.declaration === key);
  if (left !== undefined) return `\`${left.word}\` still in ${key} (line ${left.line})`;
  if (key !== PREAMBLE && !scan.declarations.some((d) => d.key === key)) return `${key} is gone`;
  return null;
}

/** What {@link targetSolved} judges. */
export interface SolvedQuestion {
  /** The file's text when the target was found. */
  readonly before: string;
  /** The file's bytes now (the snapshot the runtime verifies and commits). */
  readonly after: Uint8Array;
  /** The target's 1-based line in `before`. */
  readonly line: number;
  readonly policy: HatchPolicy;
  /** `sorry`: the target's declaration; `file`: every marker of the file is the target. */
  readonly scope: 'sorry' | 'file';
}

/**
 * Whether a target is solved in `after`: readable as text (else unverifiable), tokenizable, and —
 * under scope `sorry` — the declaration that held `line` in `before` exists and holds no escape
 * hatch; under scope `file` the file holds none at all.
 *
 * @example
 * ```ts
 * const before = 'theorem t : 1 = 1 := by\n  sorry\n';
 * const q = { before, line: 2, policy: { words: ['sorry', 'admit'] }, scope: 'sorry' as const };
 * targetSolved({ ...q, after: Buffer.from('theorem t : 1 = 1 := by\n\n  sorry\n') }).solved; // false (moved)
 * targetSolved({ ...q, after: Buffer.from('theorem t : 1 = 1 := by\n  rfl\n') }).solved;      // true
 * ```
 */
export function targetSolved(q: SolvedQuestion): SolvedVerdict {
  const text = checkedText(q.after);
  if (!text.ok) return { solved: false, reason: text.reason };
  const scan = scanEscapeHatches(text.text, q.policy);
  if (!scan.ok) return { solved: false, reason: scan.reason };
  if (q.scope === 'file') {
    const first = scan.hatches[0];
    return first === undefined
      ? { solved: true }
      : { solved: false, reason: `\`${first.word}\` still in the file (line ${first.line})` };
  }
  const key = declarationAt(q.before, q.line);
  if (key === null) return { solved: false, reason: 'unverifiable: the target text cannot be tokenized' };
  const open = openInDeclaration(scan, key);
  return open === null ? { solved: true } : { solved: false, reason: open };
}
