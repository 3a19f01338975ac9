/**
 * The group-commit rules of the PostgreSQL run store (pure): a batch's entries checked before the
 * database is touched (each by the same rules as a single append), the machine trace checked and
 * put in canonical form, and the plan of an append — the canonical lines of seqs `last+1 …`, the
 * handoff cache row, the chain tail after it — made from the run's manifest and its last known
 * state, with the checks `append` makes under the lock (replan cites, baton sequence) applied to
 * each entry at its own seq. No I/O.
 */
import { canonicalJsonUtf8 } from '../canonical/index.js';
import {
  appendEventSchema,
  cacheText,
  eventLine,
  lockedAppendRefusal,
  type PreparedAppend,
  prepareAppend,
} from './append-rules.js';
import { batchSha256, traceProblem } from './batch-rules.js';
import { type ChainTail, tailOf } from './chain-rules.js';
import type { StoredManifest } from './chain-schema.js';
import type { PgEventRow } from './pg-rows.js';
import {
  type BatchEntry,
  type BatchesLoad,
  type BatchStatus,
  type LoadedBatch,
  type LoadWarning,
  refused,
  type StoreEventKind,
  type StoreResult,
  type TraceStep,
} from './store.js';

/** A `handoff_batches` row as read. */
export interface PgBatchRow {
  readonly first_seq: number;
  readonly last_seq: number;
  readonly sha256: string;
  readonly trace: unknown;
}

/** One entry that passed the checks made before the database is touched. */
export interface PreparedEntry extends PreparedAppend {
  readonly kind: StoreEventKind;
  readonly payload: unknown;
}

/** The run state an append is planned against: the last validated seq and the chain tail. */
export interface PlanState {
  readonly lastSeq: number;
  readonly tail: ChainTail | null;
}

/** What an append writes: the lines of seqs `first … last`, the cache row, the tail after it. */
export interface AppendPlan {
  readonly first: number;
  readonly last: number;
  /** The canonical event lines (without newline), in seq order. */
  readonly lines: readonly string[];
  /** The handoff cache row (the last cached handoff of the plan), or null. */
  readonly cache: { readonly seq: number; readonly text: string } | null;
  /** The chain tail after the plan (unchanged for a run-contract run). */
  readonly tail: ChainTail | null;
}

/**
 * Checks a batch's trace by the fs backend's rule ({@link traceProblem}: exactly the keys
 * `machine`, `from`, `event`, `to` and optionally `guard`, `actor`, each a non-empty string), plus
 * no U+0000 (which `jsonb` cannot hold), and returns the steps with their canonical JSON text (the
 * reference's raw UTF-8 form). `undefined` is the empty trace (the caller decides whether to
 * record a batch without one).
 *
 * @example
 * ```ts
 * const t = checkTrace([{ machine: 'cycle', from: 'a', event: 'GO', to: 'b' }]);
 * if (t.ok) t.text; // '[{"event":"GO","from":"a","machine":"cycle","to":"b"}]'
 * ```
 */
export function checkTrace(
  trace: unknown,
): { ok: true; steps: readonly TraceStep[]; text: string } | { ok: false; detail: string } {
  if (trace === undefined) return { ok: true, steps: [], text: '[]' };
  const problem = traceProblem(trace);
  if (problem !== null) return { ok: false, detail: problem };
  for (const [i, step] of (trace as Record<string, string>[]).entries())
    if (Object.values(step).some((v) => v.includes('\u0000')))
      return { ok: false, detail: `trace[${i}]: a string holds U+0000` };
  try {
    return { ok: true, steps: trace as TraceStep[], text: canonicalJsonUtf8(trace) };
  } catch (e) {
    return { ok: false, detail: `trace: ${String((e as Error)?.message ?? e)}` };
  }
}

/** `entries[i]: detail` — the index of the first bad entry in a refusal (the fs backend's form). */
function atEntry(i: number, r: StoreResult): StoreResult {
  return { ...r, detail: `entries[${i}]: ${r.detail ?? r.code ?? 'refused'}` };
}

/**
 * Checks a batch before the database is touched, as the fs backend does: a non-empty array, a
 * valid trace ({@link checkTrace}), then each entry `{ kind, payload }` by {@link prepareAppend}
 * (the single append's rules and codes); the refusal's detail names the first bad entry
 * (`entries[i]: …`). Nothing is written when one entry is refused.
 *
 * @example
 * ```ts
 * const p = prepareBatch(runId, [{ kind: 'note', payload: note }], { trace });
 * if (!p.ok) return p.result;
 * ```
 */
export function prepareBatch(
  runId: string,
  entries: unknown,
  trace: unknown,
):
  | { ok: true; entries: readonly PreparedEntry[]; trace: string | null }
  | { ok: false; result: StoreResult } {
  if (!Array.isArray(entries) || entries.length === 0)
    return { ok: false, result: refused(runId, 'invalid_payload', 'a batch needs at least one entry') };
  const t = checkTrace(trace);
  if (!t.ok) return { ok: false, result: refused(runId, 'invalid_payload', t.detail) };
  const out: PreparedEntry[] = [];
  for (const [i, entry] of (entries as unknown[]).entries()) {
    if (typeof entry !== 'object' || entry === null)
      return {
        ok: false,
        result: refused(runId, 'invalid_payload', `entries[${i}]: not a {kind, payload} entry`),
      };
    const { kind, payload } = entry as BatchEntry;
    const p = prepareAppend(runId, kind, payload);
    if (!p.ok) return { ok: false, result: atEntry(i, p.result) };
    out.push({ kind, payload, ...p.value });
  }
  return { ok: true, entries: out, trace: trace === undefined ? null : t.text };
}

/**
 * Plans an append of `entries` after `state`: each entry's event schema in this run, the checks
 * made under the lock at its own seq (a replan may cite an earlier entry of the same batch; a
 * baton commit must follow the previous one, in the batch or before it), its canonical line (one
 * timestamp `ts` for the whole batch, as the fs backend writes it), and — when `cacheHandoffs` —
 * the cache row of the last `handoff` entry. Returns the first refusal instead (its detail names
 * the entry, `entries[i]: …`, when `batch`).
 *
 * @example
 * ```ts
 * const p = planAppend(runId, manifest, { lastSeq: 4, tail: null }, entries, { cacheHandoffs: true, batch: true, ts });
 * if (p.ok) p.plan.lines; // seqs 5 …
 * ```
 */
export function planAppend(
  runId: string,
  manifest: StoredManifest,
  state: PlanState,
  entries: readonly PreparedEntry[],
  options: { readonly cacheHandoffs: boolean; readonly batch: boolean; readonly ts: string },
): { ok: true; plan: AppendPlan } | { ok: false; result: StoreResult } {
  const lines: string[] = [];
  let cache: AppendPlan['cache'] = null;
  let tail = state.tail;
  const first = state.lastSeq + 1;
  const refuse = (i: number, r: StoreResult) => ({
    ok: false as const,
    result: options.batch ? atEntry(i, r) : r,
  });
  for (const [i, e] of entries.entries()) {
    const seq = first + i;
    const schema = appendEventSchema(runId, manifest, e.kind, e.commit);
    if (!schema.ok) return refuse(i, schema.result);
    const refusal = lockedAppendRefusal(
      {
        runId,
        manifest,
        eventSchema: schema.eventSchema,
        kind: e.kind,
        payload: e.payload,
        commit: e.commit,
      },
      tail,
      seq,
    );
    if (refusal !== null) return refuse(i, refusal);
    lines.push(eventLine(e.kind, e.payloadText, schema.eventSchema, seq, options.ts));
    if (e.commit !== null) tail = tailOf(e.commit.baton);
    if (options.cacheHandoffs && e.kind === 'handoff') cache = { seq, text: cacheText(e.payloadText, seq) };
  }
  return { ok: true, plan: { first, last: first + entries.length - 1, lines, cache, tail } };
}

/**
 * sha256 (hex) of the journal bytes of `lines` (each line + newline, UTF-8), as a batch record
 * holds it (the fs backend's `batchSha256` of the same bytes).
 *
 * @example
 * ```ts
 * linesSha256(plan.lines); // '9f86d0…'
 * ```
 */
export function linesSha256(lines: readonly string[]): string {
  return batchSha256(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Why a batch row is not a valid record after the one ending at `after`, or null. */
function batchRowProblem(row: PgBatchRow, after: number): string | null {
  const trace = checkTrace(row.trace);
  if (!trace.ok) return trace.detail;
  if (!Number.isSafeInteger(row.first_seq) || row.first_seq < 1 || row.last_seq < row.first_seq)
    return 'the seq range is not 1 ≤ first_seq ≤ last_seq';
  if (row.first_seq <= after) return `it overlaps the record before (seqs up to ${after})`;
  if (typeof row.sha256 !== 'string' || !SHA256.test(row.sha256))
    return 'sha256 is not 64 lower-case hex digits';
  return null;
}

/**
 * The `run-store-batches/v1` view of a run's batch rows (in `first_seq` order) against its event
 * rows and the last seq of its valid prefix (`validLast`): a row that is not a valid record is a
 * `batch_record_damaged` warning (its `line` the row's 1-based position) and judges nothing; a
 * record whose events are all in the valid prefix with the same bytes is `complete`; one partly
 * there, or with other bytes, is `torn` (only rows written behind the store can be: a batch
 * commits in one transaction); one starting after the prefix is `unreached`, as is every record
 * after a torn one. `aborted` does not occur (a record commits with its events).
 *
 * @example
 * ```ts
 * judgeBatchRows(runId, batchRows, eventRows, load.value.events.length).batches[0]?.status; // 'complete'
 * ```
 */
export function judgeBatchRows(
  runId: string,
  rows: readonly PgBatchRow[],
  events: readonly PgEventRow[],
  validLast: number,
): BatchesLoad {
  const batches: LoadedBatch[] = [];
  const warnings: LoadWarning[] = [];
  const lineOf = new Map<number, string>();
  for (const e of events) lineOf.set(e.seq, e.line);
  let cut = false;
  let after = 0;
  for (const [i, row] of rows.entries()) {
    const line = i + 1;
    const problem = batchRowProblem(row, after);
    if (problem !== null) {
      warnings.push({
        code: 'batch_record_damaged',
        line,
        detail: `handoff_batches record ${line}: ${problem}`,
      });
      continue;
    }
    after = row.last_seq;
    let status: BatchStatus;
    if (cut || row.first_seq > validLast) status = 'unreached';
    else if (row.last_seq > validLast) status = 'torn';
    else {
      const lines: string[] = [];
      for (let seq = row.first_seq; seq <= row.last_seq; seq++) lines.push(lineOf.get(seq) ?? '');
      status = linesSha256(lines) === row.sha256 ? 'complete' : 'torn';
    }
    if (status === 'torn') cut = true;
    batches.push({
      line,
      first_seq: row.first_seq,
      last_seq: row.last_seq,
      count: row.last_seq - row.first_seq + 1,
      sha256: row.sha256,
      trace: row.trace as TraceStep[],
      status,
    });
  }
  return { schema: 'run-store-batches/v1', run_id: runId, batches, warnings };
}
