/**
 * Which machine a stored run is drawn and replayed over (pure). A handoff-chain run names it by
 * its manifest (`run-store-manifest/chain-v1` → `chain`); a run-contract run's manifest is the
 * same for `handoff run`/`runProject` and for `delegate`, so the run names its machine by the
 * transitions it recorded: the machine of its first recorded step among the run-contract machines
 * (`cycle`, `delegation`). A run without a recorded trace is drawn over the cycle machine, its path
 * inferred from the journal.
 */

/** The machines a run-contract run (`run-store-manifest/v1|v2`) may record transitions of. */
export const RUN_CONTRACT_MACHINES = ['cycle', 'delegation'] as const;

/** A machine a stored run is drawn over. */
export type RunMachine = 'chain' | (typeof RUN_CONTRACT_MACHINES)[number];

/** What the pick reads of a batch record: its status and its steps' machines. */
export interface MachineTaggedBatch {
  readonly status: string;
  readonly trace: readonly { readonly machine: string }[];
}

/**
 * The machine a run is drawn over: `chain` for a chain run, else the machine of the first step of
 * its complete batch records that names a run-contract machine, else `cycle`.
 *
 * @example
 * ```ts
 * runMachine(false, [{ status: 'complete', trace: [{ machine: 'delegation' }] }]); // 'delegation'
 * runMachine(false, []); // 'cycle'
 * ```
 */
export function runMachine(isChainRun: boolean, batches: readonly MachineTaggedBatch[]): RunMachine {
  if (isChainRun) return 'chain';
  const known: readonly string[] = RUN_CONTRACT_MACHINES;
  for (const b of batches) {
    if (b.status !== 'complete') continue;
    const step = b.trace.find((s) => known.includes(s.machine));
    if (step !== undefined) return step.machine as RunMachine;
  }
  return 'cycle';
}

/** The limit a delegation run's path states: its last recorded step is the handoff's journal write. */
export const DELEGATION_SETTLE_LIMIT =
  'the settle after the handoff write (journal → settled, refused or failed) is not recorded: no journal write follows it; the effective handoff says how the delegation ended';
