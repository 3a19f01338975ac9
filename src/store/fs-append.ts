/**
 * Appending to a run in the fs store (`append`, `setHandoff`). Before the lock: the payload's
 * shape, the platform, the run's location and manifest and the event schema; the result is one
 * {@link AppendPlan}. Under the run's lock: the journal is opened (or the held descriptor
 * re-checked) and every byte this instance has not validated yet is validated, the seq-dependent
 * rules are checked, the one canonical line is written completely and fsync'd — only then is the
 * event `committed` — and, for set-handoff, the handoff cache is published.
 */
import { errnoOf, O, publishFile, readRange, StepFailure, writeFully } from '../durable/index.js';
import {
  appendEventSchema,
  cacheText,
  eventLine,
  type LockedAppend,
  lockedAppendRefusal,
  prepareAppend,
} from './append-rules.js';
import { BATCH_SCHEMA, type BatchRecord, batchRecordText, batchSha256, judgeBatches } from './batch-rules.js';
import { type ChainTail, parseChainJournal, startTail, tailOf } from './chain-rules.js';
import { isChainManifest, type StoredManifest } from './chain-schema.js';
import { appendRecord, readSidecar, sidecarUnderLock } from './fs-batch-sidecar.js';
import { type FsContext, locateRun, posixOnly } from './fs-context.js';
import type { HeldJournal, JournalState } from './fs-held-journals.js';
import { lockRun, unlockRun } from './fs-held-locks.js';
import type { RunPaths } from './fs-layout.js';
import { readManifest } from './fs-manifest.js';
import { parseJournal } from './journal-parse.js';
import { quoteValue } from './quote-value.js';
import { isRunId } from './run-id.js';
import { eventSchemaOf } from './schema.js';
import { refused, type StoreEventKind, type StoreResult, storeResult, type TraceStep } from './store.js';

/**
 * Everything an append decided before taking the lock: which run and event, its canonical
 * payload text, the event schema and the timestamp of the line (also the lock's).
 *
 * @example
 * ```ts
 * const plan = planAppend(ctx, runId, 'note', note, false);
 * if ('plan' in plan) appendLocked(ctx, plan.plan);
 * ```
 */
export interface AppendPlan extends LockedAppend {
  readonly paths: RunPaths;
  /** The canonical JSON of `payload`. */
  readonly payloadText: string;
  /** The line's `ts` (the lock body's `acquired` too). */
  readonly ts: string;
  /** set-handoff: publish the handoff cache after the event is durable. */
  readonly withCache: boolean;
}

/**
 * A journal open for appending under the lock, or the refusal that ends the append.
 *
 * @example
 * ```ts
 * const o: OpenedJournal = openJournal(ctx, runId, paths, manifest);
 * if (!o.ok) return o.result;
 * ```
 */
export type OpenedJournal =
  | { readonly ok: true; readonly state: HeldJournal }
  | { readonly ok: false; readonly result: StoreResult };

/**
 * Checks everything that needs no lock and returns the plan, or the refusal.
 *
 * @example
 * ```ts
 * const r = planAppend(ctx, runId, 'handoff', finalHandoff, true);
 * ```
 */
export function planAppend(
  ctx: FsContext,
  runId: string,
  kind: StoreEventKind,
  payload: unknown,
  withCache: boolean,
): { readonly plan: AppendPlan } | { readonly refusal: StoreResult } {
  if (!isRunId(runId)) return { refusal: refused(null, 'bad_run_id', `not a run id: ${quoteValue(runId)}`) };
  // shape first, before touching the store (cites and the baton sequence again under the lock)
  const prepared = prepareAppend(runId, kind, payload);
  if (!prepared.ok) return { refusal: prepared.result };
  const { commit, payloadText } = prepared.value;
  const platform = posixOnly(ctx, runId);
  if (platform !== null) return { refusal: platform };
  const loc = locateRun(ctx, runId);
  if (!loc.ok) return { refusal: refused(runId, loc.code, loc.detail) };
  const paths = loc.paths;
  const m = readManifest(ctx.fsl, ctx.manifests, runId, paths);
  if (!m.ok) return { refusal: refused(runId, m.code, m.detail) };
  const manifest = m.manifest;
  const schema = appendEventSchema(runId, manifest, kind, commit);
  if (!schema.ok) return { refusal: schema.result };
  return {
    plan: {
      runId,
      paths,
      manifest,
      kind,
      payload,
      payloadText,
      commit,
      eventSchema: schema.eventSchema,
      ts: ctx.stamp(),
      withCache,
    },
  };
}

/**
 * Appends one event: plan, lock, append under the lock, unlock. A lock that cannot be removed
 * afterwards is noted in `detail` (later mutations are `busy`); an unexpected exception under the
 * lock is `indeterminate` with step `unexpected`.
 *
 * @example
 * ```ts
 * const r = appendSync(ctx, runId, 'note', { kind: 'candidate', text: 'simp', lean: null }, false);
 * ```
 */
export function appendSync(
  ctx: FsContext,
  runId: string,
  kind: StoreEventKind,
  payload: unknown,
  withCache: boolean,
): StoreResult {
  const planned = planAppend(ctx, runId, kind, payload, withCache);
  if ('refusal' in planned) return planned.refusal;
  const plan = planned.plan;
  const lockPath = plan.paths.lock;
  const lock = lockRun(ctx.fsl, ctx.locks, lockPath, ctx.lockBody(plan.ts));
  if (!lock.ok) return refused(runId, lock.code, lock.detail);
  if (lock.fresh) lockTakenAfresh(ctx, runId);
  let result: StoreResult;
  try {
    result = appendLocked(ctx, plan);
  } catch (e) {
    ctx.journals.forget(runId);
    result = storeResult('indeterminate', runId, {
      step: 'unexpected',
      detail: String((e as Error)?.message ?? e),
    });
  }
  const warn = unlockRun(ctx.fsl, ctx.locks, lockPath);
  if (warn !== null)
    return { ...result, detail: result.detail === undefined ? warn : `${result.detail}; ${warn}` };
  return result;
}

/**
 * A mutation took the run lock afresh (always, without `holdLocks`): other writers may have used
 * the run since this instance last held it, so the batch sidecar is looked at again under the
 * lock. While a held lock stays ours, nobody else writes the run: the sidecar state this instance
 * knows stays valid and costs no `lstat` (see `sidecarUnderLock`).
 *
 * @example
 * ```ts
 * const lock = lockRun(ctx.fsl, ctx.locks, paths.lock, body);
 * if (lock.ok && lock.fresh) lockTakenAfresh(ctx, runId);
 * ```
 */
export function lockTakenAfresh(ctx: FsContext, runId: string): void {
  if (ctx.locks === null) return;
  const known = ctx.journals.get(runId);
  if (known !== undefined) known.sidecar = undefined;
}

/**
 * Under the lock: the journal's next seq, the seq-dependent rules, the line written whole and
 * fsync'd (`committed` only after the fsync), then the cache for set-handoff (`journal_only` when
 * it cannot be confirmed).
 *
 * @example
 * ```ts
 * const r = appendLocked(ctx, plan); // the caller holds plan.paths.lock
 * ```
 */
export function appendLocked(ctx: FsContext, plan: AppendPlan): StoreResult {
  const { runId, manifest, eventSchema, kind, commit } = plan;
  const opened = openJournal(ctx, runId, plan.paths, manifest);
  if (!opened.ok) return opened.result;
  const state = opened.state;
  const seq = state.lastSeq + 1;
  const refusal = lockedAppendRefusal(plan, state.tail, seq);
  if (refusal !== null) return refusal;
  // the reference's form: raw UTF-8 (the payload text holds no lone surrogate: prepareAppend)
  const line = `${eventLine(kind, plan.payloadText, eventSchema, seq, plan.ts)}\n`;
  const written = commitLines(ctx, runId, plan.paths, state, Buffer.from(line, 'utf8'), {
    count: 1,
    trace: undefined,
    tail: commit === null ? null : tailOf(commit.baton),
    batch: false,
  });
  if (written !== null) return written;
  if (!plan.withCache) return storeResult('committed', runId, { seq });
  return refreshCache(ctx, runId, plan.paths, plan.payloadText, seq, {});
}

/**
 * Publishes the handoff cache for the handoff at `seq` (its canonical payload text) after the
 * event is durable: `committed` with `extra`, or `journal_only` with the failing `cache_*` step.
 *
 * @example
 * ```ts
 * return refreshCache(ctx, runId, paths, payloadText, seq, {});
 * ```
 */
export function refreshCache(
  ctx: FsContext,
  runId: string,
  paths: RunPaths,
  payloadText: string,
  seq: number,
  extra: { readonly first_seq?: number; readonly seq?: number },
): StoreResult {
  const cachePath = paths.cache;
  try {
    publishFile(ctx.fsl, cachePath, Buffer.from(`${cacheText(payloadText, seq)}\n`, 'utf8'), {
      label: 'cache',
      tmpPath: `${cachePath}.tmp`,
      reuseTmp: true,
    });
  } catch (e) {
    return storeResult('journal_only', runId, {
      seq,
      ...extra,
      step: e instanceof StepFailure ? e.step : 'cache',
      detail: `handoff event committed; handoff cache not confirmed: ${(e as Error).message}`,
    });
  }
  return storeResult('committed', runId, { seq, ...extra });
}

/** What {@link commitLines} writes beside the lines. */
export interface CommitShape {
  /** How many events the lines hold (seqs `state.lastSeq + 1 …`). */
  readonly count: number;
  /** The batch's trace (a record is written when given, even empty). */
  readonly trace: readonly TraceStep[] | undefined;
  /** Chain runs: the tail after the last line, else null. */
  readonly tail: ChainTail | null;
  /** An appendBatch: results carry `first_seq` even for one event. */
  readonly batch: boolean;
  /** False for a group commit without all-or-nothing (see `AppendBatchOptions.atomic`). */
  readonly atomic?: boolean;
}

/**
 * Under the lock, after every check: writes `bytes` (the complete lines of seqs
 * `state.lastSeq + 1 … + count`) to the journal with one write and one fsync. First, when the
 * lines are a batch of ≥ 2 events, carry a trace, or follow an aborted batch record (one whose
 * events were never written: this write re-uses its seqs and must supersede it), their batch
 * record is appended to the sidecar and fsync'd. Returns null when the lines are durable (the
 * held state then covers them), else the result: `nothing_written` (`write_failed`) while the
 * journal is provably unchanged, `indeterminate` (step `write`/`fsync`) after that.
 *
 * @example
 * ```ts
 * const r = commitLines(ctx, runId, paths, state, bytes, { count: 3, trace, tail: null });
 * if (r === null) storeResult('committed', runId, { first_seq, seq });
 * ```
 */
export function commitLines(
  ctx: FsContext,
  runId: string,
  paths: RunPaths,
  state: HeldJournal,
  bytes: Buffer,
  shape: CommitShape,
): StoreResult | null {
  const { fsl } = ctx;
  const fd = state.fd;
  const first = state.lastSeq + 1;
  const last = state.lastSeq + shape.count;
  const side = sidecarUnderLock(ctx, paths, state);
  if (!side.ok) return refused(runId, side.code, side.detail);
  const supersede = side.known !== null && side.known.maxFirst > state.lastSeq;
  const atomic = shape.count >= 2 && shape.atomic !== false;
  if (atomic || shape.trace !== undefined || supersede) {
    const trace = shape.trace ?? [];
    const sha256 = batchSha256(bytes);
    const record: BatchRecord = {
      schema: BATCH_SCHEMA,
      first_seq: first,
      last_seq: last,
      count: shape.count,
      sha256,
      trace,
    };
    try {
      // a one-event batch's record only carries its trace: it need not be durable before the line
      // (a superseding record must be: an aborted record could otherwise tear our event on load)
      const sync = atomic || supersede;
      appendRecord(ctx, paths, state, side.known, record, batchRecordText(first, last, sha256, trace), sync);
    } catch (e) {
      // the journal is untouched: a record whose events never follow is an aborted batch
      return refused(
        runId,
        'write_failed',
        `batch record not written (${stepOf(e)}): ${(e as Error).message}`,
      );
    }
  }
  const span = shape.batch ? { first_seq: first, seq: last } : { seq: last };
  try {
    writeFully(fsl, fd, bytes, 'write');
  } catch (e) {
    const sf = e as StepFailure;
    let size = -1;
    if (sf.bytesWritten === 0) {
      try {
        size = fsl.fstat(fd).size;
      } catch {
        size = -1;
      }
    }
    ctx.journals.forget(runId);
    if (size === state.size) return refused(runId, 'write_failed', sf.message);
    return storeResult('indeterminate', runId, { ...span, step: 'write', detail: sf.message });
  }
  try {
    fsl.fsync(fd);
  } catch (e) {
    ctx.journals.forget(runId);
    return storeResult('indeterminate', runId, {
      ...span,
      step: 'fsync',
      detail: `fsync failed: ${errnoOf(e) || String(e)}`,
    });
  }
  // durable: keep the descriptor for the next append
  state.size += bytes.length;
  state.lastSeq = last;
  if (shape.tail !== null) state.tail = shape.tail;
  return null;
}

function stepOf(e: unknown): string {
  return e instanceof StepFailure ? e.step : 'batch_record';
}

/**
 * Under the lock: the run's journal open for appending, with its next seq learnt by validating
 * the bytes this instance has not validated yet (all of them on first use).
 *
 * Between appends the descriptor stays open. Reusing it requires that the journal path still
 * names that very file (lstat of the path: the inode and device read from the descriptor when it
 * was opened, a regular file, so a journal replaced, renamed away or swapped for a symlink is
 * never written through a stale descriptor) and that its size (from the same lstat: the same
 * inode) is the one validated (bytes another writer appended are validated first, a shrunken
 * file is reopened and validated whole). Anything else closes it and takes
 * the full path: open with O_NOFOLLOW and validate. Validation is batch-aware: lines of a batch
 * whose record shows it torn are damage (`journal_damaged`), as a torn tail is.
 *
 * @example
 * ```ts
 * const opened = openJournal(ctx, runId, paths, manifest); // the caller holds paths.lock
 * if (opened.ok) opened.state.lastSeq;
 * ```
 */
export function openJournal(
  ctx: FsContext,
  runId: string,
  p: RunPaths,
  manifest: StoredManifest,
): OpenedJournal {
  const { fsl, journals } = ctx;
  const held = journals.get(runId);
  if (held !== undefined && held.fd !== null) {
    let same = false;
    let size = -1;
    try {
      // held.ino/dev were read from this very descriptor (fstat when it was opened), and an open
      // descriptor's inode never changes: a path naming that inode names the descriptor's file,
      // and its lstat size is that file's size — no fstat needed
      const named = fsl.lstat(p.events);
      same = named.isFile() && held.ino >= 0 && named.ino === held.ino && named.dev === held.dev;
      size = named.size;
    } catch {
      same = false;
    }
    if (same && size === held.size) return { ok: true, state: held as HeldJournal };
    if (same && size > held.size) return validateTail(ctx, runId, p, manifest, held.fd, held, size);
    journals.forget(runId);
  }
  let fd: number;
  try {
    fd = fsl.open(p.events, O.O_RDWR | O.O_APPEND | O.O_NOFOLLOW);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT')
      return { ok: false, result: refused(runId, 'integrity_failure', 'events.jsonl is missing') };
    if (code === 'ELOOP')
      return { ok: false, result: refused(runId, 'containment', 'events.jsonl is a symlink') };
    return {
      ok: false,
      result: refused(runId, 'journal_unreadable', `cannot open events.jsonl: ${code || String(e)}`),
    };
  }
  /** A refusal after the open: the descriptor is closed (through the state that holds it, if any). */
  const refuse = (result: StoreResult): OpenedJournal => {
    const mine = journals.get(runId);
    if (mine?.fd === fd) journals.forget(runId);
    else {
      try {
        fsl.close(fd);
      } catch {
        // read side only so far
      }
    }
    return { ok: false, result };
  };
  try {
    const st = fsl.fstat(fd);
    if (!st.isFile()) return refuse(refused(runId, 'containment', 'events.jsonl is not a regular file'));
    const known = journals.get(runId);
    const sameFile =
      known !== undefined && (known.ino === -1 || (known.ino === st.ino && known.dev === st.dev));
    const start = isChainManifest(manifest) ? startTail(manifest) : null;
    const base: JournalState =
      sameFile && st.size >= known.size
        ? {
            fd,
            ino: st.ino,
            dev: st.dev,
            size: known.size,
            lastSeq: known.lastSeq,
            tail: known.tail ?? start,
          }
        : { fd, ino: st.ino, dev: st.dev, size: 0, lastSeq: 0, tail: start };
    if (base.size === st.size) {
      journals.remember(runId, base);
      return { ok: true, state: base as HeldJournal };
    }
    const v = validateTail(ctx, runId, p, manifest, fd, base, st.size);
    return v.ok ? v : refuse(v.result);
  } catch (e) {
    return refuse(
      refused(runId, 'journal_unreadable', `cannot read events.jsonl: ${errnoOf(e) || String(e)}`),
    );
  }
}

/** Validates the journal bytes from `known.size` to `size` (appended by others); refuses damage. */
function validateTail(
  ctx: FsContext,
  runId: string,
  p: RunPaths,
  manifest: StoredManifest,
  fd: number,
  known: JournalState,
  size: number,
): OpenedJournal {
  const from = known.size;
  let bytes: Buffer;
  try {
    bytes = readRange(ctx.fsl, fd, from, size);
  } catch (e) {
    ctx.journals.forget(runId);
    return {
      ok: false,
      result: refused(runId, 'journal_unreadable', `cannot read events.jsonl: ${errnoOf(e) || String(e)}`),
    };
  }
  const first = known.lastSeq + 1;
  const parsed = isChainManifest(manifest)
    ? parseChainJournal(bytes, manifest, first, first, known.tail ?? startTail(manifest))
    : parseJournal(bytes, runId, eventSchemaOf(manifest), first, first);
  if (parsed.damage !== null || bytes.length !== size - from) {
    ctx.journals.forget(runId);
    const d = parsed.damage;
    return {
      ok: false,
      result: refused(
        runId,
        'journal_damaged',
        d === null ? 'events.jsonl changed while reading' : `journal damaged (${d.code}): ${d.detail}`,
      ),
    };
  }
  // batches: lines of a batch whose record says it is incomplete are a torn batch, not events
  const side = readSidecar(ctx, p);
  if (!side.ok) {
    ctx.journals.forget(runId);
    return { ok: false, result: refused(runId, side.code, side.detail) };
  }
  const lastSeq = known.lastSeq + parsed.events.length;
  if (side.parsed !== null) {
    const j = judgeBatches(side.parsed.records, {
      bytes,
      fromSeq: first,
      lastSeq,
      validBytes: parsed.validBytes,
      damage: null,
    });
    if (j.damage !== null) {
      ctx.journals.forget(runId);
      return {
        ok: false,
        result: refused(runId, 'journal_damaged', `journal damaged (${j.damage.code}): ${j.damage.detail}`),
      };
    }
  }
  const state: JournalState = {
    fd,
    ino: known.ino,
    dev: known.dev,
    size,
    lastSeq,
    tail: 'tail' in parsed ? parsed.tail : known.tail,
    sidecar: side.known,
  };
  ctx.journals.remember(runId, state);
  return { ok: true, state: state as HeldJournal };
}
