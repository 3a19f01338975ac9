/**
 * `ChainJournal`: where a chain makes its commits durable. Each seam commit appends the new baton
 * revision together with its receipt in one atomic record; resuming loads the last committed
 * baton. The interface is deliberately narrow (two calls over append-only records) so it can be
 * adapted onto the run store later. This file holds the interface, the sequencing rule shared by
 * every implementation, and the in-memory implementation.
 */
import { HandoffError } from '../errors/index.js';
import type { Baton, StageReceipt } from './baton.js';

/** One journal record: a committed baton revision and the receipt of the commit that made it. */
export interface JournalEntry {
  readonly baton: Baton;
  /** The receipt of the commit (the baton's last receipt), or null for a revision-0 baton. */
  readonly receipt: StageReceipt | null;
}

/** Durable home of a chain's commits. */
export interface ChainJournal {
  /**
   * Appends one entry atomically and resolves once it is durable. Re-committing the last entry is
   * a no-op; any other out-of-sequence entry is refused with `journal_conflict`.
   */
  commit(entry: JournalEntry): Promise<void>;
  /** The last committed baton of `batonId`, or undefined when none was committed. */
  loadLast(batonId: string): Promise<Baton | undefined>;
}

/**
 * How `entry` relates to the last committed baton: `append` (the next revision, chained by
 * fingerprint), `duplicate` (the same state again) or a problem string.
 *
 * @example
 * ```ts
 * chainJournalSequence(undefined, { baton: b0, receipt: null }); // 'append'
 * ```
 */
export function chainJournalSequence(
  last: Baton | undefined,
  entry: JournalEntry,
): 'append' | 'duplicate' | string {
  const b = entry.baton;
  const lastReceipt = b.stage_receipts[b.stage_receipts.length - 1] ?? null;
  if ((lastReceipt?.receipt_id ?? null) !== (entry.receipt?.receipt_id ?? null)) {
    return 'the receipt is not the baton’s last receipt';
  }
  if (last === undefined) return 'append';
  if (b.revision === last.revision && b.fingerprint === last.fingerprint) return 'duplicate';
  if (b.revision !== last.revision + 1) return `revision ${b.revision} does not follow ${last.revision}`;
  if (entry.receipt?.input_fingerprint !== last.fingerprint)
    return 'the receipt does not start from the last committed baton';
  return 'append';
}

/**
 * Throws `journal_conflict` unless {@link chainJournalSequence} allows the entry; returns whether it
 * must be written.
 *
 * @example
 * ```ts
 * if (assertSequence(last, entry)) await write(entry);
 * ```
 */
export function assertSequence(last: Baton | undefined, entry: JournalEntry): boolean {
  const s = chainJournalSequence(last, entry);
  if (s === 'append') return true;
  if (s === 'duplicate') return false;
  throw new HandoffError('journal_conflict', `journal refuses ${entry.baton.snapshot_id}: ${s}`, {
    details: {
      baton_id: entry.baton.baton_id,
      revision: entry.baton.revision,
      last_revision: last?.revision ?? null,
    },
  });
}

/**
 * An in-memory {@link ChainJournal} (tests, embedding without durability).
 *
 * @example
 * ```ts
 * const journal = createMemoryChainJournal(); await chain.run(b0, { journal });
 * ```
 */
export function createMemoryChainJournal(): ChainJournal & {
  entries(batonId: string): readonly JournalEntry[];
} {
  const byId = new Map<string, JournalEntry[]>();
  return {
    async commit(entry) {
      const list = byId.get(entry.baton.baton_id) ?? [];
      if (assertSequence(list[list.length - 1]?.baton, entry)) {
        list.push(entry);
        byId.set(entry.baton.baton_id, list);
      }
    },
    async loadLast(batonId) {
      const list = byId.get(batonId);
      return list?.[list.length - 1]?.baton;
    },
    entries: (batonId) => [...(byId.get(batonId) ?? [])],
  };
}
