/**
 * `recoverRun`: the explicit, audited recovery of one fs-store run (`handoff store recover`). It
 * breaks the run's `.lock` only when its recorded owner is provably dead (same host, no such pid),
 * truncates a torn tail back to the last complete line under the run's lock (ftruncate + fsync),
 * and journals what it did as a `blocker-diagnosis` note through the store's normal append path,
 * answering with the note's cite. Nothing else in the runtime calls it: nothing recovers
 * automatically. The decisions are `recover-rules.ts` (pure); this file does the file work.
 *
 * Breaking a lock: the lock is examined (lstat: a regular file, not a symlink or directory; read
 * with O_NOFOLLOW, at most 4 KiB), judged, then renamed aside to `.lock.recover-<pid>-<hex>` and
 * compared with what was judged (device, inode and bytes). Only when it is the very lock judged
 * is it removed; otherwise it is linked back and recover refuses (`lock_changed`). This narrows,
 * but cannot close, the window in which two recoverers run on one run at once: run one at a time.
 */
import { ftruncateSync } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import {
  errnoOf,
  type FsLayer,
  fsyncDir,
  nodeFsLayer,
  O,
  readFileNoFollow,
  readRange,
} from '../durable/index.js';
import { randomHex } from '../ids/index.js';
import { judgeBatches, parseBatchRecords } from './batch-rules.js';
import { batchRecordProblems } from './batch-verify.js';
import { isChainManifest, type StoredManifest } from './chain-schema.js';
import { formatCite } from './cite.js';
import { type RunPaths, runPaths, type StoreRootInput } from './fs-layout.js';
import { acquireLock, releaseLock } from './fs-lock.js';
import { createFsStore, type FsStore } from './fs-store.js';
import { parseJournal } from './journal-parse.js';
import { quoteValue } from './quote-value.js';
import {
  type JournalShape,
  judgeLock,
  MAX_LOCK_BODY,
  parseLockBody,
  planTail,
  RECOVER_NOTE_KIND,
  type RecoverExtras,
  recoverNoteText,
  recoverResult,
} from './recover-rules.js';
import type {
  LockOwner,
  RecoverAction,
  RecoverReason,
  RecoverResult,
  TailTruncatedAction,
} from './recover-schema.js';
import { formatTimestamp, isRunId } from './run-id.js';
import { eventSchemaOf } from './schema.js';
import type { JournalDamage, StoreCode } from './store-types.js';

/**
 * Options of {@link recoverRun}. Root precedence as for `createFsStore`: `root` →
 * `$HANDOFF_RUN_STORE` → `<projectRoot>/.handoff`.
 */
export interface RecoverOptions extends StoreRootInput {
  /** The run to recover. */
  readonly runId: string;
  /** Report the plan and change nothing. */
  readonly dryRun?: boolean;
  /** Clock for the journaled note's `ts` and recover's own lock body. */
  readonly now?: () => Date;
  /** This machine's hostname (compared with the lock's `host`). Default `os.hostname()`. */
  readonly host?: string;
  /** Recover's own pid (its lock body). Default `process.pid`. */
  readonly pid?: number;
  /**
   * True when a process `pid` exists here, or its absence cannot be proven. Default
   * {@link isProcessAlive} (`process.kill(pid, 0)`: ESRCH dead, anything else alive).
   */
  readonly isAlive?: (pid: number) => boolean;
  /**
   * The file-system layer (fault injection in tests). Default: node:fs.
   *
   * @internal
   */
  readonly fs?: FsLayer;
  /**
   * `ftruncate(2)` (the layer has none). Default: node:fs `ftruncateSync`.
   *
   * @internal
   */
  readonly ftruncate?: (fd: number, length: number) => void;
}

/**
 * True when a process `pid` exists on this host or its absence cannot be proven: `process.kill(pid,
 * 0)` succeeds (alive), fails with EPERM (alive, another user's) or any error but ESRCH (unknown:
 * the safe side). A pid that is not a positive safe integer is never signalled (0 and negatives
 * name process groups) and counts as alive.
 *
 * @example
 * ```ts
 * isProcessAlive(process.pid); // true
 * ```
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errnoOf(e) !== 'ESRCH';
  }
}

/** A lock examined: absent, unusable (with the refusal), or present with its owner and identity. */
type LockSeen =
  | { readonly state: 'absent' }
  | {
      readonly state: 'refuse';
      readonly code: StoreCode;
      readonly reason: RecoverReason;
      readonly detail: string;
    }
  | {
      readonly state: 'present';
      readonly owner: LockOwner;
      readonly ino: number;
      readonly dev: number;
      readonly bytes: Buffer;
    };

/** Examines `.lock` without following a symlink and without changing anything. */
function examineLock(fsl: FsLayer, lockPath: string): LockSeen {
  let st: ReturnType<FsLayer['lstat']>;
  try {
    st = fsl.lstat(lockPath);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return { state: 'absent' };
    return {
      state: 'refuse',
      code: 'lock_unavailable',
      reason: 'lock_unreadable',
      detail: `cannot examine .lock: ${errnoOf(e) || String(e)}; left as it is`,
    };
  }
  if (st.isSymbolicLink() || !st.isFile())
    return {
      state: 'refuse',
      code: 'containment',
      reason: 'lock_not_a_file',
      detail: `.lock is ${st.isSymbolicLink() ? 'a symlink' : st.isDirectory() ? 'a directory' : 'not a regular file'}; recover never touches it`,
    };
  let bytes: Buffer;
  let ino: number;
  let dev: number;
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO swapped in after the lstat must not hang the open
    fd = fsl.open(lockPath, O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK);
  } catch (e) {
    const why = errnoOf(e) || String(e);
    if (why === 'ENOENT')
      return {
        state: 'refuse',
        code: 'busy',
        reason: 'lock_changed',
        detail: '.lock disappeared while recover examined it; run recover again',
      };
    return {
      state: 'refuse',
      code: why === 'ELOOP' ? 'containment' : 'lock_unavailable',
      reason: why === 'ELOOP' ? 'lock_not_a_file' : 'lock_unreadable',
      detail: `cannot open .lock: ${why}; left as it is`,
    };
  }
  try {
    const fst = fsl.fstat(fd);
    if (!fst.isFile() || fst.ino !== st.ino || fst.dev !== st.dev)
      return {
        state: 'refuse',
        code: 'busy',
        reason: 'lock_changed',
        detail: '.lock was replaced while recover examined it; run recover again',
      };
    ino = fst.ino;
    dev = fst.dev;
    bytes = readRange(fsl, fd, 0, Math.min(fst.size, MAX_LOCK_BODY + 1));
  } catch (e) {
    return {
      state: 'refuse',
      code: 'lock_unavailable',
      reason: 'lock_unreadable',
      detail: `cannot read .lock: ${errnoOf(e) || String(e)}; left as it is`,
    };
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // read-only
    }
  }
  const parsed = parseLockBody(bytes);
  if (!parsed.ok)
    return {
      state: 'refuse',
      code: 'busy',
      reason: 'lock_unparsable',
      detail: `${parsed.why}: its owner cannot be identified, so the lock is left as it is (remove .lock by hand once no writer can be running)`,
    };
  return { state: 'present', owner: parsed.owner, ino, dev, bytes };
}

/**
 * The journal's shape from its bytes (pure parse), the store load's damage, and the problems of
 * the run's batch records with these bytes (`sidecar`: the bytes of `batches.jsonl`, null when
 * absent).
 */
function shapeOf(
  bytes: Buffer,
  sidecar: Buffer | null,
  runId: string,
  manifest: StoredManifest,
  loadDamage: JournalDamage | null,
): JournalShape {
  const parsed = parseJournal(bytes, runId, eventSchemaOf(manifest as Parameters<typeof eventSchemaOf>[0]));
  const shape: JournalShape = {
    size: bytes.length,
    validBytes: parsed.validBytes,
    damage: parsed.damage,
    tailHasNewline: bytes.indexOf(0x0a, parsed.validBytes) !== -1,
    loadDamage,
  };
  if (sidecar === null) return shape;
  const batches = parseBatchRecords(sidecar);
  const lastSeq = parsed.events.length;
  const judged = judgeBatches(batches.records, {
    bytes,
    fromSeq: 1,
    lastSeq,
    validBytes: parsed.validBytes,
    damage: parsed.damage,
  });
  const batchProblems = batchRecordProblems({
    parsed: batches,
    statuses: judged.statuses,
    bytes,
    lastSeq,
    stamps: parsed.events.map((e) => e.ts),
  });
  return { ...shape, batchProblems };
}

/**
 * The bytes of `batches.jsonl` (null when absent), read without following a symlink; a sidecar
 * that cannot be read is a failure (its records cannot be verified).
 */
function readSidecarBytes(
  fsl: FsLayer,
  p: RunPaths,
  step: string,
): { readonly kind: 'ok'; readonly bytes: Buffer | null } | StepFail {
  try {
    return { kind: 'ok', bytes: readFileNoFollow(fsl, p.batches) };
  } catch (e) {
    const why = errnoOf(e);
    if (why === 'ENOENT') return { kind: 'ok', bytes: null };
    return {
      kind: 'fail',
      code: why === 'ELOOP' ? 'containment' : 'journal_unreadable',
      step,
      detail: `cannot read batches.jsonl: ${why || String(e)}`,
      changed: false,
    };
  }
}

/** A failure of the journal read or of a step, with whether anything was changed. */
interface StepFail {
  readonly kind: 'fail';
  readonly code: StoreCode;
  readonly step: string;
  readonly detail: string;
  readonly reason?: RecoverReason;
  /** True when the journal may have been changed before the failure. */
  readonly changed: boolean;
}

function openFailure(e: unknown, changedStep: string): StepFail {
  const why = errnoOf(e);
  if (why === 'ENOENT')
    return {
      kind: 'fail',
      code: 'integrity_failure',
      step: changedStep,
      detail: 'events.jsonl is missing',
      changed: false,
    };
  if (why === 'ELOOP')
    return {
      kind: 'fail',
      code: 'containment',
      step: changedStep,
      detail: 'events.jsonl is a symlink',
      changed: false,
    };
  return {
    kind: 'fail',
    code: 'journal_unreadable',
    step: changedStep,
    detail: `cannot open events.jsonl: ${why || String(e)}`,
    changed: false,
  };
}

/** Reads the journal without the lock (the plan; a dry run). */
function readShape(
  fsl: FsLayer,
  p: RunPaths,
  runId: string,
  manifest: StoredManifest,
  loadDamage: JournalDamage | null,
): { readonly kind: 'ok'; readonly shape: JournalShape } | StepFail {
  const side = readSidecarBytes(fsl, p, 'read');
  if (side.kind === 'fail') return side;
  let fd: number;
  try {
    fd = fsl.open(p.events, O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK);
  } catch (e) {
    return openFailure(e, 'read');
  }
  try {
    const st = fsl.fstat(fd);
    if (!st.isFile())
      return {
        kind: 'fail',
        code: 'containment',
        step: 'read',
        detail: 'events.jsonl is not a regular file',
        changed: false,
      };
    return {
      kind: 'ok',
      shape: shapeOf(readRange(fsl, fd, 0, st.size), side.bytes, runId, manifest, loadDamage),
    };
  } catch (e) {
    return {
      kind: 'fail',
      code: 'journal_unreadable',
      step: 'read',
      detail: `cannot read events.jsonl: ${errnoOf(e) || String(e)}`,
      changed: false,
    };
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // read-only
    }
  }
}

/**
 * Under the run's lock: reads the journal again, plans again from those bytes, truncates the torn
 * tail (ftruncate), fsyncs and checks the new size.
 */
function truncateLocked(
  fsl: FsLayer,
  ftruncate: (fd: number, length: number) => void,
  p: RunPaths,
  runId: string,
  manifest: StoredManifest,
  loadDamage: JournalDamage | null,
): { readonly kind: 'done'; readonly action: TailTruncatedAction } | { readonly kind: 'none' } | StepFail {
  const side = readSidecarBytes(fsl, p, 'truncate');
  if (side.kind === 'fail') return side;
  let fd: number;
  try {
    fd = fsl.open(p.events, O.O_RDWR | O.O_NOFOLLOW | O.O_NONBLOCK);
  } catch (e) {
    return openFailure(e, 'truncate');
  }
  try {
    let plan: ReturnType<typeof planTail>;
    try {
      const st = fsl.fstat(fd);
      if (!st.isFile())
        return {
          kind: 'fail',
          code: 'containment',
          step: 'truncate',
          detail: 'events.jsonl is not a regular file',
          changed: false,
        };
      plan = planTail(shapeOf(readRange(fsl, fd, 0, st.size), side.bytes, runId, manifest, loadDamage));
    } catch (e) {
      return {
        kind: 'fail',
        code: 'journal_unreadable',
        step: 'truncate',
        detail: `cannot read events.jsonl: ${errnoOf(e) || String(e)}`,
        changed: false,
      };
    }
    if (plan.kind === 'none') return { kind: 'none' };
    if (plan.kind === 'refuse')
      return {
        kind: 'fail',
        code: plan.code,
        step: 'truncate',
        reason: plan.reason,
        detail: plan.detail,
        changed: false,
      };
    const { action } = plan;
    try {
      ftruncate(fd, action.size_after);
    } catch (e) {
      let size = -1;
      try {
        size = fsl.fstat(fd).size;
      } catch {
        size = -1;
      }
      return {
        kind: 'fail',
        code: 'write_failed',
        step: 'truncate',
        detail: `ftruncate failed: ${errnoOf(e) || String(e)}`,
        changed: size !== action.size_before,
      };
    }
    try {
      fsl.fsync(fd);
    } catch (e) {
      return {
        kind: 'fail',
        code: 'write_failed',
        step: 'fsync',
        detail: `the torn tail was truncated but fsync failed (${errnoOf(e) || String(e)}): the truncation may not be durable`,
        changed: true,
      };
    }
    let after = -1;
    try {
      after = fsl.fstat(fd).size;
    } catch {
      after = -1;
    }
    if (after !== action.size_after)
      return {
        kind: 'fail',
        code: 'write_failed',
        step: 'truncate',
        detail: `after the truncation events.jsonl has ${after} bytes, not ${action.size_after}`,
        changed: true,
      };
    return { kind: 'done', action };
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // fsync'd (or failed and reported) before
    }
  }
}

/** Null when runs/ and the run directory are real directories (no symlink), else why not. */
function stillContained(fsl: FsLayer, p: RunPaths): string | null {
  for (const d of [p.runs, p.dir]) {
    try {
      const st = fsl.lstat(d);
      if (st.isSymbolicLink() || !st.isDirectory()) return `${d} is a symlink or not a directory`;
    } catch (e) {
      return `cannot stat ${d}: ${errnoOf(e) || String(e)}`;
    }
  }
  return null;
}

/** Breaks a stale lock: rename aside, compare with what was judged, remove (or put back). */
function breakLock(
  fsl: FsLayer,
  p: RunPaths,
  seen: Extract<LockSeen, { state: 'present' }>,
  pid: number,
  warnings: string[],
):
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly changed: boolean;
      readonly code: StoreCode;
      readonly reason?: RecoverReason;
      readonly step: string;
      readonly detail: string;
    } {
  const aside = path.join(p.dir, `.lock.recover-${pid}-${randomHex(8)}`);
  try {
    fsl.rename(p.lock, aside);
  } catch (e) {
    const why = errnoOf(e) || String(e);
    return {
      ok: false,
      changed: false,
      code: why === 'ENOENT' ? 'busy' : 'lock_unavailable',
      ...(why === 'ENOENT' ? { reason: 'lock_changed' as const } : {}),
      step: 'lock_break',
      detail:
        why === 'ENOENT'
          ? '.lock disappeared while recover examined it; run recover again'
          : `cannot move .lock aside: ${why}; left as it is`,
    };
  }
  let same = false;
  try {
    const st = fsl.lstat(aside);
    const bytes = st.isFile() ? readFileNoFollow(fsl, aside) : null;
    same = st.isFile() && st.ino === seen.ino && st.dev === seen.dev && bytes?.equals(seen.bytes) === true;
  } catch {
    same = false;
  }
  if (!same) {
    // not the lock that was judged (replaced meanwhile): put it back under its name
    try {
      fsl.link(aside, p.lock);
    } catch (e) {
      return {
        ok: false,
        changed: true,
        code: 'busy',
        reason: 'lock_changed',
        step: 'restore',
        detail: `.lock was replaced while recover examined it and could not be put back (${errnoOf(e) || String(e)}); it is at ${aside}: check which writer holds the run before removing anything`,
      };
    }
    try {
      fsl.unlink(aside);
    } catch {
      warnings.push(`a second name of the restored lock stays at ${aside}`);
    }
    return {
      ok: false,
      changed: false,
      code: 'busy',
      reason: 'lock_changed',
      step: 'lock_break',
      detail: '.lock was replaced while recover examined it (put back as it was); run recover again',
    };
  }
  try {
    fsl.unlink(aside);
  } catch (e) {
    warnings.push(
      `the broken lock could not be removed from ${aside} (${errnoOf(e) || String(e)}); it no longer blocks the run`,
    );
  }
  try {
    fsyncDir(fsl, p.dir, 'lock_break_dir_fsync');
  } catch (e) {
    warnings.push(`the run directory's fsync after breaking the lock failed (${(e as Error).message})`);
  }
  return { ok: true };
}

/**
 * Recovers one fs-store run, explicitly (no code path calls this on its own): breaks a stale lock
 * whose owner is provably dead (same host, no such pid), truncates a torn tail back to the last
 * complete line under the run's lock, and journals a `blocker-diagnosis` note whose text starts
 * `store recover:`; answers `run-store-recover/v1` with the note's cite. Nothing to do: nothing
 * written. `dryRun`: the plan, nothing changed. Never throws for a refusal or an I/O failure.
 *
 * @example
 * ```ts
 * const r = await recoverRun({ projectRoot: '/repo', runId: '20261130T100000Z-0a1b2c3d' });
 * r.outcome; // 'recovered' (r.cite: '20261130T100000Z-0a1b2c3d#7') | 'nothing_to_do' | 'refused' | …
 * ```
 */
export async function recoverRun(options: RecoverOptions): Promise<RecoverResult> {
  const dryRun = options.dryRun === true;
  const { runId } = options;
  if (typeof runId !== 'string' || !isRunId(runId))
    return recoverResult('refused', null, dryRun, [], `not a run id: ${quoteValue(runId)}`, {
      code: 'bad_run_id',
    });
  const fsl = options.fs ?? nodeFsLayer();
  if (fsl.platform === 'win32')
    return recoverResult(
      'refused',
      runId,
      dryRun,
      [],
      'recovery needs POSIX file semantics (O_EXCL, fsync of directories)',
      { code: 'unsupported_platform' },
    );
  const host = options.host ?? hostname();
  const pid = options.pid ?? process.pid;
  const now = options.now ?? (() => new Date());
  const store = createFsStore({
    ...(options.root === undefined ? {} : { root: options.root }),
    ...(options.projectRoot === undefined ? {} : { projectRoot: options.projectRoot }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    fs: fsl,
    now,
    host,
    pid,
  });
  try {
    return await recoverWith(store, fsl, {
      runId,
      dryRun,
      host,
      pid,
      now,
      isAlive: options.isAlive ?? isProcessAlive,
      ftruncate: options.ftruncate ?? ftruncateSync,
    });
  } catch (e) {
    return recoverResult(
      'incomplete',
      runId,
      dryRun,
      [],
      `unexpected: ${String((e as Error)?.message ?? e)}`,
      {
        step: 'unexpected',
      },
    );
  } finally {
    store.close();
  }
}

interface Settled {
  readonly runId: string;
  readonly dryRun: boolean;
  readonly host: string;
  readonly pid: number;
  readonly now: () => Date;
  readonly isAlive: (pid: number) => boolean;
  readonly ftruncate: (fd: number, length: number) => void;
}

async function recoverWith(store: FsStore, fsl: FsLayer, s: Settled): Promise<RecoverResult> {
  const { runId, dryRun } = s;
  const refuse = (detail: string, extras: RecoverExtras): RecoverResult =>
    recoverResult('refused', runId, dryRun, [], detail, extras);
  // the run must load: containment (runs/ and the run directory real directories), a valid
  // manifest, a journal that is a regular file
  const loaded = await store.loadRun(runId);
  if (!loaded.ok) return refuse(loaded.detail, { code: loaded.code });
  const manifest = loaded.value.manifest as StoredManifest;
  if (isChainManifest(manifest))
    return refuse(
      "a chain run's journal holds only baton-commit events, so a recovery could not be journaled in it; nothing touched",
      { code: 'kind_unsupported', reason: 'chain_run' },
    );
  const p = runPaths(store.root, runId);

  // 1. the lock: absent, or present with a provably dead owner — anything else refuses
  const seen = examineLock(fsl, p.lock);
  if (seen.state === 'refuse') return refuse(seen.detail, { code: seen.code, reason: seen.reason });
  if (seen.state === 'present') {
    const verdict = judgeLock(seen.owner, { host: s.host, isAlive: s.isAlive });
    if (!verdict.stale)
      return refuse(`${verdict.detail}; nothing touched`, {
        code: 'busy',
        reason: verdict.reason,
        lock_owner: seen.owner,
      });
  }

  // 2. the journal (read without the lock for the plan; read again under the lock to act)
  const read = readShape(fsl, p, runId, manifest, loaded.value.damage);
  if (read.kind === 'fail') return refuse(read.detail, { code: read.code });
  const tail = planTail(read.shape);
  if (tail.kind === 'refuse')
    return refuse(`${tail.detail}; nothing touched`, { code: tail.code, reason: tail.reason });

  const plan: RecoverAction[] = [];
  if (seen.state === 'present') plan.push({ kind: 'lock_broken', owner: seen.owner });
  if (tail.kind === 'truncate') plan.push(tail.action);
  if (plan.length === 0)
    return recoverResult(
      'nothing_to_do',
      runId,
      dryRun,
      [],
      `no lock and no torn tail (journal whole, ${read.shape.size} bytes): nothing written`,
    );
  if (dryRun) return recoverResult('planned', runId, true, plan, 'dry run: nothing was changed');

  // 3. act — the run directory and runs/ still real directories (as the load found them)
  const contained = stillContained(fsl, p);
  if (contained !== null) return refuse(`${contained}; nothing touched`, { code: 'containment' });
  const done: RecoverAction[] = [];
  const warnings: string[] = [];
  const withWarnings = (detail: string): string =>
    warnings.length === 0 ? detail : `${detail}; ${warnings.join('; ')}`;
  const failed = (
    f: { code: StoreCode; step: string; detail: string; reason?: RecoverReason },
    changed: boolean,
  ): RecoverResult =>
    changed || done.length > 0
      ? recoverResult('incomplete', runId, false, done, withWarnings(`${f.detail}; not journaled`), {
          code: f.code,
          step: f.step,
          ...(f.reason === undefined ? {} : { reason: f.reason }),
        })
      : refuse(withWarnings(`${f.detail}; nothing touched`), {
          code: f.code,
          ...(f.reason === undefined ? {} : { reason: f.reason }),
        });

  if (seen.state === 'present') {
    const b = breakLock(fsl, p, seen, s.pid, warnings);
    if (!b.ok) return failed(b, b.changed);
    done.push({ kind: 'lock_broken', owner: seen.owner });
  }
  if (tail.kind === 'truncate') {
    const lock = acquireLock(fsl, p.lock, { pid: s.pid, host: s.host, acquired: formatTimestamp(s.now()) });
    if (!lock.ok) return failed({ code: lock.code, step: 'lock', detail: lock.detail }, false);
    let t: ReturnType<typeof truncateLocked>;
    try {
      // readers take no lock: the store's own verdict again, now that no writer can append
      const again = await store.loadRun(runId);
      t = again.ok
        ? truncateLocked(fsl, s.ftruncate, p, runId, manifest, again.value.damage)
        : { kind: 'fail', code: again.code, step: 'truncate', detail: again.detail, changed: false };
    } finally {
      const warn = releaseLock(fsl, p.lock);
      if (warn !== null) warnings.push(`recover's own ${warn}`);
    }
    if (t.kind === 'fail') {
      if (t.changed) done.push(tail.action);
      return failed(t, t.changed);
    }
    if (t.kind === 'done') done.push(t.action);
  }
  if (done.length === 0)
    return recoverResult(
      'nothing_to_do',
      runId,
      false,
      [],
      withWarnings('the torn tail was gone when recover held the lock: nothing written'),
    );

  // 4. journal what was done, through the normal append path (validated, fsync'd)
  const r = await store.append(runId, 'note', {
    kind: RECOVER_NOTE_KIND,
    text: recoverNoteText(done),
    lean: null,
  });
  if (r.outcome === 'committed' && r.seq !== undefined) {
    const cite = formatCite(runId, r.seq);
    return recoverResult('recovered', runId, false, done, withWarnings(`journaled as ${cite}`), { cite });
  }
  return recoverResult(
    'incomplete',
    runId,
    false,
    done,
    withWarnings(
      `done, but the note recording it was not committed (${r.outcome}${r.detail === undefined ? '' : `: ${r.detail}`})`,
    ),
    {
      ...(r.code === undefined ? {} : { code: r.code }),
      step: r.step === undefined ? 'journal' : `journal_${r.step}`,
    },
  );
}
