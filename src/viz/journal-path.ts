/**
 * Journal → cycle path (pure): derives the phases a persisted cycle run went through from its
 * run-store journal, so `handoff inspect` can draw the run over the cycle machine.
 *
 * The journal records boundaries, not states, so the mapping is coarse and says so:
 * | journal item | phase (cycle node) |
 * |---|---|
 * | manifest (holds the first dispatch) | `plan`, then `work` |
 * | `dispatch` (a redispatch) | `work` |
 * | `handoff` (a worker's) | `checkpoint` (the worker returned; the checkpoint gate runs next) |
 * | `review` right after a `replan` | `boundary.stuckReview` (the human asked for a stuck review) |
 * | other `review` | `review` |
 * | `replan` | `replan` |
 * | final `handoff` (set-handoff) | `solved` / `stuck` / `stopped` by its status |
 * | `note` | no phase: attached to the current step |
 *
 * Everything between two recorded phases (routing, approvals, the tracker tick, the checkpoint
 * commit, …) is not in the journal; the overlay infers it as the shortest path through the
 * machine and draws it as inferred.
 *
 * The inference is mode-aware: an autoprove run (the manifest's first dispatch says `mode:
 * autoprove`) never asks a human, so its path lists the human-question states in `avoid`
 * ({@link AUTOPROVE_UNREACHABLE}) for the overlay to route around, and a `review` after a
 * `replan` is a plain `review` (the stuck review at the boundary follows a human's answer).
 */

import { formatCite } from '../store/cite.js';
import type { PathStep } from './overlay.js';

/** The journal items this mapping reads (a subset of run-store-load/v1). */
export interface JournalLike {
  readonly run_id: string;
  readonly events: readonly {
    readonly seq: number;
    readonly kind: string;
    readonly payload: unknown;
    readonly ts?: string;
  }[];
  /** The handoff cache state of the load (`current` confirms the last handoff was a set-handoff). */
  readonly handoff_cache?: 'absent' | 'current' | 'stale';
  /** The run's manifest; its first dispatch's `mode` makes the inference mode-aware. */
  readonly manifest?: unknown;
}

/** A phase step of a run. */
export interface PhaseStep extends PathStep {
  /** The cycle node path (`work`, `boundary.stuckReview`, `stopped`, …). */
  readonly state: string;
  /** `<run_id>#<seq>` or `<run_id>#manifest`. */
  readonly cite: string;
  readonly seq: number | null;
  /** The journal item the step comes from. */
  readonly source: 'manifest' | 'dispatch' | 'handoff' | 'review' | 'replan' | 'final' | 'trace';
}

/** The derived path of a run. */
export interface JournalPath {
  readonly steps: readonly PhaseStep[];
  /** Notes, each attached to the step that was current when it was recorded (index into steps). */
  readonly notes: readonly { readonly seq: number; readonly cite: string; readonly step: number }[];
  /** True when the journal ends with the run's final handoff. */
  readonly finished: boolean;
  /** What this particular derivation could not know (always includes the general limit). */
  readonly limits: readonly string[];
  /** The run's mode from its manifest, or null when the manifest does not say. */
  readonly mode: 'prove' | 'autoprove' | null;
  /** Cycle states the run cannot have been in: pass as `overlayPath`'s `avoid`. */
  readonly avoid: readonly string[];
}

/**
 * The cycle states an autoprove run never enters: every state that asks a human (plan, commit
 * and replan approval, the deep question, the falsification policy after a declined replan, the
 * continue and blocker questions; autoprove coerces `--commit ask` to `auto` and `--deep ask` to
 * `stuck`) and the stuck review, which only a human's blocker answer leads to (its router,
 * `boundary.stuckRoute`, is entered from it alone).
 */
export const AUTOPROVE_UNREACHABLE: readonly string[] = [
  'plan.approve',
  'work.askDeep',
  'checkpoint.confirm',
  'replan.approve',
  'replan.askFalsify',
  'boundary.askContinue',
  'boundary.askBlocker',
  'boundary.stuckReview',
];

/** The limit added for autoprove runs. */
export const AUTOPROVE_LIMIT =
  'autoprove asks no human: the inferred path avoids the human questions (plan, commit and replan approval, deep, falsification policy, continue, blocker) and the stuck review that follows one';

function modeOf(manifest: unknown): 'prove' | 'autoprove' | null {
  const m = (manifest as { dispatch?: { mode?: unknown } } | null | undefined)?.dispatch?.mode;
  return m === 'prove' || m === 'autoprove' ? m : null;
}

/** The limit that applies to every derived path. */
export const JOURNAL_PATH_LIMIT =
  'the journal records boundaries (dispatch, handoff, review, replan, final handoff), not machine states: routing, approvals, ticks and commits between them are inferred as the shortest path through the cycle machine';

function statusOf(payload: unknown): string | null {
  const s = (payload as { status?: unknown } | null)?.status;
  return typeof s === 'string' ? s : null;
}

/**
 * Derives the cycle phases of a run from its journal (see the module comment for the table).
 * The last `handoff` is the final one when it is the journal's last event and the handoff cache
 * confirms it (`current`) or its status is `stopped` (workers never hand back `stopped`).
 *
 * @example
 * ```ts
 * const p = journalPath({ run_id: id, events: [{ seq: 1, kind: 'handoff', payload: solved }], handoff_cache: 'current' });
 * p.steps.map((s) => s.state); // ['plan', 'work', 'solved']
 * ```
 */
export function journalPath(load: JournalLike): JournalPath {
  const run = load.run_id;
  const steps: PhaseStep[] = [
    { state: 'plan', cite: `${run}#manifest`, seq: null, source: 'manifest', label: `${run}#manifest` },
    {
      state: 'work',
      cite: `${run}#manifest`,
      seq: null,
      source: 'manifest',
      label: `${run}#manifest (first dispatch)`,
    },
  ];
  const notes: { seq: number; cite: string; step: number }[] = [];
  const limits: string[] = [JOURNAL_PATH_LIMIT];
  const mode = modeOf(load.manifest);
  if (mode === 'autoprove') limits.push(AUTOPROVE_LIMIT);
  const events = load.events;
  const last = events[events.length - 1];
  const lastStatus = last?.kind === 'handoff' ? statusOf(last.payload) : null;
  const finalSeq =
    last !== undefined &&
    last.kind === 'handoff' &&
    (load.handoff_cache === 'current' || lastStatus === 'stopped')
      ? last.seq
      : null;
  if (last !== undefined && last.kind === 'handoff' && finalSeq === null) {
    limits.push(
      `the last handoff (${formatCite(run, last.seq)}) is not confirmed as the final one (handoff cache ${load.handoff_cache ?? 'unknown'}): drawn as a worker handoff, the run as unfinished`,
    );
  }
  let prevKind: string | null = null;
  for (const e of events) {
    const cite = formatCite(run, e.seq);
    const push = (state: string, source: PhaseStep['source']): void => {
      steps.push({ state, cite, seq: e.seq, source, label: `${cite} ${e.kind}` });
    };
    switch (e.kind) {
      case 'dispatch':
        push('work', 'dispatch');
        break;
      case 'handoff':
        if (e.seq === finalSeq) {
          const status = statusOf(e.payload);
          const state =
            status === 'solved' || status === 'stuck' || status === 'stopped' ? status : 'stopped';
          push(state, 'final');
        } else push('checkpoint', 'handoff');
        break;
      case 'review':
        push(prevKind === 'replan' && mode !== 'autoprove' ? 'boundary.stuckReview' : 'review', 'review');
        break;
      case 'replan':
        push('replan', 'replan');
        break;
      default:
        notes.push({ seq: e.seq, cite, step: steps.length - 1 });
        break;
    }
    if (e.kind !== 'note') prevKind = e.kind;
  }
  if (finalSeq === null)
    limits.push('the journal has no final handoff: the run is unfinished or its finish was not stored');
  return {
    steps,
    notes,
    finished: finalSeq !== null,
    limits,
    mode,
    avoid: mode === 'autoprove' ? AUTOPROVE_UNREACHABLE : [],
  };
}
