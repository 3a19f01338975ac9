/**
 * A person's explicit recovery of a chain journal's stale lock (effects layer). Nothing in the
 * chain ever breaks a lock by itself; this is the call a person (or a verb they run) makes after a
 * writer was killed holding a baton's lock (inside a commit, or — with `holdLocks` — anywhere in
 * its run). It removes the lock only when its body names this host and a pid that is provably not
 * running ({@link judgeChainLock}); a lock of another host, of a live pid, or with an unreadable
 * body is left and the refusal returned. The file judged is the file removed: it is opened without
 * following symlinks, and removed only while the path still names that inode. A removal is then
 * journaled: one `chain-lock-recovery/v1` record file under the journal's `lock-recoveries/`
 * (created exclusively, fsync'd, its directory fsync'd), whose cite the result carries. The file
 * effect ledger's lock (`<dir>/effects.jsonl.lock`, left by a writer killed inside a `begin` or
 * `put`) is recovered by the same rules with {@link recoverEffectLedgerLock}, its record naming
 * `ledger: 'effects'` instead of a baton.
 */
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import {
  createExclusiveFile,
  errnoOf,
  type FsLayer,
  type FsStat,
  fsyncDir,
  makeDirsDurable,
  nodeFsLayer,
  O,
  readFileNoFollow,
  readRange,
  StepFailure,
} from '../durable/index.js';
import { randomHex } from '../ids/index.js';
import { appendLockFile } from './append-lock.js';
import { EFFECT_LEDGER_FILE } from './file-effect-ledger.js';
import { chainJournalLockFile } from './file-journal-path.js';
import { type ChainLockHere, judgeChainLock } from './lock-holder-rule.js';
import {
  CHAIN_LOCK_RECOVERY_SCHEMA,
  type ChainLockRecovery,
  LOCK_RECOVERIES_DIR,
  lockRecoveryBytes,
  lockRecoveryFileName,
  parseChainLockRecovery,
} from './lock-recovery-record.js';

/** Options of {@link recoverChainJournalLock}. */
export interface RecoverChainLockOptions {
  readonly fs?: FsLayer;
  /** This machine's hostname (default `os.hostname()`). */
  readonly host?: string;
  /** Whether a pid runs here (default: `kill(pid, 0)` is not ESRCH). */
  readonly isAlive?: (pid: number) => boolean;
  /** The recovery record's time, ISO 8601 (default: now). */
  readonly now?: () => string;
  /** The record file name's random suffix (default: 8 random hex digits). */
  readonly suffix?: () => string;
  /** The pid the record names as the recovering process (default `process.pid`). */
  readonly pid?: number;
}

/**
 * Where a removal was journaled: the record, its file and its cite (the file's path relative to
 * the journal directory, `lock-recoveries/<name>`).
 */
export interface ChainLockRecoveryCite {
  readonly record: ChainLockRecovery;
  readonly path: string;
  readonly cite: string;
}

/** What {@link recoverChainJournalLock} did. */
export type RecoverChainLockResult =
  | { readonly outcome: 'no_lock'; readonly lock: string }
  | {
      readonly outcome: 'removed';
      readonly lock: string;
      readonly holder: { readonly host: string; readonly pid: number };
      /** The recovery's record (null when it could not be written: then `record_error` says why). */
      readonly journaled: ChainLockRecoveryCite | null;
      readonly record_error?: string;
    }
  | {
      readonly outcome: 'refused';
      readonly lock: string;
      readonly reason: 'unreadable' | 'other_host' | 'owner_alive' | 'not_a_file' | 'changed' | 'io_error';
      readonly detail: string;
    };

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errnoOf(e) !== 'ESRCH';
  }
}

/**
 * Removes `batonId`'s journal lock under `dir` when, and only when, its holder is provably gone
 * (same host, pid not running). Never throws for what it finds: the result says what it did.
 *
 * @example
 * ```ts
 * const r = recoverChainJournalLock('/var/lib/payroll/journal', 'payroll-2026-06');
 * if (r.outcome === 'removed') await chain.resume(journal, 'payroll-2026-06');
 * ```
 */
export function recoverChainJournalLock(
  dir: string,
  batonId: string,
  options: RecoverChainLockOptions = {},
): RecoverChainLockResult {
  return recoverLock(dir, chainJournalLockFile(dir, batonId), { baton_id: batonId }, options);
}

/**
 * Removes the file effect ledger's lock (`<dir>/effects.jsonl.lock`, what a writer killed inside
 * a `begin` or `put` leaves) when, and only when, its holder is provably gone — the very rules of
 * {@link recoverChainJournalLock} — and journals the removal under `<dir>/lock-recoveries/` as a
 * `chain-lock-recovery/v1` record with `ledger: 'effects'`. An effect whose intent the dead writer
 * recorded is then in doubt (decided by its `reconcile`), never run again blindly. Never throws for
 * what it finds.
 *
 * @example
 * ```ts
 * const r = recoverEffectLedgerLock('/var/lib/payroll/effects');
 * if (r.outcome === 'removed') console.log(r.journaled?.cite); // 'lock-recoveries/2026…-1a2b3c4d.json'
 * ```
 */
export function recoverEffectLedgerLock(
  dir: string,
  options: RecoverChainLockOptions = {},
): RecoverChainLockResult {
  return recoverLock(dir, appendLockFile(join(dir, EFFECT_LEDGER_FILE)), { ledger: 'effects' }, options);
}

/** What a recovery record names as the lock's owner: a baton, or the effect ledger. */
type RecoverySubject = { readonly baton_id: string } | { readonly ledger: 'effects' };

function recoverLock(
  dir: string,
  lock: string,
  subject: RecoverySubject,
  options: RecoverChainLockOptions,
): RecoverChainLockResult {
  const fsl = options.fs ?? nodeFsLayer();
  const here: ChainLockHere = {
    host: options.host ?? hostname(),
    isAlive: options.isAlive ?? isProcessAlive,
  };
  const refused = (
    reason: Extract<RecoverChainLockResult, { outcome: 'refused' }>['reason'],
    detail: string,
  ) => ({ outcome: 'refused', lock, reason, detail }) as const;
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted at the lock is judged (not a regular file) at once, never waited on
    fd = fsl.open(lock, O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return { outcome: 'no_lock', lock };
    if (errnoOf(e) === 'ELOOP') return refused('not_a_file', 'the lock path is a symlink: left as it is');
    return refused('io_error', `cannot open the lock: ${errnoOf(e) || String(e)}`);
  }
  let ino: number;
  let dev: number;
  let body: Buffer;
  try {
    const st = fsl.fstat(fd);
    if (!st.isFile()) return refused('not_a_file', 'the lock path is not a regular file: left as it is');
    ino = st.ino;
    dev = st.dev;
    body = readRange(fsl, fd, 0, Math.min(st.size, 4097));
  } catch (e) {
    return refused('io_error', `cannot read the lock: ${errnoOf(e) || String(e)}`);
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // read-only
    }
  }
  const verdict = judgeChainLock(body, here);
  if (!verdict.stale) return refused(verdict.reason, verdict.detail);
  try {
    const now = fsl.lstat(lock);
    if (!now.isFile() || now.ino !== ino || now.dev !== dev)
      return refused('changed', 'the lock changed while it was judged: left as it is');
    fsl.unlink(lock);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return { outcome: 'no_lock', lock };
    return refused('io_error', `cannot remove the lock: ${errnoOf(e) || String(e)}`);
  }
  const at = options.now?.() ?? new Date().toISOString();
  const record: ChainLockRecovery = {
    schema: CHAIN_LOCK_RECOVERY_SCHEMA,
    ...subject,
    lock: basename(lock),
    holder: verdict.holder,
    recovered_by: { host: here.host, pid: options.pid ?? process.pid },
    at,
  };
  const written = journalRecovery(fsl, dir, record, options.suffix ?? (() => randomHex(8)));
  return typeof written === 'string'
    ? { outcome: 'removed', lock, holder: verdict.holder, journaled: null, record_error: written }
    : { outcome: 'removed', lock, holder: verdict.holder, journaled: written };
}

/**
 * Writes `record` durably as a new file under `dir/lock-recoveries/` (the directory made durably
 * when missing; a symlink there is refused, never followed); its cite, or why it failed.
 */
function journalRecovery(
  fsl: FsLayer,
  dir: string,
  record: ChainLockRecovery,
  suffix: () => string,
): ChainLockRecoveryCite | string {
  const sub = join(dir, LOCK_RECOVERIES_DIR);
  const why = (e: unknown): string => errnoOf(e instanceof StepFailure ? e.cause : e) || String(e);
  let st: FsStat | null;
  try {
    st = fsl.lstat(sub);
  } catch (e) {
    if (errnoOf(e) !== 'ENOENT') return `cannot inspect ${LOCK_RECOVERIES_DIR}/: ${why(e)}`;
    st = null;
  }
  if (st !== null && (!st.isDirectory() || st.isSymbolicLink()))
    return `${LOCK_RECOVERIES_DIR} is not a directory (a symlink or a file is never written through)`;
  if (st === null) {
    try {
      makeDirsDurable(fsl, sub, 'lock_recoveries_mkdir');
    } catch (e) {
      return `cannot make ${LOCK_RECOVERIES_DIR}/: ${why(e)}`;
    }
  }
  const bytes = lockRecoveryBytes(record);
  for (let attempt = 0; attempt < 4; attempt++) {
    const name = lockRecoveryFileName(record.at, suffix());
    const path = join(sub, name);
    const made = createExclusiveFile(fsl, path, bytes, { mode: 0o644, sync: true });
    if (!made.ok && made.reason === 'exists') continue;
    if (!made.ok) return `cannot write ${LOCK_RECOVERIES_DIR}/${name}: ${why(made.cause)}`;
    try {
      fsyncDir(fsl, sub, 'lock_recoveries_dir_fsync');
    } catch (e) {
      return `${LOCK_RECOVERIES_DIR}/${name} written, but its directory could not be fsync'd: ${why(e)}`;
    }
    return { record, path, cite: `${LOCK_RECOVERIES_DIR}/${name}` };
  }
  return `cannot write a new file in ${LOCK_RECOVERIES_DIR}/: every name tried exists`;
}

/** The largest recovery record file {@link readChainLockRecoveries} reads (a record is ≈300 bytes). */
const MAX_RECORD_BYTES = 64 * 1024;

/**
 * What {@link readChainLockRecoveries} found for one baton: its recovery records in time order (by
 * file name) with their cites, and the files under `lock-recoveries/` that could not be read as a
 * record (with why) — whoever they belong to, since a damaged file does not say.
 */
export interface ChainLockRecoveries {
  readonly recoveries: readonly { readonly cite: string; readonly record: ChainLockRecovery }[];
  readonly unreadable: readonly { readonly cite: string; readonly detail: string }[];
}

/**
 * The journaled lock recoveries of `batonId` in the chain file journal `dir` (what
 * {@link recoverChainJournalLock} wrote). Nothing there: empty lists. Never throws: a
 * `lock-recoveries` that is not a real directory, a symlink or a non-record file inside it is
 * listed as unreadable, never followed.
 *
 * @example
 * ```ts
 * const { recoveries } = readChainLockRecoveries('/var/lib/payroll/journal', 'payroll-2026-06');
 * recoveries.map((r) => r.cite); // ['lock-recoveries/20261202T120000123Z-1a2b3c4d.json']
 * ```
 */
export function readChainLockRecoveries(
  dir: string,
  batonId: string,
  options: { readonly fs?: FsLayer } = {},
): ChainLockRecoveries {
  return readRecoveries(dir, (r) => r.baton_id === batonId, options);
}

/**
 * The journaled recoveries of the effect ledger's lock in the ledger directory `dir` (what
 * {@link recoverEffectLedgerLock} wrote), like {@link readChainLockRecoveries}. Never throws.
 *
 * @example
 * ```ts
 * const { recoveries } = readEffectLedgerLockRecoveries('/var/lib/payroll/effects');
 * recoveries.map((r) => r.record.holder.pid); // [4242]
 * ```
 */
export function readEffectLedgerLockRecoveries(
  dir: string,
  options: { readonly fs?: FsLayer } = {},
): ChainLockRecoveries {
  return readRecoveries(dir, (r) => r.ledger === 'effects', options);
}

function readRecoveries(
  dir: string,
  keep: (record: ChainLockRecovery) => boolean,
  options: { readonly fs?: FsLayer },
): ChainLockRecoveries {
  const fsl = options.fs ?? nodeFsLayer();
  const sub = join(dir, LOCK_RECOVERIES_DIR);
  const recoveries: { cite: string; record: ChainLockRecovery }[] = [];
  const unreadable: { cite: string; detail: string }[] = [];
  let names: string[];
  try {
    const st = fsl.lstat(sub);
    if (!st.isDirectory() || st.isSymbolicLink()) {
      unreadable.push({
        cite: LOCK_RECOVERIES_DIR,
        detail: 'not a directory (a symlink or a file): not read',
      });
      return { recoveries, unreadable };
    }
    names = fsl.readdir(sub).sort();
  } catch (e) {
    if (errnoOf(e) !== 'ENOENT')
      unreadable.push({ cite: LOCK_RECOVERIES_DIR, detail: `cannot list: ${errnoOf(e) || String(e)}` });
    return { recoveries, unreadable };
  }
  for (const name of names) {
    const cite = `${LOCK_RECOVERIES_DIR}/${name}`;
    let bytes: Buffer | null;
    try {
      // one open (no symlink followed, never waiting on a FIFO), its fstat and a bounded read
      bytes = readFileNoFollow(fsl, join(sub, name), { maxBytes: MAX_RECORD_BYTES });
    } catch (e) {
      const code = errnoOf(e);
      const detail =
        code === 'ELOOP' || code === 'EISDIR'
          ? 'not a regular file: not read'
          : code === 'EFBIG'
            ? `more than ${MAX_RECORD_BYTES} bytes: too large for a recovery record`
            : `cannot read: ${code || String(e)}`;
      unreadable.push({ cite, detail });
      continue;
    }
    if (bytes === null) continue; // removed meanwhile
    const parsed = parseChainLockRecovery(bytes.toString('utf8'));
    if (!parsed.ok) unreadable.push({ cite, detail: parsed.detail });
    else if (keep(parsed.value)) recoveries.push({ cite, record: parsed.value });
  }
  return { recoveries, unreadable };
}
