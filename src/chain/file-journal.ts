/**
 * The file {@link ChainJournal} (effects layer): one append-only JSON-lines file per baton under
 * a directory the caller gives, each line one commit (`{v, baton_id, revision, baton, receipt}` in
 * canonical JSON, plus an optional `trace` — the chain machine's transitions since the previous
 * commit) written with a single write and fsync'd before `commit` resolves. Loading re-validates
 * every line (schema, baton invariants, fingerprint chain). Writers take an exclusive lock per
 * commit (or, with `holdLocks`, once per baton for as long as they own it); a second concurrent
 * writer is refused with `busy`. Lines are written with {@link memoCanonicalJson} (the same bytes
 * as `canonicalJson`).
 */
import type { MachineInspector } from '../../machines/inspector.js';
import type { TracedBatch } from '../audit/audit-rules.js';
import { createTraceCollector } from '../audit/trace-collector.js';
import { deepFreeze } from '../canonical/index.js';
import { type FsLayer, nodeFsLayer } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import type { TraceStep } from '../store/store-types.js';
import { safeValidate } from '../validation/index.js';
import { type Baton, BatonSchema, type StageReceipt, StageReceiptSchema } from './baton.js';
import { memoCanonicalJson } from './canonical-memo.js';
import { chainJournalFile } from './file-journal-path.js';
import { HELD_APPEND_LOCKS, HeldAppendLocks } from './held-append-lock.js';
import { assertSequence, type ChainJournal, chainJournalSequence, type JournalEntry } from './journal.js';
import { lineTrace } from './journal-trace.js';
import { fileStampSync, JsonlAppender, readCompleteLinesSync, withAppendLock } from './jsonl-file.js';

export { chainJournalFile, chainJournalLockFile } from './file-journal-path.js';

function damaged(path: string, line: number, why: string): never {
  throw new HandoffError('journal_damaged', `${path} line ${line}: ${why}`, { details: { path, line } });
}

function loadEntries(path: string, batonId: string, fsl?: FsLayer): JournalEntry[] {
  return entriesOf(path, batonId, readCompleteLinesSync(path, fsl));
}

/**
 * The validated entries of `lines` (the complete lines of `path`); `journal_damaged` on any defect.
 * Each line is parsed once: with `records`, the parsed line (the whole record, `trace` included)
 * is pushed there too, one per entry.
 */
function entriesOf(
  path: string,
  batonId: string,
  lines: readonly string[],
  records?: unknown[],
): JournalEntry[] {
  const out: JournalEntry[] = [];
  lines.forEach((text, i) => {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      damaged(path, i + 1, 'not JSON');
    }
    records?.push(raw);
    const rec = raw as { v?: unknown; baton_id?: unknown; baton?: unknown; receipt?: unknown };
    if (rec?.v !== 1 || rec.baton_id !== batonId)
      damaged(path, i + 1, 'not a chain journal record of this baton');
    const b = safeValidate(BatonSchema, rec.baton);
    if (!b.ok) damaged(path, i + 1, `baton: ${b.issues.map((x) => x.message).join('; ')}`);
    let receipt: StageReceipt | null = null;
    if (rec.receipt !== null) {
      const r = safeValidate(StageReceiptSchema, rec.receipt);
      if (!r.ok) damaged(path, i + 1, `receipt: ${r.issues.map((x) => x.message).join('; ')}`);
      receipt = r.value;
    }
    const entry: JournalEntry = { baton: deepFreeze(b.value as Baton), receipt };
    const seq = chainJournalSequence(out[out.length - 1]?.baton, entry);
    if (seq !== 'append') damaged(path, i + 1, `out of sequence: ${seq}`);
    out.push(entry);
  });
  return out;
}

/**
 * Options of {@link createFileChainJournal}.
 *
 * @example
 * ```ts
 * const journal = createFileChainJournal(dir, { fs: nodeFsLayer(), holdLocks: true });
 * ```
 */
export interface FileChainJournalOptions {
  /** The file-system layer every lock, read, write and fsync goes through (default node's). */
  readonly fs?: FsLayer;
  /**
   * Opt-in for a single writer that owns its batons: hold each baton's lock from its first commit
   * until the run ends (`chain.run` releases it), {@link FileChainJournal.release},
   * {@link FileChainJournal.close}, the least recently used of more than `HELD_APPEND_LOCKS` (8)
   * held locks, or process exit — instead of taking and removing it around every commit. The lock
   * file, its name, its body and the `busy` answer to every other writer are the same; the lock is
   * re-checked with one `lstat` before every commit. A holder killed while it holds a lock leaves
   * it (never broken; remove it by hand once no writer runs), which the per-commit default leaves
   * only when the kill lands inside a commit. Default false.
   */
  readonly holdLocks?: boolean;
  /**
   * Whether each commit line carries the chain machine's transitions since the previous commit
   * (the optional `trace` key; {@link readFileChainJournalTrace} reads them back for an audit).
   * The journal observes the machine through {@link FileChainJournal.inspect}, which
   * `chain.run`/`resume`/`runChainMachine` attach by themselves. One journal object records one
   * machine at a time: run batons one after another through it (or give concurrent runs a journal
   * object each) for exact traces. Default true.
   */
  readonly trace?: boolean;
}

/**
 * The file journal: a {@link ChainJournal} plus its history and its release.
 *
 * @example
 * ```ts
 * const journal: FileChainJournal = createFileChainJournal(dir);
 * await chain.run(b0, { journal });
 * await journal.close(); // its descriptors are closed; a later commit reopens them
 * ```
 */
export interface FileChainJournal extends ChainJournal {
  /** Every committed entry of `batonId`, validated (`journal_damaged` on any defect). */
  entries(batonId: string): Promise<JournalEntry[]>;
  /**
   * Waits for queued commits, releases the locks this object holds (`holdLocks`) and closes the
   * descriptors it keeps open between commits. The object stays usable (a later commit reopens and
   * re-checks the file and takes the lock again).
   */
  close(): Promise<void>;
  /**
   * After queued commits: releases `batonId`'s held lock (`holdLocks`; a no-op otherwise, or when
   * the lock is not held or not this object's any more). `chain.run` calls it when a run ends.
   */
  release(batonId: string): Promise<void>;
  /**
   * The inspector that records the chain machine's transitions for the next commit's trace
   * (undefined with `trace: false`); `chain.run`/`resume`/`runChainMachine` attach it themselves.
   */
  readonly inspect?: MachineInspector;
}

/**
 * Opens (lazily) a file journal under `dir`. Every commit holds the baton's append lock
 * (`<journal file>.lock`, created exclusively): a second writer committing the same baton at the
 * same moment — another process, or another journal object — is refused with `busy` instead of
 * interleaving, and the lock is never broken (a writer killed inside a commit leaves it; remove it
 * by hand once no writer runs). By default the lock is taken and removed around each commit; with
 * `holdLocks` it is taken by a baton's first commit and kept until the run ends (see
 * {@link FileChainJournalOptions.holdLocks}). Under the lock the last committed baton is re-read
 * whenever the file changed since this object last saw it, so a writer never appends on top of a
 * history another process extended: the sequencing rule then answers (duplicate → no-op, anything
 * else → `journal_conflict`).
 *
 * One commit is one durable boundary: one `write` and one `fsync` of the baton's file (its
 * directory is fsync'd only by the commit that creates the file), with one `lstat` of the file
 * under the lock — plus, per commit, the lock's `link` and `unlink` (default) or one `lstat` of the
 * held lock (`holdLocks`). The file's descriptor stays open between commits (at most
 * `HELD_JSONL_FILES` (8) per journal object). The `lstat` under the lock re-checks the held
 * descriptor against the path and tells whether the file is still exactly as this object left it
 * (same device, inode and size): then the last baton it committed is the tail and nothing is read;
 * otherwise the file is read and validated again. The line is canonical JSON written with
 * {@link memoCanonicalJson}, so the text of what a revision shares with the one before it
 * (records, values, receipts) is not written again; it carries the machine's transitions since
 * the previous commit as `trace` when there are any (`options.trace`). `options.fs` replaces the
 * file-system layer (fault injection in tests).
 *
 * @example
 * ```ts
 * const journal = createFileChainJournal('/var/lib/payroll/journal', { holdLocks: true });
 * const result = await chain.run(b0, { journal }); // the baton's lock is released when the run ends
 * ```
 */
export function createFileChainJournal(dir: string, options: FileChainJournalOptions = {}): FileChainJournal {
  const fsl = options.fs ?? nodeFsLayer();
  const appender = new JsonlAppender(fsl);
  const held = options.holdLocks === true ? new HeldAppendLocks(fsl, HELD_APPEND_LOCKS) : null;
  const collector = options.trace === false ? null : createTraceCollector({ machines: ['chain'] });
  /** Steps taken for a commit that failed: they go with the next commit. */
  let carried: TraceStep[] = [];
  const tails = new Map<string, { readonly stamp: string; readonly last: Baton | undefined }>();
  let queue: Promise<unknown> = Promise.resolve();
  /** The last committed baton of `batonId` as of `stamp`, from the cache or the file. */
  const lastAt = (batonId: string, path: string, stamp: string): Baton | undefined => {
    const known = tails.get(batonId);
    if (known?.stamp === stamp) return known.last;
    const entries = stamp === 'absent' ? [] : loadEntries(path, batonId, fsl);
    const last = entries[entries.length - 1]?.baton;
    tails.set(batonId, { stamp, last });
    return last;
  };
  const paths = new Map<string, string>(); // baton id → its file (the name is a hash of the id)
  const pathOf = (batonId: string): string => {
    let p = paths.get(batonId);
    if (p === undefined) {
      if (paths.size >= 1024) paths.clear();
      p = chainJournalFile(dir, batonId);
      paths.set(batonId, p);
    }
    return p;
  };
  const lastOf = (batonId: string): Baton | undefined => {
    const path = pathOf(batonId);
    return lastAt(batonId, path, fileStampSync(path));
  };
  /** The commit itself, under the baton's lock: sequencing, then one write and one fsync. */
  const write = (id: string, path: string, entry: JournalEntry, trace: readonly TraceStep[]): void => {
    // the file as it is now (one lstat); re-read only when it changed
    if (!assertSequence(lastAt(id, path, appender.view(path)), entry)) return;
    const record: Record<string, unknown> = {
      v: 1,
      baton_id: id,
      revision: entry.baton.revision,
      baton: entry.baton,
      receipt: entry.receipt,
    };
    if (trace.length > 0) record.trace = trace;
    tails.set(id, { stamp: appender.append(path, [memoCanonicalJson(record)]), last: entry.baton });
  };
  const enqueue = <T>(fn: () => T | Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    commit(entry) {
      // the steps since the previous commit are this commit's; a start baton's pending steps
      // belong to an earlier machine (they never reached a commit) and are dropped
      const taken = collector === null ? [] : [...carried, ...collector.take()];
      carried = [];
      const trace = entry.receipt === null ? [] : taken;
      return enqueue(() => {
        const id = entry.baton.baton_id;
        const path = pathOf(id);
        if (held !== null) {
          // the lock taken now: another writer may have committed since this object last held it
          if (held.hold(path)) tails.delete(id);
          write(id, path, entry, trace);
          return;
        }
        return withAppendLock(path, async () => write(id, path, entry, trace), fsl);
      }).catch((e: unknown) => {
        if (trace.length > 0) carried = [...trace, ...carried];
        throw e;
      });
    },
    loadLast: async (batonId) => lastOf(batonId),
    entries: async (batonId) => loadEntries(chainJournalFile(dir, batonId), batonId, fsl),
    release: (batonId) =>
      enqueue(() => {
        held?.release(pathOf(batonId));
      }),
    close: () =>
      enqueue(() => {
        held?.releaseAll();
        appender.close();
      }),
    ...(collector === null ? {} : { inspect: collector.inspect }),
  };
}

/** One commit line's recorded trace: its line number (the seq an audit cites), its revision, its steps. */
export interface ChainJournalTracedCommit extends TracedBatch {
  /** The line (1-based) — `first_seq` and `last_seq` both. */
  readonly first_seq: number;
  readonly last_seq: number;
  /** The baton revision the line commits. */
  readonly revision: number;
  readonly trace: readonly TraceStep[];
}

/**
 * What {@link readFileChainJournalTrace} returns: the traces of a baton's valid journal, or why it
 * could not be read.
 */
export type FileChainJournalTrace =
  | {
      readonly ok: true;
      readonly baton_id: string;
      /** The journal file read. */
      readonly file: string;
      /** How many committed lines the journal holds (0: no journal). */
      readonly entries: number;
      /** The lines that carry a trace, in order (lines without one are left out). */
      readonly traced: readonly ChainJournalTracedCommit[];
    }
  | {
      readonly ok: false;
      readonly code: 'journal_damaged' | 'io_error';
      readonly detail: string;
      /** The damaged line (1-based), when one is to blame. */
      readonly line: number | null;
    };

/**
 * Reads the chain machine trace `batonId`'s file journal under `dir` recorded (lock-free, like
 * `entries`): every line is validated as `entries` validates it (a torn last line is not part of
 * the journal), and each line's optional `trace` must be a list of steps. The result feeds the
 * audit: `auditTrace(batonId, r.traced, [machineGraph(chainMachine)], (line) =>
 * chainJournalCite(batonId, line))`. Never throws for a bad journal: a damaged line or a malformed
 * trace is `{ok: false, code: 'journal_damaged', line}`, an unreadable file `io_error`. A missing
 * journal is `{ok: true, entries: 0, traced: []}`.
 *
 * @example
 * ```ts
 * const r = readFileChainJournalTrace('/var/lib/payroll/journal', 'payroll-2026-06');
 * if (r.ok) for (const c of r.traced) console.log(c.revision, c.trace.length);
 * ```
 */
export function readFileChainJournalTrace(
  dir: string,
  batonId: string,
  options: { readonly fs?: FsLayer } = {},
): FileChainJournalTrace {
  const file = chainJournalFile(dir, batonId);
  const fail = (e: unknown): FileChainJournalTrace => {
    if (e instanceof HandoffError && (e.code === 'journal_damaged' || e.code === 'io_error')) {
      const line = (e.details as { line?: unknown } | undefined)?.line;
      return { ok: false, code: e.code, detail: e.message, line: typeof line === 'number' ? line : null };
    }
    return { ok: false, code: 'io_error', detail: (e as Error)?.message ?? String(e), line: null };
  };
  const records: unknown[] = [];
  let entries: JournalEntry[];
  try {
    entries = entriesOf(file, batonId, readCompleteLinesSync(file, options.fs ?? nodeFsLayer()), records);
  } catch (e) {
    return fail(e);
  }
  const traced: ChainJournalTracedCommit[] = [];
  for (let i = 0; i < records.length; i++) {
    const t = lineTrace(records[i]); // the line as entriesOf parsed it: each line is parsed once
    if (!t.ok)
      return { ok: false, code: 'journal_damaged', detail: `${file} line ${i + 1}: ${t.why}`, line: i + 1 };
    if (t.steps.length > 0)
      traced.push({
        first_seq: i + 1,
        last_seq: i + 1,
        revision: (entries[i] as JournalEntry).baton.revision,
        trace: t.steps,
      });
  }
  return { ok: true, baton_id: batonId, file, entries: entries.length, traced };
}
