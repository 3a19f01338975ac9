/**
 * The decisions of `handoff store recover` (pure: no file system, no processes, no clock). The
 * file work is `fs-recover.ts`; this file says what a lock body means, whether its owner is
 * provably dead, what of a damaged journal may be cut, what the journaled note says, and how a
 * result reads and exits.
 *
 * The one rule for a lock: it is broken only when its body parses as `{acquired, host, pid}`,
 * `host` is this machine's hostname and no process `pid` exists here. Anything else — another
 * host, a live pid, a pid whose liveness cannot be ruled out, an empty or unparsable body — keeps
 * the lock. A reused pid (the dead writer's pid now names another process) looks alive and keeps
 * the lock too: the safe side.
 *
 * The one rule for a journal: only a `truncated_tail` is cut, and only the bytes after the last
 * newline (an append is acknowledged only after its whole line, newline included, is fsync'd, so
 * those bytes are never an acknowledged event). A `corrupt` line is never repaired.
 */

import { type BatchRecordProblem, describeBatchProblems } from './batch-verify.js';
import {
  type LockOwner,
  RECOVER_SCHEMA,
  type RecoverAction,
  type RecoverOutcome,
  type RecoverReason,
  type RecoverResult,
  type TailTruncatedAction,
} from './recover-schema.js';
import type { JournalDamage, StoreCode } from './store-types.js';

/** A lock body larger than this is not a lock body this runtime or the reference wrote. */
export const MAX_LOCK_BODY = 4096;

/** The note kind a recovery is journaled under (a run-contract note has six fixed kinds). */
export const RECOVER_NOTE_KIND = 'blocker-diagnosis';

/** Every journaled recovery note's text starts with this. */
export const RECOVER_NOTE_PREFIX = 'store recover:';

/** Exit status of each outcome: 0 recovered / nothing to do / planned, 3 refused, 6 incomplete. */
export const RECOVER_EXIT_CODES: Readonly<Record<RecoverOutcome, number>> = {
  recovered: 0,
  nothing_to_do: 0,
  planned: 0,
  refused: 3,
  incomplete: 6,
};

/**
 * The answer for a PostgreSQL store (`nothing_to_do`): it has neither of the two things recover
 * repairs.
 */
export const PG_NOTHING_TO_RECOVER =
  'PostgreSQL store: there is no lock file (a mutation holds a transaction-scoped advisory lock, which ends with its transaction or session, also when the writer dies) and no torn line (each event is one row inserted in a transaction): nothing to recover, nothing written';

const LOCK_KEYS = ['acquired', 'host', 'pid'];

/**
 * Parses a lock body (`{acquired, host, pid}` as JSON: the canonical line this store writes, or
 * the reference's `json.dumps` with spaces). Exactly those three keys, `pid` a positive safe
 * integer, `host` a non-empty string, `acquired` a string; at most {@link MAX_LOCK_BODY} bytes of
 * valid UTF-8.
 *
 * @example
 * ```ts
 * parseLockBody(Buffer.from('{"acquired":"2026-11-30T10:00:00Z","host":"h","pid":42}\n'));
 * // { ok: true, owner: { pid: 42, host: 'h', acquired: '2026-11-30T10:00:00Z' } }
 * parseLockBody(Buffer.alloc(0)); // { ok: false, why: 'the lock body is empty (…)' }
 * ```
 */
export function parseLockBody(
  bytes: Uint8Array,
): { readonly ok: true; readonly owner: LockOwner } | { readonly ok: false; readonly why: string } {
  if (bytes.length === 0)
    return {
      ok: false,
      why: 'the lock body is empty (a writer stopped between creating .lock and writing its body?)',
    };
  if (bytes.length > MAX_LOCK_BODY)
    return { ok: false, why: `the lock body has ${bytes.length} bytes (more than ${MAX_LOCK_BODY})` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, why: 'the lock body is not valid UTF-8' };
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, why: `the lock body is not JSON (${(e as Error).message})` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return { ok: false, why: 'the lock body is not a JSON object' };
  const keys = Object.keys(v).sort();
  if (keys.length !== LOCK_KEYS.length || keys.some((k, i) => k !== LOCK_KEYS[i]))
    return { ok: false, why: `the lock body's keys are not exactly ${LOCK_KEYS.join(', ')}` };
  const o = v as Record<string, unknown>;
  if (typeof o.pid !== 'number' || !Number.isSafeInteger(o.pid) || o.pid <= 0)
    return { ok: false, why: 'the lock body has no positive integer pid' };
  if (typeof o.host !== 'string' || o.host === '') return { ok: false, why: 'the lock body has no host' };
  if (typeof o.acquired !== 'string') return { ok: false, why: 'the lock body has no acquired time' };
  return { ok: true, owner: { pid: o.pid, host: o.host, acquired: o.acquired } };
}

/** What recover knows about the machine it runs on. */
export interface RecoverHere {
  /** This machine's hostname. */
  readonly host: string;
  /** True when `pid` names a process here, or its absence cannot be proven (the safe side). */
  readonly isAlive: (pid: number) => boolean;
}

/**
 * Decides whether a lock's recorded owner is provably dead: same host and no such pid.
 *
 * @example
 * ```ts
 * judgeLock({ pid: 4242, host: 'h', acquired: 't' }, { host: 'h', isAlive: () => false }); // { stale: true }
 * judgeLock({ pid: 4242, host: 'other', acquired: 't' }, here); // { stale: false, reason: 'other_host', … }
 * ```
 */
export function judgeLock(
  owner: LockOwner,
  here: RecoverHere,
):
  | { readonly stale: true }
  | { readonly stale: false; readonly reason: 'other_host' | 'owner_alive'; readonly detail: string } {
  if (owner.host !== here.host)
    return {
      stale: false,
      reason: 'other_host',
      detail: `the lock was taken on host ${JSON.stringify(owner.host)}, not this host (${JSON.stringify(here.host)}): its owner cannot be checked from here`,
    };
  if (here.isAlive(owner.pid))
    return {
      stale: false,
      reason: 'owner_alive',
      detail: `the lock's owner pid ${owner.pid} is running on this host (or a process reusing its pid is): the lock is held`,
    };
  return { stale: true };
}

/** The state of a journal as read by recover: its size, the valid prefix's bytes and the first defect. */
export interface JournalShape {
  readonly size: number;
  /** The plain line parse (`parseJournal`): bytes of the valid prefix and its first defect. */
  readonly validBytes: number;
  readonly damage: JournalDamage | null;
  /** True when the bytes from `validBytes` to `size` hold a newline. */
  readonly tailHasNewline: boolean;
  /**
   * The damage the store's own load reports for the same run (it may know more than the plain
   * line parse, e.g. a torn batch whose complete lines the plain parse accepts).
   */
  readonly loadDamage: JournalDamage | null;
  /**
   * The inconsistencies of the run's batch records with this journal (`batchRecordProblems`;
   * absent or empty: none). With any, a torn batch's complete lines are never cut.
   */
  readonly batchProblems?: readonly BatchRecordProblem[];
}

/** A journal refusal of {@link planTail}. */
export interface TailRefusal {
  readonly kind: 'refuse';
  readonly code: 'journal_damaged';
  readonly reason: RecoverReason;
  readonly detail: string;
}

/**
 * What to do with a journal: nothing (whole), truncate its torn tail, or refuse. A truncation needs
 * the plain line parse and the store's load to agree on a `truncated_tail` at the same line with
 * the same byte count, and those bytes to hold no newline: exactly the bytes after the last
 * newline. A torn group-commit batch (the load ends the valid prefix at the batch's first line,
 * the plain parse sees complete lines there) is cut back to the batch's first line: none of its
 * events was acknowledged — but only when the batch records are consistent with the journal
 * (`j.batchProblems` empty, see batch-verify.ts); otherwise refused, `batch_record_inconsistent`. A `corrupt` line (either verdict) is refused, and so is any other
 * disagreement (a tail that holds a newline the load does not explain).
 *
 * @example
 * ```ts
 * const d = { code: 'truncated_tail', line: 3, bytes: 20, detail: '…' } as const;
 * planTail({ size: 120, validBytes: 100, tailHasNewline: false, damage: d, loadDamage: d });
 * // { kind: 'truncate', action: { kind: 'tail_truncated', line: 3, bytes: 20, size_before: 120, size_after: 100 } }
 * ```
 */
export function planTail(
  j: JournalShape,
):
  | { readonly kind: 'none' }
  | { readonly kind: 'truncate'; readonly action: TailTruncatedAction }
  | TailRefusal {
  const d = j.damage;
  const l = j.loadDamage;
  if (d === null && l === null) return { kind: 'none' };
  const corrupt = d?.code === 'corrupt' ? d : l?.code === 'corrupt' ? l : null;
  if (corrupt !== null)
    return {
      kind: 'refuse',
      code: 'journal_damaged',
      reason: 'corrupt_line',
      detail: `the journal has a corrupt line, which recover never repairs (${corrupt.detail})`,
    };
  // a torn group-commit batch: the load ends the valid prefix at the batch's first line (its
  // complete lines were never acknowledged: the journal fsync follows the whole write), and the
  // plain line parse sees at most a torn last line after that point
  if (
    l?.code === 'truncated_tail' &&
    l.bytes !== undefined &&
    l.bytes > 0 &&
    l.bytes <= j.size &&
    j.size - l.bytes <= j.validBytes &&
    (d === null || d.code === 'truncated_tail') &&
    (d === null ? 0 : j.size - j.validBytes) < l.bytes
  ) {
    // the cut would drop complete lines: only when the records are what a crash leaves behind
    if (j.batchProblems !== undefined && j.batchProblems.length > 0)
      return {
        kind: 'refuse',
        code: 'journal_damaged',
        reason: 'batch_record_inconsistent',
        detail: `the load ends the valid prefix at line ${l.line} because of a batch record, but ${describeBatchProblems(j.batchProblems)}; recover cuts no complete line on such a record`,
      };
    return {
      kind: 'truncate',
      action: {
        kind: 'tail_truncated',
        line: l.line,
        bytes: l.bytes,
        size_before: j.size,
        size_after: j.size - l.bytes,
      },
    };
  }
  const bytes = j.size - j.validBytes;
  if (
    d === null ||
    l === null ||
    j.tailHasNewline ||
    bytes <= 0 ||
    d.bytes !== bytes ||
    l.line !== d.line ||
    l.bytes !== bytes
  )
    return {
      kind: 'refuse',
      code: 'journal_damaged',
      reason: 'torn_tail_spans_lines',
      detail: `the damage is not only bytes after the last newline (${describeDamage('lines', d)}; ${describeDamage('load', l)}); recover cuts nothing else`,
    };
  return {
    kind: 'truncate',
    action: {
      kind: 'tail_truncated',
      line: d.line,
      bytes,
      size_before: j.size,
      size_after: j.validBytes,
    },
  };
}

function describeDamage(who: string, d: JournalDamage | null): string {
  return d === null
    ? `${who}: none`
    : `${who}: ${d.code} at line ${d.line}${d.bytes === undefined ? '' : `, ${d.bytes} bytes`}`;
}

/**
 * The journaled note's text: {@link RECOVER_NOTE_PREFIX} and the facts of each action.
 *
 * @example
 * ```ts
 * recoverNoteText([{ kind: 'lock_broken', owner: { pid: 4242, host: 'h', acquired: '2026-11-30T10:00:00Z' } }]);
 * // 'store recover: broke the stale run lock of pid 4242 on host "h" (acquired 2026-11-30T10:00:00Z; no such process on this host)'
 * ```
 */
export function recoverNoteText(actions: readonly RecoverAction[]): string {
  return `${RECOVER_NOTE_PREFIX} ${actions.map(describeAction).join('; ')}`;
}

/**
 * One action in words (the note's text and the CLI's text output).
 *
 * @example
 * ```ts
 * describeAction({ kind: 'tail_truncated', line: 3, bytes: 20, size_before: 120, size_after: 100 });
 * // 'truncated the torn tail at line 3 (20 bytes after the last newline; size 120 -> 100)'
 * ```
 */
export function describeAction(a: RecoverAction): string {
  if (a.kind === 'lock_broken')
    return `broke the stale run lock of pid ${a.owner.pid} on host ${JSON.stringify(a.owner.host)} (acquired ${a.owner.acquired}; no such process on this host)`;
  return `truncated the torn tail at line ${a.line} (${a.bytes} bytes never acknowledged: the bytes after the last newline, or a torn batch from its first line; size ${a.size_before} -> ${a.size_after})`;
}

/** Optional members of a result. */
export interface RecoverExtras {
  readonly cite?: string;
  readonly code?: StoreCode;
  readonly reason?: RecoverReason;
  readonly step?: string;
  readonly lock_owner?: LockOwner;
}

/**
 * Builds a `run-store-recover/v1` record (members in a fixed order, absent ones left out).
 *
 * @example
 * ```ts
 * recoverResult('refused', id, false, [], 'the lock is held', { code: 'busy', reason: 'owner_alive' });
 * ```
 */
export function recoverResult(
  outcome: RecoverOutcome,
  runId: string | null,
  dryRun: boolean,
  actions: readonly RecoverAction[],
  detail: string,
  extras: RecoverExtras = {},
): RecoverResult {
  return {
    schema: RECOVER_SCHEMA,
    run_id: runId,
    outcome,
    dry_run: dryRun,
    actions,
    ...(extras.cite === undefined ? {} : { cite: extras.cite }),
    ...(extras.code === undefined ? {} : { code: extras.code }),
    ...(extras.reason === undefined ? {} : { reason: extras.reason }),
    ...(extras.step === undefined ? {} : { step: extras.step }),
    ...(extras.lock_owner === undefined ? {} : { lock_owner: extras.lock_owner }),
    detail,
  };
}

/**
 * The result as lines for a person (the CLI without `--json`).
 *
 * @example
 * ```ts
 * recoverText(result); // 'store recover 2026…: recovered\n  broke the stale run lock …\n  journaled as 2026…#8\n'
 * ```
 */
export function recoverText(r: RecoverResult): string {
  const head = `store recover ${r.run_id ?? '(no run id)'}: ${r.outcome}${r.dry_run ? ' (dry run)' : ''}${
    r.code === undefined ? '' : ` [${r.code}${r.reason === undefined ? '' : `/${r.reason}`}]`
  }`;
  const lines = [head];
  for (const a of r.actions) lines.push(`  ${r.outcome === 'planned' ? 'plan: ' : ''}${describeAction(a)}`);
  if (r.cite !== undefined) lines.push(`  journaled as ${r.cite}`);
  lines.push(`  ${r.detail}`);
  return `${lines.join('\n')}\n`;
}
