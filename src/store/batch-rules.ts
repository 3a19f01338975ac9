/**
 * Group commit's rules (pure): the batch record (`run-store-batch/v1`, one canonical JSON line of
 * the sidecar `batches.jsonl`), the transition trace it carries, parsing the sidecar, and judging
 * the records against a journal's valid prefix — which batches are complete, aborted, torn or
 * beyond the prefix, where the all-or-nothing valid prefix ends, and the damage to report.
 *
 * The journal's line format is unchanged (a plain run-store/v1 reader reads it); the records only
 * let this store see that a crash cut a batch between two of its lines, and carry the trace.
 * The writer publishes a batch's record (and syncs it) before it writes the batch's lines, so a
 * journal never holds lines of a batch whose record could be missing.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { fastCanonicalJsonUtf8, isCanonicalLine } from './canonical-fast.js';
import type { BatchesLoad, BatchStatus, JournalDamage, LoadWarning, TraceStep } from './store-types.js';

/** The schema id of a batch record. */
export const BATCH_SCHEMA = 'run-store-batch/v1';

/** A batch record: the seqs of the batch, the sha256 of its exact journal bytes, its trace. */
export interface BatchRecord {
  readonly schema: typeof BATCH_SCHEMA;
  readonly first_seq: number;
  readonly last_seq: number;
  readonly count: number;
  readonly sha256: string;
  readonly trace: readonly TraceStep[];
}

/** A record with its 1-based line in the sidecar. */
export interface LinedRecord {
  readonly line: number;
  readonly record: BatchRecord;
}

/** The parsed sidecar: its valid records, its damaged lines, and whether it ends with a newline. */
export interface ParsedBatches {
  readonly records: readonly LinedRecord[];
  readonly damaged: readonly { readonly line: number; readonly detail: string }[];
  /** False when the last line is unterminated (the next record must start on a new line). */
  readonly endsWithNewline: boolean;
}

const RECORD_KEYS = ['count', 'first_seq', 'last_seq', 'schema', 'sha256', 'trace'];
const STEP_REQUIRED = ['event', 'from', 'machine', 'to'] as const;
const STEP_OPTIONAL = ['actor', 'guard'] as const;
const SHA256 = /^[0-9a-f]{64}$/;

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
/** A UTF-16 surrogate without its partner: canonical JSON (UTF-8) cannot represent it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why `trace` is not a valid transition trace (an array of {@link TraceStep}: exactly the keys
 * `machine`, `from`, `event`, `to` and optionally `guard`, `actor`, each a non-empty string
 * without a lone surrogate, so its canonical JSON can be written), or null.
 *
 * @example
 * ```ts
 * traceProblem([{ machine: 'cycle', from: 'a', event: 'GO', to: 'b' }]); // null
 * traceProblem([{ machine: 'cycle' }]); // 'trace[0]: from must be a non-empty string'
 * ```
 */
export function traceProblem(trace: unknown): string | null {
  if (!Array.isArray(trace)) return 'trace must be an array of transition steps';
  for (const [i, step] of trace.entries()) {
    if (typeof step !== 'object' || step === null || Array.isArray(step)) return `trace[${i}]: not an object`;
    const s = step as Record<string, unknown>;
    for (const k of Object.keys(s)) {
      if (
        !(STEP_REQUIRED as readonly string[]).includes(k) &&
        !(STEP_OPTIONAL as readonly string[]).includes(k)
      )
        return `trace[${i}]: unknown key ${JSON.stringify(k)}`;
    }
    for (const k of STEP_REQUIRED) if (!isText(s[k])) return `trace[${i}]: ${k} must be a non-empty string`;
    for (const k of STEP_OPTIONAL)
      if (k in s && !isText(s[k])) return `trace[${i}]: ${k} must be a non-empty string when present`;
    for (const k of [...STEP_REQUIRED, ...STEP_OPTIONAL])
      if (LONE_SURROGATE.test((s[k] as string | undefined) ?? ''))
        return `trace[${i}]: ${k} holds a lone surrogate (canonical JSON cannot represent it)`;
  }
  return null;
}

/** A trace step with only its defined keys (canonical JSON has no `undefined`). */
function plainStep(s: TraceStep): TraceStep {
  const out: { -readonly [K in keyof TraceStep]: TraceStep[K] } = {
    machine: s.machine,
    from: s.from,
    event: s.event,
    to: s.to,
  };
  if (s.guard !== undefined) out.guard = s.guard;
  if (s.actor !== undefined) out.actor = s.actor;
  return out;
}

/**
 * sha256 (hex) of bytes.
 *
 * @example
 * ```ts
 * batchSha256(Buffer.from('{"kind":"note",…}\n'));
 * ```
 */
export function batchSha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The record of a batch of seqs `first..last` whose journal bytes hash to `sha256`, as one
 * canonical JSON line without its newline (keys sorted: count, first_seq, last_seq, schema,
 * sha256, trace). The trace must be valid ({@link traceProblem}); its text is written raw (UTF-8).
 *
 * @example
 * ```ts
 * batchRecordText(4, 6, batchSha256(bytes), []); // '{"count":3,"first_seq":4,…,"trace":[]}'
 * ```
 * @throws for a string that has no UTF-8 form (a lone surrogate): check with {@link traceProblem} and `unwritableIn` first.
 */
export function batchRecordText(
  first: number,
  last: number,
  sha256: string,
  trace: readonly TraceStep[],
): string {
  return fastCanonicalJsonUtf8({
    count: last - first + 1,
    first_seq: first,
    last_seq: last,
    schema: BATCH_SCHEMA,
    sha256,
    trace: trace.map(plainStep),
  });
}

/** Why a decoded sidecar line is not a batch record, or the record. */
function recordOf(text: string): { ok: true; record: BatchRecord } | { ok: false; detail: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, detail: `not JSON: ${(e as Error).message}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return { ok: false, detail: 'not a JSON object' };
  const r = v as Record<string, unknown>;
  const keys = Object.keys(r).sort();
  if (keys.length !== RECORD_KEYS.length || keys.some((k, i) => k !== RECORD_KEYS[i]))
    return { ok: false, detail: `keys must be exactly ${RECORD_KEYS.join(',')}` };
  if (r.schema !== BATCH_SCHEMA) return { ok: false, detail: `schema is not ${BATCH_SCHEMA}` };
  const { first_seq: f, last_seq: l, count } = r;
  if (typeof f !== 'number' || !Number.isSafeInteger(f) || f < 1)
    return { ok: false, detail: 'first_seq is not a positive integer' };
  if (typeof l !== 'number' || !Number.isSafeInteger(l) || l < f)
    return { ok: false, detail: 'last_seq is not an integer ≥ first_seq' };
  if (count !== l - f + 1) return { ok: false, detail: 'count is not last_seq - first_seq + 1' };
  if (typeof r.sha256 !== 'string' || !SHA256.test(r.sha256))
    return { ok: false, detail: 'sha256 is not 64 lower-case hex digits' };
  const t = traceProblem(r.trace);
  if (t !== null) return { ok: false, detail: t };
  if (!isCanonicalLine(text, v)) return { ok: false, detail: 'not a canonical JSON line' };
  return { ok: true, record: r as unknown as BatchRecord };
}

/**
 * Parses sidecar bytes: every newline-terminated line that is a valid, canonical batch record is
 * a record; any other line (an unterminated last line included) is damaged — reported, never
 * used to judge events.
 *
 * @example
 * ```ts
 * const p = parseBatchRecords(readFileSync('runs/R/batches.jsonl'));
 * p.records.map((r) => r.record.first_seq);
 * ```
 */
export function parseBatchRecords(bytes: Uint8Array): ParsedBatches {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: LinedRecord[] = [];
  const damaged: { line: number; detail: string }[] = [];
  let pos = 0;
  let line = 1;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1) {
      damaged.push({ line, detail: `line ${line} is not newline-terminated (${buf.length - pos} bytes)` });
      return { records, damaged, endsWithNewline: false };
    }
    const raw = buf.subarray(pos, nl);
    const r = isUtf8(raw)
      ? recordOf(raw.toString('utf8'))
      : { ok: false as const, detail: 'not valid UTF-8' };
    if (r.ok) records.push({ line, record: r.record });
    else damaged.push({ line, detail: `line ${line}: ${r.detail}` });
    pos = nl + 1;
    line++;
  }
  return { records, damaged, endsWithNewline: true };
}

/**
 * The `batch_record_damaged` warnings of a parsed sidecar.
 *
 * @example
 * ```ts
 * batchWarnings(parseBatchRecords(bytes)); // [{ code: 'batch_record_damaged', line: 3, detail: '…' }]
 * ```
 */
export function batchWarnings(parsed: ParsedBatches): LoadWarning[] {
  return parsed.damaged.map((d) => ({
    code: 'batch_record_damaged',
    line: d.line,
    detail: `batches.jsonl ${d.detail}`,
  }));
}

/**
 * The journal as the judge sees it: `bytes` hold the lines of seqs `fromSeq…` (a whole journal:
 * `fromSeq` 1), of which the plain parser found `lastSeq` as the last valid seq (`fromSeq − 1`
 * when none), ending at byte `validBytes` of `bytes`, with its first defect `damage` (or null).
 */
export interface JournalView {
  readonly bytes: Uint8Array;
  readonly fromSeq: number;
  readonly lastSeq: number;
  readonly validBytes: number;
  readonly damage: JournalDamage | null;
}

/** The judgement of a journal and its records. */
export interface BatchJudgement {
  /** The last seq of the all-or-nothing valid prefix (`fromSeq − 1` when it is empty). */
  readonly lastSeq: number;
  /** Where that prefix ends in `bytes`. */
  readonly validBytes: number;
  /** The damage after the prefix: the journal's own, or the torn batch's (which names it). */
  readonly damage: JournalDamage | null;
  /** One status per record, in record order. */
  readonly statuses: readonly BatchStatus[];
  /** True when a record's events are entirely absent and no later record supersedes it. */
  readonly pendingAbort: boolean;
}

/** Start offsets of the lines of `bytes` up to `end`, plus `end` itself. */
function lineStarts(bytes: Uint8Array, end: number): number[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const starts = [0];
  let pos = 0;
  while (pos < end) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1 || nl >= end) break;
    pos = nl + 1;
    starts.push(pos);
  }
  return starts;
}

/**
 * Judges the records against the journal. A record is superseded (`aborted`) when a later record
 * starts at or before its last seq (the later batch re-used the seqs of one whose lines were never
 * written). Every other record, in order:
 * - all its events in the plain valid prefix and its bytes' sha256 equal → `complete`;
 * - none of its events there and nothing after the prefix → `aborted`;
 * - partly there, or its first line is the journal's damaged line → `torn`: the prefix ends
 *   before its first seq, damage `truncated_tail` (`corrupt` when the journal's own defect after
 *   it is a corrupt line) at its first line, naming the batch;
 * - all there but other bytes → `torn` too, damage `corrupt` (complete lines that differ from the
 *   record are an edit, never a crash; a torn tail would invite truncating them);
 * - after the end of the prefix (beyond journal damage or a torn batch) → `unreached`.
 *
 * @example
 * ```ts
 * const p = parseJournal(bytes, runId, schema);
 * const j = judgeBatches(parseBatchRecords(sidecar).records, { bytes, fromSeq: 1, lastSeq: p.events.length, validBytes: p.validBytes, damage: p.damage });
 * const events = p.events.slice(0, j.lastSeq);
 * ```
 */
export function judgeBatches(records: readonly LinedRecord[], view: JournalView): BatchJudgement {
  const { bytes, fromSeq, lastSeq, validBytes, damage } = view;
  const n = records.length;
  const superseded: boolean[] = new Array(n).fill(false);
  let minFirstAfter = Number.POSITIVE_INFINITY;
  for (let i = n - 1; i >= 0; i--) {
    const r = (records[i] as LinedRecord).record;
    superseded[i] = minFirstAfter <= r.last_seq;
    minFirstAfter = Math.min(minFirstAfter, r.first_seq);
  }
  let starts: number[] | null = null;
  const offsetOf = (seq: number): number => {
    starts ??= lineStarts(bytes, validBytes);
    return starts[seq - fromSeq] as number;
  };
  const statuses: BatchStatus[] = [];
  let cut: { line: number; record: BatchRecord; present: number; edited: boolean } | null = null;
  let pendingAbort = false;
  for (let i = 0; i < n; i++) {
    const { line, record: r } = records[i] as LinedRecord;
    if (cut !== null) {
      statuses.push('unreached');
      continue;
    }
    if (superseded[i]) {
      statuses.push('aborted');
      continue;
    }
    if (r.last_seq < fromSeq) {
      statuses.push('complete'); // judged with the bytes before `bytes`
      continue;
    }
    if (r.first_seq > lastSeq) {
      if (damage !== null && r.first_seq === lastSeq + 1) {
        cut = { line, record: r, present: 0, edited: false };
        statuses.push('torn');
      } else if (damage !== null) {
        statuses.push('unreached');
      } else {
        statuses.push('aborted');
        pendingAbort = true;
      }
      continue;
    }
    if (r.first_seq < fromSeq || r.last_seq > lastSeq) {
      const present = Math.min(lastSeq, r.last_seq) - Math.max(r.first_seq, fromSeq) + 1;
      cut = { line, record: r, present, edited: false };
      statuses.push('torn');
      continue;
    }
    const from = offsetOf(r.first_seq);
    const to = offsetOf(r.last_seq + 1);
    if (batchSha256(bytes.subarray(from, to)) === r.sha256) statuses.push('complete');
    else {
      cut = { line, record: r, present: r.count, edited: true };
      statuses.push('torn');
    }
  }
  if (cut === null) return { lastSeq, validBytes, damage, statuses, pendingAbort };
  const r = cut.record;
  const name = `batch of seqs ${r.first_seq}..${r.last_seq} (batches.jsonl line ${cut.line})`;
  if (r.first_seq > lastSeq) {
    // its first line is the journal's damaged line: the prefix is unchanged, the damage names it
    const d = damage as JournalDamage;
    return {
      lastSeq,
      validBytes,
      damage: { ...d, detail: `${d.detail}; ${name} is torn: 0 of ${r.count} events present` },
      statuses,
      pendingAbort,
    };
  }
  const firstSeq = Math.max(r.first_seq, fromSeq);
  const at = offsetOf(firstSeq);
  const tail = damage === null ? '' : `; then ${damage.detail}`;
  const cutDamage: JournalDamage = cut.edited
    ? {
        code: 'corrupt',
        line: firstSeq,
        detail: `line ${firstSeq}: the bytes of ${name} do not match its sha256 (edited after commit?)`,
      }
    : damage?.code === 'corrupt'
      ? {
          code: 'corrupt',
          line: firstSeq,
          detail: `line ${firstSeq}: ${name} is incomplete: ${cut.present} of ${r.count} events present${tail}`,
        }
      : {
          code: 'truncated_tail',
          line: firstSeq,
          bytes: bytes.length - at,
          detail: `line ${firstSeq}: ${name} is torn: ${cut.present} of ${r.count} events present${tail}`,
        };
  return { lastSeq: firstSeq - 1, validBytes: at, damage: cutDamage, statuses, pendingAbort };
}

/**
 * The `run-store-batches/v1` result of a run's records and their statuses.
 *
 * @example
 * ```ts
 * assembleBatches(runId, parsed.records, judgement.statuses, batchWarnings(parsed));
 * ```
 */
export function assembleBatches(
  runId: string,
  records: readonly LinedRecord[],
  statuses: readonly BatchStatus[],
  warnings: readonly LoadWarning[],
): BatchesLoad {
  return {
    schema: 'run-store-batches/v1',
    run_id: runId,
    batches: records.map(({ line, record: r }, i) => ({
      line,
      first_seq: r.first_seq,
      last_seq: r.last_seq,
      count: r.count,
      sha256: r.sha256,
      trace: r.trace,
      status: statuses[i] ?? 'unreached',
    })),
    warnings,
  };
}
