/**
 * Verifying batch records against the events they name, before recovery acts on them (pure: no
 * file system). The load's judge (`judgeBatches`) believes a record that names seqs the journal
 * holds only in part: it ends the valid prefix before the batch (all-or-nothing) and `handoff store
 * recover` may then cut the batch's complete lines. That is right for a crash-torn batch — its
 * lines were never acknowledged, the journal fsync follows the whole write — but a record that is
 * forged, edited or inconsistent would make recover delete acknowledged events. So before it cuts
 * complete lines, recover asks this file whether the records are what this store's writer can
 * leave behind after a crash:
 *
 * - **Superseding.** A writer re-uses the seqs of an earlier record only when none of that
 *   record's lines were written (an aborted batch), and then starts at that record's first seq.
 *   A later record overlapping an earlier one must start at the same first seq; and when the
 *   later record is not itself verified complete, the earlier record's events must not all be in
 *   the journal with its own digest (then they were written, and the overlap would hide them).
 * - **A torn batch is the last thing written.** After a torn batch the journal is damaged and
 *   every writer refuses to append (`journal_damaged`) until a recovery, so no record line —
 *   valid or not — can follow the record of a torn batch in `batches.jsonl`.
 * - **One batch, one timestamp.** The writer stamps every line of a batch with the one `ts` it
 *   takes under the lock, so the lines present of a torn batch carry one `ts`.
 *
 * What this cannot prove: a record forged to satisfy all three (the last record, naming the last
 * events of the journal, written in one second) is indistinguishable from a crash-torn batch; the
 * record carries no digest of a prefix of its bytes. docs/store.md § Recovery says so.
 */
import { batchSha256, type LinedRecord, type ParsedBatches } from './batch-rules.js';
import type { BatchStatus } from './store-types.js';

/** One inconsistency: the sidecar line of the record it concerns and what is wrong. */
export interface BatchRecordProblem {
  /** 1-based line of `batches.jsonl`. */
  readonly line: number;
  readonly detail: string;
}

/** What the verifier needs: the parsed sidecar, the judge's statuses and the journal's plain parse. */
export interface BatchVerifyInput {
  /** The parsed sidecar (`parseBatchRecords`). */
  readonly parsed: ParsedBatches;
  /** One status per record, as `judgeBatches` gave them for the same journal. */
  readonly statuses: readonly BatchStatus[];
  /** The whole journal. */
  readonly bytes: Uint8Array;
  /** The last seq of the plain line parse's valid prefix (0 when empty). */
  readonly lastSeq: number;
  /** The `ts` of each event of that prefix (index `seq − 1`). */
  readonly stamps: readonly string[];
}

/** Start offsets of the first `count` lines of `bytes`, plus the offset after the last of them. */
function lineStarts(bytes: Uint8Array, count: number): number[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const starts = [0];
  let pos = 0;
  while (starts.length <= count) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1) break;
    pos = nl + 1;
    starts.push(pos);
  }
  return starts;
}

/** The printable form of a timestamp read from a journal (never raw control characters). */
function shown(ts: string): string {
  return JSON.stringify(ts);
}

/**
 * The inconsistencies of a run's batch records with its journal (empty when none): superseding
 * records that do not start where the superseded one did, or that re-use the seqs of a batch whose
 * events are in the journal with its digest; a torn batch followed by any other sidecar line; the
 * lines present of a torn batch carrying more than one timestamp. A crash of this store's writer
 * leaves none of these.
 *
 * @example
 * ```ts
 * const p = parseJournal(bytes, runId, schema);
 * const parsed = parseBatchRecords(sidecar);
 * const j = judgeBatches(parsed.records, { bytes, fromSeq: 1, lastSeq: p.events.length, validBytes: p.validBytes, damage: p.damage });
 * batchRecordProblems({ parsed, statuses: j.statuses, bytes, lastSeq: p.events.length, stamps: p.events.map((e) => e.ts) });
 * // [] — or [{ line: 2, detail: 'line 2 (seqs 4..9) supersedes line 1 (seqs 3..5) but starts at 4, not 3: …' }]
 * ```
 */
export function batchRecordProblems(input: BatchVerifyInput): BatchRecordProblem[] {
  const { parsed, statuses, bytes, lastSeq, stamps } = input;
  const records = parsed.records;
  const problems: BatchRecordProblem[] = [];
  let starts: number[] | null = null;
  const digestAt = (first: number, last: number): string | null => {
    if (first < 1 || last > lastSeq) return null;
    starts ??= lineStarts(bytes, lastSeq);
    const from = starts[first - 1];
    const to = starts[last];
    if (from === undefined || to === undefined) return null;
    return batchSha256(bytes.subarray(from, to));
  };
  const name = (r: LinedRecord): string =>
    `line ${r.line} (seqs ${r.record.first_seq}..${r.record.last_seq})`;

  for (let i = 0; i < records.length; i++) {
    const a = records[i] as LinedRecord;
    // the nearest later record that re-uses a seq of this one
    let k = -1;
    for (let j = i + 1; j < records.length; j++)
      if ((records[j] as LinedRecord).record.first_seq <= a.record.last_seq) {
        k = j;
        break;
      }
    if (k === -1) continue;
    const b = records[k] as LinedRecord;
    if (b.record.first_seq !== a.record.first_seq) {
      problems.push({
        line: b.line,
        detail: `${name(b)} supersedes ${name(a)} but starts at ${b.record.first_seq}, not ${a.record.first_seq}: a writer re-uses the seqs of an aborted batch from its first seq`,
      });
      continue;
    }
    if (statuses[k] !== 'complete' && digestAt(a.record.first_seq, a.record.last_seq) === a.record.sha256)
      problems.push({
        line: b.line,
        detail: `${name(b)} re-uses the seqs of ${name(a)}, whose events are all in the journal with its sha256: they were written, so that batch was not aborted`,
      });
  }

  for (let i = 0; i < records.length; i++) {
    const t = records[i] as LinedRecord;
    const r = t.record;
    if (statuses[i] !== 'torn' || r.first_seq > lastSeq || r.last_seq <= lastSeq) continue;
    const later = [
      ...records.filter((o) => o.line > t.line).map((o) => o.line),
      ...parsed.damaged.filter((d) => d.line > t.line).map((d) => d.line),
    ].sort((x, y) => x - y);
    if (later.length > 0)
      problems.push({
        line: t.line,
        detail: `${name(t)} is torn, yet batches.jsonl has line ${later[0]} after it: no writer appends after a torn batch, so this record is not a crash's last write`,
      });
    const present = stamps.slice(r.first_seq - 1, lastSeq);
    const distinct = [...new Set(present)];
    if (distinct.length > 1)
      problems.push({
        line: t.line,
        detail: `${name(t)} is torn, but its ${present.length} events present carry ${distinct.length} timestamps (${distinct.slice(0, 3).map(shown).join(', ')}${distinct.length > 3 ? ', …' : ''}): the lines of one batch share one ts, so they were not written as this batch`,
      });
  }
  return problems;
}

/**
 * The problems as one sentence for a refusal's detail.
 *
 * @example
 * ```ts
 * describeBatchProblems([{ line: 2, detail: 'line 2 (seqs 4..9) supersedes …' }]);
 * // 'batches.jsonl is inconsistent with the journal: line 2 (seqs 4..9) supersedes …'
 * ```
 */
export function describeBatchProblems(problems: readonly BatchRecordProblem[]): string {
  return `batches.jsonl is inconsistent with the journal: ${problems.map((p) => p.detail).join('; ')}`;
}
