/**
 * The citations of a persisted run's final handoff (pure): the seed's rule is that the final
 * handoff's `failed_avenues` and `evidence.attempts` name the journal events they rest on as
 * `<run_id>#<seq>`, and never an event the store did not confirm. Each worker handoff the run
 * journaled is matched, per target and in order, with the attempt the cycle recorded for it (a
 * claim the verification did not confirm is a failed attempt there): a confirmed `solved` is an
 * `evidence.attempts` entry `{snippet: <target>, result: 'solved: <cite>'}`, anything else a
 * failed avenue `<cite>: <target> …` saying what did not hold.
 */
import type { Handoff } from '../contract/index.js';
import type { AttemptRecord } from '../cycle/types.js';

/** One worker handoff as the journal confirmed it. */
export interface JournaledHandoff {
  /** `<run_id>#<seq>` of its `handoff` event. */
  readonly cite: string;
  readonly handoff: Handoff;
}

/** What {@link finalCites} found, per journaled handoff. */
export interface CitedOutcome {
  readonly cite: string;
  readonly target: string;
  /** True when the handoff claimed `solved` and the cycle confirmed it. */
  readonly solved: boolean;
  /** The words of its entry (a solved attempt's result, or the failed avenue after the cite). */
  readonly words: string;
}

/**
 * Classifies every journaled worker handoff against the cycle's attempts (pure). Handoffs of a
 * target are matched with its attempts in order when both lists are as long (a falsify pass
 * records no attempt: then only the last solved claim is matched with the last attempt). Only a
 * target's last handoff can be its solved one: a claim after which the target was dispatched
 * again did not hold. `carried` (a resumed run) names the handoffs an earlier invocation of the
 * run journaled: a carried `solved` that is its target's last handoff, for a target this
 * invocation never dispatched again (it was not open any more), counts as solved.
 *
 * @example
 * ```ts
 * finalCites([{ cite: 'R#2', handoff: solvedA2 }], { 'A.lean:2': [{ cycle: 1, solved: true, … }] });
 * // [{ cite: 'R#2', target: 'A.lean:2', solved: true, words: 'solved: R#2' }]
 * ```
 */
export function finalCites(
  journal: readonly JournaledHandoff[],
  attempts: Readonly<Record<string, readonly AttemptRecord[]>>,
  carried: ReadonlySet<string> = new Set(),
): CitedOutcome[] {
  const byTarget = new Map<string, JournaledHandoff[]>();
  for (const j of journal) {
    const t = j.handoff.target ?? '?';
    byTarget.set(t, [...(byTarget.get(t) ?? []), j]);
  }
  const verdict = new Map<JournaledHandoff, AttemptRecord | undefined>();
  for (const [t, all] of byTarget) {
    // a resumed run: the handoffs an earlier invocation journaled have no attempt in this one
    const hs = all.filter((h) => !carried.has(h.cite));
    const last = all.at(-1);
    if (last !== undefined && carried.has(last.cite) && attempts[t] === undefined)
      verdict.set(last, { cycle: 0, solved: true, signature: null, snippets: [], emptySearch: false });
    const as = attempts[t] ?? [];
    if (as.length === hs.length) for (const [i, h] of hs.entries()) verdict.set(h, as[i]);
    else {
      const lastSolved = [...hs].reverse().find((h) => h.handoff.status === 'solved');
      if (lastSolved !== undefined) verdict.set(lastSolved, as.at(-1));
    }
  }
  return journal.map((j) => {
    const h = j.handoff;
    const target = h.target ?? '?';
    const a = verdict.get(j);
    // a claim followed by another dispatch of its target did not last, whatever its attempt says
    const last = byTarget.get(target)?.at(-1) === j;
    const solved = h.status === 'solved' && last && a?.solved === true;
    if (solved) return { cite: j.cite, target, solved, words: `solved: ${j.cite}` };
    const why =
      h.status === 'solved'
        ? `claimed solved; the claim did not hold${a?.signature ? ` (${a.signature})` : ''}`
        : `${h.status}${h.stop_reason ? ` (${h.stop_reason})` : ''}${h.blocker_signature ? `: ${h.blocker_signature}` : ''}`;
    return { cite: j.cite, target, solved, words: `${j.cite}: ${target} ${why}` };
  });
}

/**
 * The final handoff with its citations (pure): every confirmed solved handoff as an
 * `evidence.attempts` entry, every other journaled handoff as a failed avenue, each once and
 * after what the record already says.
 *
 * @example
 * ```ts
 * citeFinalHandoff(final, finalCites(journal, ctx.attempts)).evidence.attempts.at(-1);
 * // { snippet: 'A.lean:2', result: 'solved: 20261206T…-…#3' }
 * ```
 */
export function citeFinalHandoff(final: Handoff, cited: readonly CitedOutcome[]): Handoff {
  const attempts = [...final.evidence.attempts];
  const avenues = [...final.failed_avenues];
  for (const c of cited) {
    if (c.solved) {
      if (!attempts.some((a) => a.snippet === c.target && a.result === c.words))
        attempts.push({ snippet: c.target, result: c.words });
    } else if (!avenues.includes(c.words)) avenues.push(c.words);
  }
  return { ...final, failed_avenues: avenues, evidence: { ...final.evidence, attempts } };
}
