/**
 * The file-system {@link LedgerLog} (the default enforcer backend): one directory per problem and
 * one append-only file `<problem>/log.jsonl` (`gate-ledger-line/v1`, see ledger-line.ts): each
 * event is one line with its own sha256, appended with O_APPEND in one write and fsync'd — **one
 * fsync per entry** (before: a temp file fsync'd, published with `link(2)`, then the directory
 * fsync'd). Racing processes may append a line for the same seq: the first in the file wins, and
 * each writer reads back whether its nonce won (append resolves false otherwise), so exactly one of
 * any number of racing processes appends a given event. A torn write is a torn tail (no newline),
 * never used; the next writer starts its line on a new line. The file's name is fsync'd into the
 * problem directory when the file is created (once per problem).
 *
 * Dual read: a problem written by an earlier version has `log/00000001.json …` (one file per entry,
 * published by link); those entries are read first and the new lines continue their seqs. Nothing
 * writes `log/` any more; a line whose seq the old log holds too (an older version writing beside
 * this one) fails closed. A log that does not parse, has gaps or does not start with a
 * registration fails closed (`ledger_damaged`).
 *
 * The log is read synchronously through an {@link FsLayer} (fault injection in tests); a log
 * object parses only the bytes it has not parsed yet (the file only grows).
 */

import { join } from 'node:path';
import {
  causeOf,
  errnoOf,
  type FsLayer,
  fsyncDir,
  makeDirsDurable,
  nodeFsLayer,
  O,
  readRange,
  writeFully,
} from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import { randomHex } from '../ids/index.js';
import { safeValidate } from '../validation/index.js';
import { createLogLedger, type Ledger, type LedgerLog } from './ledger.js';
import { LEDGER_LOG_FILE, type LedgerLinesState, ledgerLineText, parseLedgerLines } from './ledger-line.js';
import { assertProblemId, ledgerDamaged, parseLedgerEntry } from './ledger-log-entry.js';
import { type LedgerEvent, LedgerEventSchema } from './ledger-state.js';

const NAME = /^(\d{8})\.json$/;

function problemDir(root: string, problemId: string): string {
  assertProblemId(problemId);
  return join(root, problemId);
}

const defaultFsl = nodeFsLayer();

/**
 * Options of {@link fsLedgerLog} and {@link createFsLedger}.
 *
 * @example
 * ```ts
 * const log = fsLedgerLog(root, { fs: nodeFsLayer() });
 * ```
 */
export interface FsLedgerLogOptions {
  /** The file-system layer every read, write, fsync and link goes through (default node's). */
  readonly fs?: FsLayer;
}

function readEntry(fsl: FsLayer, file: string): string {
  const fd = fsl.open(file, O.O_RDONLY | O.O_NOFOLLOW);
  try {
    return readRange(fsl, fd, 0, fsl.fstat(fd).size).toString('utf8');
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // read-only descriptor: nothing to lose
    }
  }
}

/** What a log object knows of one problem's `log.jsonl`: its identity and what it parsed. */
interface LineCache {
  ino: number;
  dev: number;
  /** Offset after the last settled line. */
  offset: number;
  state: LedgerLinesState;
  /** The old log's entry count this parse assumed. */
  oldCount: number;
}

/**
 * Creates the fs-backed {@link LedgerLog} under `root`: appends go to `<problem>/log.jsonl`
 * (`gate-ledger-line/v1`, one fsync per entry); a problem's older `log/00000001.json …` entries are
 * still read, first (dual read), and never written again.
 *
 * @example
 * ```ts
 * const log = fsLedgerLog('/repo/.handoff/gate/ledger');
 * ```
 */
export function fsLedgerLog(root: string, options: FsLedgerLogOptions = {}): LedgerLog {
  const fsl = options.fs ?? defaultFsl;
  /** Parsed entries of the older log by problem (entry i is seq i + 1); valid while it only grows. */
  const parsed = new Map<string, LedgerEvent[]>();
  /** What was parsed of each problem's log.jsonl. */
  const lines = new Map<string, LineCache>();
  /** Problems whose directory this object made sure of. */
  const made = new Set<string>();

  /** The older one-file-per-entry log: its entries (empty when there is none). */
  const readOld = (problemId: string): LedgerEvent[] => {
    const dir = join(problemDir(root, problemId), 'log');
    let names: string[];
    try {
      names = fsl.readdir(dir);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') {
        parsed.set(problemId, []);
        return [];
      }
      throw ledgerDamaged(problemId, `cannot list the log: ${(e as Error).message}`, e);
    }
    const seqs = names
      .map((n) => NAME.exec(n)?.[1])
      .filter((s): s is string => s !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    let known = parsed.get(problemId) ?? [];
    if (known.length > seqs.length) known = []; // entries vanished: trust nothing cached
    const events: LedgerEvent[] = known.slice();
    for (let i = 0; i < seqs.length; i++) {
      if (seqs[i] !== i + 1) throw ledgerDamaged(problemId, `gap in the log before entry ${seqs[i]}`);
      if (i < events.length) continue;
      const file = join(dir, `${String(i + 1).padStart(8, '0')}.json`);
      let text: string;
      try {
        text = readEntry(fsl, file);
      } catch (e) {
        throw ledgerDamaged(problemId, `entry ${i + 1} is unreadable`, e);
      }
      events.push(parseLedgerEntry(problemId, i + 1, text));
    }
    parsed.set(problemId, events);
    return events;
  };

  /**
   * Brings the cache of `log.jsonl` up to date through `fd` (or opens the file read-only): parses
   * only the bytes after the settled offset. Returns the cache, or null when the file is absent.
   */
  const catchUp = (problemId: string, old: LedgerEvent[], given?: number): LineCache | null => {
    let fd = given;
    if (fd === undefined) {
      try {
        // O_NONBLOCK: a FIFO planted as the log must not hang the read (fstat refuses it next)
        fd = fsl.open(
          join(problemDir(root, problemId), LEDGER_LOG_FILE),
          O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK,
        );
      } catch (e) {
        if (errnoOf(e) === 'ENOENT') {
          lines.delete(problemId);
          return null;
        }
        throw ledgerDamaged(problemId, `cannot open ${LEDGER_LOG_FILE}: ${(e as Error).message}`, e);
      }
    }
    try {
      let st: ReturnType<FsLayer['fstat']>;
      let bytes: Buffer;
      let c = lines.get(problemId);
      try {
        st = fsl.fstat(fd);
        if (!st.isFile()) throw new Error(`${LEDGER_LOG_FILE} is not a regular file`);
        if (
          c === undefined ||
          c.ino !== st.ino ||
          c.dev !== st.dev ||
          c.offset > st.size ||
          c.oldCount !== old.length
        ) {
          c = {
            ino: st.ino,
            dev: st.dev,
            offset: 0,
            state: { events: old.slice(), nonces: old.map(() => null) },
            oldCount: old.length,
          };
        }
        bytes = readRange(fsl, fd, c.offset, st.size);
      } catch (e) {
        throw ledgerDamaged(problemId, `${LEDGER_LOG_FILE} is unreadable: ${(e as Error).message}`, e);
      }
      const work: LedgerLinesState = { events: c.state.events.slice(), nonces: c.state.nonces.slice() };
      const p = parseLedgerLines(problemId, bytes, work, old.length);
      const next: LineCache = { ...c, offset: c.offset + p.settled, state: work };
      lines.set(problemId, next);
      return next;
    } finally {
      if (given === undefined) {
        try {
          fsl.close(fd);
        } catch {
          // read-only descriptor: nothing to lose
        }
      }
    }
  };

  return {
    async read(problemId) {
      const old = readOld(problemId);
      const c = catchUp(problemId, old);
      const events = c === null ? old : c.state.events;
      return events.length === 0 ? null : events.slice();
    },
    async append(problemId, event) {
      // an event that the reader would refuse is refused here, before a byte is written: a line
      // the ledger cannot parse back would fail the problem's ledger closed for good
      const valid = safeValidate(LedgerEventSchema, event);
      if (!valid.ok) {
        throw new HandoffError(
          'invalid_input',
          `ledger of ${problemId}: not a valid ledger event (${valid.issues[0]?.message ?? 'invalid'}); nothing was written`,
          { details: { problem_id: problemId, issues: valid.issues.slice(0, 5) } },
        );
      }
      const base = problemDir(root, problemId);
      const file = join(base, LEDGER_LOG_FILE);
      if (!made.has(problemId)) {
        // a new problem's directory is fsync'd into its parent: a granted entry must not be lost
        // with the directory it was written into
        try {
          makeDirsDurable(fsl, base, 'ledger_mkdir', { bestEffort: true });
        } catch (e) {
          throw causeOf(e);
        }
        made.add(problemId);
      }
      const nonce = randomHex(16);
      let fd: number;
      let created = false;
      try {
        fd = fsl.open(file, O.O_RDWR | O.O_APPEND | O.O_NOFOLLOW);
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw e;
        try {
          fd = fsl.open(file, O.O_RDWR | O.O_APPEND | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o666);
          created = true;
        } catch (e2) {
          if (errnoOf(e2) === 'ENOENT') made.delete(problemId); // removed meanwhile: re-make next time
          if (errnoOf(e2) !== 'EEXIST') throw e2;
          fd = fsl.open(file, O.O_RDWR | O.O_APPEND | O.O_NOFOLLOW);
        }
      }
      try {
        // a torn tail (a write that never completed) is closed first, so this line starts a line
        const size = fsl.fstat(fd).size;
        const lead = size > 0 && readRange(fsl, fd, size - 1, size)[0] !== 0x0a ? '\n' : '';
        writeFully(fsl, fd, Buffer.from(`${lead}${ledgerLineText(event, nonce)}`, 'utf8'), 'ledger_write');
        fsl.fsync(fd);
        // the file's name must be durable with its first entry (best effort, as before: some
        // file systems refuse fsync on directories)
        if (created) {
          try {
            fsyncDir(fsl, base, 'ledger_dir_fsync');
          } catch (e) {
            if (errnoOf(causeOf(e)) !== 'EINVAL') throw e;
          }
        }
        const c = catchUp(problemId, readOld(problemId), fd);
        return c !== null && c.state.nonces[event.seq - 1] === nonce;
      } catch (e) {
        throw causeOf(e);
      } finally {
        try {
          fsl.close(fd);
        } catch {
          // fsync'd before (or failing anyway)
        }
      }
    },
  };
}

/**
 * The default fs ledger: {@link createLogLedger} over {@link fsLedgerLog}.
 *
 * @example
 * ```ts
 * const ledger = createFsLedger('.handoff/gate/ledger', { now: () => new Date().toISOString() });
 * ```
 */
export function createFsLedger(root: string, options: { now: () => string } & FsLedgerLogOptions): Ledger {
  return createLogLedger(fsLedgerLog(root, options.fs === undefined ? {} : { fs: options.fs }), options);
}
