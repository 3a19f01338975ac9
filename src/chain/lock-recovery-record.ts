/**
 * The record a chain lock recovery leaves (pure): what was removed (a baton's journal lock, or the
 * effect ledger's lock), whose it was, who removed it and when (`chain-lock-recovery/v1`).
 * {@link recoverChainJournalLock} (and `recoverEffectLedgerLock`, in the effect ledger's directory) writes one file
 * per recovery under the journal's `lock-recoveries/` directory — created exclusively under a
 * fresh name, so two recoveries never share a file, need no lock and cannot tear each other — and
 * answers with its cite (`lock-recoveries/<name>`, relative to the journal directory). The file
 * names sort by time. Readers parse with {@link parseChainLockRecovery}, which never throws.
 */
import { z } from 'zod';
import { canonicalJson } from '../canonical/index.js';
import { safeValidate } from '../validation/index.js';

/** The directory, inside a chain file journal's directory, that holds the recovery records. */
export const LOCK_RECOVERIES_DIR = 'lock-recoveries';

/** The record's schema id. */
export const CHAIN_LOCK_RECOVERY_SCHEMA = 'chain-lock-recovery/v1';

const Pid = z
  .number()
  .int()
  .positive()
  .max(2 ** 31 - 1);
const Host = z.string().min(1).max(255);

/**
 * One recovery: the baton whose lock was removed (or `ledger: 'effects'` for the effect ledger's
 * lock), the lock's file name (inside the journal
 * directory), the holder its body named (this host, a pid that was not running), the process that
 * removed it, and when (ISO 8601, UTC).
 *
 * @example
 * ```ts
 * ChainLockRecoverySchema.parse({ schema: 'chain-lock-recovery/v1', baton_id: 'b', lock: 'baton-1a2b.jsonl.lock',
 *   holder: { host: 'h', pid: 4242 }, recovered_by: { host: 'h', pid: 9 }, at: '2026-12-02T12:00:00.000Z' });
 * ```
 */
export const ChainLockRecoverySchema = z
  .object({
    schema: z.literal(CHAIN_LOCK_RECOVERY_SCHEMA),
    /** The baton whose journal lock was removed (absent for an effect ledger's lock). */
    baton_id: z.string().min(1).optional(),
    /** `effects`: the lock removed was the effect ledger's (`effects.jsonl.lock`), not a baton's. */
    ledger: z.literal('effects').optional(),
    lock: z
      .string()
      .min(1)
      .refine((s) => !s.includes('/') && s !== '.' && s !== '..', 'a file name, not a path'),
    holder: z.object({ host: Host, pid: Pid }).strict(),
    recovered_by: z.object({ host: Host, pid: Pid }).strict(),
    at: z.iso.datetime(),
  })
  .strict()
  .refine(
    (r) => (r.baton_id === undefined) !== (r.ledger === undefined),
    'a recovery names either a baton_id or the effects ledger, exactly one',
  );

/** A chain lock recovery record (`chain-lock-recovery/v1`). */
export type ChainLockRecovery = z.infer<typeof ChainLockRecoverySchema>;

/**
 * The file name of a recovery record: the time (sortable, no separators a file system minds),
 * then a random suffix so two recoveries in one millisecond do not meet (pure).
 *
 * @example
 * ```ts
 * lockRecoveryFileName('2026-12-02T12:00:00.123Z', '1a2b3c4d'); // '20261202T120000123Z-1a2b3c4d.json'
 * ```
 */
export function lockRecoveryFileName(at: string, suffix: string): string {
  return `${at.replace(/[-:.]/g, '')}-${suffix}.json`;
}

/**
 * The bytes of a recovery record file: its canonical JSON and a newline (pure).
 *
 * @example
 * ```ts
 * const bytes = lockRecoveryBytes(record); // Buffer of '{"at":…,"baton_id":…}\n'
 * ```
 */
export function lockRecoveryBytes(record: ChainLockRecovery): Buffer {
  return Buffer.from(`${canonicalJson(record)}\n`, 'utf8');
}

/**
 * Parses a recovery record file's text; never throws.
 *
 * @example
 * ```ts
 * const r = parseChainLockRecovery(text);
 * if (r.ok) console.log(r.value.holder.pid);
 * ```
 */
export function parseChainLockRecovery(
  text: string,
):
  | { readonly ok: true; readonly value: ChainLockRecovery }
  | { readonly ok: false; readonly detail: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, detail: `not JSON: ${(e as Error).message}` };
  }
  const v = safeValidate(ChainLockRecoverySchema, json);
  if (!v.ok) return { ok: false, detail: v.issues[0]?.message ?? 'not a chain-lock-recovery/v1 record' };
  return { ok: true, value: v.value };
}
