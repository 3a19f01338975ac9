/**
 * The file {@link ChainJournal} (effects layer): one append-only JSON-lines file per baton under
 * a directory the caller gives, each line one commit (`{v, baton_id, revision, baton, receipt}` in
 * canonical JSON) written with a single write and fsync'd before `commit` resolves. Loading
 * re-validates every line (schema, baton invariants, fingerprint chain). Writers take an exclusive
 * lock per commit; a second concurrent writer is refused with `busy`. Lines are written with
 * {@link memoCanonicalJson} (the same bytes as `canonicalJson`).
 */
import { join } from 'node:path';
import { deepFreeze, fingerprintOf } from '../canonical/index.js';
import { type FsLayer, nodeFsLayer } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import { safeValidate } from '../validation/index.js';
import { type Baton, BatonSchema, type StageReceipt, StageReceiptSchema } from './baton.js';
import { memoCanonicalJson } from './canonical-memo.js';
import { assertSequence, type ChainJournal, chainJournalSequence, type JournalEntry } from './journal.js';
import {
  appendLockFile,
  fileStampSync,
  JsonlAppender,
  readCompleteLinesSync,
  withAppendLock,
} from './jsonl-file.js';

/**
 * The journal file of `batonId` inside `dir` (named by a fingerprint of the id, so any id is a
 * safe file name).
 *
 * @example
 * ```ts
 * chainJournalFile('/var/chain', 'payroll-2026-06'); // '/var/chain/baton-1a2b….jsonl'
 * ```
 */
export function chainJournalFile(dir: string, batonId: string): string {
  return join(dir, `baton-${fingerprintOf(batonId)}.jsonl`);
}

/**
 * The lock file a commit of `batonId` holds (see {@link createFileChainJournal}). It only outlives a
 * commit when its writer died inside one; remove it by hand once no writer runs.
 *
 * @example
 * ```ts
 * chainJournalLockFile('/var/chain', 'payroll-2026-06'); // '/var/chain/baton-1a2b….jsonl.lock'
 * ```
 */
export function chainJournalLockFile(dir: string, batonId: string): string {
  return appendLockFile(chainJournalFile(dir, batonId));
}

function damaged(path: string, line: number, why: string): never {
  throw new HandoffError('journal_damaged', `${path} line ${line}: ${why}`, { details: { path, line } });
}

function loadEntries(path: string, batonId: string, fsl?: FsLayer): JournalEntry[] {
  const lines = readCompleteLinesSync(path, fsl);
  const out: JournalEntry[] = [];
  lines.forEach((text, i) => {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      damaged(path, i + 1, 'not JSON');
    }
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
 * const journal = createFileChainJournal(dir, { fs: nodeFsLayer() });
 * ```
 */
export interface FileChainJournalOptions {
  /** The file-system layer every lock, read, write and fsync goes through (default node's). */
  readonly fs?: FsLayer;
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
   * Waits for queued commits and closes the descriptors this object keeps open between commits.
   * The object stays usable (a later commit reopens and re-checks the file).
   */
  close(): Promise<void>;
}

/**
 * Opens (lazily) a file journal under `dir`. Every commit holds the baton's append lock
 * (`<journal file>.lock`, created with O_EXCL): a second writer committing the same baton at the
 * same moment — another process, or another journal object — is refused with `busy` instead of
 * interleaving, and the lock is never broken (a writer killed inside a commit leaves it; remove it
 * by hand once no writer runs). Under the lock the last committed baton is re-read whenever the file
 * changed since this object last saw it, so a writer never appends on top of a history another
 * process extended: the sequencing rule then answers (duplicate → no-op, anything else →
 * `journal_conflict`).
 *
 * One commit is one durable boundary: one lock acquisition, one `lstat`, one `write` and one
 * `fsync` of the baton's file (its directory is fsync'd only by the commit that creates the
 * file); the file's descriptor stays open between commits (at most `HELD_JSONL_FILES` (8) per
 * journal object). The `lstat` under the lock re-checks the held descriptor against the path and
 * tells whether the file is still exactly as this object left it (same device, inode and size):
 * then the last baton it committed is the tail and nothing is read; otherwise the file is read and
 * validated again. The line is canonical JSON written with {@link memoCanonicalJson}, so the text
 * of what a revision shares with the one before it (records, values, receipts) is not written
 * again. `options.fs` replaces the file-system layer (fault injection in tests).
 *
 * @example
 * ```ts
 * const journal = createFileChainJournal('/var/lib/payroll/journal');
 * const result = await chain.run(b0, { journal });
 * ```
 */
export function createFileChainJournal(dir: string, options: FileChainJournalOptions = {}): FileChainJournal {
  const fsl = options.fs ?? nodeFsLayer();
  const appender = new JsonlAppender(fsl);
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
  return {
    commit(entry) {
      const run = queue.then(() => {
        const id = entry.baton.baton_id;
        const path = pathOf(id);
        return withAppendLock(
          path,
          async () => {
            // under the lock: the file as it is now (one lstat); re-read only when it changed
            if (!assertSequence(lastAt(id, path, appender.view(path)), entry)) return;
            const line = memoCanonicalJson({
              v: 1,
              baton_id: id,
              revision: entry.baton.revision,
              baton: entry.baton,
              receipt: entry.receipt,
            });
            tails.set(id, { stamp: appender.append(path, [line]), last: entry.baton });
          },
          fsl,
        );
      });
      queue = run.catch(() => undefined);
      return run;
    },
    loadLast: async (batonId) => lastOf(batonId),
    entries: async (batonId) => loadEntries(chainJournalFile(dir, batonId), batonId, fsl),
    close: async () => {
      await queue;
      appender.close();
    },
  };
}
