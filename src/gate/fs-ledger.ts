/**
 * The file-system {@link LedgerLog} (the default enforcer backend): one directory per problem,
 * `log/00000001.json …`, each event written to a private temporary file, fsync'd, then published
 * with `link(2)` (`publishNewFile` of src/durable) — which fails with EEXIST when the sequence
 * number is taken, so exactly one of any number of racing processes appends a given event, and no
 * reader ever sees a torn entry. The directory is fsync'd after the link (best effort), so an
 * acknowledged event's name is durable: two fsyncs per event, the price of a lock-free
 * compare-and-set on names (see docs/performance.md).
 * A log that does not parse, has gaps or does not start with a registration fails closed
 * (`ledger_damaged`).
 *
 * The log is read synchronously through an {@link FsLayer} (fault injection in tests): one
 * directory listing per read, and only the entries this log object has not parsed yet are read —
 * a published entry is immutable (it is only ever created by `link(2)` of a private temp file),
 * so a per-problem cache of parsed entries stays valid while the listing grows.
 */

import { join } from 'node:path';
import {
  causeOf,
  errnoOf,
  type FsLayer,
  makeDirsDurable,
  nodeFsLayer,
  O,
  publishNewFile,
  readRange,
} from '../durable/index.js';
import { randomHex } from '../ids/index.js';
import { createLogLedger, type Ledger, type LedgerLog } from './ledger.js';
import { assertProblemId, ledgerDamaged, parseLedgerEntry } from './ledger-log-entry.js';
import type { LedgerEvent } from './ledger-state.js';

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

/**
 * Creates the fs-backed {@link LedgerLog} under `root`.
 *
 * @example
 * ```ts
 * const log = fsLedgerLog('/repo/.handoff/gate/ledger');
 * ```
 */
export function fsLedgerLog(root: string, options: FsLedgerLogOptions = {}): LedgerLog {
  const fsl = options.fs ?? defaultFsl;
  /** Parsed entries by problem (entry i is seq i + 1); valid while the log only grows. */
  const parsed = new Map<string, LedgerEvent[]>();
  /** Problems whose `log/` and `tmp/` directories this object made sure of. */
  const made = new Set<string>();
  return {
    async read(problemId) {
      const dir = join(problemDir(root, problemId), 'log');
      let names: string[];
      try {
        names = fsl.readdir(dir);
      } catch (e) {
        if (errnoOf(e) === 'ENOENT') {
          parsed.set(problemId, []);
          return null;
        }
        throw ledgerDamaged(problemId, `cannot list the log: ${(e as Error).message}`, e);
      }
      const seqs = names
        .map((n) => NAME.exec(n)?.[1])
        .filter((s): s is string => s !== undefined)
        .map(Number)
        .sort((a, b) => a - b);
      if (seqs.length === 0) {
        parsed.set(problemId, []);
        return null;
      }
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
      return events.slice();
    },
    async append(problemId, event) {
      const base = problemDir(root, problemId);
      const dir = join(base, 'log');
      const tmpDir = join(base, 'tmp');
      if (!made.has(problemId)) {
        // a new problem's directories are fsync'd into their parents: a granted entry must not
        // be lost with the directory it was published into
        try {
          makeDirsDurable(fsl, dir, 'ledger_mkdir', { bestEffort: true });
          makeDirsDurable(fsl, tmpDir, 'ledger_mkdir', { bestEffort: true });
        } catch (e) {
          throw causeOf(e);
        }
        made.add(problemId);
      }
      const text = `${JSON.stringify(event)}\n`;
      try {
        // some file systems refuse fsync on directories; the link itself is already atomic
        const won = publishNewFile(
          fsl,
          join(dir, `${String(event.seq).padStart(8, '0')}.json`),
          Buffer.from(text),
          {
            tmpPath: join(tmpDir, `${process.pid}-${randomHex(16)}.json`),
            mode: 0o666,
            sync: 'dir-best-effort',
          },
        );
        // our own entry joins the parsed cache as a read would parse it (no re-read of it later)
        const known = parsed.get(problemId);
        if (won && known !== undefined && known.length === event.seq - 1) {
          known.push(parseLedgerEntry(problemId, event.seq, text));
        }
        return won;
      } catch (e) {
        if (errnoOf(causeOf(e)) === 'ENOENT') made.delete(problemId); // removed meanwhile: re-make next time
        throw causeOf(e);
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
