/**
 * The stuck rules (layer 1, pure; seed 002 § Stuck Definition): a worker outcome as an attempt
 * record, the four stuck conditions checked per target after each attempt, and the immediate
 * stuck verdict of a statement-fence violation.
 */
import { blockerSignature } from '../contract/index.js';
import type { AttemptRecord, StuckVerdict, TargetInfo, WorkOutcome } from './types.js';

/**
 * The attempt record of a worker outcome, for the stuck rules.
 *
 * @example
 * ```ts
 * attemptOf(3, outcome); // { cycle: 3, solved: false, signature: 'A.lean:4:unknown identifier', … }
 * ```
 */
export function attemptOf(cycle: number, outcome: WorkOutcome & { kind: 'handoff' }): AttemptRecord {
  const h = outcome.handoff;
  const solved = h.status === 'solved';
  const signature = solved
    ? null
    : (h.blocker_signature ??
      blockerSignature(
        h.target ?? outcome.dispatch.target,
        0,
        h.evidence.diagnostic_delta ?? h.failed_avenues[0] ?? h.status,
      ));
  return {
    cycle,
    solved,
    signature,
    snippets: [...h.evidence.attempts.map((a) => a.snippet), ...h.best_candidates.map((c) => c.candidate)],
    emptySearch: h.evidence.queries.length > 0 && h.evidence.top_candidates.length === 0,
  };
}

/** Inputs of {@link detectStuck}. */
export interface StuckInputs {
  readonly target: TargetInfo;
  readonly attempts: readonly AttemptRecord[];
  readonly gateErrors: readonly (readonly string[])[];
  readonly now: number;
  readonly lastDecreaseAt: number;
  readonly openCount: number;
  readonly stallMinutes: number;
  readonly maxFailuresPerTarget: number;
  /**
   * Repair attempts per error signature over the run (repair mode available): rule 2 fires on a
   * build error still present after two real repair attempts on its signature. Absent (no
   * repair mode): rule 2 falls back to the same project-gate error on three consecutive
   * checkpoints.
   */
  readonly repairAttempts?: Readonly<Record<string, number>>;
  /** The errors in scope now (`file:line:text`: the last verify of the target); with `repairAttempts`. */
  readonly errors?: readonly string[];
}

function signatureOfError(e: string, t: TargetInfo): string {
  const m = /^(.*?):(\d+):(.*)$/.exec(e);
  return m ? blockerSignature(m[1]!, Number(m[2]), m[3]!) : blockerSignature(t.file, 0, e);
}

/**
 * The four stuck conditions of seed 002, checked in order:
 * 1. repeated-failure — the same blocker signature on two consecutive attempts, or
 *    `maxFailuresPerTarget` failures whose latest brought no new approach (no unseen snippet);
 * 2. repeated-build-error — a build error still present after two real repair attempts on its
 *    signature (the run's repair history); without repair mode, the same project-gate error on
 *    three consecutive checkpoints;
 * 3. no-progress — no decrease of the open-target count for `stallMinutes`;
 * 4. empty-search — two attempts whose searches returned nothing for the same goal.
 * The blocker signature is `(file, line, primary_error_code_or_text_hash)`.
 *
 * @example
 * ```ts
 * detectStuck({ target, attempts: [a1, a2], … })?.condition; // 'repeated-failure'
 * ```
 */
export function detectStuck(i: StuckInputs): StuckVerdict | null {
  const fails = i.attempts.filter((a) => !a.solved);
  const last = i.attempts.at(-1);
  const prev = i.attempts.at(-2);
  const sigOf = (a: AttemptRecord | undefined) =>
    a?.signature ?? blockerSignature(i.target.file, i.target.line, 'no progress');
  if (last !== undefined && !last.solved) {
    if (prev !== undefined && !prev.solved && last.signature !== null && last.signature === prev.signature) {
      return {
        target: i.target.id,
        condition: 'repeated-failure',
        signature: last.signature,
        detail: `same blocker on two consecutive attempts: ${last.signature}`,
      };
    }
    if (fails.length >= i.maxFailuresPerTarget) {
      const seen = new Set(fails.slice(0, -1).flatMap((a) => a.snippets));
      if (last.snippets.every((s) => seen.has(s))) {
        return {
          target: i.target.id,
          condition: 'repeated-failure',
          signature: sigOf(last),
          detail: `failed ${fails.length} times with no new approach`,
        };
      }
    }
  }
  if (i.repairAttempts !== undefined) {
    const present = [...new Set([...(i.errors ?? []), ...(i.gateErrors.at(-1) ?? [])])];
    const repeated = present.find((e) => (i.repairAttempts?.[signatureOfError(e, i.target)] ?? 0) >= 2);
    if (repeated !== undefined) {
      return {
        target: i.target.id,
        condition: 'repeated-build-error',
        signature: signatureOfError(repeated, i.target),
        detail: `the same build error repeated after ${i.repairAttempts[signatureOfError(repeated, i.target)]} repair attempts: ${repeated}`,
      };
    }
  }
  const g = i.repairAttempts === undefined ? i.gateErrors.slice(-3) : [];
  if (g.length === 3 && g[0]!.length > 0) {
    const common = g[0]!.filter((e) => g[1]!.includes(e) && g[2]!.includes(e));
    const first = common[0];
    if (first !== undefined) {
      const m = /^(.*?):(\d+):(.*)$/.exec(first);
      return {
        target: i.target.id,
        condition: 'repeated-build-error',
        signature: m
          ? blockerSignature(m[1]!, Number(m[2]), m[3]!)
          : blockerSignature(i.target.file, 0, first),
        detail: `the same build error on 3 consecutive checkpoints: ${first}`,
      };
    }
  }
  if (i.openCount > 0 && i.now - i.lastDecreaseAt >= i.stallMinutes * 60_000) {
    return {
      target: i.target.id,
      condition: 'no-progress',
      signature: sigOf(last),
      detail: `no decrease of the open-target count for ${i.stallMinutes}+ minutes`,
    };
  }
  const empties = i.attempts.filter((a) => a.emptySearch);
  if (empties.length >= 2) {
    return {
      target: i.target.id,
      condition: 'empty-search',
      signature: sigOf(last),
      detail: 'search returned empty twice for the same goal',
    };
  }
  return null;
}

/**
 * The stuck verdict of a statement-fence violation on `target`: the blocker signature is the
 * target's `(file, line, "header fence")` — `"falsification"` when the detail is the falsify
 * role's refusal (`falsification: …`) — and the detail names the declaration and the change.
 *
 * @example
 * ```ts
 * fenceStuck(target, 'header fence: A.lean: theorem t: statement changed (…)').condition; // 'fence-violation'
 * ```
 */
export function fenceStuck(target: TargetInfo, detail: string): StuckVerdict {
  return {
    target: target.id,
    condition: 'fence-violation',
    // the falsify role's own refusal (proving ¬P beside P's sorry) is named for what it is
    signature: blockerSignature(
      target.file,
      target.line,
      detail.startsWith('falsification:') ? 'falsification' : 'header fence',
    ),
    detail,
  };
}
