/**
 * Group commit in the fs store (`appendBatch`): every entry is checked as `append` checks it
 * before the lock (the first bad entry refuses the batch, its index in `detail`), then under one
 * lock acquisition the seq-dependent rules run entry by entry (a replan may cite an earlier event
 * of the same batch; baton commits chain within the batch), the batch record is published to the
 * sidecar when the batch needs one (≥ 2 events or a trace: write + fsync), and the lines are
 * written with one write and one fsync. A batch holding a handoff then refreshes the handoff
 * cache with its last handoff, as set-handoff does (`journal_only` when that cannot be confirmed).
 */
import {
  type AppendEventSchema,
  appendEventSchema,
  eventLine,
  lockedAppendRefusal,
  prepareAppend,
} from './append-rules.js';
import { traceProblem } from './batch-rules.js';
import { type ChainTail, tailOf } from './chain-rules.js';
import type { BatonCommitPayload } from './chain-schema.js';
import { commitLines, lockTakenAfresh, openJournal, refreshCache } from './fs-append.js';
import { type FsContext, locateRun, posixOnly } from './fs-context.js';
import { lockRun, unlockRun } from './fs-held-locks.js';
import { readManifest } from './fs-manifest.js';
import { quoteValue } from './quote-value.js';
import { isRunId } from './run-id.js';
import {
  type AppendBatchOptions,
  type BatchEntry,
  refused,
  type StoreEventKind,
  type StoreResult,
  storeResult,
  type TraceStep,
} from './store.js';

/** One entry of a batch after the checks made before the lock. */
interface PlannedEntry {
  readonly kind: StoreEventKind;
  readonly payload: unknown;
  readonly payloadText: string;
  readonly commit: BatonCommitPayload | null;
  readonly eventSchema: AppendEventSchema;
}

/**
 * Checks a batch's shape before the store is touched: a non-empty array of entries, a valid
 * trace, each entry's payload as `append` checks it. The refusal names the first bad entry.
 *
 * @example
 * ```ts
 * const r = batchShapeRefusal(runId, entries, options); // null when the batch may be planned
 * ```
 */
export function batchShapeRefusal(
  runId: string,
  entries: unknown,
  options: AppendBatchOptions | undefined,
): StoreResult | null {
  if (!Array.isArray(entries) || entries.length === 0)
    return refused(runId, 'invalid_payload', 'a batch needs at least one entry');
  if (options?.trace !== undefined) {
    const t = traceProblem(options.trace);
    if (t !== null) return refused(runId, 'invalid_payload', t);
  }
  return null;
}

/** `entries[i]: detail` — the index of the first bad entry in a refusal. */
function atEntry(i: number, r: StoreResult): StoreResult {
  return { ...r, detail: `entries[${i}]: ${r.detail ?? r.code ?? 'refused'}` };
}

/**
 * Appends a batch: plan every entry, lock, append under the lock, unlock (the lock is released
 * as for `append`; a failure to remove it is noted in `detail`).
 *
 * @example
 * ```ts
 * const r = appendBatchSync(ctx, runId, [{ kind: 'note', payload: n1 }, { kind: 'note', payload: n2 }], {});
 * r.outcome; // 'committed' with first_seq and seq
 * ```
 */
export function appendBatchSync(
  ctx: FsContext,
  runId: string,
  entries: readonly BatchEntry[],
  options: AppendBatchOptions | undefined,
): StoreResult {
  if (!isRunId(runId)) return refused(null, 'bad_run_id', `not a run id: ${quoteValue(runId)}`);
  const shape = batchShapeRefusal(runId, entries, options);
  if (shape !== null) return shape;
  const prepared: {
    kind: StoreEventKind;
    payload: unknown;
    payloadText: string;
    commit: BatonCommitPayload | null;
  }[] = [];
  for (const [i, e] of entries.entries()) {
    if (typeof e !== 'object' || e === null)
      return refused(runId, 'invalid_payload', `entries[${i}]: not a {kind, payload} entry`);
    const p = prepareAppend(runId, e.kind, e.payload);
    if (!p.ok) return atEntry(i, p.result);
    prepared.push({ kind: e.kind, payload: e.payload, ...p.value });
  }
  const platform = posixOnly(ctx, runId);
  if (platform !== null) return platform;
  const loc = locateRun(ctx, runId);
  if (!loc.ok) return refused(runId, loc.code, loc.detail);
  const paths = loc.paths;
  const m = readManifest(ctx.fsl, ctx.manifests, runId, paths);
  if (!m.ok) return refused(runId, m.code, m.detail);
  const manifest = m.manifest;
  const planned: PlannedEntry[] = [];
  for (const [i, p] of prepared.entries()) {
    const schema = appendEventSchema(runId, manifest, p.kind, p.commit);
    if (!schema.ok) return atEntry(i, schema.result);
    planned.push({ ...p, eventSchema: schema.eventSchema });
  }
  const ts = ctx.stamp();
  const lock = lockRun(ctx.fsl, ctx.locks, paths.lock, ctx.lockBody(ts));
  if (!lock.ok) return refused(runId, lock.code, lock.detail);
  if (lock.fresh) lockTakenAfresh(ctx, runId);
  let result: StoreResult;
  try {
    result = batchLocked(ctx, runId, paths, manifest, planned, ts, options?.trace, options?.atomic !== false);
  } catch (e) {
    ctx.journals.forget(runId);
    result = storeResult('indeterminate', runId, {
      step: 'unexpected',
      detail: String((e as Error)?.message ?? e),
    });
  }
  const warn = unlockRun(ctx.fsl, ctx.locks, paths.lock);
  if (warn !== null)
    return { ...result, detail: result.detail === undefined ? warn : `${result.detail}; ${warn}` };
  return result;
}

/** Under the lock: seq-dependent checks per entry, then the record and the lines, then the cache. */
function batchLocked(
  ctx: FsContext,
  runId: string,
  paths: Parameters<typeof commitLines>[2],
  manifest: Parameters<typeof openJournal>[3],
  planned: readonly PlannedEntry[],
  ts: string,
  trace: readonly TraceStep[] | undefined,
  atomic = true,
): StoreResult {
  const opened = openJournal(ctx, runId, paths, manifest);
  if (!opened.ok) return opened.result;
  const state = opened.state;
  const first = state.lastSeq + 1;
  let tail: ChainTail | null = state.tail;
  const lines: string[] = [];
  let handoff: { payloadText: string; seq: number } | null = null;
  for (const [i, e] of planned.entries()) {
    const seq = first + i;
    const refusal = lockedAppendRefusal({ runId, manifest, ...e }, tail, seq);
    if (refusal !== null) return atEntry(i, refusal);
    if (e.commit !== null) tail = tailOf(e.commit.baton);
    lines.push(eventLine(e.kind, e.payloadText, e.eventSchema, seq, ts));
    if (e.kind === 'handoff') handoff = { payloadText: e.payloadText, seq };
  }
  const last = first + planned.length - 1;
  const bytes = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  const written = commitLines(ctx, runId, paths, state, bytes, {
    count: planned.length,
    trace,
    tail: tail === state.tail ? null : tail,
    batch: true,
    atomic,
  });
  if (written !== null) return written;
  if (handoff === null) return storeResult('committed', runId, { first_seq: first, seq: last });
  return refreshCache(ctx, runId, paths, handoff.payloadText, handoff.seq, { first_seq: first, seq: last });
}
