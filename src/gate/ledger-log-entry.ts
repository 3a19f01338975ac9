/**
 * What every {@link LedgerLog} backend (fs, PostgreSQL) checks the same way (pure): problem ids
 * before any I/O, and each stored entry on read — it parses, is a valid ledger event, and carries
 * the sequence number it is stored under. Anything else fails closed (`ledger_damaged`). The same
 * for an entry's transition trace (ledger-trace.ts): refused before anything is written when it is
 * not a valid trace (`invalid_input`), checked again when it is read back for an audit.
 */
import { HandoffError } from '../errors/index.js';
import { safeValidate } from '../validation/index.js';
import { ProblemIdSchema } from './contract-schema.js';
import { type LedgerEvent, LedgerEventSchema } from './ledger-state.js';
import { type LedgerTrace, LedgerTraceSchema } from './ledger-trace.js';

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

/**
 * The JSON text an append stores for its entry's `trace` (the validated trace, as JSON), or
 * `invalid_input` before anything is written when it is not a valid {@link LedgerTrace}.
 *
 * @example
 * ```ts
 * ledgerTraceJson('billing-17', { start: true, steps: [] }); // '{"start":true,"steps":[]}'
 * ledgerTraceJson('billing-17', { start: 'yes' } as never); // throws invalid_input
 * ```
 * @throws HandoffError `invalid_input` when `trace` is not a valid ledger trace.
 */
export function ledgerTraceJson(problemId: string, trace: unknown): string {
  const t = safeValidate(LedgerTraceSchema, trace);
  if (!t.ok) {
    throw new HandoffError(
      'invalid_input',
      `ledger of ${problemId}: not a valid trace (${t.issues[0]?.message ?? 'invalid'}); nothing was written`,
      { details: { problem_id: problemId, issues: t.issues.slice(0, 5) } },
    );
  }
  return JSON.stringify(t.value);
}

/**
 * Parses the stored trace text of entry `seq`: JSON and a valid {@link LedgerTrace} — or
 * `ledger_damaged` (a trace an audit cannot trust is never skipped).
 *
 * @example
 * ```ts
 * parseLedgerTrace('billing-17', 2, '{"start":false,"steps":[]}'); // { start: false, steps: [] }
 * parseLedgerTrace('billing-17', 2, '{"start":1}'); // throws ledger_damaged
 * ```
 * @throws HandoffError `ledger_damaged` when the text is not a valid trace.
 */
export function parseLedgerTrace(problemId: string, seq: number, text: string): LedgerTrace {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw ledgerDamaged(problemId, `the trace of entry ${seq} is unreadable`, e);
  }
  const t = safeValidate(LedgerTraceSchema, parsed);
  if (!t.ok) throw ledgerDamaged(problemId, `the trace of entry ${seq} is not a valid trace`);
  return t.value as LedgerTrace; // absent optional keys stay absent in zod's output
}

/**
 * Checks the text a backend is about to store for an event as its reader will parse it back —
 * JSON, a valid ledger event — or `invalid_input` before anything is written: a stored entry the
 * reader refuses would fail the problem's ledger closed for good (its rows are append-only).
 *
 * @example
 * ```ts
 * assertStorableEvent('billing-17', canonicalJson(event)); // returns, or throws invalid_input
 * ```
 * @throws HandoffError `invalid_input` when the reader would refuse the stored text.
 */
export function assertStorableEvent(problemId: string, text: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const v = safeValidate(LedgerEventSchema, parsed);
  if (!v.ok) {
    throw new HandoffError(
      'invalid_input',
      `ledger of ${problemId}: not a valid ledger event (${v.issues[0]?.message ?? 'invalid'}); nothing was written`,
      { details: { problem_id: problemId, issues: v.issues.slice(0, 5) } },
    );
  }
}
