/**
 * Row mapping of the PostgreSQL run store (pure): event rows `(seq, line)` become the same journal
 * bytes the fs backend parses, so a database journal is checked by exactly the fs integrity rules
 * (`parseJournal` / `parseChainJournal`): canonical lines, the run's event schema, dense seqs,
 * valid payloads, baton sequence. A row whose `seq` column is not the next seq, or whose line
 * holds a newline, is `corrupt` at its position; nothing after the first defect is used.
 */
import { type ChainTail, parseChainJournal, startTail } from './chain-rules.js';
import type { ChainManifest, ChainStoreEvent } from './chain-schema.js';
import { parseJournal } from './journal-parse.js';
import type { EventSchemaId, StoreEvent } from './schema.js';
import type { JournalDamage } from './store.js';

/** One `events` row. */
export interface PgEventRow {
  readonly seq: number;
  readonly line: string;
}

/**
 * The journal bytes of rows numbered from `startSeq` (each line + `\n`, UTF-8), up to the first
 * row-level defect (a `seq` column out of density, a line holding a newline), and that defect.
 *
 * @example
 * ```ts
 * rowsToJournal([{ seq: 1, line: '{…}' }, { seq: 3, line: '{…}' }], 1).rowDamage; // corrupt at line 2
 * ```
 */
export function rowsToJournal(
  rows: readonly PgEventRow[],
  startSeq: number,
): { bytes: Uint8Array; rowDamage: JournalDamage | null } {
  const parts: string[] = [];
  for (const [i, r] of rows.entries()) {
    const expected = startSeq + i;
    if (r.seq !== expected || r.line.includes('\n')) {
      return {
        bytes: Buffer.from(parts.join(''), 'utf8'),
        rowDamage: {
          code: 'corrupt',
          line: expected,
          detail:
            r.seq !== expected
              ? `row seq ${r.seq} where seq ${expected} was expected (not dense)`
              : `line ${expected}: the row's line holds a newline`,
        },
      };
    }
    parts.push(`${r.line}\n`);
  }
  // UTF-8, as the fs journal holds the same lines: a row is checked exactly as a journal line
  return { bytes: Buffer.from(parts.join(''), 'utf8'), rowDamage: null };
}

/**
 * Parses run-contract event rows (from `startSeq`) into the valid prefix and the first defect.
 *
 * @example
 * ```ts
 * const p = parseEventRows(rows, runId, 'run-store-event/v2'); p.damage?.line;
 * ```
 */
export function parseEventRows(
  rows: readonly PgEventRow[],
  runId: string,
  eventSchema: EventSchemaId,
  startSeq = 1,
): { events: StoreEvent[]; damage: JournalDamage | null } {
  const j = rowsToJournal(rows, startSeq);
  const p = parseJournal(j.bytes, runId, eventSchema, startSeq, startSeq);
  return { events: p.events, damage: p.damage ?? j.rowDamage };
}

/**
 * Parses chain-run event rows (from `startSeq`, after `prev`) into the valid prefix, the first
 * defect and the prefix's tail.
 *
 * @example
 * ```ts
 * const p = parseChainEventRows(rows, manifest); p.tail.revision;
 * ```
 */
export function parseChainEventRows(
  rows: readonly PgEventRow[],
  manifest: ChainManifest,
  startSeq = 1,
  prev: ChainTail = startTail(manifest),
): { events: ChainStoreEvent[]; damage: JournalDamage | null; tail: ChainTail } {
  const j = rowsToJournal(rows, startSeq);
  const p = parseChainJournal(j.bytes, manifest, startSeq, startSeq, prev);
  return { events: p.events, damage: p.damage ?? j.rowDamage, tail: p.tail };
}
