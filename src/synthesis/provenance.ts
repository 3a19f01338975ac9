/**
 * Session-generated provenance (layer 1, pure): which statements this synthesis session drafted —
 * seed 002 § Session-Generated Provenance.
 *
 * An immutable set of (file, declaration name) pairs, built in memory as drafts are accepted:
 * every accepted draft adds the declarations it emitted ({@link withDrafted}). It lives as long as
 * the session value that holds it — kept across replans within one invocation — and is **never
 * persisted**: a restarted or resumed session starts from {@link emptyProvenance}, so every
 * existing statement is user-authored again (conservative by design). Under
 * `--statement-policy rewrite-generated-only` only members may be rewritten.
 *
 * Files are compared as given (exact strings): use one spelling per file, the absolute path.
 */

/**
 * The set of (file, declaration) pairs drafted in this session. Treat as opaque; build it with
 * {@link emptyProvenance} and {@link withDrafted}.
 *
 * @example
 * ```ts
 * const p: Provenance = withDrafted(emptyProvenance(), '/p/Demo/Basic.lean', ['add_zero']);
 * ```
 */
export interface Provenance {
  /** file → the names drafted into it. */
  readonly files: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * The provenance of a fresh (or restarted) session: nothing is session-generated.
 *
 * @example
 * ```ts
 * isGenerated(emptyProvenance(), '/p/A.lean', 't'); // false
 * ```
 */
export function emptyProvenance(): Provenance {
  return Object.freeze({ files: new Map<string, ReadonlySet<string>>() });
}

/**
 * A new provenance with `names` drafted into `file` added; `p` is unchanged.
 *
 * @example
 * ```ts
 * const p1 = withDrafted(emptyProvenance(), '/p/A.lean', ['t', 'u']);
 * isGenerated(p1, '/p/A.lean', 'u'); // true
 * ```
 */
export function withDrafted(p: Provenance, file: string, names: readonly string[]): Provenance {
  if (names.length === 0) return p;
  const files = new Map(p.files);
  files.set(file, new Set([...(p.files.get(file) ?? []), ...names]));
  return Object.freeze({ files });
}

/**
 * Whether `name` in `file` was drafted in this session.
 *
 * @example
 * ```ts
 * isGenerated(withDrafted(emptyProvenance(), '/p/A.lean', ['t']), '/p/B.lean', 't'); // false
 * ```
 */
export function isGenerated(p: Provenance, file: string, name: string): boolean {
  return p.files.get(file)?.has(name) ?? false;
}

/**
 * Every pair, sorted by file then name (for reports and journal payloads).
 *
 * @example
 * ```ts
 * provenanceEntries(withDrafted(emptyProvenance(), '/p/A.lean', ['u', 't'])); // [{ file: '/p/A.lean', name: 't' }, { file: '/p/A.lean', name: 'u' }]
 * ```
 */
export function provenanceEntries(
  p: Provenance,
): readonly { readonly file: string; readonly name: string }[] {
  const out: { file: string; name: string }[] = [];
  for (const file of [...p.files.keys()].sort())
    for (const name of [...(p.files.get(file) ?? [])].sort()) out.push({ file, name });
  return out;
}
