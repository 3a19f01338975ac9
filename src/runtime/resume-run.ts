/**
 * `handoff run --resume RUN_ID` (layer 3): continues a persisted run that was killed, in the same
 * journal. Before anything runs: the run's lock left by a dead writer is broken only by the
 * store's own audited recovery (`recoverRun`: same host, no such pid — journaled as a note; a live
 * or unverifiable owner is `busy`), the run is loaded and judged resumable (src/persist
 * `resumeVerdict`: a whole journal, no final handoff), and the controller state is rebuilt from
 * the journal. The run then goes on under the same rules as any run: the owned files must still be
 * what the journal last knew ({@link resumeCustodyCheck}), the last blocker-driven handoff carries
 * its blocker into the rerun guard, and a target whose cycle committed is not open any more, so it
 * is not dispatched again.
 */
import type { Handoff } from '../contract/index.js';
import { isBlockerDriven } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import {
  custodyDrift,
  type JournalCustody,
  type ResumeVerdict,
  resumeVerdict,
} from '../persist/resume-rules.js';
import { isBatchStore, isRunId, type RunLoad, recoverRun, runPaths, type Store } from '../store/index.js';

/** A run being resumed, as the recorder holds it. */
export interface ResumedRun {
  readonly runId: string;
  /** What the journal last knew of each file (the custody the resume checks). */
  readonly custody: readonly JournalCustody[];
  /** The cites of the handoffs the earlier invocations journaled (carried, not re-attempted). */
  readonly carried: ReadonlySet<string>;
  /** The last blocker-driven worker handoff of the journal (its blocker drives the guard), or null. */
  readonly priorHandoff: Handoff | null;
  /** The store's recovery cite when a dead writer's lock was broken (or a torn tail cut), else null. */
  readonly recoveredCite: string | null;
}

/** Inputs of {@link prepareResume}. */
export interface PrepareResumeInput {
  readonly store: Store;
  /** The fs store's root when the store is the fs store on this machine (recovery runs), else null. */
  readonly fsRoot: string | null;
  readonly runId: string;
  readonly projectRoot: string;
}

const VERDICT_CODE = {
  run_finished: 'usage',
  journal_damaged: 'journal_damaged',
  not_resumable: 'usage',
} as const;

/**
 * Recovers a dead writer's lock (fs store), loads the run and judges it; resolves to the verdict
 * (state, journaled handoffs, custody) or throws a {@link HandoffError}: `bad_run_id`,
 * `no_such_run`, `busy` (a live or unverifiable owner), `journal_damaged`, `usage` (finished or not
 * a cycle run), or the recovery's own code.
 *
 * @example
 * ```ts
 * const { verdict, resumed } = await prepareResume({ store, fsRoot: root, runId, projectRoot: '/repo' });
 * ```
 */
export async function prepareResume(
  i: PrepareResumeInput,
): Promise<{ verdict: Extract<ResumeVerdict, { ok: true }>; resumed: ResumedRun }> {
  if (!isRunId(i.runId))
    throw new HandoffError(
      'bad_run_id',
      `--resume names a run id (YYYYMMDDTHHMMSSZ-<8 hex>): ${JSON.stringify(i.runId)}`,
      { details: { run_id: i.runId } },
    );
  let recoveredCite: string | null = null;
  if (i.fsRoot !== null) {
    const r = await recoverRun({ root: i.fsRoot, runId: i.runId });
    if (r.outcome === 'refused' || r.outcome === 'incomplete') {
      throw new HandoffError(
        r.code ?? 'busy',
        r.reason === undefined
          ? `--resume ${i.runId}: ${r.detail}`
          : `--resume ${i.runId}: the run's lock cannot be recovered (${r.reason}): ${r.detail}`,
        { details: { recover: r } },
      );
    }
    if (r.outcome === 'recovered') recoveredCite = r.cite ?? null;
  }
  const l = await i.store.load(i.runId);
  if (!l.ok)
    throw new HandoffError(l.code, `--resume ${i.runId}: ${l.detail}`, { details: { run_id: i.runId } });
  const run = l.value as RunLoad;
  // the final handoff is journaled with the cycle's transition into its final state
  const batches = isBatchStore(i.store) ? await i.store.readBatches(i.runId) : null;
  const traces = batches?.ok ? batches.value.batches.flatMap((b) => b.trace) : [];
  const v = resumeVerdict(
    run,
    {
      storageRoot: i.store.root,
      projectRoot: i.projectRoot,
      runDirectory: i.fsRoot === null ? null : runPaths(i.fsRoot, i.runId).dir,
    },
    traces,
  );
  if (!v.ok)
    throw new HandoffError(VERDICT_CODE[v.code], `--resume: ${v.message}`, { details: { run_id: i.runId } });
  const blocker = [...v.handoffs].reverse().find((h) => isBlockerDriven(h.handoff));
  return {
    verdict: v,
    resumed: {
      runId: i.runId,
      custody: v.custody,
      carried: new Set(v.handoffs.map((h) => h.cite)),
      priorHandoff: blocker?.handoff ?? null,
      recoveredCite,
    },
  };
}

/**
 * Refuses a resume whose owned files are not what the journal last knew (a `custody_violation`
 * naming each file and the record it was last known at): the resumed run takes custody only of a
 * project its journal vouches for.
 *
 * @example
 * ```ts
 * resumeCustodyCheck(resumed, baseline.files); // throws when /repo/A.lean changed since the kill
 * ```
 */
export function resumeCustodyCheck(
  resumed: ResumedRun,
  now: readonly { readonly path: string; readonly exists: boolean; readonly sha256: string | null }[],
): void {
  const drift = custodyDrift(resumed.custody, now);
  if (drift.length === 0) return;
  throw new HandoffError(
    'custody_violation',
    `--resume ${resumed.runId}: the project changed since the run was killed: ${drift.join(', ')} (put the files back, or start a new run with --prior-run ${resumed.runId})`,
    { details: { drift } },
  );
}
