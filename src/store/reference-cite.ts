/**
 * The reference's cite rule as it reads (issue 34): lean4-skills' `run_store.py` checks a replan's
 * cites with Python's `re.match(r"^<run-id>#[1-9][0-9]*$")`, and Python's `$` also matches before
 * one final newline — so `"<run-id>#1\n"` passes the reference and it commits such a replan. Its
 * journals are read here (a run the reference wrote is not damaged); our own appends keep the
 * exact rule (`SEQ_CITE_PATTERN`) and refuse the newline. Pure.
 */

/**
 * The cite the reference reads in `cite`: without one final `\n` (Python's `$` rule); any other
 * text unchanged.
 *
 * @example
 * ```ts
 * citeAsReferenceReads('20260909T120000Z-7484bfa8#1\n'); // '20260909T120000Z-7484bfa8#1'
 * citeAsReferenceReads('20260909T120000Z-7484bfa8#1\n\n'); // unchanged (no match in Python either)
 * ```
 */
export function citeAsReferenceReads(cite: string): string {
  return cite.length >= 2 && cite.endsWith('\n') && !cite.endsWith('\n\n') ? cite.slice(0, -1) : cite;
}

/**
 * A replan payload's view with every cite as the reference reads it (a shallow copy; the stored
 * payload is never changed). Anything that is not an object with a string array `cites` is
 * returned as it is.
 *
 * @example
 * ```ts
 * replanAsReferenceReads({ cites: ['R#1\n'] }); // { cites: ['R#1'] }
 * ```
 */
export function replanAsReferenceReads(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return payload;
  const cites = (payload as { cites?: unknown }).cites;
  if (!Array.isArray(cites) || !cites.some((c) => typeof c === 'string' && c.endsWith('\n'))) return payload;
  return { ...payload, cites: cites.map((c) => (typeof c === 'string' ? citeAsReferenceReads(c) : c)) };
}
