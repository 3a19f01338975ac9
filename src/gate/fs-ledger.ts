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
 * The hot path (issue 15): a log object **holds** each problem's `log.jsonl` open (at most
 * `maxHeld` descriptors, least recently used closed first; `close()` closes them all). Every call
 * still checks by path that the held file is the file at `<problem>/log.jsonl` (`lstat`: same
 * inode and device, a regular file — a replaced, removed or symlinked log is reopened exactly as
 * before), and takes the file's size from that `lstat`: bytes another process appended are parsed
 * before the state is used, and only those bytes. An append whose line landed right at the end this
 * object had parsed (nobody else wrote in between) confirms its nonce by reading back just its own
 * line; any other case re-parses the new bytes. Any failure closes the held descriptor (the next
 * call reopens the file and re-reads what it has not parsed).
 *
 * Dual read: a problem written by an earlier version has `log/00000001.json …` (one file per entry,
 * published by link); those entries are read first and the new lines continue their seqs. Nothing
 * writes `log/` any more; a line whose seq the old log holds too (an older version writing beside
 * this one) fails closed. Every `read` checks for the old directory (so every ledger call does:
 * it reads before it appends) — an `lstat` of the problem directory whose link count shows no
 * subdirectory on file systems that count them, a listing otherwise; an `append` trusts the
 * absence its object's last check saw (the listing after the write is what the hot path saves). A log that does not parse, has
 * gaps or does not start with a registration fails closed (`ledger_damaged`).
 *
 * The log is read synchronously through an {@link FsLayer} (fault injection in tests); a log
 * object parses only the bytes it has not parsed yet (the file only grows).
 */

import { dirname, join } from 'node:path';
import {
  causeOf,
  dirFsyncUnsupported,
  errnoOf,
  type FsLayer,
  fsyncDir,
  lstatOrNull,
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
import { LEDGER_LOG_FILE, type LedgerLinesState, ledgerLineOfJson, parseLedgerLines } from './ledger-line.js';
import { assertProblemId, ledgerDamaged, ledgerTraceJson, parseLedgerEntry } from './ledger-log-entry.js';
import { type LedgerEvent, LedgerEventSchema } from './ledger-state.js';
import type { LedgerTrace, LedgerTraceReader, TracedEntry } from './ledger-trace.js';

const NAME = /^(\d{8})\.json$/;

/** Default bound on the descriptors one log object holds open. */
const MAX_HELD = 64;

function problemDir(root: string, problemId: string): string {
  assertProblemId(problemId);
  return join(root, problemId);
}

const defaultFsl = nodeFsLayer();

/** One problem's paths: its directory, its log file and the ledger directory (the parent). */
interface Paths {
  readonly base: string;
  readonly file: string;
  readonly parent: string;
}

/**
 * Options of {@link fsLedgerLog} and {@link createFsLedger}.
 *
 * @example
 * ```ts
 * const log = fsLedgerLog(root, { fs: nodeFsLayer(), maxHeld: 16 });
 * ```
 */
export interface FsLedgerLogOptions {
  /** The file-system layer every read, write, fsync and link goes through (default node's). */
  readonly fs?: FsLayer;
  /** How many problems' `log.jsonl` descriptors one log object keeps open (default 64, at least 1). */
  readonly maxHeld?: number;
}

/**
 * The fs {@link LedgerLog}, with `close()`: closes the descriptors it holds (the log stays usable
 * and reopens files on its next call).
 *
 * @example
 * ```ts
 * const log = fsLedgerLog(root);
 * await log.read('billing-17');
 * log.close();
 * ```
 */
export interface FsLedgerLog extends LedgerLog, LedgerTraceReader {
  /** Closes every held descriptor (idempotent). */
  close(): void;
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

/** A held descriptor of one problem's `log.jsonl` and the identity of the file it was opened on. */
interface Held {
  readonly fd: number;
  readonly ino: number;
  readonly dev: number;
  /** Opened read-write (O_APPEND); false when only a read-only open was allowed. */
  readonly writable: boolean;
}

/** What a log object knows of one problem's `log.jsonl`: its identity and what it parsed. */
interface LineCache {
  readonly ino: number;
  readonly dev: number;
  /** Offset after the last settled line. */
  offset: number;
  /** The winning events and nonces so far (extended in place; cut back when a parse fails). */
  readonly state: LedgerLinesState;
  /** The old log's entry count this parse assumed. */
  readonly oldCount: number;
}

/** Closes the descriptors of a log object that was dropped without `close()`. */
const finalizer = new FinalizationRegistry<{ fsl: FsLayer; held: Map<string, Held> }>(({ fsl, held }) => {
  for (const h of held.values()) {
    try {
      fsl.close(h.fd);
    } catch {
      // nothing to lose: every acknowledged line was fsync'd
    }
  }
  held.clear();
});

const EMPTY: readonly LedgerEvent[] = Object.freeze([]);

/** JSON text of `event` and the event a reader will parse back from it, or why it is refused. */
function serialize(
  event: LedgerEvent,
): { ok: true; json: string; value: LedgerEvent } | { ok: false; issues: unknown[]; message: string } {
  let json: unknown;
  try {
    json = JSON.stringify(event);
  } catch (e) {
    return { ok: false, issues: [], message: `not serializable as JSON: ${(e as Error).message}` };
  }
  if (typeof json !== 'string') return { ok: false, issues: [], message: 'not serializable as JSON' };
  const v = safeValidate(LedgerEventSchema, JSON.parse(json));
  if (!v.ok) return { ok: false, issues: v.issues.slice(0, 5), message: v.issues[0]?.message ?? 'invalid' };
  return { ok: true, json, value: v.value };
}

/**
 * Creates the fs-backed {@link LedgerLog} under `root`: appends go to `<problem>/log.jsonl`
 * (`gate-ledger-line/v1`, one fsync per entry) through a held descriptor; a problem's older
 * `log/00000001.json …` entries are still read, first (dual read), and never written again.
 *
 * @example
 * ```ts
 * const log = fsLedgerLog('/repo/.handoff/gate/ledger');
 * ```
 */
export function fsLedgerLog(root: string, options: FsLedgerLogOptions = {}): FsLedgerLog {
  const fsl = options.fs ?? defaultFsl;
  const maxHeld = Math.max(1, Math.floor(options.maxHeld ?? MAX_HELD));
  /** Parsed entries of the older log by problem (entry i is seq i + 1); valid while it only grows. */
  const parsed = new Map<string, LedgerEvent[]>();
  /** What was parsed of each problem's log.jsonl. */
  const lines = new Map<string, LineCache>();
  /** Problems whose directory this object made sure of. */
  const made = new Set<string>();
  /** Problems whose older `log/` directory was absent when last listed (an append trusts it). */
  const oldAbsent = new Set<string>();
  /** Problems whose log.jsonl a read found absent (an append tries to create it first). */
  const absent = new Set<string>();
  /** Held descriptors, least recently used first. */
  const held = new Map<string, Held>();
  /** Each problem's paths, its id checked once (joined once, not on every call). */
  const paths = new Map<string, Paths>();

  const pathsOf = (problemId: string): Paths => {
    let p = paths.get(problemId);
    if (p === undefined) {
      const base = problemDir(root, problemId);
      p = { base, file: join(base, LEDGER_LOG_FILE), parent: dirname(base) };
      paths.set(problemId, p);
    }
    return p;
  };

  /** The older one-file-per-entry log: its entries (empty when there is none). */
  const readOld = (problemId: string): LedgerEvent[] => {
    const dir = join(pathsOf(problemId).base, 'log');
    let names: string[];
    try {
      names = fsl.readdir(dir);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') {
        parsed.set(problemId, []);
        oldAbsent.add(problemId);
        return [];
      }
      throw ledgerDamaged(problemId, `cannot list the log: ${(e as Error).message}`, e);
    }
    oldAbsent.delete(problemId);
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

  /** No older log: what a listing that found no `log/` records. */
  const noOld = (problemId: string): LedgerEvent[] => {
    parsed.set(problemId, []);
    oldAbsent.add(problemId);
    return [];
  };

  /**
   * The older log for a read — exact on every call, listed only when it may exist: one `lstat` of
   * the problem directory first. Absent directory: null. A directory whose link count says it has
   * no subdirectory (2 on file systems that count them, as ext4, xfs and tmpfs do) holds no `log/`
   * directory; any other count (a subdirectory, or a file system that does not count: btrfs says
   * 1) is listed as before.
   */
  const oldForRead = (problemId: string, base: string): LedgerEvent[] | null => {
    let st: ReturnType<FsLayer['lstat']> | null;
    try {
      // a new problem's directory is absent: lstatOrNull builds no error object for that
      st = lstatOrNull(fsl, base);
    } catch {
      return readOld(problemId);
    }
    if (st === null) {
      noOld(problemId);
      return null;
    }
    const nlink = st.nlink;
    if (st.isDirectory() && !st.isSymbolicLink() && nlink === 2) return noOld(problemId);
    return readOld(problemId);
  };

  /** The older log for an append: its absence as this object last listed it, else listed again. */
  const oldOf = (problemId: string): readonly LedgerEvent[] =>
    oldAbsent.has(problemId) ? EMPTY : readOld(problemId);

  const drop = (problemId: string): void => {
    const h = held.get(problemId);
    if (h === undefined) return;
    held.delete(problemId);
    try {
      fsl.close(h.fd);
    } catch {
      // every acknowledged line was fsync'd before: nothing to lose
    }
  };

  const hold = (problemId: string, h: Held): void => {
    drop(problemId);
    held.set(problemId, h);
    while (held.size > maxHeld) {
      const first = held.keys().next().value as string;
      drop(first);
    }
  };

  /**
   * The held descriptor of `file` when it is still the file at that path (lstat: same inode and
   * device, a regular file), with the file's size; otherwise the stale descriptor is closed and
   * the caller opens the path again (and meets any error there, as an opening call does).
   */
  const current = (problemId: string, file: string): { h: Held; size: number } | null => {
    const h = held.get(problemId);
    if (h === undefined) return null;
    let st: ReturnType<FsLayer['lstat']>;
    try {
      st = fsl.lstat(file);
    } catch {
      drop(problemId);
      return null;
    }
    if (!st.isFile() || st.ino !== h.ino || st.dev !== h.dev) {
      drop(problemId);
      return null;
    }
    held.delete(problemId); // most recently used last
    held.set(problemId, h);
    return { h, size: st.size };
  };

  /** Opens (and holds) `file` for a read: read-write when allowed, else read-only; null when absent. */
  const openForRead = (problemId: string, file: string): { h: Held; size: number } | null => {
    let fd: number;
    let writable = true;
    try {
      // O_NONBLOCK: a FIFO planted as the log must not hang the open (fstat refuses it next)
      fd = fsl.open(file, O.O_RDWR | O.O_APPEND | O.O_NOFOLLOW | O.O_NONBLOCK);
    } catch (e) {
      const code = errnoOf(e);
      if (code === 'ENOENT') return null;
      if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS')
        throw ledgerDamaged(problemId, `cannot open ${LEDGER_LOG_FILE}: ${(e as Error).message}`, e);
      try {
        fd = fsl.open(file, O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK);
        writable = false;
      } catch (e2) {
        if (errnoOf(e2) === 'ENOENT') return null;
        throw ledgerDamaged(problemId, `cannot open ${LEDGER_LOG_FILE}: ${(e2 as Error).message}`, e2);
      }
    }
    return adopt(problemId, fd, writable, (m, e) =>
      ledgerDamaged(problemId, `${LEDGER_LOG_FILE} is unreadable: ${m}`, e),
    );
  };

  /** fstat's a fresh descriptor (a regular file, or it is closed and refused) and holds it. */
  const adopt = (
    problemId: string,
    fd: number,
    writable: boolean,
    refuse: (message: string, cause?: unknown) => Error,
  ): { h: Held; size: number } => {
    let st: ReturnType<FsLayer['fstat']>;
    try {
      st = fsl.fstat(fd);
    } catch (e) {
      closeQuietly(fd);
      throw refuse((e as Error).message, e);
    }
    if (!st.isFile()) {
      closeQuietly(fd);
      throw refuse(`${LEDGER_LOG_FILE} is not a regular file`);
    }
    const h: Held = { fd, ino: st.ino, dev: st.dev, writable };
    hold(problemId, h);
    return { h, size: st.size };
  };

  const closeQuietly = (fd: number): void => {
    try {
      fsl.close(fd);
    } catch {
      // a descriptor nothing was acknowledged through
    }
  };

  /** The line cache of the held file, reset when it describes another file or a shorter one. */
  const cacheOf = (problemId: string, old: readonly LedgerEvent[], h: Held, size: number): LineCache => {
    const c = lines.get(problemId);
    if (
      c !== undefined &&
      c.ino === h.ino &&
      c.dev === h.dev &&
      c.offset <= size &&
      c.oldCount === old.length
    )
      return c;
    const fresh: LineCache = {
      ino: h.ino,
      dev: h.dev,
      offset: 0,
      state: { events: old.slice(), nonces: old.map(() => null) },
      oldCount: old.length,
    };
    lines.set(problemId, fresh);
    return fresh;
  };

  /** Parses the bytes of the held file between the settled offset and `size` (only those). */
  const catchUp = (problemId: string, old: readonly LedgerEvent[], h: Held, size: number): LineCache => {
    const c = cacheOf(problemId, old, h, size);
    if (size === c.offset) return c;
    let bytes: Buffer;
    try {
      bytes = readRange(fsl, h.fd, c.offset, size);
    } catch (e) {
      throw ledgerDamaged(problemId, `${LEDGER_LOG_FILE} is unreadable: ${(e as Error).message}`, e);
    }
    const n = c.state.events.length;
    try {
      c.offset += parseLedgerLines(problemId, bytes, c.state, old.length).settled;
    } catch (e) {
      c.state.events.length = n;
      c.state.nonces.length = n;
      throw e;
    }
    return c;
  };

  /** Makes sure of a new problem's directory, fsync'd into its parent (once per object). */
  const ensureDir = (problemId: string, base: string, parent: string): void => {
    if (made.has(problemId)) return;
    try {
      let mkdirDone = false;
      try {
        fsl.mkdir(base);
        mkdirDone = true;
      } catch (e) {
        const code = errnoOf(e);
        if (code !== 'EEXIST' && code !== 'ENOENT') throw e;
      }
      if (mkdirDone) {
        // a new problem's directory is fsync'd into its parent: a granted entry must not be lost
        // with the directory it was written into
        try {
          fsyncDir(fsl, parent, 'ledger_mkdir');
        } catch (e) {
          if (!dirFsyncUnsupported(e)) throw e;
        }
      } else makeDirsDurable(fsl, base, 'ledger_mkdir', { bestEffort: true });
    } catch (e) {
      throw causeOf(e);
    }
    made.add(problemId);
  };

  /** Opens (creating when absent) and holds `file` for an append. */
  const openForAppend = (problemId: string, file: string): { h: Held; size: number; created: boolean } => {
    const plain = O.O_RDWR | O.O_APPEND | O.O_NOFOLLOW;
    const create = plain | O.O_CREAT | O.O_EXCL;
    let fd: number;
    let created = false;
    const tryCreate = (): number | null => {
      try {
        const d = fsl.open(file, create, 0o666);
        created = true;
        return d;
      } catch (e) {
        if (errnoOf(e) === 'ENOENT') made.delete(problemId); // removed meanwhile: re-make next time
        if (errnoOf(e) !== 'EEXIST') throw e;
        return null;
      }
    };
    if (absent.has(problemId)) {
      absent.delete(problemId);
      fd = tryCreate() ?? fsl.open(file, plain);
    } else {
      try {
        fd = fsl.open(file, plain);
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw e;
        fd = tryCreate() ?? fsl.open(file, plain);
      }
    }
    const a = adopt(problemId, fd, true, (m, e) =>
      ledgerDamaged(problemId, `cannot append to ${LEDGER_LOG_FILE}: ${m}`, e),
    );
    return { ...a, created };
  };

  const log: FsLedgerLog = {
    async read(problemId) {
      const { base, file } = pathsOf(problemId);
      try {
        const cur = current(problemId, file);
        let c: LineCache;
        if (cur !== null) c = catchUp(problemId, oldForRead(problemId, base) ?? EMPTY, cur.h, cur.size);
        else {
          const old = oldForRead(problemId, base);
          if (old === null) {
            // no problem directory: no history (and nothing to open)
            lines.delete(problemId);
            absent.add(problemId);
            return null;
          }
          const opened = openForRead(problemId, file);
          if (opened === null) {
            lines.delete(problemId);
            absent.add(problemId);
            return old.length === 0 ? null : old.slice();
          }
          absent.delete(problemId);
          c = catchUp(problemId, old, opened.h, opened.size);
        }
        const events = c.state.events;
        return events.length === 0 ? null : events.slice();
      } catch (e) {
        drop(problemId);
        throw e;
      }
    },
    async append(problemId, event, options) {
      // an event that the reader would refuse is refused here, before a byte is written: a line
      // the ledger cannot parse back would fail the problem's ledger closed for good. What is
      // validated is the JSON text's parse — exactly what a reader gets back from the line.
      const ser = serialize(event);
      if (!ser.ok) {
        throw new HandoffError(
          'invalid_input',
          `ledger of ${problemId}: not a valid ledger event (${ser.message}); nothing was written`,
          { details: { problem_id: problemId, issues: ser.issues } },
        );
      }
      const traceJson = options?.trace === undefined ? undefined : ledgerTraceJson(problemId, options.trace);
      const { base, file, parent } = pathsOf(problemId);
      let cur = current(problemId, file);
      if (cur !== null && !cur.h.writable) {
        drop(problemId);
        cur = null;
      }
      let created = false;
      if (cur === null) {
        ensureDir(problemId, base, parent);
        const o = openForAppend(problemId, file);
        created = o.created;
        cur = { h: o.h, size: o.size };
      }
      const { h, size } = cur;
      try {
        const old = oldOf(problemId);
        const c = cacheOf(problemId, old, h, size);
        const synced = c.offset === size;
        // a torn tail (a write that never completed) is closed first, so this line starts a line;
        // the settled offset always follows a newline, so a synced file needs no look
        const lead = !synced && size > 0 && readRange(fsl, h.fd, size - 1, size)[0] !== 0x0a ? '\n' : '';
        const nonce = randomHex(16);
        const bytes = Buffer.from(`${lead}${ledgerLineOfJson(ser.json, nonce, traceJson)}`, 'utf8');
        writeFully(fsl, h.fd, bytes, 'ledger_write');
        fsl.fsync(h.fd);
        // the file's name must be durable with its first entry (best effort, as before: some
        // file systems refuse fsync on directories)
        if (created) {
          try {
            fsyncDir(fsl, base, 'ledger_dir_fsync');
          } catch (e) {
            if (errnoOf(causeOf(e)) !== 'EINVAL') throw e;
          }
        }
        const seq = ser.value.seq;
        if (synced && c.state.events.length + 1 === seq) {
          // nobody else had written since the parse: if our line sits at the settled offset it is
          // the first line for `seq` — read back just that line to know
          const back = readRange(fsl, h.fd, c.offset, c.offset + bytes.length);
          if (back.equals(bytes)) {
            c.state.events.push(ser.value);
            c.state.nonces.push(nonce);
            c.offset += bytes.length;
            return true;
          }
        }
        const after = catchUp(problemId, old, h, fsl.fstat(h.fd).size);
        return after.state.nonces[seq - 1] === nonce;
      } catch (e) {
        drop(problemId);
        throw causeOf(e);
      }
    },
    close() {
      for (const p of [...held.keys()]) drop(p);
    },
    async readTraces(problemId) {
      const { file } = pathsOf(problemId);
      const old = readOld(problemId);
      let bytes: Buffer | null = null;
      let fd: number | null = null;
      try {
        // O_NONBLOCK: a FIFO planted as the log must not hang the open (fstat refuses it next)
        fd = fsl.open(file, O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK);
        const st = fsl.fstat(fd);
        if (!st.isFile()) throw new Error(`${LEDGER_LOG_FILE} is not a regular file`);
        bytes = readRange(fsl, fd, 0, st.size);
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT')
          throw ledgerDamaged(problemId, `${LEDGER_LOG_FILE} is unreadable: ${(e as Error).message}`, e);
      } finally {
        if (fd !== null) closeQuietly(fd);
      }
      if (bytes === null && old.length === 0) return null;
      const traces: (LedgerTrace | null)[] = old.map(() => null);
      const state = { events: old.slice(), nonces: old.map(() => null), traces };
      if (bytes !== null) parseLedgerLines(problemId, bytes, state, old.length);
      const traced: TracedEntry[] = [];
      traces.forEach((trace, i) => {
        if (trace !== null) traced.push({ seq: i + 1, trace });
      });
      return { entries: state.events.length, traced };
    },
  };
  finalizer.register(log, { fsl, held });
  return log;
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
  const logOptions: FsLedgerLogOptions = {
    ...(options.fs === undefined ? {} : { fs: options.fs }),
    ...(options.maxHeld === undefined ? {} : { maxHeld: options.maxHeld }),
  };
  return createLogLedger(fsLedgerLog(root, logOptions), options);
}
