/**
 * The file {@link EffectLedger} (effects layer): `effects.jsonl` under a directory the caller
 * gives, one fsync'd canonical-JSON line per recorded result; the first record of a key wins.
 * Each `put` holds the file's append lock (a concurrent writer is refused with `busy`) and re-reads
 * the file when another writer extended it, so the first-wins rule holds across processes. One put
 * is one durable boundary: one lock acquisition, one write, one fsync (the file's descriptor stays
 * open between puts).
 */
import { join } from 'node:path';
import { canonicalJson, deepFreeze } from '../canonical/index.js';
import type { FsLayer } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import type { EffectLedger, EffectRecord } from './effect-ledger.js';
import { fileStampSync, JsonlAppender, readCompleteLinesSync, withAppendLock } from './jsonl-file.js';

function parseRecords(path: string, lines: readonly string[]): Map<string, EffectRecord> {
  const map = new Map<string, EffectRecord>();
  lines.forEach((line, i) => {
    let rec: EffectRecord;
    try {
      rec = JSON.parse(line) as EffectRecord;
    } catch {
      throw new HandoffError('journal_damaged', `${path} line ${i + 1}: not JSON`, {
        details: { path, line: i + 1 },
      });
    }
    if (typeof rec?.key !== 'string' || !('result' in rec)) {
      throw new HandoffError('journal_damaged', `${path} line ${i + 1}: not an effect record`, {
        details: { path, line: i + 1 },
      });
    }
    if (!map.has(rec.key)) map.set(rec.key, deepFreeze(rec));
  });
  return map;
}

/**
 * Options of {@link createFileEffectLedger}.
 *
 * @example
 * ```ts
 * const effects = createFileEffectLedger(dir, { fs: nodeFsLayer() });
 * ```
 */
export interface FileEffectLedgerOptions {
  /** The file-system layer every lock, read, write and fsync goes through (default node's). */
  readonly fs?: FsLayer;
}

/**
 * Opens a file effect ledger under `dir` (the file is `<dir>/effects.jsonl`).
 *
 * @example
 * ```ts
 * const effects = createFileEffectLedger('/var/lib/payroll/effects');
 * ```
 */
export function createFileEffectLedger(
  dir: string,
  options: FileEffectLedgerOptions = {},
): EffectLedger & { records(): Promise<EffectRecord[]> } {
  const path = join(dir, 'effects.jsonl');
  const fsl = options.fs;
  const appender = new JsonlAppender(fsl, 1);
  let cache: { readonly stamp: string; readonly map: Map<string, EffectRecord> } | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const load = (): Map<string, EffectRecord> => {
    const stamp = fileStampSync(path);
    if (cache?.stamp !== stamp) cache = { stamp, map: parseRecords(path, readCompleteLinesSync(path, fsl)) };
    return cache.map;
  };
  return {
    async get(key) {
      return load().get(key);
    },
    put(record) {
      const run = queue.then(() =>
        withAppendLock(
          path,
          async () => {
            const map = load();
            const existing = map.get(record.key);
            if (existing) return existing;
            const line = canonicalJson({ key: record.key, result: record.result });
            const stamp = appender.append(path, [line]);
            const kept = deepFreeze(JSON.parse(line) as EffectRecord);
            map.set(record.key, kept);
            cache = { stamp, map };
            return kept;
          },
          fsl,
        ),
      );
      queue = run.catch(() => undefined);
      return run;
    },
    async records() {
      return [...load().values()];
    },
  };
}
