/**
 * The run-store {@link ChainJournal} (effects layer): a chain's commits as a chain run of the run
 * store (`run-store-manifest/chain-v1`). The first commit of a baton creates the run (its manifest
 * holds the chain id, the canonical task contract, the stage names and the start baton); every
 * later commit is one `baton-commit` event `{ baton, receipt }`, appended under the run's lock and
 * acknowledged only once durable. `loadLast` rebuilds the last committed baton from the run's
 * validated journal, so a process killed mid-chain resumes from it with the same `stage_run_id`.
 */

import type { MachineInspector } from '../../machines/inspector.js';
import { createTraceCollector } from '../audit/trace-collector.js';
import { deepFreeze } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import { formatCite } from '../store/cite.js';
import {
  type AnyLoadResult,
  type ChainRunLoad,
  type ChainRunStore,
  isBatchStore,
  type StoreResult,
} from '../store/store.js';
import type { TraceStep } from '../store/store-types.js';
import { type Baton, batonProblems } from './baton.js';
import { assertSequence, type ChainJournal, chainJournalSequence, type JournalEntry } from './journal.js';
import { type ChainTaskContract, contractDigest } from './task-contract.js';

/** What the journal needs to know of the chain whose runs it writes (a `HandoffChain` fits). */
export interface StoreJournalChain {
  readonly chain_id: string;
  readonly contract: ChainTaskContract;
  readonly specs: readonly { readonly name: string }[];
}

/** Options of {@link createStoreChainJournal}. */
export interface StoreChainJournalOptions {
  /**
   * Whether `loadLast` of a baton this journal object has not written looks for the latest chain
   * run of the same chain, baton and contract in the store (resume after a crash). Default true;
   * false makes every baton start a fresh run.
   */
  readonly discover?: boolean;
  /**
   * Whether each `baton-commit` carries the chain machine's transitions since the previous commit
   * (a batch record of the store, read by `handoff audit RUN_ID`). Default true; needs a store with
   * `appendBatch` (fs, memory, PostgreSQL) — other stores get plain appends. The journal observes
   * the machine through {@link StoreChainJournal.inspect}, which `chain.run` attaches by itself. A
   * journal object records one machine at a time: run batons one after another through it (or
   * give concurrent runs a journal object each) for exact traces.
   */
  readonly trace?: boolean;
}

/** One commit made durable in the run store. */
export interface StoreChainCommit {
  readonly run_id: string;
  /** The event's seq, or null for the start baton (held by the manifest). */
  readonly seq: number | null;
  /** `<run_id>#<seq>`, or `<run_id>#manifest` for the start baton. */
  readonly cite: string;
  /** The stage whose commit this is (null for the start baton). */
  readonly stage: string | null;
  readonly revision: number;
  readonly snapshot_id: string;
}

/** The run-store journal, with the runs and cites it wrote or resumed. */
export interface StoreChainJournal extends ChainJournal {
  /** The run this journal object writes `batonId`'s commits to, once known. */
  runOf(batonId: string): string | undefined;
  /** The commits of `batonId` in its current run, the start baton first. */
  commits(batonId: string): readonly StoreChainCommit[];
  /**
   * The inspector that records the chain machine's transitions for the next commit's trace
   * (undefined with `trace: false`); `chain.run`/`resume`/`runChainMachine` attach it themselves.
   */
  readonly inspect?: MachineInspector;
}

interface RunState {
  run_id: string;
  last: Baton;
  /** The run's journal is damaged: it takes no more commits; the next goes to a new run. */
  damaged: boolean;
  commits: StoreChainCommit[];
}

/** A store refusal or failure as a thrown HandoffError (the store code when there is one). */
function storeFailure(what: string, r: StoreResult | AnyLoadResult): HandoffError {
  if ('ok' in r) {
    if (r.ok) return new HandoffError('internal', `${what}: unexpected load`);
    return new HandoffError(r.code, `${what}: ${r.code}: ${r.detail}`, {
      details: { run_id: r.run_id, code: r.code },
    });
  }
  const code = r.code ?? `store_${r.outcome}`;
  return new HandoffError(code, `${what}: ${r.outcome}${r.code ? ` (${r.code})` : ''}: ${r.detail ?? ''}`, {
    details: {
      run_id: r.run_id,
      outcome: r.outcome,
      code: r.code ?? null,
      step: r.step ?? null,
      seq: r.seq ?? null,
    },
  });
}

function commitsOf(load: ChainRunLoad): StoreChainCommit[] {
  const run = load.run_id;
  const start = load.manifest.start_baton;
  return [
    {
      run_id: run,
      seq: null,
      cite: `${run}#manifest`,
      stage: null,
      revision: start.revision,
      snapshot_id: start.snapshot_id,
    },
    ...load.events.map((e) => ({
      run_id: run,
      seq: e.seq,
      cite: formatCite(run, e.seq),
      stage: e.payload.receipt.stage_name,
      revision: e.payload.baton.revision,
      snapshot_id: e.payload.baton.snapshot_id,
    })),
  ];
}

/**
 * Opens a {@link ChainJournal} over a run store that holds chain runs (`createFsStore`,
 * `createMemoryStore`). One journal object serves one chain (its id, contract and stages go into
 * the manifests it creates); commits of one object are queued.
 *
 * - `commit` of a baton this object knows no run for creates a chain run starting from that baton
 *   (`createChainRun`); later commits append `baton-commit` events. Re-committing the last state
 *   is a no-op; anything out of sequence is `journal_conflict` (the store refuses it with
 *   `baton_out_of_sequence`; the journal re-reads the run and answers like the file journal).
 * - `loadLast` reads the run back (every line re-validated by the store: schemas, fingerprints,
 *   the revision/fingerprint chain) and re-checks the last baton's fingerprint. Without a known
 *   run it finds the latest run of the same chain, baton and contract (unless `discover: false`).
 * - A run whose journal is damaged (e.g. a torn last line) still yields its last valid baton; the
 *   next commit then starts a new run from it whose manifest names the damaged run as `prior_run`.
 * - Store refusals are thrown as HandoffErrors with the store's code (`busy` when another writer
 *   holds the run's lock — never broken —, `journal_damaged`, …; `store_indeterminate` when a
 *   write failed part-way).
 *
 * @example
 * ```ts
 * const store = createFsStore({ root: '/var/lib/payroll/.handoff' });
 * const journal = createStoreChainJournal(store, chain);
 * await chain.run(b0, { journal });            // a new chain run, one baton-commit per seam
 * await chain.resume(journal, 'payroll-2026-06'); // after a crash: from the last committed baton
 * ```
 */
export function createStoreChainJournal(
  store: ChainRunStore,
  chain: StoreJournalChain,
  options: StoreChainJournalOptions = {},
): StoreChainJournal {
  const digest = contractDigest(chain.contract);
  const stages = chain.specs.map((s) => s.name);
  const discover = options.discover ?? true;
  const runs = new Map<string, RunState>();
  let queue: Promise<unknown> = Promise.resolve();
  const collector = options.trace === false ? null : createTraceCollector({ machines: ['chain'] });

  const adopt = (load: ChainRunLoad): RunState => {
    const last = deepFreeze(structuredClone(load.last_baton) as Baton);
    const problems = batonProblems(last);
    if (problems.length > 0)
      throw new HandoffError('journal_damaged', `${load.run_id}: last baton: ${problems.join('; ')}`, {
        details: { run_id: load.run_id },
      });
    const state: RunState = {
      run_id: load.run_id,
      last,
      damaged: load.damaged,
      commits: commitsOf(load),
    };
    runs.set(load.manifest.baton_id, state);
    return state;
  };

  const loadChainRun = async (runId: string): Promise<ChainRunLoad> => {
    const r = await store.loadRun(runId);
    if (!r.ok) throw storeFailure(`cannot load ${runId}`, r);
    if (!('last_baton' in r.value))
      throw new HandoffError('journal_conflict', `${runId} is not a chain run`, {
        details: { run_id: runId },
      });
    return r.value;
  };

  const mine = (load: ChainRunLoad, batonId: string): boolean =>
    load.manifest.chain_id === chain.chain_id &&
    load.manifest.baton_id === batonId &&
    load.manifest.contract_digest === digest;

  const findLatest = async (batonId: string): Promise<ChainRunLoad | undefined> => {
    const ids = await store.listRuns();
    for (let i = ids.length - 1; i >= 0; i--) {
      const r = await store.loadRun(ids[i] as string);
      if (r.ok && 'last_baton' in r.value && mine(r.value, batonId)) return r.value;
    }
    return undefined;
  };

  const loadLast = async (batonId: string): Promise<Baton | undefined> => {
    const known = runs.get(batonId);
    if (known !== undefined) return adopt(await loadChainRun(known.run_id)).last;
    if (!discover) return undefined;
    const found = await findLatest(batonId);
    return found === undefined ? undefined : adopt(found).last;
  };

  const createRun = async (start: Baton, priorRun: string | null): Promise<RunState> => {
    const r = await store.createChainRun({
      chainId: chain.chain_id,
      contract: chain.contract,
      stages,
      startBaton: start,
      priorRun,
    });
    if (r.outcome !== 'committed' || r.run_id === null)
      throw storeFailure(`cannot create a chain run for ${start.snapshot_id}`, r);
    const state: RunState = {
      run_id: r.run_id,
      last: start,
      damaged: false,
      commits: [
        {
          run_id: r.run_id,
          seq: null,
          cite: `${r.run_id}#manifest`,
          stage: null,
          revision: start.revision,
          snapshot_id: start.snapshot_id,
        },
      ],
    };
    runs.set(start.baton_id, state);
    return state;
  };

  /** One `baton-commit`: with the machine's steps since the last commit as its batch's trace. */
  const write = (runId: string, payload: unknown, trace: readonly TraceStep[]): Promise<StoreResult> =>
    trace.length > 0 && isBatchStore(store)
      ? store.appendBatch(runId, [{ kind: 'baton-commit', payload }], { trace })
      : store.append(runId, 'baton-commit', payload);

  const append = async (
    state: RunState,
    entry: JournalEntry,
    retried = false,
    trace: readonly TraceStep[] = collector?.take() ?? [],
  ): Promise<void> => {
    const receipt = entry.receipt;
    if (receipt === null) throw new HandoffError('internal', 'a baton commit needs its receipt');
    const r = await write(state.run_id, { baton: entry.baton, receipt }, trace);
    if (r.outcome === 'committed' && r.seq !== undefined) {
      state.last = entry.baton;
      state.commits.push({
        run_id: state.run_id,
        seq: r.seq,
        cite: formatCite(state.run_id, r.seq),
        stage: receipt.stage_name,
        revision: entry.baton.revision,
        snapshot_id: entry.baton.snapshot_id,
      });
      return;
    }
    if (r.outcome === 'nothing_written' && r.code === 'baton_out_of_sequence') {
      // another writer extended the run: answer from what is committed now
      const fresh = adopt(await loadChainRun(state.run_id));
      if (!assertSequence(fresh.last, entry)) return;
      if (!retried) return append(fresh, entry, true, trace);
    }
    throw storeFailure(`cannot commit ${entry.baton.snapshot_id} to ${state.run_id}`, r);
  };

  const commitNow = async (entry: JournalEntry): Promise<void> => {
    const b = entry.baton;
    if (b.contract_digest !== digest)
      throw new HandoffError(
        'journal_conflict',
        `journal refuses ${b.snapshot_id}: bound to contract ${b.contract_digest}, this journal's chain is ${digest}`,
        { details: { baton_id: b.baton_id } },
      );
    const state = runs.get(b.baton_id);
    if (state === undefined) {
      if (chainJournalSequence(undefined, entry) !== 'append') assertSequence(undefined, entry);
      collector?.take(); // steps still pending belong to an earlier machine, not to this run
      await createRun(b, null);
      return;
    }
    if (state.damaged) {
      const s = chainJournalSequence(state.last, entry);
      if (s === 'duplicate') {
        collector?.take(); // as below: the steps belong to a machine that wrote nothing after them
        await createRun(b, state.run_id);
        return;
      }
      if (s === 'append') {
        await append(await createRun(state.last, state.run_id), entry);
        return;
      }
      assertSequence(state.last, entry);
    }
    if (!assertSequence(state.last, entry)) {
      // a duplicate writes nothing (a resumed run's start baton is the last commit): the steps still
      // pending belong to a machine that wrote nothing after them (a run stopped at a seam) and are
      // dropped, as the file journal does — the resumed machine's steps open the next batch
      collector?.take();
      return;
    }
    await append(state, entry);
  };

  return {
    commit(entry) {
      const run = queue.then(() => commitNow(entry));
      queue = run.catch(() => undefined);
      return run;
    },
    loadLast(batonId) {
      const run = queue.then(() => loadLast(batonId));
      queue = run.catch(() => undefined);
      return run;
    },
    runOf: (batonId) => runs.get(batonId)?.run_id,
    commits: (batonId) => [...(runs.get(batonId)?.commits ?? [])],
    ...(collector === null ? {} : { inspect: collector.inspect }),
  };
}
