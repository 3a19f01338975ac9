/**
 * Declaration headers (layer 0): what the statement fence snapshots before a worker runs and
 * compares after it returns. A header is the immutable part of a declaration — its name, kind and
 * statement — never its proof. Every extractor (Lean, a function, a command) produces these.
 */
import { z } from 'zod';

/**
 * One declaration's header.
 *
 * - `name`: fully qualified with the enclosing namespaces (`Foo.t`). Anonymous declarations get a
 *   synthetic name `<namespace.>kind@<ordinal>` (`example@1`, `Foo.instance@2`): the ordinal counts
 *   the anonymous declarations of that kind in the file, from 1.
 * - `kind`: `theorem`, `lemma`, `def`, `instance`, `example`, `abbrev`, `axiom`, …
 * - `signature`: the statement from after the name to its end (before `:=`, `where` or the first
 *   `|` alternative), comments removed and whitespace normalized, so reformatting is no change.
 * - `line`: 1-based line of the declaration keyword.
 *
 * @example
 * ```ts
 * const h: DeclarationHeader = { name: 't', kind: 'theorem', signature: '(n : Nat) : n + 0 = n', line: 1 };
 * ```
 */
export interface DeclarationHeader {
  readonly name: string;
  readonly kind: string;
  readonly signature: string;
  readonly line: number;
}

/**
 * The result of extracting the headers of one file; extractors never throw, a file they cannot
 * read is `{ ok: false, error }`.
 *
 * @example
 * ```ts
 * const r: HeaderExtraction = extractLeanHeaders('theorem t : True := trivial');
 * if (r.ok) r.headers.map((h) => h.name); // ['t']
 * ```
 */
export type HeaderExtraction =
  | {
      readonly ok: true;
      readonly headers: readonly DeclarationHeader[];
      /**
       * The file's commands that change how statements are read (the Lean extractor's
       * `set_option`, `open`, `@[…]`, `macro`, `#exit`, …; see proof-work-rules.ts). Present
       * only when the extractor reads them; the proof-work rule compares them when both sides
       * have them.
       */
      readonly commands?: readonly LeanCommand[];
    }
  | { readonly ok: false; readonly error: string };

/**
 * One command of a Lean file that is not a declaration: its keyword (`set_option`, `@[`,
 * `notation` for `local notation`, `#exit`, …), its canonical text (the tokens from the keyword —
 * or its `local`/`scoped` — to the command's end, `… in` included, joined like a signature) and
 * the 1-based line of its first token.
 *
 * @example
 * ```ts
 * const c: LeanCommand = { keyword: 'set_option', text: 'set_option autoImplicit true', line: 1 };
 * ```
 */
export interface LeanCommand {
  readonly keyword: string;
  readonly text: string;
  readonly line: number;
}

/**
 * The zod schema of one {@link DeclarationHeader} as external extractors report it (exact keys).
 *
 * @example
 * ```ts
 * DeclarationHeaderSchema.safeParse({ name: 'f', kind: 'def', signature: '(x) -> int', line: 3 }).success; // true
 * ```
 */
export const DeclarationHeaderSchema = z
  .object({
    name: z.string().min(1),
    kind: z.string().min(1),
    signature: z.string(),
    line: z.number().int().min(1),
  })
  .strict();

/**
 * Collapses every run of whitespace in a signature to one space and trims it, the normalization
 * applied to headers that come from functions and commands (the Lean extractor's signatures are
 * already canonical).
 *
 * @example
 * ```ts
 * normalizeSignature('  (a,\n   b) -> int '); // '(a, b) -> int'
 * ```
 */
export function normalizeSignature(signature: string): string {
  return signature.replace(/\s+/g, ' ').trim();
}
