/**
 * The declaration-only block a drafter writes to its temp path (layer 1, pure): the rules of seed
 * 002 § File Assembly Contract, checked on the block's tokens (the statement fence's Lean lexer),
 * so comments and strings never trigger a refusal and no text inside them slips through.
 *
 * A block is an optional header of `-- needs-import: <module>` lines (and blank lines) followed
 * by declarations only. Refused: `import`, `open`, `export`, scope wrappers (`namespace`,
 * `section`, `end`, `mutual`), context commands (`variable`, `universe`, `include`, `omit`),
 * `axiom` (a statement nobody proves), `set_option` (it can switch checks off), commands that run
 * code or change the syntax (`macro`, `syntax`, `elab`, `notation`, `infix`…, `initialize`,
 * `run_cmd`…, `attribute`, `local`, `scoped`) and `#` commands (`#eval`, `#exit`…, or any `#word`
 * at line start); a `-- needs-import:` line after the header; anonymous (`example`, unnamed
 * `instance`) or duplicate declarations; a block with no declaration; C0/C1 control characters
 * other than tab, LF and CR, and bidirectional-override characters (text that renders other than
 * it reads).
 */
import { extractLeanHeaders } from '../fence/index.js';
import { LINE_START, lexLean, TokenKind } from '../fence/lean-lexer.js';

/**
 * How a module of a `-- needs-import:` line is spelled: `^[A-Za-z_][A-Za-z0-9_'.]*$`, and no empty
 * component (`A..B`, a trailing `.`).
 *
 * @example
 * ```ts
 * MODULE_NAME.test('Mathlib.Tactic'); // true
 * MODULE_NAME.test('Mathlib; rm -rf'); // false
 * ```
 */
export const MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_'.]*$/;

/**
 * Largest block accepted (characters); larger blocks are refused, not truncated.
 *
 * @example
 * ```ts
 * parseDraftBlock('x'.repeat(MAX_DRAFT_CHARS + 1)).ok; // false
 * ```
 */
export const MAX_DRAFT_CHARS = 1024 * 1024;

/**
 * Words that may not occur as a token anywhere in a draft block.
 *
 * @example
 * ```ts
 * FORBIDDEN_DRAFT_WORDS.includes('open'); // true
 * ```
 */
export const FORBIDDEN_DRAFT_WORDS: readonly string[] = [
  'import',
  'open',
  'export',
  'namespace',
  'section',
  'end',
  'mutual',
  'variable',
  'universe',
  'include',
  'omit',
  'axiom',
  'set_option',
  'attribute',
  'local',
  'scoped',
  'macro',
  'macro_rules',
  'syntax',
  'declare_syntax_cat',
  'elab',
  'elab_rules',
  'notation',
  'infix',
  'infixl',
  'infixr',
  'prefix',
  'postfix',
  'initialize',
  'builtin_initialize',
  'run_cmd',
  'run_elab',
  'run_meta',
];
const FORBIDDEN = new Set(FORBIDDEN_DRAFT_WORDS);

/** `#` commands refused wherever they occur (a `#word` in column 0 is refused whatever it is). */
const HASH_COMMANDS = new Set([
  '#eval',
  '#exit',
  '#print',
  '#check',
  '#reduce',
  '#synth',
  '#guard',
  '#guard_msgs',
  '#find',
  '#help',
  '#lint',
  '#time',
  '#where',
  '#norm_num',
  '#simp',
  '#conv',
  '#align',
  '#noalign',
  '#min_imports',
  '#check_failure',
  '#widget',
  '#html',
]);

const NEEDS_IMPORT = /^--[ \t]*needs-import:[ \t]*(\S*)[ \t]*$/;
const NEEDS_IMPORT_ANYWHERE = /^[ \t]*--[ \t]*needs-import\b/;
// C0 (but tab, LF, CR), DEL, C1, and the bidirectional embeddings, overrides and isolates
const BAD_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * A validated block: the modules of its header (deduplicated, in order), its body (everything
 * after the header, byte-exact) and the names it declares (in order).
 *
 * @example
 * ```ts
 * const b: DraftBlock = { imports: ['Mathlib.Tactic'], body: 'theorem t : True := by sorry\n', declarations: ['t'] };
 * ```
 */
export interface DraftBlock {
  readonly imports: readonly string[];
  readonly body: string;
  readonly declarations: readonly string[];
}

/**
 * Whether a module name is acceptable in a `-- needs-import:` line.
 *
 * @example
 * ```ts
 * isModuleName('Mathlib.Data.Nat.Basic'); // true
 * isModuleName('Mathlib.'); // false
 * ```
 */
export function isModuleName(name: string): boolean {
  return MODULE_NAME.test(name) && !name.split('.').includes('');
}

/**
 * Splits a block into its `-- needs-import:` header and its body, and checks both (see the
 * module's rules). Never throws: a refused block is `{ ok: false, error }` naming the first defect
 * and its line.
 *
 * @example
 * ```ts
 * parseDraftBlock('-- needs-import: Mathlib.Tactic\ntheorem t : 1 + 1 = 2 := by sorry\n');
 * // { ok: true, block: { imports: ['Mathlib.Tactic'], body: 'theorem t : 1 + 1 = 2 := by sorry\n', declarations: ['t'] } }
 * parseDraftBlock('import Mathlib\ntheorem t : True := trivial').ok; // false: `import` (line 1)
 * ```
 */
export function parseDraftBlock(
  text: string,
): { readonly ok: true; readonly block: DraftBlock } | { readonly ok: false; readonly error: string } {
  if (typeof text !== 'string') return { ok: false, error: 'the draft is not text' };
  if (text.length > MAX_DRAFT_CHARS)
    return { ok: false, error: `the draft is too large (${text.length} > ${MAX_DRAFT_CHARS} characters)` };
  const bad = BAD_CHARS.exec(text);
  if (bad !== null) {
    const line = lineOf(text, bad.index);
    const code = (bad[0].codePointAt(0) ?? 0).toString(16).padStart(4, '0');
    return { ok: false, error: `control or bidirectional character U+${code} at line ${line}` };
  }
  // the header: blank lines and `-- needs-import:` lines
  const imports: string[] = [];
  let offset = 0;
  let line = 1;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const end = nl === -1 ? text.length : nl + 1;
    const raw = text.slice(offset, end).replace(/\r?\n$/, '');
    if (raw.trim() !== '') {
      const m = NEEDS_IMPORT.exec(raw);
      if (m === null) break;
      const mod = m[1] ?? '';
      if (!isModuleName(mod))
        return {
          ok: false,
          error: `line ${line}: not a module name in a needs-import line: ${JSON.stringify(mod)}`,
        };
      if (!imports.includes(mod)) imports.push(mod);
    }
    offset = end;
    line++;
  }
  const body = text.slice(offset);
  const bodyLine = line;
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (NEEDS_IMPORT_ANYWHERE.test(lines[i] ?? ''))
      return { ok: false, error: `line ${bodyLine + i}: needs-import lines belong at the top of the draft` };
  }
  const lexed = lexLean(body);
  if (!lexed.ok) return { ok: false, error: lexed.error };
  const t = lexed.tokens;
  for (let i = 0; i < t.count; i++) {
    const kind = t.kinds[i];
    const word = t.text(i);
    const at = bodyLine - 1 + (t.lines[i] as number);
    if (kind === TokenKind.ident && FORBIDDEN.has(word))
      return { ok: false, error: `line ${at}: \`${word}\` is not allowed in a declaration-only draft` };
    if (kind === TokenKind.hashCommand) {
      const bare = word.replace(/[!?]+$/, '');
      if (HASH_COMMANDS.has(bare) || ((t.flags[i] as number) & LINE_START) !== 0)
        return {
          ok: false,
          error: `line ${at}: the command \`${word}\` is not allowed in a declaration-only draft`,
        };
    }
  }
  const headers = extractLeanHeaders(body);
  if (!headers.ok) return { ok: false, error: headers.error };
  const declarations: string[] = [];
  for (const h of headers.headers) {
    const at = bodyLine - 1 + h.line;
    if (h.name.includes('@'))
      return {
        ok: false,
        error: `line ${at}: an anonymous \`${h.kind}\` (every drafted declaration needs a name)`,
      };
    if (declarations.includes(h.name))
      return { ok: false, error: `line ${at}: \`${h.name}\` is declared twice` };
    declarations.push(h.name);
  }
  if (declarations.length === 0) return { ok: false, error: 'the draft declares nothing' };
  return { ok: true, block: { imports, body, declarations } };
}

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}
