/**
 * Falsification (layer 1, pure; seed 002 § Stuck → Counterexample / Salvage, Falsification
 * Artifacts): when a witness search is wanted, what the falsify worker is sent, and the safety
 * rule it must keep — never prove `¬P` while `T : P := sorry` exists unless the human chose the
 * `negate` policy, and never change `T`'s statement. The Lean reading reuses the statement
 * fence's extractor (comments, strings and formatting never matter).
 */

import type { Handoff } from '../contract/index.js';
import type { DeclarationHeader } from '../fence/header.js';
import { extractLeanHeaders } from '../fence/lean-headers.js';
import { lexLean, TokenKind } from '../fence/lean-lexer.js';
import type { CycleMode, CycleOptions, ReviewOutput, TargetInfo, WorkOutcome } from './types.js';

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

/**
 * Whether an outcome is a falsify pass's (its dispatch, the runtime's record, carries the role
 * `falsify`): its `solved` means "artifacts produced", never "the target is proved".
 *
 * @example
 * ```ts
 * isFalsifyPass(outcome); // true for the handoff of a `work.falsify` dispatch
 * ```
 */
export function isFalsifyPass(out: WorkOutcome | null): boolean {
  if (out === null || out.kind !== 'handoff') return false;
  const context = (out.dispatch as { context?: { role?: unknown } } | undefined)?.context;
  return context?.role === 'falsify';
}

/**
 * The workers' handoffs as evidence about the targets: all of them, less the last one when it is
 * a falsify pass's (`lastWork`), whose `solved` says only that its artifacts were produced — so a
 * review and the stuck record read the target's own blocker (a `false-statement`, say).
 *
 * @example
 * ```ts
 * targetHandoffs({ handoffs: [fill, falsify], lastWork: falsifyOutcome }); // [fill]
 * ```
 */
export function targetHandoffs(c: {
  readonly handoffs: readonly Handoff[];
  readonly lastWork: WorkOutcome | null;
}): readonly Handoff[] {
  return isFalsifyPass(c.lastWork) ? c.handoffs.slice(0, -1) : c.handoffs;
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

/** Brackets and their closers (any kind counts for nesting). */
const PAIRS: Readonly<Record<string, string>> = {
  '(': ')',
  '[': ']',
  '{': '}',
  '⦃': '⦄',
  '⟨': '⟩',
  '⟪': '⟫',
  '‹': '›',
};
const CLOSERS = new Set(Object.values(PAIRS));
/** Brackets that open a binder group. */
const BINDER_OPEN = new Set(['(', '{', '[', '⦃']);
/** Tokens after which the rest of a term belongs to a binder's body (`→`, `∧`… there are not top level). */
const BINDING = new Set([
  '∀',
  '∃',
  '∃!',
  'fun',
  'let',
  'have',
  'show',
  'if',
  'match',
  'do',
  'Σ',
  '∑',
  '∏',
  '⋃',
  '⋂',
  '⨆',
  '⨅',
  '∫',
]);
/** Operators binding looser than `→` (an arrow under them is not a top-level arrow). */
const LOOSER_THAN_ARROW = new Set(['↔', '<|', '$', '|>', '|>.', '<|>']);
/** Operators binding looser than `¬` (`¬ A ∧ B` is `(¬ A) ∧ B`). */
const LOOSER_THAN_NOT = new Set(['∧', '∨', '→', ...LOOSER_THAN_ARROW]);
/** ASCII and keyword spellings mapped to one token. */
const ALIASES: Readonly<Record<string, string>> = {
  '->': '→',
  '<->': '↔',
  '/\\': '∧',
  '\\/': '∨',
  '<=': '≤',
  '>=': '≥',
  '!=': '≠',
  forall: '∀',
  Π: '∀',
  exists: '∃',
  λ: 'fun',
  ℕ: 'Nat',
  ℤ: 'Int',
  ℚ: 'Rat',
  ℝ: 'Real',
  ℂ: 'Complex',
};
const SYMBOLS = [
  '<->',
  '->',
  '/\\',
  '\\/',
  '<=',
  '>=',
  '!=',
  ':=',
  '::',
  '=>',
  '|>.',
  '<|>',
  '<|',
  '|>',
  '∃!',
];
const IDENT_START = /^(?![λΠΣ])[\p{L}_]/u;
const IDENT = /^(?![λΠΣ])[\p{L}_][\p{L}\p{N}_'!?₀-₉ₐ-ₜᵢ-ᵪⱼ.]*/u;

/** The tokens of a (comment-free) signature: identifiers, numbers and symbols, spacing dropped. */
function tokensOf(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const ws = /^\s+/.exec(rest);
    if (ws !== null) {
      i += ws[0].length;
      continue;
    }
    const m = /^«[^»]*»/.exec(rest) ?? IDENT.exec(rest) ?? /^\d+(?:\.\d+)?/.exec(rest);
    let tok: string;
    if (m !== null) tok = m[0];
    else
      tok =
        SYMBOLS.find((sym) => rest.startsWith(sym)) ?? String.fromCodePoint(rest.codePointAt(0) as number);
    i += tok.length;
    out.push(ALIASES[tok] ?? tok);
  }
  return out;
}

/** The index of the bracket closing the one at `i`, or -1. */
function closing(ts: readonly string[], i: number): number {
  let depth = 0;
  for (let j = i; j < ts.length; j++) {
    const t = ts[j] as string;
    if (t in PAIRS) depth++;
    else if (CLOSERS.has(t)) {
      depth--;
      if (depth === 0) return j;
    }
  }
  return -1;
}

/** The first index at bracket depth 0 where `pred` holds (stopping at a binding token when `stop`), or -1. */
function topIndex(ts: readonly string[], pred: (t: string) => boolean, stop = false): number {
  let depth = 0;
  for (let j = 0; j < ts.length; j++) {
    const t = ts[j] as string;
    if (depth === 0 && pred(t)) return j;
    if (depth === 0 && stop && BINDING.has(t)) return -1;
    if (t in PAIRS) depth++;
    else if (CLOSERS.has(t)) depth = Math.max(0, depth - 1);
  }
  return -1;
}

/** Tokens without redundant outer parentheses. */
function stripped(ts: readonly string[]): string[] {
  let t = [...ts];
  while (t.length >= 2 && t[0] === '(' && closing(t, 0) === t.length - 1) t = t.slice(1, -1);
  return t;
}

/** Tokens with redundant parentheses dropped everywhere: around one token, doubled, or outermost. */
function simplified(ts: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i] as string;
    const j = t in PAIRS ? closing(ts, i) : -1;
    if (j < 0) {
      out.push(t);
      continue;
    }
    const inner = simplified(ts.slice(i + 1, j));
    if (t === '(') {
      const bare = stripped(inner);
      if (bare.length === 1) out.push(bare[0] as string);
      else out.push('(', ...bare, ')');
    } else out.push(t, ...inner, ts[j] as string);
    i = j;
  }
  return stripped(out);
}

const isIdent = (t: string): boolean =>
  (IDENT_START.test(t) || t.startsWith('«')) && !(t in ALIASES) && t !== 'fun';

/** One bound variable: its name (`_` when anonymous) and type (null when left to inference). */
interface Binder {
  readonly name: string;
  readonly type: readonly string[] | null;
}

/** The binders of bracketed groups and bare names (`(a b : T) {c} [C] x`), or null for anything else. */
function binderGroups(ts: readonly string[]): Binder[] | null {
  const out: Binder[] = [];
  let i = 0;
  while (i < ts.length) {
    const open = ts[i] as string;
    if (isIdent(open)) {
      out.push({ name: open, type: null });
      i++;
      continue;
    }
    if (!BINDER_OPEN.has(open)) return null;
    const j = closing(ts, i);
    if (j < 0) return null;
    const inner = ts.slice(i + 1, j);
    const c = topIndex(inner, (t) => t === ':');
    if (c < 0) {
      if (open === '[') out.push({ name: '_', type: inner });
      else if (inner.length > 0 && inner.every(isIdent))
        for (const n of inner) out.push({ name: n, type: null });
      else return null;
    } else {
      const names = inner.slice(0, c);
      const type = inner.slice(c + 1);
      if (names.length === 0 || !names.every(isIdent) || type.includes(':=')) return null;
      for (const n of names) out.push({ name: n, type });
    }
    i = j + 1;
  }
  return out;
}

/** `∀ binders, body` read into its binders and body, or null (binder predicates such as `∀ x ∈ s,`). */
function forallParts(ts: readonly string[]): { binders: Binder[]; body: string[] } | null {
  const rest = ts.slice(1);
  const comma = topIndex(rest, (t) => t === ',');
  if (comma < 0) return null;
  const head = rest.slice(0, comma);
  const body = rest.slice(comma + 1);
  const colon = topIndex(head, (t) => t === ':');
  if (colon < 0) {
    const binders = binderGroups(head);
    return binders === null || binders.length === 0 ? null : { binders, body };
  }
  const names = head.slice(0, colon);
  if (names.length === 0 || !names.every(isIdent)) return null;
  const type = head.slice(colon + 1);
  return { binders: names.map((name) => ({ name, type })), body };
}

/** The top-level parts of an arrow chain `A → B → C` (one part when there is none). */
function arrowParts(ts: readonly string[]): string[][] {
  if (topIndex(ts, (t) => LOOSER_THAN_ARROW.has(t), true) >= 0) return [[...ts]];
  const parts: string[][] = [];
  let cur = [...ts];
  for (;;) {
    const k = topIndex(cur, (t) => t === '→', true);
    if (k < 0) break;
    parts.push(cur.slice(0, k));
    cur = cur.slice(k + 1);
  }
  parts.push(cur);
  return parts;
}

/** A proposition with its leading `∀`s and hypotheses (`A →`) read off as binders. */
function flattened(ts: readonly string[]): { binders: Binder[]; body: string[] } {
  const binders: Binder[] = [];
  let cur = stripped(ts);
  for (;;) {
    if (cur[0] === '∀') {
      const f = forallParts(cur);
      if (f === null) break;
      binders.push(...f.binders);
      cur = stripped(f.body);
      continue;
    }
    const parts = arrowParts(cur);
    if (parts.length < 2) break;
    for (const p of parts.slice(0, -1)) binders.push({ name: '_', type: stripped(p) });
    cur = stripped(parts[parts.length - 1] as string[]);
  }
  return { binders, body: cur };
}

/** `X` when the tokens read `¬ X`, `Not X` or `a ≠ b` (`X` = `a = b`); else null. */
function negationOf(ts: readonly string[]): string[] | null {
  const ne = topIndex(ts, (t) => t === '≠', true);
  if (ne > 0 && topIndex(ts, (t) => LOOSER_THAN_NOT.has(t), true) < 0) {
    return [...ts.slice(0, ne), '=', ...ts.slice(ne + 1)];
  }
  if (ts[0] === '¬' && ts.length > 1) {
    const x = ts.slice(1);
    return topIndex(x, (t) => LOOSER_THAN_NOT.has(t), true) >= 0 ? null : x;
  }
  if (ts[0] === 'Not' && ts.length === 2) return [ts[1] as string];
  if (ts[0] === 'Not' && (ts[1] as string) in PAIRS && closing(ts, 1) === ts.length - 1)
    return ts.slice(2, -1);
  return null;
}

/** A statement up to binder spelling: each binder's type (null: inferred) and the body, bound names positional. */
interface Canonical {
  readonly types: readonly (string | null)[];
  readonly body: string;
}

/** `ts` with each identifier naming a bound variable (or a field of one: `n.succ`) renamed. */
function renamed(ts: readonly string[], names: ReadonlyMap<string, string>): string[] {
  return ts.map((t) => {
    const dot = t.indexOf('.');
    const head = dot < 0 ? t : t.slice(0, dot);
    const to = names.get(head);
    return to === undefined ? t : `${to}${dot < 0 ? '' : t.slice(dot)}`;
  });
}

/** The canonical form of `∀ binders, prop`: flattened, simplified, bound variables named by position. */
function canonical(binders: readonly Binder[], prop: readonly string[]): Canonical {
  const f = flattened(prop);
  const all = [...binders, ...f.binders];
  const names = new Map<string, string>();
  const types: (string | null)[] = [];
  all.forEach((b, i) => {
    types.push(b.type === null ? null : simplified(renamed(b.type, names)).join(' '));
    if (b.name !== '_') names.set(b.name, `#${i}`);
  });
  return { types, body: simplified(renamed(f.body, names)).join(' ') };
}

/** Whether two canonical statements agree (an inferred binder type matches any). */
function sameStatement(a: Canonical, b: Canonical): boolean {
  if (a.types.length !== b.types.length || a.body !== b.body) return false;
  return a.types.every((t, i) => t === null || b.types[i] === null || t === b.types[i]);
}

/** A signature's header binders and proposition (an unreadable header stays one opaque binder). */
function signatureParts(sig: string): { binders: Binder[]; prop: string[] } | null {
  const ts = tokensOf(sig);
  const colon = topIndex(ts, (t) => t === ':');
  if (colon < 0) return null;
  const head = ts.slice(0, colon);
  const binders = binderGroups(head) ?? [{ name: '_', type: head }];
  return { binders, prop: ts.slice(colon + 1) };
}

/**
 * Whether a declaration with signature `sig` states the negation of the statement `target`, up to
 * binder spelling (header groups, `∀ a b : T,`, `∀ (a : T) (b : T),`, `∀ a, ∀ b,`, hypotheses as
 * `A →`), renamed bound variables, spacing and redundant parentheses: `¬ X`, `Not X`, `X → False`
 * or `(h : X) : False`, with `X` the whole of `target` or `target` pointwise under the binders.
 */
function statesNegation(sig: string, target: string): boolean {
  const s = signatureParts(sig);
  const t = signatureParts(target);
  if (s === null || t === null) return false;
  const f = flattened(s.prop);
  let outer = [...s.binders, ...f.binders];
  let x = negationOf(f.body);
  if (x === null && f.body.length === 1 && f.body[0] === 'False' && outer.length > 0) {
    const last = outer[outer.length - 1] as Binder;
    if (last.type !== null) {
      x = [...last.type];
      outer = outer.slice(0, -1);
    }
  }
  if (x !== null && x.length > 0 && sameStatement(canonical(outer, x), canonical(t.binders, t.prop)))
    return true;
  // `T : ¬ Q` (or `a ≠ b`) is refuted by proving `Q` itself.
  const tf = flattened(t.prop);
  const q = negationOf(tf.body);
  return (
    q !== null &&
    q.length > 0 &&
    sameStatement(canonical(s.binders, s.prop), canonical([...t.binders, ...tf.binders], q))
  );
}

/**
 * The falsification safety rule over one falsify pass (the file text `before` and `after` it):
 * a detail string when the pass broke it, else null. Refused, whatever the policy: `T`'s
 * statement changed, `T` disappeared, or a text cannot be read. Refused unless the policy is
 * `negate`: `after` still has `T` with `sorry` in its proof and a new declaration states the
 * negation of `T` (`¬ P`, `¬(P)`, `Not P`, `P → False`, `(h : P) : False`, pointwise under `T`'s
 * binders or as `¬ ∀ binders, P`), whatever the binders' spelling (header groups, `∀ a b : T,`,
 * `∀ (a : T) (b : T),`, `∀ a, ∀ b,`), their names (compared up to renaming), spacing or redundant
 * parentheses; `a ≠ b` negates `a = b`, and when `T` states `¬ Q` a new `Q` counts. A counterexample `∃ w, ¬ P w` and salvage lemmas are fine.
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
