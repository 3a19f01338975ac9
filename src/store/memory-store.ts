/**
 * An in-memory {@link Store} for tests of other modules: the same validation, seq and lock rules
 * as the durable backends, no durability. Outcomes can be scripted to exercise failure policies
 * (`scriptNext`), and locks can be held from outside (`holdLock`) to produce `busy`.
 */

import type { IdSource } from '../ids/index.js';
import { eventLine } from './append-rules.js';
import { assembleBatches, BATCH_SCHEMA, batchSha256, type LinedRecord, traceProblem } from './batch-rules.js';
import { fastCanonicalJsonUtf8, unwritableIn } from './canonical-fast.js';
import {
  batonCommitProblem,
  buildChainManifest,
  type ChainManifestBuild,
  checkBatonCommit,
  tailOf,
} from './chain-rules.js';
import {
  BATON_COMMIT_KIND,
  CHAIN_EVENT_SCHEMA,
  type ChainStoreEvent,
  isChainManifest,
  type StoredManifest,
} from './chain-schema.js';
import { buildManifest, type ManifestBuild, RUNTIME_VERSION } from './manifest.js';
import { quoteValue } from './quote-value.js';
import { formatTimestamp, isRunId } from './run-id.js';
import { assembleChainLoad, assembleLoad, contractLoadOnly } from './run-load.js';
import { eventSchemaOf, type HandoffCache, type Manifest, type StoreEvent } from './schema.js';
import {
  type AnyLoadResult,
  type AppendBatchOptions,
  type BatchEntry,
  type BatchesLoadResult,
  type BatchStore,
  type ChainRunStore,
  type CreateRunInput,
  type LoadResult,
  refused,
  type StoreEventKind,
  type StoreResult,
  storeResult,
  type TraceStep,
} from './store.js';
import { validateEventPayload } from './validate-payload.js';

/** A scripted outcome for the next mutation of a {@link MemoryStore}. */
export interface ScriptedOutcome {
  /** The outcome to report. */
  readonly outcome: StoreResult['outcome'];
  /** For `indeterminate` and `journal_only`: whether the event is actually stored. Default: true for journal_only, false for indeterminate. */
  readonly writes?: boolean;
  readonly code?: StoreResult['code'];
  readonly step?: string;
  readonly detail?: string;
}

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /** Clock for `created` and event `ts`. Default: `() => new Date()`. */
  readonly now?: () => Date;
  /** The source of a new run id's 8 hex digits (deterministic tests). Default: random (nanoid). */
  readonly runIdSuffix?: IdSource;
  /** Recorded as `storage_root`. Default `memory:`. */
  readonly root?: string;
  /** Recorded as `plugin_version`. */
  readonly pluginVersion?: string;
}

interface MemRun {
  manifest: StoredManifest;
  events: (StoreEvent | ChainStoreEvent)[];
  cache: HandoffCache | null;
  damaged: boolean;
  /** Recorded batches (≥ 2 events or a trace), as the fs sidecar holds them. */
  batches: { first_seq: number; last_seq: number; trace: TraceStep[] }[];
}

/** The in-memory store, with test hooks. */
export interface MemoryStore extends ChainRunStore {
  appendBatch: BatchStore['appendBatch'];
  readBatches: BatchStore['readBatches'];
  /** Makes the next mutation (create/append/set-handoff/append-batch: the whole batch) report `o` (after validation passes). */
  scriptNext(o: ScriptedOutcome): void;
  /** Holds (true) or releases (false) the run's lock, so mutations get `busy`. */
  holdLock(runId: string, held: boolean): void;
  /** Marks the run's journal damaged (appends then get `journal_damaged`). */
  damage(runId: string): void;
  /** Every mutation call received, in order (for assertions). */
  readonly calls: readonly { op: string; run_id: string | null; kind?: string }[];
}

/**
 * Creates an in-memory store.
 *
 * @example
 * ```ts
 * const store = createMemoryStore({ now: () => new Date('2026-11-30T10:00:00Z') });
 * const r = await store.createRun({ dispatch });
 * await store.append(r.run_id!, 'note', { kind: 'candidate', text: 'simp', lean: null });
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const now = options.now ?? (() => new Date());
  const root = options.root ?? 'memory:';
  const runs = new Map<string, MemRun>();
  const locks = new Set<string>();
  const script: ScriptedOutcome[] = [];
  const calls: { op: string; run_id: string | null; kind?: string }[] = [];

  const pluginVersion = options.pluginVersion ?? RUNTIME_VERSION;

  /** Stores a freshly built manifest (either kind) as a new run, unless the build refused or the run exists. */
  function publish(b: ManifestBuild | ChainManifestBuild): StoreResult {
    if (!b.ok) return refused(b.run_id, b.code, b.detail);
    const runId = b.manifest.run_id;
    if (runs.has(runId)) return refused(runId, 'run_exists', `run ${runId} exists`);
    const write = (): void => {
      runs.set(runId, {
        manifest: structuredClone(b.manifest),
        events: [],
        cache: null,
        damaged: false,
        batches: [],
      });
    };
    const s = scripted(runId, undefined, write);
    if (s !== null) return { ...s, run_directory: `${root}${runId}` };
    write();
    return storeResult('committed', runId, { run_directory: `${root}${runId}` });
  }

  function scripted(runId: string | null, seq: number | undefined, doWrite: () => void): StoreResult | null {
    const s = script.shift();
    if (s === undefined) return null;
    const writes = s.writes ?? s.outcome === 'journal_only';
    if (writes || s.outcome === 'committed') doWrite();
    const extra: { seq?: number; code?: NonNullable<StoreResult['code']>; step?: string; detail?: string } =
      {};
    if (seq !== undefined && s.outcome !== 'nothing_written') extra.seq = seq;
    if (s.code !== undefined) extra.code = s.code;
    if (s.step !== undefined) extra.step = s.step;
    if (s.detail !== undefined) extra.detail = s.detail;
    return storeResult(s.outcome, runId, extra);
  }

  function doChainAppend(runId: string, run: MemRun, payload: unknown): StoreResult {
    const manifest = run.manifest;
    if (!isChainManifest(manifest))
      return refused(
        runId,
        'kind_unsupported',
        `kind ${BATON_COMMIT_KIND} needs a chain run; ${runId} is not one`,
      );
    const shape = checkBatonCommit(payload);
    if (!shape.ok) return refused(runId, 'invalid_payload', shape.detail);
    const unwritable = unwritableIn(payload);
    if (unwritable !== null) return refused(runId, 'invalid_payload', unwritable);
    if (locks.has(runId)) return refused(runId, 'busy', 'the run is locked by another mutation');
    if (run.damaged) return refused(runId, 'journal_damaged', 'the journal is damaged; appends are refused');
    const last = run.events[run.events.length - 1] as ChainStoreEvent | undefined;
    const prevBaton = last?.payload.baton ?? manifest.start_baton;
    const problem = batonCommitProblem(manifest, tailOf(prevBaton), shape.value);
    if (problem !== null) return refused(runId, problem.code, problem.detail);
    const nextSeq = run.events.length + 1;
    const event: ChainStoreEvent = {
      schema: CHAIN_EVENT_SCHEMA,
      seq: nextSeq,
      ts: formatTimestamp(now()),
      kind: BATON_COMMIT_KIND,
      payload: structuredClone(shape.value),
    };
    const write = (): void => {
      run.events.push(event);
    };
    const s = scripted(runId, nextSeq, write);
    if (s !== null) return s;
    write();
    return storeResult('committed', runId, { seq: nextSeq });
  }

  function doAppend(runId: string, kind: StoreEventKind, payload: unknown, cache: boolean): StoreResult {
    if (!isRunId(runId)) return refused(null, 'bad_run_id', `not a run id: ${quoteValue(runId)}`);
    const run = runs.get(runId);
    if (run === undefined) return refused(runId, 'no_such_run', `no run ${runId}`);
    if (kind === BATON_COMMIT_KIND) return doChainAppend(runId, run, payload);
    if (isChainManifest(run.manifest))
      return refused(
        runId,
        'kind_unsupported',
        `kind ${String(kind)} is not a chain run's kind (baton-commit)`,
      );
    const contractManifest: Manifest = run.manifest;
    const nextSeq = run.events.length + 1;
    const check = validateEventPayload(kind, payload, {
      runId,
      eventSchema: eventSchemaOf(contractManifest),
      nextSeq,
    });
    if (!check.ok) return refused(runId, check.code, check.detail);
    // what the durable backends could not write (a lone surrogate) is refused here too
    const unwritable = unwritableIn(payload);
    if (unwritable !== null) return refused(runId, 'invalid_payload', unwritable);
    if (locks.has(runId)) return refused(runId, 'busy', 'the run is locked by another mutation');
    if (run.damaged) return refused(runId, 'journal_damaged', 'the journal is damaged; appends are refused');
    const copy = structuredClone(payload);
    const event: StoreEvent = {
      schema: eventSchemaOf(contractManifest),
      seq: nextSeq,
      ts: formatTimestamp(now()),
      kind,
      payload: copy,
    };
    const write = (): void => {
      run.events.push(event);
      if (cache)
        run.cache = {
          schema: 'run-store-handoff/v1',
          seq: nextSeq,
          payload: copy as HandoffCache['payload'],
        };
    };
    const s = scripted(runId, nextSeq, write);
    if (s !== null) return s;
    write();
    return storeResult('committed', runId, { seq: nextSeq });
  }

  /** The batch's events, or the refusal naming the first bad entry (`entries[i]: …`). */
  function batchEvents(
    runId: string,
    run: MemRun,
    entries: readonly BatchEntry[],
  ): { ok: true; events: (StoreEvent | ChainStoreEvent)[] } | { ok: false; result: StoreResult } {
    const manifest = run.manifest;
    const ts = formatTimestamp(now());
    const events: (StoreEvent | ChainStoreEvent)[] = [];
    const last = run.events[run.events.length - 1] as ChainStoreEvent | StoreEvent | undefined;
    let prevBaton = isChainManifest(manifest)
      ? ((last as ChainStoreEvent | undefined)?.payload.baton ?? manifest.start_baton)
      : null;
    const at = (i: number, r: StoreResult) => ({
      ok: false as const,
      result: { ...r, detail: `entries[${i}]: ${r.detail ?? r.code}` },
    });
    for (const [i, e] of entries.entries()) {
      if (typeof e !== 'object' || e === null)
        return at(i, refused(runId, 'invalid_payload', 'not a {kind, payload} entry'));
      const seq = run.events.length + 1 + i;
      const unwritable = unwritableIn(e.payload);
      if (e.kind === BATON_COMMIT_KIND || isChainManifest(manifest)) {
        if (!isChainManifest(manifest) || e.kind !== BATON_COMMIT_KIND)
          return at(
            i,
            refused(runId, 'kind_unsupported', `kind ${String(e.kind)} does not fit run ${runId}`),
          );
        const shape = checkBatonCommit(e.payload);
        if (!shape.ok) return at(i, refused(runId, 'invalid_payload', shape.detail));
        if (unwritable !== null) return at(i, refused(runId, 'invalid_payload', unwritable));
        const problem = batonCommitProblem(
          manifest,
          tailOf(prevBaton as ChainStoreEvent['payload']['baton']),
          shape.value,
        );
        if (problem !== null) return at(i, refused(runId, problem.code, problem.detail));
        prevBaton = shape.value.baton;
        events.push({
          schema: CHAIN_EVENT_SCHEMA,
          seq,
          ts,
          kind: BATON_COMMIT_KIND,
          payload: structuredClone(shape.value),
        });
        continue;
      }
      const eventSchema = eventSchemaOf(manifest);
      const check = validateEventPayload(e.kind, e.payload, { runId, eventSchema, nextSeq: seq });
      if (!check.ok) return at(i, refused(runId, check.code, check.detail));
      if (unwritable !== null) return at(i, refused(runId, 'invalid_payload', unwritable));
      events.push({
        schema: eventSchema,
        seq,
        ts,
        kind: e.kind,
        payload: structuredClone(e.payload),
      } as StoreEvent);
    }
    return { ok: true, events };
  }

  function doAppendBatch(
    runId: string,
    entries: readonly BatchEntry[],
    options: AppendBatchOptions | undefined,
  ): StoreResult {
    if (!isRunId(runId)) return refused(null, 'bad_run_id', `not a run id: ${quoteValue(runId)}`);
    if (!Array.isArray(entries) || entries.length === 0)
      return refused(runId, 'invalid_payload', 'a batch needs at least one entry');
    if (options?.trace !== undefined) {
      const t = traceProblem(options.trace);
      if (t !== null) return refused(runId, 'invalid_payload', t);
    }
    const run = runs.get(runId);
    if (run === undefined) return refused(runId, 'no_such_run', `no run ${runId}`);
    const built = batchEvents(runId, run, entries);
    if (!built.ok) return built.result;
    if (locks.has(runId)) return refused(runId, 'busy', 'the run is locked by another mutation');
    if (run.damaged) return refused(runId, 'journal_damaged', 'the journal is damaged; appends are refused');
    const first = run.events.length + 1;
    const last = first + built.events.length - 1;
    const write = (): void => {
      run.events.push(...built.events);
      if (built.events.length >= 2 || options?.trace !== undefined)
        run.batches.push({
          first_seq: first,
          last_seq: last,
          trace: structuredClone([...(options?.trace ?? [])]),
        });
      const handoff = built.events.filter((e) => e.kind === 'handoff').at(-1) as StoreEvent | undefined;
      if (handoff !== undefined)
        run.cache = {
          schema: 'run-store-handoff/v1',
          seq: handoff.seq,
          payload: structuredClone(handoff.payload) as HandoffCache['payload'],
        };
    };
    const s = scripted(runId, last, write);
    if (s !== null) return s.outcome === 'nothing_written' ? s : { ...s, first_seq: first };
    write();
    return storeResult('committed', runId, { first_seq: first, seq: last });
  }

  const store: MemoryStore = {
    backend: 'memory',
    root,
    calls,
    scriptNext(o) {
      script.push(o);
    },
    holdLock(runId, held) {
      if (held) locks.add(runId);
      else locks.delete(runId);
    },
    damage(runId) {
      const r = runs.get(runId);
      if (r !== undefined) r.damaged = true;
    },
    async createRun(input: CreateRunInput) {
      calls.push({ op: 'create', run_id: null });
      return publish(
        buildManifest(input, { storageRoot: root, pluginVersion, now, runIdSuffix: options.runIdSuffix }),
      );
    },
    async append(runId, kind, payload) {
      calls.push({ op: 'append', run_id: runId, kind });
      return doAppend(runId, kind, payload, false);
    },
    async setHandoff(runId, payload) {
      calls.push({ op: 'set-handoff', run_id: runId, kind: 'handoff' });
      return doAppend(runId, 'handoff', payload, true);
    },
    async appendBatch(runId, entries, options) {
      calls.push({ op: 'append-batch', run_id: runId });
      return doAppendBatch(runId, entries, options);
    },
    async readBatches(runId): Promise<BatchesLoadResult> {
      if (!isRunId(runId)) return { ok: false, code: 'bad_run_id', run_id: null, detail: 'not a run id' };
      const run = runs.get(runId);
      if (run === undefined)
        return { ok: false, code: 'no_such_run', run_id: runId, detail: `no run ${runId}` };
      const records: LinedRecord[] = run.batches.map((b, i) => {
        const lines = run.events
          .slice(b.first_seq - 1, b.last_seq)
          .map((e) => `${eventLine(e.kind, fastCanonicalJsonUtf8(e.payload), e.schema, e.seq, e.ts)}\n`);
        return {
          line: i + 1,
          record: {
            schema: BATCH_SCHEMA,
            first_seq: b.first_seq,
            last_seq: b.last_seq,
            count: b.last_seq - b.first_seq + 1,
            sha256: batchSha256(Buffer.from(lines.join(''), 'utf8')),
            trace: structuredClone(b.trace),
          },
        };
      });
      return {
        ok: true,
        value: assembleBatches(
          runId,
          records,
          records.map(() => 'complete'),
          [],
        ),
      };
    },
    async createChainRun(input) {
      calls.push({ op: 'create-chain', run_id: null });
      return publish(
        buildChainManifest(input, {
          storageRoot: root,
          pluginVersion,
          now,
          runIdSuffix: options.runIdSuffix,
        }),
      );
    },
    async load(runId): Promise<LoadResult> {
      return contractLoadOnly(runId, await store.loadRun(runId));
    },
    async loadRun(runId): Promise<AnyLoadResult> {
      if (!isRunId(runId)) return { ok: false, code: 'bad_run_id', run_id: null, detail: 'not a run id' };
      const run = runs.get(runId);
      if (run === undefined)
        return { ok: false, code: 'no_such_run', run_id: runId, detail: `no run ${runId}` };
      const damage = run.damaged
        ? { code: 'corrupt' as const, line: run.events.length + 1, detail: 'marked damaged' }
        : null;
      if (isChainManifest(run.manifest))
        return {
          ok: true,
          value: assembleChainLoad(
            structuredClone(run.manifest),
            structuredClone(run.events as ChainStoreEvent[]),
            damage,
          ),
        };
      return {
        ok: true,
        value: assembleLoad(
          structuredClone(run.manifest),
          structuredClone(run.events as StoreEvent[]),
          damage,
          structuredClone(run.cache),
        ),
      };
    },
    async listRuns() {
      return [...runs.keys()].sort();
    },
    async isLocked(runId) {
      return locks.has(runId);
    },
  };
  return store;
}
