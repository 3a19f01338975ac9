/**
 * Binder structure of a signature (pure): the space-separated units before the type colon, and the
 * rest from that colon on. Used to tell an added hypothesis from any other statement change; works
 * on canonical Lean signatures and on any text that puts binders in brackets before a `:`.
 */

const OPEN = new Set(['(', '[', '{', '⦃', '⟨', '⟪', '‹']);
const CLOSE = new Set([')', ']', '}', '⦄', '⟩', '⟫', '›']);

/**
 * A signature split at its type colon.
 *
 * @example
 * ```ts
 * const s: SplitSignature = { binders: ['(n : Nat)'], rest: ': n + 0 = n' };
 * ```
 */
export interface SplitSignature {
  readonly binders: readonly string[];
  readonly rest: string;
}

/**
 * Splits a signature into its binder units (maximal runs without whitespace at bracket depth 0,
 * brackets kept balanced, string literals skipped) up to the first unit that starts with `:`
 * (not `:=`); that unit and everything after it is `rest` (`''` when there is none).
 *
 * @example
 * ```ts
 * splitBinders('{α : Type} (n : Nat) : ∀ m : Nat, n = m');
 * // { binders: ['{α : Type}', '(n : Nat)'], rest: ': ∀ m : Nat, n = m' }
 * ```
 */
export function splitBinders(signature: string): SplitSignature {
  const chars = Array.from(signature);
  const binders: string[] = [];
  let i = 0;
  while (i < chars.length) {
    while (i < chars.length && /\s/.test(chars[i] as string)) i++;
    if (i >= chars.length) break;
    if (chars[i] === ':' && chars[i + 1] !== '=') return { binders, rest: chars.slice(i).join('') };
    const start = i;
    let depth = 0;
    while (i < chars.length) {
      const c = chars[i] as string;
      if (depth === 0 && /\s/.test(c)) break;
      if (c === '"') {
        i++;
        while (i < chars.length && chars[i] !== '"') i += chars[i] === '\\' ? 2 : 1;
      } else if (OPEN.has(c)) depth++;
      else if (CLOSE.has(c) && depth > 0) depth--;
      i++;
    }
    binders.push(chars.slice(start, i).join(''));
  }
  return { binders, rest: '' };
}

/**
 * The binders `after` adds to `before` when that is the only difference: same `rest`, the before
 * binders in order as a subsequence of the after binders, and every extra one a bracketed binder.
 * Null otherwise (no added binder, or another change).
 *
 * @example
 * ```ts
 * addedBinders('(n : Nat) : n + 0 = n', '(n : Nat) (h : n + 0 = n) : n + 0 = n'); // ['(h : n + 0 = n)']
 * addedBinders('(n : Nat) : n + 0 = n', ': True'); // null
 * ```
 */
export function addedBinders(before: string, after: string): string[] | null {
  const b = splitBinders(before);
  const a = splitBinders(after);
  if (a.rest !== b.rest || a.binders.length <= b.binders.length) return null;
  const extra: string[] = [];
  let k = 0;
  for (const unit of a.binders) {
    if (k < b.binders.length && unit === b.binders[k]) k++;
    else extra.push(unit);
  }
  if (k !== b.binders.length) return null;
  return extra.every((u) => OPEN.has(Array.from(u)[0] ?? '')) ? extra : null;
}
