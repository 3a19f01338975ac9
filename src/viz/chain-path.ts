/**
 * Chain journal → chain-machine path (pure): derives the seam-lifecycle states a stored handoff-chain
 * run (`run-store-manifest/chain-v1`) went through, so `handoff inspect` can draw it over the chain
 * machine (`machines/chain.ts`).
 *
 * | journal item | states (chain nodes) |
 * |---|---|
 * | manifest (holds the start baton) | `ready` |
 * | `baton-commit` #k (stage S) | `running` → `validating` → `committed` (the commit proves S ran and its delta passed) |
 * | the last baton's trace covers every stage | `accepted` |
 *
 * The journal holds commits only: a stage failure or seam refusal (`failed`), a retry, a give-up
 * (`stopped`) or a kill leaves no event, so they are never drawn; a run whose last baton is not
 * complete is reported unfinished.
 */

import { formatCite } from '../store/cite.js';
import type { PathStep } from './overlay.js';

/** The chain-run items this mapping reads (a subset of a chain run's load). */
export interface ChainJournalLike {
  readonly run_id: string;
  readonly manifest: {
    readonly stages: readonly string[];
    readonly start_baton: { readonly revision: number; readonly snapshot_id: string };
  };
  readonly events: readonly {
    readonly seq: number;
    readonly payload: {
      readonly baton: { readonly revision: number; readonly snapshot_id: string };
      readonly receipt: { readonly stage_name: string };
    };
  }[];
}

/** A state step of a chain run. */
export interface ChainPhaseStep extends PathStep {
  /** The chain node (`ready`, `running`, `validating`, `committed`, `accepted`). */
  readonly state: string;
  /** `<run_id>#<seq>` or `<run_id>#manifest`. */
  readonly cite: string;
  readonly seq: number | null;
  /** The stage of the commit the step comes from (null for the start baton). */
  readonly stage: string | null;
  /** `trace`: a step of the recorded transition trace (`chainRecordedPath`), not derived. */
  readonly source: 'manifest' | 'baton-commit' | 'acceptance' | 'trace';
}

/** The derived path of a chain run. */
export interface ChainJournalPath {
  readonly steps: readonly ChainPhaseStep[];
  /** True when the last committed baton's trace covers every stage (the chain was accepted). */
  readonly finished: boolean;
  /** The last committed revision and the number of stages. */
  readonly revision: number;
  readonly stage_count: number;
  /** What this derivation could not know (always includes the general limit). */
  readonly limits: readonly string[];
}

/** The limit that applies to every derived chain path. */
export const CHAIN_PATH_LIMIT =
  'the journal records commits only: running and validating are implied by each baton-commit; stage failures and seam refusals (failed), retries, give-ups (stopped) and kills leave no event and are not drawn';

/**
 * Derives the chain-machine states of a chain run from its journal (see the module comment).
 *
 * @example
 * ```ts
 * const p = chainJournalPath(load); // load of a chain run with 5 commits over 5 stages
 * p.steps.map((s) => s.state); // ['ready', 'running', 'validating', 'committed', …, 'accepted']
 * ```
 */
export function chainJournalPath(load: ChainJournalLike): ChainJournalPath {
  const run = load.run_id;
  const start = load.manifest.start_baton;
  const steps: ChainPhaseStep[] = [
    {
      state: 'ready',
      cite: formatCite(run, 'manifest'),
      seq: null,
      stage: null,
      source: 'manifest',
      label: `${formatCite(run, 'manifest')} start baton r${start.revision}`,
    },
  ];
  let revision = start.revision;
  for (const e of load.events) {
    const cite = formatCite(run, e.seq);
    const stage = e.payload.receipt.stage_name;
    for (const state of ['running', 'validating', 'committed'] as const) {
      steps.push({
        state,
        cite,
        seq: e.seq,
        stage,
        source: 'baton-commit',
        label: state === 'committed' ? `${cite} ${stage} r${e.payload.baton.revision}` : `${cite} ${stage}`,
      });
    }
    revision = e.payload.baton.revision;
  }
  const count = load.manifest.stages.length;
  const finished = revision === count;
  const limits = [CHAIN_PATH_LIMIT];
  if (finished) {
    const last = steps[steps.length - 1] as ChainPhaseStep;
    steps.push({
      state: 'accepted',
      cite: last.cite,
      seq: last.seq,
      stage: null,
      source: 'acceptance',
      label: `${last.cite} every stage committed`,
    });
  } else {
    limits.push(
      `the run ends at revision ${revision} of ${count} (next stage ${load.manifest.stages[revision] ?? '?'}): unfinished — it failed at a seam, was given up or killed, or still runs`,
    );
  }
  return { steps, finished, revision, stage_count: count, limits };
}
