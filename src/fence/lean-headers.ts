/**
 * Lean 4 declaration headers (pure): `extractLeanHeaders(text)` finds every declaration and its
 * statement on top of the fence tokenizer (lean-lexer.ts), in one linear pass.
 *
 * The rule for where a declaration starts: a declaration keyword (`theorem`, `lemma`, `def`,
 * `instance`, `example`, `abbrev`, `axiom`, `opaque`, `structure`, `class`, `inductive`,
 * `class inductive`, `class abbrev`, `irreducible_def`) is a declaration wherever it occurs as a
 * token — outside comments, strings, char literals, syntax quotations (`` `(…) ``) and attribute
 * lists (`@[…]`, `attribute […]`), and not after `deriving` (`deriving instance`). These words
 * are reserved tokens in Lean 4, so a `by` block or a term cannot hold them: Lean itself reads
 * them only as the start of a command (its error recovery also restarts at them). This covers
 * modifiers and attributes on the same line (`@[simp] private theorem`), `open Foo in theorem …`
 * and one-line files, where a line-start rule would not. A keyword not followed by a name (except
 * `instance` and `example`, which may be anonymous) is not a declaration.
 *
 * The statement runs from after the name (after `(priority := …)` for instances) to the first of,
 * at bracket depth 0: `:=` (not one belonging to a `let`/`have` inside the statement — a
 * `let x ← e` has none), `where`, a `|` that starts pattern-matching alternatives, or the start of
 * the next command at any depth (a command keyword, a doc comment, `@[`, a known `#command` or any
 * `#word` in column 0 — Mathlib's `#s` is a term — or a line-initial `local`/`scoped`).
 * Statements that have no `:=` (`axiom`, `opaque`, `variable`, `include`, `omit`) also end at an
 * identifier in column 0 (an unknown command, e.g. Mathlib's). A `|` starts alternatives when it
 * is an inductive's, or when it follows the end of an expression (a name, literal or closing
 * bracket) and a `=>` comes before the statement could end; the alternatives of a `match … with`
 * or `fun |` inside the statement stay in it; any other `|` opens an absolute value `|a|`, which
 * stays in the statement with its closing `|` (also when it starts a line, as in Mathlib's
 * `theorem abs_add (a b : α) :\n    |a + b| ≤ |a| + |b|`). Syntax quotations are skipped whole.
 *
 * Scopes: `namespace A.B` / `section [S]` / `mutual` open scopes, `end [X]` closes as many as `X`
 * has components (one without a name); names are qualified with the open namespaces, `_root_.`
 * escapes them. `variable`, `include` and `omit` commands are also reported (kinds of the same
 * name, anonymous) because they change the statements after them.
 */
import type { DeclarationHeader, HeaderExtraction, LeanCommand } from './header.js';
import { isPlainIdentifierComponent, type LeanTokens, LINE_START, lexLean, TokenKind } from './lean-lexer.js';
import { CLOSERS, OPENERS, renderSignature } from './lean-signature.js';
import { RECORDED_COMMAND_KEYWORDS } from './proof-work-rules.js';

/**
 * The declaration keywords the Lean extractor recognizes.
 *
 * @example
 * ```ts
 * LEAN_DECLARATION_KEYWORDS.includes('theorem'); // true
 * ```
 */
export const LEAN_DECLARATION_KEYWORDS: readonly string[] = [
  'theorem',
  'lemma',
  'def',
  'instance',
  'example',
  'abbrev',
  'axiom',
  'opaque',
  'structure',
  'class',
  'inductive',
  'irreducible_def',
];

/**
 * Commands reported as anonymous headers because they change the statements that follow them.
 *
 * @example
 * ```ts
 * LEAN_CONTEXT_KEYWORDS; // ['variable', 'include', 'omit']
 * ```
 */
export const LEAN_CONTEXT_KEYWORDS: readonly string[] = ['variable', 'include', 'omit'];

/**
 * Largest text accepted (characters); larger inputs are refused, not truncated.
 *
 * @example
 * ```ts
 * extractLeanHeaders('x'.repeat(MAX_LEAN_TEXT_LENGTH + 1)).ok; // false
 * ```
 */
export const MAX_LEAN_TEXT_LENGTH = 64 * 1024 * 1024;

const DECLARATIONS = new Set(LEAN_DECLARATION_KEYWORDS);
const CONTEXT = new Set(LEAN_CONTEXT_KEYWORDS);
const ANONYMOUS_ALLOWED = new Set(['instance', 'example']);

/** Words that begin a command; a statement never runs past one. */
const COMMAND_WORDS = new Set([
  ...LEAN_DECLARATION_KEYWORDS,
  ...LEAN_CONTEXT_KEYWORDS,
  'namespace',
  'section',
  'end',
  'mutual',
  'open',
  'universe',
  'set_option',
  'attribute',
  'import',
  'export',
  'notation',
  'infix',
  'infixl',
  'infixr',
  'prefix',
  'postfix',
  'macro',
  'macro_rules',
  'syntax',
  'elab',
  'elab_rules',
  'declare_syntax_cat',
  'binder_predicate',
  'simproc',
  'dsimproc',
  'run_elab',
  'run_meta',
  'deriving',
  'initialize',
  'builtin_initialize',
  'private',
  'protected',
  'noncomputable',
  'partial',
  'unsafe',
  'nonrec',
  // Mathlib commands that often follow an axiom or a variable
  'alias',
  'add_decl_doc',
  'run_cmd',
  'assert_not_exists',
  'suppress_compilation',
  'library_note',
  'register_simp_attr',
  'initialize_simps_projections',
  'compile_inductive',
]);

/**
 * `#commands` that end a statement wherever they stand; any other `#word` does so only in
 * column 0, since Mathlib's `#s` (cardinality) is a term that statements contain.
 */
const HASH_COMMANDS = new Set([
  '#check',
  '#check_failure',
  '#eval',
  '#print',
  '#reduce',
  '#exit',
  '#synth',
  '#guard',
  '#guard_msgs',
  '#lint',
  '#help',
  '#align',
  '#align_import',
  '#noalign',
  '#find',
  '#simp',
  '#norm_num',
  '#conv',
  '#where',
  '#time',
  '#adaptation_note',
  '#min_imports',
]);

/** Kinds whose statement has no `:=` to end it; an identifier at column 0 also ends theirs. */
const OPEN_ENDED = new Set(['axiom', 'opaque', ...LEAN_CONTEXT_KEYWORDS]);

/** Reserved words that are never a declaration, namespace or section name. */
const KEYWORDS = new Set([
  ...COMMAND_WORDS,
  'local',
  'scoped',
  'where',
  'extends',
  'fun',
  'by',
  'have',
  'let',
  'show',
  'from',
  'match',
  'with',
  'if',
  'then',
  'else',
  'do',
  'at',
  'in',
  'for',
  'termination_by',
  'decreasing_by',
]);

/** Words inside a statement whose own `:=` (or `←`, in `do` notation) does not end it. */
const LOCAL_BINDERS = new Set(['let', 'have', 'letI', 'haveI']);

class HeaderError {
  constructor(readonly message: string) {}
}

/**
 * Extracts the declaration headers of a Lean 4 file. Never throws: bad input, an unterminated
 * comment, string, syntax quotation or attribute list is `{ ok: false, error }`.
 *
 * @example
 * ```ts
 * const r = extractLeanHeaders('namespace Foo\n@[simp] theorem t (n : Nat) :\n    n + 0 = n := by simp\nend Foo');
 * // r.ok && r.headers[0] → { name: 'Foo.t', kind: 'theorem', signature: '(n : Nat) : n + 0 = n', line: 2 }
 * ```
 */
export function extractLeanHeaders(text: string): HeaderExtraction {
  const r = extractLeanFence(text);
  return r.ok ? { ok: true, headers: r.headers } : r;
}

/**
 * Extracts the declaration headers of a Lean 4 file and its commands (`commands`: what the
 * proof-work rule compares — `set_option`, `open`, attribute lists, syntax, notations, `#`
 * commands… at command level). Lean reads nothing after `#exit`, so neither does this. Never
 * throws.
 *
 * @example
 * ```ts
 * const r = extractLeanFence('set_option autoImplicit true\ntheorem t : P x := sorry');
 * // r.ok && r.commands → [{ keyword: 'set_option', text: 'set_option autoImplicit true', line: 1 }]
 * ```
 */
export function extractLeanFence(text: string): HeaderExtraction {
  if (typeof text !== 'string') return { ok: false, error: 'Lean source must be a string' };
  if (text.length > MAX_LEAN_TEXT_LENGTH) {
    return {
      ok: false,
      error: `Lean source too large (${text.length} > ${MAX_LEAN_TEXT_LENGTH} characters)`,
    };
  }
  const lexed = lexLean(text);
  if (!lexed.ok) return { ok: false, error: lexed.error };
  try {
    const parser = new HeaderParser(lexed.tokens, text);
    const headers = parser.run();
    return { ok: true, headers, commands: parser.commands };
  } catch (e) {
    if (e instanceof HeaderError) return { ok: false, error: e.message };
    return { ok: false, error: `header extraction failure: ${String(e)}` };
  }
}

interface Scope {
  readonly namespace: string | null;
}

class HeaderParser {
  private readonly scopes: Scope[] = [];
  private readonly ordinals = new Map<string, number>();
  private readonly headers: DeclarationHeader[] = [];
  readonly commands: LeanCommand[] = [];

  constructor(
    private readonly t: LeanTokens,
    private readonly source: string,
  ) {}

  run(): DeclarationHeader[] {
    const t = this.t;
    let i = 0;
    while (i < t.count) {
      const kind = t.kinds[i];
      if (kind === TokenKind.quoteOpen) {
        i = this.skipBalanced(i, 'syntax quotation');
        continue;
      }
      if (kind === TokenKind.symbol && t.text(i) === '@[') {
        const end = this.skipBalanced(i, 'attribute list');
        this.record('@[', i, end);
        i = end;
        continue;
      }
      if (kind === TokenKind.hashCommand && this.commandStart(i)) {
        const word = t.text(i);
        if (word === '#exit') {
          // Lean stops reading the file here
          this.record(word, i, i + 1);
          break;
        }
        this.record(word, i, this.commandEnd(i));
        i++;
        continue;
      }
      if (kind !== TokenKind.ident) {
        i++;
        continue;
      }
      const word = t.text(i);
      if (DECLARATIONS.has(word)) i = this.declaration(i, word);
      else if (CONTEXT.has(word)) i = this.context(i, word);
      else if (word === 'attribute' && this.is(i + 1, '[')) {
        const end = this.commandEnd(i);
        this.record(word, i, end);
        i = Math.max(end, this.skipBalanced(i + 1, 'attribute list'));
      } else if (word === 'deriving' && this.is(i + 1, 'instance')) {
        this.record(word, i, this.commandEnd(i));
        i += 2;
      } else if (word === 'open' || word === 'set_option') i = this.scoped(i, word);
      else if (RECORDED_COMMAND_KEYWORDS.has(word) && word !== 'deriving') {
        this.record(word, this.modifierStart(i), this.commandEnd(i));
        i++;
      } else if (word === 'namespace') i = this.namespace(i);
      else if (word === 'section') i = this.section(i);
      else if (word === 'mutual') {
        this.scopes.push({ namespace: null });
        i++;
      } else if (word === 'end') i = this.end(i);
      else i++;
    }
    return this.headers;
  }

  /** Records the command whose tokens are `[from, to)` under `keyword`. */
  private record(keyword: string, from: number, to: number): void {
    this.commands.push({
      keyword,
      text: renderSignature(this.t, from, to),
      line: this.t.lines[from] as number,
    });
  }

  /** `local notation`, `scoped macro`: the index of the `local`/`scoped` before `i`, else `i`. */
  private modifierStart(i: number): number {
    if (i === 0 || this.t.kinds[i - 1] !== TokenKind.ident) return i;
    const s = this.t.text(i - 1);
    return s === 'local' || s === 'scoped' ? i - 1 : i;
  }

  /** Index of the first token after the command starting at `i` (syntax quotations read whole). */
  private commandEnd(i: number): number {
    const t = this.t;
    let k = i + 1;
    while (k < t.count && !this.commandStart(k)) {
      k = t.kinds[k] === TokenKind.quoteOpen ? this.quotationEnd(k) + 1 : k + 1;
    }
    return Math.min(k, t.count);
  }

  /**
   * `open …` / `set_option …`: a command, unless an `in` on its line leads into something that is
   * not a command — then it is the tactic or term `open … in tac` inside a proof, which reaches
   * only that proof. As a command `… in` ends it (`open Foo in theorem …`).
   */
  private scoped(i: number, word: string): number {
    const t = this.t;
    let k = i + 1;
    while (k < t.count && t.lines[k] === t.lines[i] && !this.commandStart(k)) {
      if (t.kinds[k] === TokenKind.ident && t.text(k) === 'in') {
        if (this.leadsToCommand(k + 1)) {
          this.record(word, i, k + 1);
          return k + 1;
        }
        return i + 1; // proof text
      }
      k++;
    }
    this.record(word, i, this.commandEnd(i));
    return i + 1;
  }

  /**
   * Whether what follows an `… in` at `j` is a command: through a chain of `open … in` /
   * `set_option … in` (a tactic may be prefixed by several) to the first thing that is not one.
   */
  private leadsToCommand(j: number): boolean {
    const t = this.t;
    let q = j;
    while (
      q < t.count &&
      t.kinds[q] === TokenKind.ident &&
      (t.text(q) === 'open' || t.text(q) === 'set_option')
    ) {
      let k = q + 1;
      while (
        k < t.count &&
        t.lines[k] === t.lines[q] &&
        !(t.kinds[k] === TokenKind.ident && t.text(k) === 'in')
      ) {
        if (this.commandStart(k)) return true;
        k++;
      }
      if (k >= t.count || t.lines[k] !== t.lines[q]) return true; // no `in`: a command
      q = k + 1;
    }
    return q < t.count && this.commandStart(q);
  }

  private is(i: number, text: string): boolean {
    return i < this.t.count && this.t.text(i) === text;
  }

  /**
   * A name token at `i` (an identifier that is not a keyword and not a `.field`), or null; its
   * guillemets removed where they only quote (`«add_zero»` is `add_zero`).
   */
  private nameAt(i: number): string | null {
    if (i >= this.t.count || this.t.kinds[i] !== TokenKind.ident) return null;
    const s = this.t.text(i);
    return KEYWORDS.has(s) || s.startsWith('.') ? null : normalizeLeanName(s);
  }

  /** A name on the same line as the token before it (for `section`/`end`), or null. */
  private sameLineName(i: number): string | null {
    return i < this.t.count && this.t.lines[i] === this.t.lines[i - 1] ? this.nameAt(i) : null;
  }

  /**
   * Index of the closer that ends the syntax quotation opened at `i` (its contents are syntax,
   * not this statement's), or the last index when it never closes.
   */
  private quotationEnd(i: number): number {
    const t = this.t;
    let depth = 0;
    for (let k = i; k < t.count; k++) {
      if (OPENERS.has(t.text(k)) || t.kinds[k] === TokenKind.quoteOpen) depth++;
      else if (CLOSERS.has(t.text(k))) {
        depth--;
        if (depth === 0) return k;
      }
    }
    return t.count - 1;
  }

  /** Skips from an opener at `i` to after its matching closer. */
  private skipBalanced(i: number, what: string): number {
    const t = this.t;
    let depth = 0;
    for (let k = i; k < t.count; k++) {
      const s = t.text(k);
      if (OPENERS.has(s) || t.kinds[k] === TokenKind.quoteOpen) depth++;
      else if (CLOSERS.has(s)) {
        depth--;
        if (depth === 0) return k + 1;
      }
    }
    throw new HeaderError(`unterminated ${what} opened at line ${t.lines[i]}`);
  }

  private prefix(): string {
    let p = '';
    for (const s of this.scopes) if (s.namespace !== null) p += `${s.namespace}.`;
    return p;
  }

  private qualify(name: string): string {
    return name.startsWith('_root_.') ? name.slice('_root_.'.length) : this.prefix() + name;
  }

  private anonymous(kind: string): string {
    const n = (this.ordinals.get(kind) ?? 0) + 1;
    this.ordinals.set(kind, n);
    return `${this.prefix()}${kind}@${n}`;
  }

  private namespace(i: number): number {
    const name = this.nameAt(i + 1);
    if (name === null) return i + 1;
    for (const part of components(name)) this.scopes.push({ namespace: part });
    return i + 2;
  }

  private section(i: number): number {
    const name = this.sameLineName(i + 1);
    if (name === null) {
      this.scopes.push({ namespace: null });
      return i + 1;
    }
    for (const _ of components(name)) this.scopes.push({ namespace: null });
    return i + 2;
  }

  private end(i: number): number {
    const name = this.sameLineName(i + 1);
    const count = name === null ? 1 : components(name).length;
    this.scopes.splice(Math.max(0, this.scopes.length - count), count);
    return name === null ? i + 1 : i + 2;
  }

  private declaration(i: number, keyword: string): number {
    let kind = keyword;
    let j = i + 1;
    if (keyword === 'class' && (this.is(j, 'inductive') || this.is(j, 'abbrev'))) {
      kind = `class ${this.t.text(j)}`;
      j++;
    }
    if (kind === 'instance' && this.is(j, '(') && this.is(j + 1, 'priority')) {
      j = this.skipBalanced(j, 'priority');
      // the priority is not part of the statement, but it changes which instance Lean picks
      this.record('instance', i, j);
    }
    let name: string | null = null;
    if (kind !== 'example') {
      name = this.nameAt(j);
      if (name !== null) j++;
      else if (!ANONYMOUS_ALLOWED.has(kind)) return i + 1;
    }
    const end = this.statementEnd(j, kind);
    this.headers.push({
      name: name === null ? this.anonymous(kind) : this.qualify(name),
      kind,
      signature: renderSignature(this.t, j, end),
      line: this.t.lines[i] as number,
    });
    return end;
  }

  private context(i: number, kind: string): number {
    let end = i + 1;
    while (end < this.t.count && !this.commandStart(end) && !this.columnZeroName(end)) end++;
    this.headers.push({
      name: this.anonymous(kind),
      kind,
      signature: renderSignature(this.t, i + 1, end),
      line: this.t.lines[i] as number,
    });
    return end;
  }

  /** Whether the token at `k` begins a command. */
  private commandStart(k: number): boolean {
    const t = this.t;
    const kind = t.kinds[k];
    if (kind === TokenKind.doc) return true;
    if (kind === TokenKind.hashCommand) return HASH_COMMANDS.has(t.text(k)) || this.columnZero(k);
    if (kind === TokenKind.symbol) return t.text(k) === '@[';
    if (kind !== TokenKind.ident) return false;
    const s = t.text(k);
    if (COMMAND_WORDS.has(s)) return true;
    return (s === 'local' || s === 'scoped') && ((t.flags[k] as number) & LINE_START) !== 0;
  }

  /**
   * An identifier in column 0: for statements without `:=` (axioms, `opaque`, `variable`…) the
   * start of some command this extractor does not know (Mathlib's and user-defined commands).
   */
  private columnZeroName(k: number): boolean {
    return this.t.kinds[k] === TokenKind.ident && this.columnZero(k);
  }

  /** Whether the token at `k` starts in column 0. */
  private columnZero(k: number): boolean {
    if (((this.t.flags[k] as number) & LINE_START) === 0) return false;
    const start = this.t.starts[k] as number;
    return start === 0 || this.source.charCodeAt(start - 1) === 10;
  }

  /** Index of the first token after the statement that starts at `j`. */
  private statementEnd(j: number, kind: string): number {
    const t = this.t;
    const inductive = kind === 'inductive' || kind === 'class inductive';
    let depth = 0;
    let pendingBinders = 0;
    let ahead = { to: -1, arrow: false };
    let matchAlternatives = false;
    let k = j;
    const openEnded = OPEN_ENDED.has(kind);
    for (; k < t.count; k++) {
      if (this.commandStart(k) || (openEnded && k > j && this.columnZeroName(k))) break;
      if (t.kinds[k] === TokenKind.quoteOpen) {
        k = this.quotationEnd(k);
        continue;
      }
      const s = t.text(k);
      const ident = t.kinds[k] === TokenKind.ident;
      if (OPENERS.has(s)) depth++;
      else if (CLOSERS.has(s)) depth = Math.max(0, depth - 1);
      else if (depth > 0) continue;
      else if (s === ':=') {
        if (pendingBinders === 0) break;
        pendingBinders--;
      } else if (ident && s === 'where') break;
      else if (ident && LOCAL_BINDERS.has(s)) pendingBinders++;
      else if ((s === '←' || s === '<-') && pendingBinders > 0)
        pendingBinders--; // `do let x ← e`
      else if (ident && (s === 'with' || (s === 'fun' && this.is(k + 1, '|')))) matchAlternatives = true;
      else if (s === '|' && t.kinds[k] === TokenKind.symbol) {
        if (inductive) break;
        if (matchAlternatives) continue;
        if (k > j && this.endsExpression(k - 1)) {
          if (k >= ahead.to) ahead = this.arrowAhead(k);
          if (ahead.arrow) break;
        }
        const closing = this.closingBar(k);
        if (closing !== null) k = closing;
      }
    }
    return k;
  }

  /** Whether the token at `i` can end an expression (so a `|` after it may start alternatives). */
  private endsExpression(i: number): boolean {
    const kind = this.t.kinds[i];
    if (kind === TokenKind.ident) return !KEYWORDS.has(this.t.text(i));
    if (kind === TokenKind.symbol) return CLOSERS.has(this.t.text(i));
    return kind !== TokenKind.quoteOpen && kind !== TokenKind.doc;
  }

  /**
   * From a `|` at statement depth 0: whether a `=>` comes (at that depth) before the statement
   * could end (`:=`, `where`, the next command) — then the `|` starts pattern-matching
   * alternatives — and where that scan stopped (its answer holds for every `|` before there).
   */
  private arrowAhead(k: number): { to: number; arrow: boolean } {
    const t = this.t;
    let depth = 0;
    for (let q = k + 1; q < t.count; q++) {
      if (this.commandStart(q)) return { to: q, arrow: false };
      if (t.kinds[q] === TokenKind.quoteOpen) {
        q = this.quotationEnd(q);
        continue;
      }
      const s = t.text(q);
      if (OPENERS.has(s)) depth++;
      else if (CLOSERS.has(s)) depth = Math.max(0, depth - 1);
      else if (depth === 0) {
        if (s === '=>') return { to: q, arrow: true };
        if (s === ':=' || (s === 'where' && t.kinds[q] === TokenKind.ident)) return { to: q, arrow: false };
      }
    }
    return { to: t.count, arrow: false };
  }

  /**
   * After a `|` that opens an absolute value (`|a|`): the index of the `|` that closes it at the
   * same depth, or null when none does before the statement could end.
   */
  private closingBar(k: number): number | null {
    const t = this.t;
    let depth = 0;
    for (let q = k + 1; q < t.count; q++) {
      if (this.commandStart(q)) return null;
      if (t.kinds[q] === TokenKind.quoteOpen) {
        q = this.quotationEnd(q);
        continue;
      }
      const s = t.text(q);
      if (OPENERS.has(s)) depth++;
      else if (CLOSERS.has(s)) {
        if (depth === 0) return null;
        depth--;
      } else if (depth === 0) {
        if (s === ':=' || (s === 'where' && t.kinds[q] === TokenKind.ident)) return null;
        if (s === '|' && t.kinds[q] === TokenKind.symbol) return q;
      }
    }
    return null;
  }
}

/** `A.B.«c.d»` → `['A', 'B', '«c.d»']`. */
function components(name: string): string[] {
  const parts: string[] = [];
  let current = '';
  let escaped = false;
  for (const ch of name) {
    if (ch === '«') escaped = true;
    else if (ch === '»') escaped = false;
    if (ch === '.' && !escaped) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** Words Lean reads as tokens, so a name component spelled like one keeps its `«»`. */
const TOKEN_WORDS = new Set([...KEYWORDS, 'Type', 'Sort', 'Prop', 'at', 'deriving', 'instance']);

/**
 * A Lean name with the guillemets that only quote removed: `«add_zero_right»` is the same name as
 * `add_zero_right` in Lean, `A.«b»` is `A.b`; `«a.b»` (one component holding a dot), `«a b»` and
 * `«fun»` (a keyword) keep theirs.
 *
 * @example
 * ```ts
 * normalizeLeanName('Foo.«add_zero_right»'); // 'Foo.add_zero_right'
 * normalizeLeanName('«a.b»'); // '«a.b»'
 * ```
 */
export function normalizeLeanName(name: string): string {
  if (!name.includes('«')) return name;
  return components(name)
    .map((part) => {
      if (!part.startsWith('«') || !part.endsWith('»')) return part;
      const inner = part.slice(1, -1);
      return isPlainIdentifierComponent(inner) && !TOKEN_WORDS.has(inner) ? inner : part;
    })
    .join('.');
}
