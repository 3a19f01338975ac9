/**
 * The file-system {@link LedgerLog} (the default enforcer backend): one directory per problem,
 * `log/00000001.json …`, each event written to a private temporary file, fsync'd, then published
 * with `link(2)` (`publishNewFile` of src/durable) — which fails with EEXIST when the sequence
 * number is taken, so exactly one of any number of racing processes appends a given event, and no
 * reader ever sees a torn entry.
 * A log that does not parse, has gaps or does not start with a registration fails closed
 * (`ledger_damaged`).
 */

import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { causeOf, nodeFsLayer, publishNewFile } from '../durable/index.js';
import { randomHex } from '../ids/index.js';
import { createLogLedger, type Ledger, type LedgerLog } from './ledger.js';
import { assertProblemId, ledgerDamaged, parseLedgerEntry } from './ledger-log-entry.js';
import type { LedgerEvent } from './ledger-state.js';

const NAME = /^(\d{8})\.json$/;

function problemDir(root: string, problemId: string): string {
  assertProblemId(problemId);
  return join(root, problemId);
}

const fsl = nodeFsLayer();

/**
 * Creates the fs-backed {@link LedgerLog} under `root`.
 *
 * @example
 * ```ts
 * const log = fsLedgerLog('/repo/.handoff/gate/ledger');
 * ```
 */
export function fsLedgerLog(root: string): LedgerLog {
  return {
    async read(problemId) {
      const dir = join(problemDir(root, problemId), 'log');
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw ledgerDamaged(problemId, `cannot list the log: ${(e as Error).message}`, e);
      }
      const seqs = names
        .map((n) => NAME.exec(n)?.[1])
        .filter((s): s is string => s !== undefined)
        .map(Number)
        .sort((a, b) => a - b);
      if (seqs.length === 0) return null;
      const events: LedgerEvent[] = [];
      for (let i = 0; i < seqs.length; i++) {
        if (seqs[i] !== i + 1) throw ledgerDamaged(problemId, `gap in the log before entry ${seqs[i]}`);
        const file = join(dir, `${String(i + 1).padStart(8, '0')}.json`);
        let text: string;
        try {
          text = await readFile(file, 'utf8');
        } catch (e) {
          throw ledgerDamaged(problemId, `entry ${i + 1} is unreadable`, e);
        }
        events.push(parseLedgerEntry(problemId, i + 1, text));
      }
      return events;
    },
    async append(problemId, event) {
      const base = problemDir(root, problemId);
      const dir = join(base, 'log');
      const tmpDir = join(base, 'tmp');
      await mkdir(dir, { recursive: true });
      await mkdir(tmpDir, { recursive: true });
      try {
        // some file systems refuse fsync on directories; the link itself is already atomic
        return publishNewFile(
          fsl,
          join(dir, `${String(event.seq).padStart(8, '0')}.json`),
          Buffer.from(`${JSON.stringify(event)}\n`),
          {
            tmpPath: join(tmpDir, `${process.pid}-${randomHex(16)}.json`),
            mode: 0o666,
            sync: 'dir-best-effort',
          },
        );
      } catch (e) {
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
export function createFsLedger(root: string, options: { now: () => string }): Ledger {
  return createLogLedger(fsLedgerLog(root), options);
}
