/**
 * The record `handoff store recover` (and `recoverRun`) answers with: `run-store-recover/v1`.
 * Types and the zod schema only (no behaviour); the decisions are in `recover-rules.ts`, the file
 * work in `fs-recover.ts`.
 */
import { z } from 'zod';
import { STORE_CODES } from '../errors/error-codes.js';
import type { StoreCode } from './store-types.js';

/** Schema id of the recover record. */
export const RECOVER_SCHEMA = 'run-store-recover/v1';

/**
 * The outcomes of a recovery:
 * - `recovered`: every planned action was done and journaled (`cite` names the note);
 * - `nothing_to_do`: no lock and no torn tail (or a backend without either); nothing written;
 * - `planned`: `--dry-run` with something to do; `actions` is the plan, nothing was changed;
 * - `refused`: nothing was changed (`code`, `reason`, `detail` say why);
 * - `incomplete`: something was changed (see `actions`) but a later step failed — not (fully)
 *   journaled, or the lock could not be taken back; `code` and `step` say where.
 */
export const RECOVER_OUTCOMES = ['recovered', 'nothing_to_do', 'planned', 'refused', 'incomplete'] as const;
/** One recover outcome. */
export type RecoverOutcome = (typeof RECOVER_OUTCOMES)[number];

/**
 * Finer reasons of a refusal (or of an incomplete recovery), beside the catalogue `code`:
 * - `owner_alive`: the lock's pid exists on this host (or its liveness cannot be ruled out) — `busy`;
 * - `other_host`: the lock was taken on another host, whose processes cannot be checked — `busy`;
 * - `lock_unparsable`: the lock body is empty, not JSON or not `{acquired, host, pid}` — `busy`;
 * - `lock_not_a_file`: `.lock` is a symlink, a directory or another non-regular file — `containment`;
 * - `lock_unreadable`: `.lock` cannot be examined (lstat/open/read failed) — `lock_unavailable`;
 * - `lock_changed`: the lock was replaced while recover examined it — `busy`;
 * - `corrupt_line`: the journal has a corrupt line (not a torn tail) — `journal_damaged`;
 * - `torn_tail_spans_lines`: the damage after the valid prefix holds a newline, so it is more
 *   than the bytes after the last newline — `journal_damaged`;
 * - `batch_record_inconsistent`: a batch record would have recover cut complete lines, but the
 *   records are not what a crash of this store's writer leaves (a superseding record that starts
 *   elsewhere or re-uses the seqs of a batch whose events are present, a torn batch followed by
 *   other sidecar lines, a torn batch's lines with several timestamps) — `journal_damaged`;
 * - `chain_run`: chain runs have no note kind to journal a recovery — `kind_unsupported`.
 */
export const RECOVER_REASONS = [
  'owner_alive',
  'other_host',
  'lock_unparsable',
  'lock_not_a_file',
  'lock_unreadable',
  'lock_changed',
  'corrupt_line',
  'torn_tail_spans_lines',
  'batch_record_inconsistent',
  'chain_run',
] as const;
/** One finer refusal reason. */
export type RecoverReason = (typeof RECOVER_REASONS)[number];

/** The diagnostic body of a run lock, `{acquired, host, pid}`, as parsed by recover. */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly acquired: string;
}

/** A stale lock broken (or, in a plan, to be broken): its recorded owner. */
export interface LockBrokenAction {
  readonly kind: 'lock_broken';
  readonly owner: LockOwner;
}

/** A torn tail truncated (or to be): the 1-based line it started, its bytes, the journal sizes. */
export interface TailTruncatedAction {
  readonly kind: 'tail_truncated';
  readonly line: number;
  readonly bytes: number;
  readonly size_before: number;
  readonly size_after: number;
}

/** One action of a recovery (done, or planned under `--dry-run`). */
export type RecoverAction = LockBrokenAction | TailTruncatedAction;

/**
 * The `run-store-recover/v1` record.
 *
 * @example
 * ```ts
 * const r: RecoverResult = { schema: 'run-store-recover/v1', run_id: id, outcome: 'nothing_to_do',
 *   dry_run: false, actions: [], detail: 'no lock and no torn tail: nothing written' };
 * ```
 */
export interface RecoverResult {
  readonly schema: typeof RECOVER_SCHEMA;
  /** The run, or null when the given id is not a run id. */
  readonly run_id: string | null;
  readonly outcome: RecoverOutcome;
  readonly dry_run: boolean;
  /** What was done (`recovered`, `incomplete`) or would be done (`planned`); empty otherwise. */
  readonly actions: readonly RecoverAction[];
  /** The cite `<run_id>#<seq>` of the journaled note (`recovered`). */
  readonly cite?: string;
  /** Catalogue code of a refusal or of the step that failed. */
  readonly code?: StoreCode;
  /** Finer reason of a refusal. */
  readonly reason?: RecoverReason;
  /** `incomplete`: the step that failed (`lock`, `truncate`, `fsync`, `journal`, `restore`…). */
  readonly step?: string;
  /** The lock's recorded owner when recover refused to break it (and the body parsed). */
  readonly lock_owner?: LockOwner;
  readonly detail: string;
}

const LockOwnerSchema = z.strictObject({
  pid: z.number().int().positive(),
  host: z.string(),
  acquired: z.string(),
});

/**
 * zod schema of {@link RecoverResult} (for `handoff schemas`: `run-store-recover.v1`).
 *
 * @example
 * ```ts
 * RecoverResultSchema.parse(JSON.parse(stdout)).outcome;
 * ```
 */
export const RecoverResultSchema = z.strictObject({
  schema: z.literal(RECOVER_SCHEMA),
  run_id: z.string().nullable(),
  outcome: z.enum(RECOVER_OUTCOMES),
  dry_run: z.boolean(),
  actions: z.array(
    z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('lock_broken'), owner: LockOwnerSchema }),
      z.strictObject({
        kind: z.literal('tail_truncated'),
        line: z.number().int().positive(),
        bytes: z.number().int().positive(),
        size_before: z.number().int().nonnegative(),
        size_after: z.number().int().nonnegative(),
      }),
    ]),
  ),
  cite: z.string().optional(),
  code: z.enum(STORE_CODES).optional(),
  reason: z.enum(RECOVER_REASONS).optional(),
  step: z.string().optional(),
  lock_owner: LockOwnerSchema.optional(),
  detail: z.string(),
});
