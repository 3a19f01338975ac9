/**
 * The golf guard (layer 1, pure; seed 002 § Review Router, "golf — a golf-mode worker pass over
 * the proved declaration"): what a golf worker may change. Only the proof of the golfed
 * declaration: every line outside its block stays byte-identical, its statement (the text up to
 * the first `:=`, whitespace-insensitive) is fenced, and the block may not hold more `sorry` or
 * `admit` than before. The delegating worker applies it to a `golf` dispatch's accepted bytes, on
 * top of the statement fence every role has.
 */
import { declarationLines } from './declarations.js';

const HOLE = /\b(?:sorry|admit)\b/g;

/** The statement of a declaration block: everything before its first `:=`, whitespace collapsed. */
function statementOf(block: string): string {
  const i = block.indexOf(':=');
  return (i < 0 ? block : block.slice(0, i)).replace(/\s+/g, ' ').trim();
}

const holes = (s: string): number => s.match(HOLE)?.length ?? 0;

/**
 * Why a golf of declaration `name` from `before` to `after` is refused, or null when it only
 * changed that declaration's proof. Never throws: a missing declaration is a refusal.
 *
 * @example
 * ```ts
 * const before = 'theorem t : 1 + 1 = 2 := by\n  decide\n';
 * golfViolation(before, 'theorem t : 1 + 1 = 2 := by decide\n', 't'); // null
 * golfViolation(before, 'theorem t : 2 = 2 := by\n  rfl\n', 't'); // 'golf: the statement of t changed …'
 * golfViolation(before, 'theorem t : 1 + 1 = 2 := by\n  sorry\n', 't'); // 'golf: t holds 1 sorry/admit (0 before) …'
 * ```
 */
export function golfViolation(before: string, after: string, name: string): string | null {
  const b = declarationLines(before, name);
  if (b === null) return `golf: no declaration ${name} to golf`;
  const a = declarationLines(after, name);
  if (a === null) return `golf: the golfed declaration ${name} is gone`;
  const bl = before.split('\n');
  const al = after.split('\n');
  const outside = (lines: string[], r: { start: number; end: number }) => [
    lines.slice(0, r.start - 1).join('\n'),
    lines.slice(r.end).join('\n'),
  ];
  const [bHead, bTail] = outside(bl, b);
  const [aHead, aTail] = outside(al, a);
  if (bHead !== aHead || bTail !== aTail)
    return `golf: lines outside ${name} changed (a golf changes only the golfed declaration's proof)`;
  const bBlock = bl.slice(b.start - 1, b.end).join('\n');
  const aBlock = al.slice(a.start - 1, a.end).join('\n');
  if (statementOf(bBlock) !== statementOf(aBlock))
    return `golf: the statement of ${name} changed (fenced: a golf changes only the proof)`;
  const n = holes(aBlock);
  const m = holes(bBlock);
  if (n > m) return `golf: ${name} holds ${n} sorry/admit (${m} before): a golf may not reopen the proof`;
  return null;
}
