/**
 * The LangGraph state of a chain graph: the committed baton, the last seam failure, the attempt
 * count on the current stage, the acceptance receipt, and the commits made durable so far.
 */

import type { AcceptanceReceipt } from '../../chain/acceptance-receipt.js';
import type { Baton } from '../../chain/baton.js';
import type { SeamCode } from '../../chain/seam-error.js';
import { Annotation } from './peer.js';

/**
 * Why a chain node committed nothing:
 * - one of the nine seam codes (`stage_failed`, `promised_fact_missing`, …) — the stage's work
 *   was refused at its seam;
 * - `commit_failed` — the work was valid but the journal did not make it durable (`busy`,
 *   `journal_conflict`, …);
 * - `invalid_checkpoint` — the baton given to the graph is not a checkpoint of this chain;
 * - `baton_not_committed` — the baton in the state is not the journal's last commit (a node or a
 *   state update forged or replaced it);
 * - `wrong_stage` — the node is not the stage the baton is at (a mis-wired graph).
 *
 * @example
 * ```ts
 * const c: ChainNodeCode = 'baton_not_committed';
 * ```
 */
export type ChainNodeCode =
  | SeamCode
  | 'commit_failed'
  | 'invalid_checkpoint'
  | 'baton_not_committed'
  | 'wrong_stage';

/**
 * A refusal recorded in the state: which stage (or `admit` for the graph's entry), why, and the
 * checkpoint (the last committed baton) a retry starts from — under the same `stage_run_id`.
 *
 * @example
 * ```ts
 * const f: ChainNodeFailure = { code: 'stage_failed', stage: 'settle', detail: 'Error: ledger offline',
 *   stage_run_id: 'payroll-2026-06::settle::r1::…', checkpoint: 'payroll-2026-06::r1::…' };
 * ```
 */
export interface ChainNodeFailure {
  readonly code: ChainNodeCode;
  readonly stage: string;
  readonly detail: string;
  /** The run id the stage had (and a retry keeps); null when no stage could run. */
  readonly stage_run_id: string | null;
  /** The snapshot id of the checkpoint, or null when there is none. */
  readonly checkpoint: string | null;
}

/**
 * One commit made durable by a chain graph (its cite when the journal is the run store's).
 *
 * @example
 * ```ts
 * const c: ChainGraphCommit = { stage: 'settle', revision: 2, snapshot_id: 'payroll-2026-06::r2::…', cite: '…#2' };
 * ```
 */
export interface ChainGraphCommit {
  /** The stage whose commit this is; null for the starting baton. */
  readonly stage: string | null;
  readonly revision: number;
  readonly snapshot_id: string;
  /** `<run_id>#<seq>` (`<run_id>#manifest` for the start) with the run-store journal, else null. */
  readonly cite: string | null;
}

/**
 * The state of a chain graph. Invoke it with `{ baton }` (a fresh baton, or a checkpoint to resume
 * from); read the outcome with `chainGraphOutcome`.
 *
 * @example
 * ```ts
 * const final = await chainGraph(chain, { journal }).compile().invoke({ baton: b0 });
 * final.acceptance?.decision; // 'accepted'
 * ```
 */
export const ChainGraphAnnotation = Annotation.Root({
  /** The last committed baton (the input baton until the entry has admitted it). */
  baton: Annotation<Baton>(),
  /** The last refusal, null after a commit. */
  failure: Annotation<ChainNodeFailure | null>({
    reducer: (_a: ChainNodeFailure | null, b: ChainNodeFailure | null) => b,
    default: () => null,
  }),
  /** Attempts made on the current stage that committed nothing (reset by each commit). */
  attempt: Annotation<number>({ reducer: (_a: number, b: number) => b, default: () => 0 }),
  /** The acceptance receipt once the last stage has committed. */
  acceptance: Annotation<AcceptanceReceipt | null>({
    reducer: (_a: AcceptanceReceipt | null, b: AcceptanceReceipt | null) => b,
    default: () => null,
  }),
  /** Every commit this graph run made durable, in order. */
  commits: Annotation<readonly ChainGraphCommit[]>({
    reducer: (a: readonly ChainGraphCommit[], b: readonly ChainGraphCommit[]) => [...a, ...b],
    default: () => [],
  }),
});

/**
 * The state of a chain graph.
 *
 * @example
 * ```ts
 * const s: ChainGraphState = await compiled.invoke({ baton: b0 });
 * ```
 */
export type ChainGraphState = typeof ChainGraphAnnotation.State;

/**
 * The names of the chain graph's state channels (a stage may not be named like one).
 *
 * @example
 * ```ts
 * CHAIN_STATE_KEYS.includes('baton'); // true
 * ```
 */
export const CHAIN_STATE_KEYS = ['baton', 'failure', 'attempt', 'acceptance', 'commits'] as const;

/**
 * What a chain graph's nodes write into the state.
 *
 * @example
 * ```ts
 * const u: ChainNodeUpdate = { failure: null, attempt: 0 };
 * ```
 */
export type ChainNodeUpdate = Partial<{
  readonly baton: Baton;
  readonly failure: ChainNodeFailure | null;
  readonly attempt: number;
  readonly acceptance: AcceptanceReceipt | null;
  readonly commits: readonly ChainGraphCommit[];
}>;
