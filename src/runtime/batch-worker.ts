/**
 * A batch of worker dispatches (layer 3; seed 002 § Delegation Execution Policy, rules 3–4): the
 * inputs run in waves of pairwise disjoint owned files (src/cycle/batch.ts `disjointGroups`, at
 * most `maxDelegates` per wave), the members of a wave concurrently, each beside its siblings
 * (`workBeside`): one wave shares one view of the workspace, in which a sibling's writes to its
 * own owned files are not a custody violation while every other write still is (refused fail
 * closed: a write outside every owned file is charged to each dispatch whose watch saw it), and
 * each worker's owned files are checked against its own handoff. When the run's custody watches a
 * run store (the recorder writes the journal while workers run), a wave cannot be watched jointly
 * and the dispatches run one at a time.
 */
import { disjointGroups } from '../cycle/batch.js';
import type { WorkerInput, WorkOutcome } from '../cycle/types.js';
import type { DelegatingWorkerPort } from './delegating-worker.js';
import { ownedPathsOf } from './dispatch-builder.js';
import type { Unstamped } from './ports.js';

/** Options of {@link runBatch}. */
export interface BatchOptions {
  /** The project root the inputs' owned files resolve under. */
  readonly projectRoot: string;
  /** Max dispatches running at once (`--max-delegates`; at least 1). */
  readonly maxDelegates: number;
  /** Aborts every running dispatch. */
  readonly signal?: AbortSignal;
}

/**
 * Runs `inputs` as a batch and resolves to their outcomes in input order. Dispatches that share
 * an owned file never run at the same time and keep their input order; a wave runs at most
 * `maxDelegates` dispatches. When one dispatch rejects (a run-ending failure), the rest of its
 * wave is awaited first, then the first rejection is thrown and no later wave starts.
 *
 * @example
 * ```ts
 * const outcomes = await runBatch(worker, [inputA, inputB], { projectRoot: '/repo', maxDelegates: 2 });
 * ```
 */
export async function runBatch(
  worker: DelegatingWorkerPort,
  inputs: readonly WorkerInput[],
  o: BatchOptions,
): Promise<Unstamped<WorkOutcome>[]> {
  const owned = inputs.map((i) => {
    const p = ownedPathsOf(o.projectRoot, i);
    return p.ok ? p.owned : [];
  });
  const cap = (await worker.watchesStore()) ? 1 : o.maxDelegates;
  const waves = disjointGroups(
    owned.map((files, k) => ({ id: String(k), owned: files })),
    cap,
  );
  const signal = o.signal ?? new AbortController().signal;
  const out: Unstamped<WorkOutcome>[] = new Array(inputs.length);
  for (const wave of waves) {
    const members = wave.map(Number);
    const settled = await Promise.allSettled(
      members.map((k) => {
        const siblings = members.filter((m) => m !== k).flatMap((m) => owned[m] ?? []);
        return worker.workBeside(inputs[k] as WorkerInput, signal, siblings);
      }),
    );
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
    settled.forEach((r, n) => {
      out[members[n] as number] = (r as PromiseFulfilledResult<Unstamped<WorkOutcome>>).value;
    });
  }
  return out;
}
