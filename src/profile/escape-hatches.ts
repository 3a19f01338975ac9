/**
 * Escape hatches (layer 1, pure): the words that let a proof "compile" without proving anything
 * (`sorry`, `admit`, `sorryAx`, `native_decide` where policy forbids it, a new `axiom`), found
 * token by token with the Lean lexer — never inside a comment or a string, never as part of a
 * longer identifier — and attributed to the declaration that holds them. A declaration runs from
 * its keyword (`theorem`, `lemma`, `def`, `example`, `instance`, …) to the next one, so whatever a
 * worker puts between them (blank lines, `open … in`, `set_option … in`, `#commands`) stays inside.
 */
import { lexLean, TokenKind } from '../fence/lean-lexer.js';
import { normalizeLineEndings } from './checked-text.js';

/** The Lean profile's escape hatches that are always forbidden. */
export const LEAN_ESCAPE_HATCHES: readonly string[] = Object.freeze(['sorry', 'admit', 'sorryAx']);

/** Keywords that open a declaration (and so end the previous one). */
const DECLARATION_KEYWORDS: ReadonlySet<string> = new Set([
  'theorem',
  'lemma',
  'def',
  'example',
  'instance',
  'abbrev',
  'axiom',
  'opaque',
  'structure',
  'inductive',
  'class',
]);

/** The key of the text before a file's first declaration. */
export const PREAMBLE = '(preamble)';

/** One escape hatch found in a text. */
export interface EscapeHatch {
  /** 1-based line (after line-ending normalization). */
  readonly line: number;
  /** The hatch (`sorry`, `admit`, `sorryAx`, `native_decide`, `axiom`). */
  readonly word: string;
  /** The declaration holding it: `theorem t`, `example #2`, or {@link PREAMBLE}. */
  readonly declaration: string;
}

/** The escape hatches of a text, or why it cannot be tokenized. */
export type HatchScan =
  | {
      readonly ok: true;
      readonly hatches: readonly EscapeHatch[];
      /** Every declaration of the text, in order: its key and the line of its keyword. */
      readonly declarations: readonly { readonly key: string; readonly line: number }[];
      /** The names of the `axiom` declarations. */
      readonly axioms: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

/** Which words count as escape hatches. */
export interface HatchPolicy {
  /** The forbidden words (e.g. {@link LEAN_ESCAPE_HATCHES}, plus `native_decide`). */
  readonly words: readonly string[];
  /**
   * The axioms the run started with: an `axiom` declaration whose name is not among them is an
   * escape hatch. Undefined: no axiom counts (the run's first view of a file).
   */
  readonly knownAxioms?: ReadonlySet<string>;
}

/** An identifier's last component, without `«»`: `Lean.sorryAx` → `sorryAx`. */
function lastComponent(ident: string): string {
  const parts = ident.split('.');
  const last = parts.at(-1) ?? ident;
  return last.startsWith('«') && last.endsWith('»') ? last.slice(1, -1) : last;
}

/**
 * Finds `policy`'s escape hatches in Lean source `text` (line endings normalized first), each with
 * its line and declaration; a text the lexer cannot read (an unterminated comment or string) is
 * `{ ok: false }` with the reason (the caller treats it as unverifiable). Never throws.
 *
 * @example
 * ```ts
 * const s = scanEscapeHatches('theorem t : True := by\n  -- sorry\n  exact sorryAx _\n', { words: LEAN_ESCAPE_HATCHES });
 * if (s.ok) s.hatches; // [{ line: 3, word: 'sorryAx', declaration: 'theorem t' }]
 * ```
 */
export function scanEscapeHatches(text: string, policy: HatchPolicy): HatchScan {
  const r = lexLean(normalizeLineEndings(text));
  if (!r.ok) return { ok: false, reason: `unverifiable: cannot tokenize (${r.error})` };
  const tk = r.tokens;
  const words = new Set(policy.words);
  const hatches: EscapeHatch[] = [];
  const declarations: { key: string; line: number }[] = [];
  const axioms: string[] = [];
  const anonymous = new Map<string, number>();
  let current = PREAMBLE;
  for (let i = 0; i < tk.count; i++) {
    if (tk.kinds[i] !== TokenKind.ident) continue;
    const t = tk.text(i);
    if (DECLARATION_KEYWORDS.has(t)) {
      // `class inductive`: one declaration, the last keyword names it
      const nameTok = i + 1 < tk.count && tk.kinds[i + 1] === TokenKind.ident ? tk.text(i + 1) : null;
      const named = nameTok !== null && !DECLARATION_KEYWORDS.has(nameTok) ? lastComponent(nameTok) : null;
      if (DECLARATION_KEYWORDS.has(nameTok ?? '')) continue;
      let key: string;
      if (named !== null) key = `${t} ${named}`;
      else {
        const n = (anonymous.get(t) ?? 0) + 1;
        anonymous.set(t, n);
        key = `${t} #${n}`;
      }
      current = key;
      declarations.push({ key, line: tk.lines[i] as number });
      if (t === 'axiom' && named !== null) {
        axioms.push(named);
        if (policy.knownAxioms !== undefined && !policy.knownAxioms.has(named))
          hatches.push({ line: tk.lines[i] as number, word: 'axiom', declaration: key });
      }
      continue;
    }
    const word = lastComponent(t);
    if (words.has(word)) hatches.push({ line: tk.lines[i] as number, word, declaration: current });
  }
  return { ok: true, hatches, declarations, axioms };
}

/**
 * The declaration holding 1-based `line` of `text`: the declaration of the first escape hatch on
 * that line when there is one, else the last declaration whose keyword is at or before it
 * ({@link PREAMBLE} before the first), or null when the text cannot be tokenized.
 *
 * @example
 * ```ts
 * declarationAt('theorem a : True := by\n\n  sorry\n', 3); // 'theorem a'
 * ```
 */
export function declarationAt(text: string, line: number): string | null {
  const s = scanEscapeHatches(text, { words: LEAN_ESCAPE_HATCHES });
  if (!s.ok) return null;
  const onLine = s.hatches.find((h) => h.line === line);
  if (onLine !== undefined) return onLine.declaration;
  return s.declarations.filter((d) => d.line <= line).at(-1)?.key ?? PREAMBLE;
}
