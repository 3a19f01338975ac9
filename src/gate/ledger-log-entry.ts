/**
 * What every {@link LedgerLog} backend (fs, PostgreSQL) checks the same way (pure): problem ids
 * before any I/O, and each stored entry on read — it parses, is a valid ledger event, and carries
 * the sequence number it is stored under. Anything else fails closed (`ledger_damaged`).
 */
import { HandoffError } from '../errors/index.js';
import { safeValidate } from '../validation/index.js';
import { ProblemIdSchema } from './contract-schema.js';
import { type LedgerEvent, LedgerEventSchema } from './ledger-state.js';

/**
 * The `ledger_damaged` refusal for the log of `problemId`.
 *
 * @example
 * ```ts
 * throw ledgerDamaged('billing-17', 'gap in the log before entry 3');
 * ```
 */
export function ledgerDamaged(problemId: string, message: string, cause?: unknown): HandoffError {
  return new HandoffError('ledger_damaged', `ledger of ${problemId}: ${message}`, {
    details: { problem_id: problemId },
    cause,
  });
}

/**
 * Throws `invalid_input` unless `problemId` is a valid problem id.
 *
 * @example
 * ```ts
 * assertProblemId('billing-17'); // returns
 * assertProblemId('../etc'); // throws invalid_input
 * ```
 */
export function assertProblemId(problemId: string): void {
  if (!ProblemIdSchema.safeParse(problemId).success) {
    throw new HandoffError('invalid_input', `not a problem id: ${JSON.stringify(problemId)}`, {
      details: { problem_id: problemId },
    });
  }
}

/**
 * Parses the stored text of entry `seq` of a problem's log: JSON, a valid ledger event, and its own
 * `seq` equal to the one it is stored under — or `ledger_damaged`.
 *
 * @example
 * ```ts
 * const event = parseLedgerEntry('billing-17', 1, text);
 * ```
 */
export function parseLedgerEntry(problemId: string, seq: number, text: string): LedgerEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw ledgerDamaged(problemId, `entry ${seq} is unreadable`, e);
  }
  const v = safeValidate(LedgerEventSchema, parsed);
  if (!v.ok || v.value.seq !== seq)
    throw ledgerDamaged(problemId, `entry ${seq} is not a valid ledger event`);
  return v.value;
}
