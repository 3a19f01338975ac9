/**
 * The damaged batch records of a run (layer 1, pure): what `handoff audit` cannot check because
 * the record beside the journal does not match it. A `torn` batch (its events' journal bytes do
 * not hash to the record's sha256, or only part of the batch is in the journal), the `unreached`
 * ones after it, and the sidecar lines that are not batch records at all. The audit says the batch
 * is damaged — never "no trace recorded", which is what a run that recorded none gets.
 */
import type { LoadedBatch, LoadWarning } from '../store/store-types.js';

/** One damaged batch record, by its line in the run's `batches.jsonl`. */
export interface DamagedBatch {
  /** 1-based line of the record in the batch sidecar. */
  readonly line: number;
  /** The events the record names (null for a line that is not a batch record). */
  readonly first_seq: number | null;
  readonly last_seq: number | null;
  /** `torn` (does not match the journal), `unreached` (after a torn one), `unreadable` (not a record). */
  readonly status: 'torn' | 'unreached' | 'unreadable';
  /** What does not match. */
  readonly detail: string;
}

const TORN =
  "the journal's bytes of these events do not match the record's sha256, or only part of the batch is in the journal";
const UNREACHED = 'after a damaged batch or journal damage: the journal is cut before these events';

/**
 * The damaged records among a run's loaded batch records and sidecar warnings, in sidecar order;
 * empty when every record is complete or aborted (an aborted batch was never acknowledged: not
 * damage).
 *
 * @example
 * ```ts
 * damagedBatches(read.value.batches, read.value.warnings);
 * // [{ line: 1, first_seq: 1, last_seq: 3, status: 'torn', detail: 'the journal’s bytes …' }]
 * ```
 */
export function damagedBatches(
  batches: readonly LoadedBatch[],
  warnings: readonly LoadWarning[],
): DamagedBatch[] {
  const out: DamagedBatch[] = [];
  for (const b of batches) {
    if (b.status !== 'torn' && b.status !== 'unreached') continue;
    out.push({
      line: b.line,
      first_seq: b.first_seq,
      last_seq: b.last_seq,
      status: b.status,
      detail: b.status === 'torn' ? TORN : UNREACHED,
    });
  }
  for (const w of warnings) {
    if (w.code !== 'batch_record_damaged') continue;
    out.push({
      line: w.line ?? 0,
      first_seq: null,
      last_seq: null,
      status: 'unreadable',
      detail: w.detail ?? 'not a batch record',
    });
  }
  return out.sort((a, b) => a.line - b.line);
}

/**
 * One line per damaged record, for the human report (pure; the caller escapes it for a terminal).
 *
 * @example
 * ```ts
 * damagedBatchLine('20260101T000000Z-0a1b2c3d', d);
 * // 'batches.jsonl line 1 (events #1–#3 of 20260101T000000Z-0a1b2c3d): torn — the journal’s bytes …'
 * ```
 */
export function damagedBatchLine(runId: string, d: DamagedBatch): string {
  const events =
    d.first_seq === null
      ? ''
      : d.first_seq === d.last_seq
        ? ` (event #${d.first_seq} of ${runId})`
        : ` (events #${d.first_seq}–#${d.last_seq} of ${runId})`;
  return `batches.jsonl line ${d.line}${events}: ${d.status} — ${d.detail}`;
}
