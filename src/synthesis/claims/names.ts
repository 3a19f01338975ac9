/**
 * Suggested Lean declaration names from what a source gives (layer 1, pure): a theorem title
 * (`Foo bar` → `foo_bar`) or a LaTeX label (`thm:foo-bar` → `foo_bar`).
 */

/** The longest suggested name; longer titles are cut at a word boundary of the name. */
const MAX_NAME = 64;

function tidy(raw: string): string | null {
  let name = raw
    .replace(/[^A-Za-z0-9_.]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/_?\._?/g, '.')
    .replace(/^[_.]+|[_.]+$/g, '');
  if (name.length > MAX_NAME) name = name.slice(0, MAX_NAME).replace(/[_.]+$/, '');
  if (name === '' || !/^[A-Za-z_]/.test(name) || /\.[0-9]/.test(name)) return null;
  return name;
}

/**
 * The snake_case Lean name a claim title suggests: diacritics dropped, lower-cased, every run of
 * other characters one `_`; null when nothing name-like is left (or it would start with a digit).
 *
 * @example
 * ```ts
 * nameFromTitle('Foo'); // 'foo'
 * nameFromTitle('Cauchy–Schwarz inequality'); // 'cauchy_schwarz_inequality'
 * nameFromTitle('2-cycles'); // null
 * ```
 */
export function nameFromTitle(title: string): string | null {
  const ascii = title.normalize('NFKD').replace(/\p{M}+/gu, '');
  return tidy(ascii.toLowerCase().replace(/\./g, ' '));
}

/**
 * The Lean name a LaTeX `\label{…}` suggests: the part after the last `:` (`thm:foo` → `foo`),
 * case kept, `-` and other characters `_`, dots kept as namespace separators; null when unusable.
 *
 * @example
 * ```ts
 * nameFromLabel('thm:foo'); // 'foo'
 * nameFromLabel('lem:main-bound'); // 'main_bound'
 * nameFromLabel('Nat.add_comm'); // 'Nat.add_comm'
 * ```
 */
export function nameFromLabel(label: string): string | null {
  const tail = label.slice(label.lastIndexOf(':') + 1);
  return tidy(tail.normalize('NFKD').replace(/\p{M}+/gu, ''));
}
