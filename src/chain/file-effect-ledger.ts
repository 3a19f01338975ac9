/**
 * The file {@link EffectLedger} (effects layer): `effects.jsonl` under a directory the caller
 * gives, one fsync'd canonical-JSON line per recorded result; the first record of a key wins.
 * Each `put` holds the file's append lock (a concurrent writer is refused with `busy`) and re-reads
 * the file when another writer extended it, so the first-wins rule holds across processes.
 */
import { join } from 'node:path';
import { canonicalJson, deepFreeze } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import type { EffectLedger, EffectRecord } from './effect-ledger.js';
import { appendLineDurably, fileStamp, readCompleteLines, withAppendLock } from './jsonl-file.js';

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
 * Opens a file effect ledger under `dir` (the file is `<dir>/effects.jsonl`).
 *
 * @example
 * ```ts
 * const effects = createFileEffectLedger('/var/lib/payroll/effects');
 * ```
 */
export function createFileEffectLedger(dir: string): EffectLedger & { records(): Promise<EffectRecord[]> } {
  const path = join(dir, 'effects.jsonl');
  let cache: { readonly stamp: string; readonly map: Map<string, EffectRecord> } | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const load = async (): Promise<Map<string, EffectRecord>> => {
    const stamp = await fileStamp(path);
    if (cache?.stamp !== stamp) cache = { stamp, map: parseRecords(path, await readCompleteLines(path)) };
    return cache.map;
  };
  return {
    async get(key) {
      return (await load()).get(key);
    },
    put(record) {
      const run = queue.then(() =>
        withAppendLock(path, async () => {
          const map = await load();
          const existing = map.get(record.key);
          if (existing) return existing;
          const line = canonicalJson({ key: record.key, result: record.result });
          const stamp = await appendLineDurably(path, line);
          const kept = deepFreeze(JSON.parse(line) as EffectRecord);
          map.set(record.key, kept);
          cache = { stamp, map };
          return kept;
        }),
      );
      queue = run.catch(() => undefined);
      return run;
    },
    async records() {
      return [...(await load()).values()];
    },
  };
}
