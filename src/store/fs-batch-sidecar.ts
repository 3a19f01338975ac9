/**
 * The fs store's batch sidecar `runs/<id>/batches.jsonl`: reading it (loads, and the journal
 * validation under the lock), knowing its state cheaply under the lock (one lstat when nothing
 * changed), and appending one record durably (write, fsync; the run directory fsync'd when the
 * file was just created) before a batch's lines are written.
 */
import { errnoOf, fsyncDir, O, readRange, StepFailure, writeFully } from '../durable/index.js';
import { type BatchRecord, type ParsedBatches, parseBatchRecords } from './batch-rules.js';
import type { FsContext } from './fs-context.js';
import type { JournalState, SidecarKnown } from './fs-held-journals.js';
import type { RunPaths } from './fs-layout.js';
import type { StoreCode } from './store-types.js';

/** A sidecar read: absent (null), or its parsed records with what the instance keeps of it. */
export type SidecarRead =
  | { readonly ok: true; readonly parsed: ParsedBatches | null; readonly known: SidecarKnown | null }
  | { readonly ok: false; readonly code: StoreCode; readonly detail: string };

const ABSENT: SidecarRead = Object.freeze({ ok: true, parsed: null, known: null });

/** The greatest first seq of the records (0 without records). */
function maxFirst(records: readonly { readonly record: BatchRecord }[]): number {
  let m = 0;
  for (const r of records) if (r.record.first_seq > m) m = r.record.first_seq;
  return m;
}

/**
 * Reads and parses the sidecar without following a symlink: absent → `parsed: null`; a symlink or
 * non-file is `containment`; a read error `journal_unreadable` (batches cannot be judged, so the
 * journal is not trusted either).
 *
 * @example
 * ```ts
 * const s = readSidecar(ctx, paths);
 * if (s.ok && s.parsed !== null) s.parsed.records.length;
 * ```
 */
export function readSidecar(ctx: FsContext, paths: RunPaths): SidecarRead {
  const { fsl } = ctx;
  let fd: number;
  try {
    fd = fsl.open(paths.batches, O.O_RDONLY | O.O_NOFOLLOW);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT') return ABSENT;
    if (code === 'ELOOP') return { ok: false, code: 'containment', detail: 'batches.jsonl is a symlink' };
    return {
      ok: false,
      code: 'journal_unreadable',
      detail: `cannot open batches.jsonl: ${code || String(e)}`,
    };
  }
  try {
    const st = fsl.fstat(fd);
    if (!st.isFile())
      return { ok: false, code: 'containment', detail: 'batches.jsonl is not a regular file' };
    const bytes = readRange(fsl, fd, 0, st.size);
    const parsed = parseBatchRecords(bytes);
    return {
      ok: true,
      parsed,
      known: {
        ino: st.ino,
        dev: st.dev,
        size: bytes.length,
        endsWithNewline: parsed.endsWithNewline,
        maxFirst: maxFirst(parsed.records),
      },
    };
  } catch (e) {
    return {
      ok: false,
      code: 'journal_unreadable',
      detail: `cannot read batches.jsonl: ${errnoOf(e) || String(e)}`,
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
 * Under the lock: the sidecar's state for the next write — the known state when one lstat shows
 * the same file and size, else read again (records another writer added, e.g. an aborted batch).
 * Updates `state.sidecar`. With a lock held across mutations (`holdLocks`) a known state is used
 * without the lstat: only this instance has written the run since it took the lock (a lock taken
 * afresh forgets the state first, see `lockTakenAfresh`).
 *
 * @example
 * ```ts
 * const s = sidecarUnderLock(ctx, paths, state);
 * if (s.ok && s.known !== null && s.known.maxFirst > state.lastSeq) supersede();
 * ```
 */
export function sidecarUnderLock(
  ctx: FsContext,
  paths: RunPaths,
  state: JournalState,
):
  | { readonly ok: true; readonly known: SidecarKnown | null }
  | { readonly ok: false; readonly code: StoreCode; readonly detail: string } {
  if (ctx.locks !== null && state.sidecar !== undefined) return { ok: true, known: state.sidecar };
  let st: ReturnType<FsContext['fsl']['lstat']>;
  try {
    st = ctx.fsl.lstat(paths.batches);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT') {
      state.sidecar = null;
      return { ok: true, known: null };
    }
    return {
      ok: false,
      code: 'journal_unreadable',
      detail: `cannot stat batches.jsonl: ${code || String(e)}`,
    };
  }
  if (!st.isFile())
    return { ok: false, code: 'containment', detail: 'batches.jsonl is a symlink or not a regular file' };
  const k = state.sidecar;
  if (k != null && k.ino === st.ino && k.dev === st.dev && k.size === st.size) return { ok: true, known: k };
  const r = readSidecar(ctx, paths);
  if (!r.ok) return r;
  state.sidecar = r.known;
  return { ok: true, known: r.known };
}

/**
 * Appends one record line (`text`, without its newline) to the sidecar: created with O_EXCL when
 * absent (then the run directory is fsync'd too), a newline first when the file ends in an
 * unterminated line, one write, fsync unless `sync` is false, close. Updates `state.sidecar`; on
 * failure it becomes unknown (read again next time).
 *
 * `sync: false` is for a record that only carries the trace of a one-event batch: a single line
 * cannot be torn into a partial batch, so the record need not be durable before the event; it
 * rides on the journal's sync that follows (see docs/store.md § Group commit).
 *
 * @example
 * ```ts
 * appendRecord(ctx, paths, state, known, batchRecordText(4, 6, sha, trace));
 * ```
 * @throws StepFailure with step `batch_record_open`, `batch_record_write`, `batch_record_fsync` or `batch_record_dir_fsync`.
 */
export function appendRecord(
  ctx: FsContext,
  paths: RunPaths,
  state: JournalState,
  known: SidecarKnown | null,
  record: BatchRecord,
  text: string,
  sync = true,
): void {
  const { fsl } = ctx;
  state.sidecar = undefined;
  let fd: number;
  let created = false;
  try {
    fd = fsl.open(paths.batches, O.O_WRONLY | O.O_APPEND | O.O_NOFOLLOW);
  } catch (e) {
    if (errnoOf(e) !== 'ENOENT') throw new StepFailure('batch_record_open', e);
    try {
      fd = fsl.open(paths.batches, O.O_WRONLY | O.O_APPEND | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o644);
      created = true;
    } catch (e2) {
      throw new StepFailure('batch_record_open', e2);
    }
  }
  let ino = -1;
  let dev = -1;
  let size = -1;
  try {
    const lead = known !== null && !known.endsWithNewline && !created ? '\n' : '';
    writeFully(fsl, fd, Buffer.from(`${lead}${text}\n`, 'utf8'), 'batch_record_write');
    if (sync) {
      try {
        fsl.fsync(fd);
      } catch (e) {
        throw new StepFailure('batch_record_fsync', e);
      }
    }
    try {
      const st = fsl.fstat(fd);
      ino = st.ino;
      dev = st.dev;
      size = st.size;
    } catch {
      // the state stays unknown: read again next time
    }
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // fsync'd already (or failing anyway)
    }
  }
  if (created) fsyncDir(fsl, paths.dir, 'batch_record_dir_fsync');
  if (size >= 0)
    state.sidecar = {
      ino,
      dev,
      size,
      endsWithNewline: true,
      maxFirst: Math.max(known?.maxFirst ?? 0, record.first_seq),
    };
}
