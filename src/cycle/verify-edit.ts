/**
 * Verifying a worker's claim (layer 1, pure): the diagnostics of its changed file decide whether a
 * `solved` claim holds; a claim that does not hold counts as a failed attempt.
 */
import { blockerSignature, type Handoff } from '../contract/index.js';
import type { AttemptRecord, DiagnosticsOutput, TargetInfo } from './types.js';

/**
 * The attempts with the latest one downgraded to a failure of `target` whose blocker signature
 * carries `reason` (pure): a `solved` claim that did not hold counts for the stuck rules. Without a
 * target (a sibling whose target the cycle does not know) the failure has no signature; without an
 * attempt nothing changes.
 *
 * @example
 * ```ts
 * downgradeLastAttempt([{ cycle: 1, solved: true, signature: null, snippets: [], emptySearch: false }],
 *   { file: 'A.lean', line: 2 }, 'not verified').at(-1)?.signature; // 'A.lean:2:not verified'
 * ```
 */
export function downgradeLastAttempt(
  attempts: readonly AttemptRecord[],
  target: Pick<TargetInfo, 'file' | 'line'> | undefined,
  reason: string,
): readonly AttemptRecord[] {
  const last = attempts.at(-1);
  if (last === undefined) return attempts;
  const signature = target === undefined ? null : blockerSignature(target.file, target.line, reason);
  return [...attempts.slice(0, -1), { ...last, solved: false, signature }];
}

/**
 * The label of the diagnostics tiers that answered (pure): the tiers tried joined by `→` when the
 * ladder escalated, else the one tier.
 *
 * @example
 * ```ts
 * tiersLabel({ tier: 'project', tiersTried: ['file-fast', 'project'] }); // 'file-fast → project'
 * ```
 */
export function tiersLabel(out: Pick<DiagnosticsOutput, 'tier' | 'tiersTried'>): string {
  return out.tiersTried && out.tiersTried.length > 1 ? out.tiersTried.join(' → ') : out.tier;
}

/** The verdict of verifying a worker's edit (see {@link verifyEdit}). */
export interface EditVerification {
  /** The attempts of the current target, the latest downgraded when the claim did not hold. */
  readonly attempts: readonly AttemptRecord[];
  readonly confirmed: boolean;
  readonly line: string;
}

/**
 * Checks a worker's claim against the diagnostics of the files changed this cycle (the ladder's
 * `edit` question; `files` defaults to the target's file): a `solved` claim holds only when the
 * target is no longer open and none of those files reports an error; otherwise the latest attempt
 * counts as a failure whose signature is the first error (or `not verified`), so the stuck rules
 * see it. A target the port keeps open with a reason (its goal extended: a moved escape hatch, an
 * unverifiable file) is named with that reason.
 *
 * @example
 * ```ts
 * verifyEdit(target, attempts, 'solved', diagnostics).confirmed; // false when A.lean:2 is still open
 * ```
 */
export function verifyEdit(
  t: TargetInfo,
  attempts: readonly AttemptRecord[],
  claimed: Handoff['status'],
  out: Pick<DiagnosticsOutput, 'tier' | 'targets' | 'errors' | 'tiersTried'>,
  files: readonly string[] = [t.file],
): EditVerification {
  const tiers = tiersLabel(out);
  const open = out.targets.some((x) => x.id === t.id);
  const checked = files.includes(t.file) ? files : [t.file, ...files];
  const errors = out.errors.filter((e) => checked.some((f) => e.startsWith(`${f}:`)));
  if (claimed !== 'solved') {
    return { attempts, confirmed: true, line: `verify (${tiers}): ${t.file} checked (${claimed} claim)` };
  }
  if (!open && errors.length === 0) {
    return { attempts, confirmed: true, line: `verify (${tiers}): ${t.id} confirmed` };
  }
  // a port that keeps a moved or unreadable target open says why after the goal it first reported
  const still = out.targets.find((x) => x.id === t.id);
  const more =
    still !== undefined && still.goal !== t.goal && still.goal.startsWith(t.goal)
      ? still.goal.slice(t.goal.length).trim()
      : '';
  const why = errors[0] ?? `${t.id} still open${more === '' ? '' : ` ${more}`}`;
  const reason = errors[0] ? errors[0].replace(/^.*?:\d+:/, '') : 'not verified';
  return {
    attempts: downgradeLastAttempt(attempts, t, reason),
    confirmed: false,
    line: `verify (${tiers}): ${t.id} not confirmed — ${why}`,
  };
}
