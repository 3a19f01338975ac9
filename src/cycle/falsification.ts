/**
 * Falsification (layer 1, pure; seed 002 § Stuck → Counterexample / Salvage, Falsification
 * Artifacts): when a witness search is wanted, what the falsify worker is sent, and the safety
 * rule it must keep — never prove `¬P` while `T : P := sorry` exists unless the human chose the
 * `negate` policy, and never change `T`'s statement. The Lean reading reuses the statement
 * fence's extractor (comments, strings and formatting never matter).
 */

import type { DeclarationHeader } from '../fence/header.js';
import { extractLeanHeaders } from '../fence/lean-headers.js';
import { lexLean, TokenKind } from '../fence/lean-lexer.js';
import type { CycleMode, CycleOptions, ReviewOutput, TargetInfo } from './types.js';

/**
 * Whether the witness search runs for a stuck target: never under policy `off`; in autoprove when
 * the stuck review flags falsification; in prove when the human declined the plan.
 *
 * @example
 * ```ts
 * falsificationWanted('autoprove', 'salvage', { ...review, falsification: true }, false); // true
 * falsificationWanted('prove', 'off', null, true); // false
 * ```
 */
export function falsificationWanted(
  mode: CycleMode,
  policy: CycleOptions['falsification'],
  review: ReviewOutput | null,
  declinedPlan: boolean,
): boolean {
  if (policy === 'off') return false;
  if (mode === 'autoprove') return review?.falsification === true;
  return declinedPlan === true;
}

/** A Lean identifier made of a target id when its declaration name is unknown (`A/B.lean:4` → `B_4`). */
function fallbackName(target: TargetInfo): string {
  const base = (target.file.split('/').pop() ?? '').replace(/\.lean$/, '');
  const ident = `${base}_${target.line}`.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(ident) ? ident : `T_${ident}`;
}

/**
 * The falsify worker's `parameters`: the policy, the target, the artifact names
 * (`<T>_counterexample`, `<T>_salvaged`) and whether proving the negation is allowed (policy
 * `negate` only). `name` is the target's declaration (see {@link declarationNameAt}); without it
 * a name is made from the target's file and line.
 *
 * @example
 * ```ts
 * falsificationParameters('salvage', t, 'Foo.t');
 * // { falsification: { policy: 'salvage', target: 'A.lean:4', artifacts: ['Foo.t_counterexample', 'Foo.t_salvaged'], negation_allowed: false } }
 * ```
 */
export function falsificationParameters(
  policy: CycleOptions['falsification'],
  target: TargetInfo,
  name?: string | null,
): Record<string, unknown> {
  const t = typeof name === 'string' && name !== '' ? name : fallbackName(target);
  return {
    falsification: {
      policy,
      target: target.id,
      artifacts: [`${t}_counterexample`, `${t}_salvaged`],
      negation_allowed: policy === 'negate',
    },
  };
}

const PROVABLE = new Set(['theorem', 'lemma']);

/** The headers of a Lean text sorted by line, or the extractor's error. */
function headersOf(text: string): { ok: true; headers: DeclarationHeader[] } | { ok: false; error: string } {
  const r = extractLeanHeaders(text);
  if (!r.ok) return r;
  return { ok: true, headers: [...r.headers].sort((a, b) => a.line - b.line) };
}

/**
 * The theorem or lemma whose declaration contains `line` (1-based) of a Lean text: the last
 * declaration starting at or before it, when that is a theorem or lemma. Names are qualified with
 * their namespaces (`Foo.t`). Null for another kind, a line before any declaration, or text the
 * extractor cannot read.
 *
 * @example
 * ```ts
 * declarationNameAt('namespace Foo\ntheorem t : 1 = 1 := by\n  sorry\nend Foo', 3); // 'Foo.t'
 * ```
 */
export function declarationNameAt(text: string, line: number): string | null {
  if (typeof text !== 'string' || !Number.isInteger(line) || line < 1) return null;
  const r = headersOf(text);
  if (!r.ok) return null;
  let found: DeclarationHeader | null = null;
  for (const h of r.headers) {
    if (h.line > line) break;
    found = h;
  }
  return found !== null && PROVABLE.has(found.kind) ? found.name : null;
}

/** The header named `name` (exactly, else by its last components: `t` finds `Foo.t`). */
function findHeader(headers: readonly DeclarationHeader[], name: string): DeclarationHeader | null {
  return headers.find((h) => h.name === name) ?? headers.find((h) => h.name.endsWith(`.${name}`)) ?? null;
}

/** Whether the declaration starting at header `h` still has `sorry` (or `admit`) in its text. */
function hasSorry(text: string, headers: readonly DeclarationHeader[], h: DeclarationHeader): boolean {
  const lexed = lexLean(text);
  if (!lexed.ok) return true;
  const next = headers.find((o) => o.line > h.line);
  const end = next === undefined ? Number.POSITIVE_INFINITY : next.line;
  const t = lexed.tokens;
  for (let i = 0; i < t.count; i++) {
    const line = t.lines[i] as number;
    if (line < h.line || line >= end || t.kinds[i] !== TokenKind.ident) continue;
    const w = t.text(i);
    if (w === 'sorry' || w === 'admit') return true;
  }
  return false;
}

const OPEN = new Set(['(', '[', '{', '⦃', '⟨', '⟪', '‹']);
const CLOSE = new Set([')', ']', '}', '⦄', '⟩', '⟫', '›']);

/** Splits a canonical signature at its top-level ` : ` into binders and proposition. */
function splitSignature(sig: string): { binders: string; prop: string } | null {
  let depth = 0;
  const chars = [...sig];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (OPEN.has(c)) depth++;
    else if (CLOSE.has(c)) depth = Math.max(0, depth - 1);
    else if (c === ':' && depth === 0 && (i === 0 || chars[i - 1] === ' ') && chars[i + 1] === ' ') {
      return {
        binders: chars.slice(0, i).join('').trim(),
        prop: chars
          .slice(i + 1)
          .join('')
          .trim(),
      };
    }
  }
  return null;
}

/** Whether `s` is wrapped in one pair of parentheses that match each other. */
function wrapped(s: string): boolean {
  if (!s.startsWith('(') || !s.endsWith(')')) return false;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') {
      depth--;
      if (depth === 0 && i < s.length - 1) return false;
    }
  }
  return true;
}

/** A proposition with whitespace collapsed and redundant outer parentheses removed. */
function bare(s: string): string {
  let t = s.replace(/\s+/g, ' ').trim();
  while (wrapped(t)) t = t.slice(1, -1).trim();
  return t;
}

/** `X` when `prop` reads `¬ X`, `Not X` or `X → False`; else null. */
function negated(prop: string): string | null {
  const p = bare(prop);
  if (p.startsWith('¬')) return bare(p.slice(1));
  if (p.startsWith('Not ')) return bare(p.slice(4));
  if (p.endsWith(' → False')) return bare(p.slice(0, -' → False'.length));
  return null;
}

/** Whether a declaration with signature `sig` states the negation of the statement `target`. */
function statesNegation(sig: string, target: string): boolean {
  const s = splitSignature(sig);
  const t = splitSignature(target);
  if (s === null || t === null) return false;
  const x = negated(s.prop);
  if (x === null) return false;
  const p = bare(t.prop);
  if (s.binders === t.binders && x === p) return true;
  return s.binders === '' && t.binders !== '' && x === bare(`∀ ${t.binders}, ${t.prop}`);
}

/**
 * The falsification safety rule over one falsify pass (the file text `before` and `after` it):
 * a detail string when the pass broke it, else null. Refused, whatever the policy: `T`'s
 * statement changed, `T` disappeared, or a text cannot be read. Refused unless the policy is
 * `negate`: `after` still has `T` with `sorry` in its proof and a new declaration states the
 * negation of `T` (`¬ P`, `¬(P)`, `Not P`, `P → False`, pointwise under `T`'s binders or as
 * `¬ ∀ binders, P`). A counterexample `∃ w, ¬ P w` and salvage lemmas are fine.
 *
 * @example
 * ```ts
 * negationViolation('theorem t : P := sorry', 'theorem t : P := sorry\ntheorem t_neg : ¬ P := h', 't', 'salvage');
 * // 'falsification: t_neg proves the negation of t while t is still sorry (policy salvage)'
 * ```
 */
export function negationViolation(
  before: string,
  after: string,
  targetName: string,
  policy: CycleOptions['falsification'],
): string | null {
  const a = headersOf(String(before));
  if (!a.ok) return `falsification: the file before the pass cannot be read — ${a.error}`;
  const b = headersOf(String(after));
  if (!b.ok) return `falsification: the file after the pass cannot be read — ${b.error}`;
  const t0 = findHeader(a.headers, targetName);
  if (t0 === null) return `falsification: ${targetName} not found before the pass`;
  const t1 = b.headers.find((h) => h.name === t0.name) ?? null;
  if (t1 === null) return `falsification: ${t0.name} was removed`;
  if (t1.kind !== t0.kind || t1.signature !== t0.signature) {
    return `falsification: the statement of ${t0.name} changed`;
  }
  if (policy === 'negate') return null;
  if (!hasSorry(String(after), b.headers, t1)) return null;
  const old = new Set(a.headers.map((h) => `${h.name}\u0000${h.signature}`));
  for (const h of b.headers) {
    if (h === t1 || old.has(`${h.name}\u0000${h.signature}`)) continue;
    if (statesNegation(h.signature, t0.signature)) {
      return `falsification: ${h.name} proves the negation of ${t0.name} while ${t0.name} is still sorry (policy ${policy})`;
    }
  }
  return null;
}
