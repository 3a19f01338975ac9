/**
 * Declaration names in Lean text (layer 1, pure): what a block declares, and whether a target file
 * already declares a name — the collision check of seed 002 § File Assembly Contract that skips a
 * claim formalized in a prior run.
 *
 * The names come from the statement fence's Lean extractor (namespaces qualify them, comments and
 * strings are not read). When the target cannot be tokenized (an unterminated comment in a file
 * being edited), the check falls back to the seed's line-start rule: a line that starts with
 * optional attributes (`@[…]`), modifiers (`private`, `protected`, `noncomputable`, `partial`,
 * `nonrec`, `unsafe`) and one of `theorem`, `lemma`, `def`, `abbrev`, `instance`, `structure`,
 * `inductive`, `class`, `opaque`, `axiom` followed by the name.
 */
import { extractLeanHeaders } from '../fence/index.js';

/**
 * The names a Lean text declares, in order (anonymous declarations and `variable`-like commands
 * left out), or the extractor's error. Never throws.
 *
 * @example
 * ```ts
 * declarationNames('namespace Foo\ntheorem t : True := trivial\nend Foo\ndef d := 1');
 * // { ok: true, names: ['Foo.t', 'd'] }
 * ```
 */
export function declarationNames(
  text: string,
): { readonly ok: true; readonly names: readonly string[] } | { readonly ok: false; readonly error: string } {
  const r = extractLeanHeaders(text);
  if (!r.ok) return r;
  return { ok: true, names: r.headers.filter((h) => !h.name.includes('@')).map((h) => h.name) };
}

const KINDS = 'theorem|lemma|def|abbrev|instance|structure|inductive|class|opaque|axiom';
const MODIFIERS = '(?:(?:private|protected|noncomputable|partial|nonrec|unsafe)[ \\t]+)*';
const ATTRIBUTES = '(?:@\\[[^\\]\\n]*\\][ \\t]*)*';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The line-start rule alone: whether some line of `targetText` starts (after attributes and
 * modifiers) with a declaration keyword and `name`.
 *
 * @example
 * ```ts
 * declaredAtLineStart('@[simp] private theorem t : True := trivial', 't'); // true
 * declaredAtLineStart('-- theorem t : True', 't'); // false
 * ```
 */
export function declaredAtLineStart(targetText: string, name: string): boolean {
  if (name === '') return false;
  const re = new RegExp(
    `^[ \\t]*${ATTRIBUTES}${MODIFIERS}(?:${KINDS})[ \\t]+${escapeRegExp(name)}(?=[\\s:({[⦃]|$)`,
    'm',
  );
  return re.test(targetText);
}

/**
 * Whether `targetText` already declares `name` (fully qualified). Uses the Lean extractor; falls
 * back to {@link declaredAtLineStart} when the text cannot be tokenized. Never throws.
 *
 * @example
 * ```ts
 * existingDeclaration('theorem add_zero (n : Nat) : n + 0 = n := rfl\n', 'add_zero'); // true
 * existingDeclaration('namespace Foo\ntheorem t : True := trivial\nend Foo', 'Foo.t'); // true
 * existingDeclaration('/- theorem t : True -/', 't'); // false
 * ```
 */
export function existingDeclaration(targetText: string, name: string): boolean {
  const r = declarationNames(targetText);
  if (r.ok) return r.names.includes(name);
  return declaredAtLineStart(targetText, name);
}
