/**
 * The file {@link EffectLedger} (effects layer): `effects.jsonl` under a directory the caller
 * gives, one fsync'd canonical-JSON line per record: `{key, intent: {host, pid}}` when an effect is
 * about to run, `{key, result}` when it completed. The first result of a key wins; a key with an
 * intent and no result is in doubt. Each `begin` and `put` holds the file's append lock (a
 * concurrent writer — or a killed writer's stale lock — is refused with `busy`, and the lock is
 * never broken: `handoff chain recover-lock --effects DIR` removes a dead holder's) and re-reads
 * the file when another writer extended it, so the rules hold across processes. One `begin` or
 * `put` is one durable boundary: one lock acquisition, one write, one fsync (the file's
 * descriptor stays open between them); the ledger's directory is made through the durable layer
 * (`mkdir` and an fsync of its parent, failures surfaced) and the commit that creates the file
 * fsyncs the directory, refusing when that fails.
 */
import { join } from 'node:path';
import { canonicalJson, deepFreeze } from '../canonical/index.js';
import type { FsLayer } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import { type EffectBegin, type EffectLedger, type EffectRecord, effectIntentBody } from './effect-ledger.js';
import { fileStampSync, JsonlAppender, readCompleteLinesSync, withAppendLock } from './jsonl-file.js';

/** What the file says of one key: its first result, and the intent recorded before it (if any). */
interface KeyState {
  record?: EffectRecord;
  intent?: unknown;
  hasIntent: boolean;
}

function parseRecords(path: string, lines: readonly string[]): Map<string, KeyState> {
  const map = new Map<string, KeyState>();
  lines.forEach((line, i) => {
    let rec: { key?: unknown; result?: unknown; intent?: unknown };
    try {
      rec = JSON.parse(line) as typeof rec;
    } catch {
      throw new HandoffError('journal_damaged', `${path} line ${i + 1}: not JSON`, {
        details: { path, line: i + 1 },
      });
    }
    const isResult = typeof rec?.key === 'string' && 'result' in rec;
    const isIntent = typeof rec?.key === 'string' && !isResult && 'intent' in rec;
    if (!isResult && !isIntent) {
      throw new HandoffError('journal_damaged', `${path} line ${i + 1}: not an effect record`, {
        details: { path, line: i + 1 },
      });
    }
    const key = rec.key as string;
    const state = map.get(key) ?? { hasIntent: false };
    if (isIntent && !state.hasIntent) {
      state.hasIntent = true;
      state.intent = deepFreeze(rec.intent);
    }
    if (isResult && state.record === undefined)
      state.record = deepFreeze({ key, result: rec.result }) as EffectRecord;
    map.set(key, state);
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
 * The file effect ledger: an {@link EffectLedger} plus what it holds.
 *
 * @example
 * ```ts
 * const effects: FileEffectLedger = createFileEffectLedger('/var/lib/payroll/effects');
 * await effects.inDoubt(); // [] — no effect began without recording how it ended
 * ```
 */
export interface FileEffectLedger extends EffectLedger {
  /** Every recorded result, in file order (first per key). */
  records(): Promise<EffectRecord[]>;
  /** The keys whose intent is recorded without a result (in doubt), in file order. */
  inDoubt(): Promise<string[]>;
}

/**
 * The name of the file effect ledger's file inside its directory.
 *
 * @example
 * ```ts
 * join('/var/lib/payroll/effects', EFFECT_LEDGER_FILE); // '/var/lib/payroll/effects/effects.jsonl'
 * ```
 */
export const EFFECT_LEDGER_FILE = 'effects.jsonl';

/**
 * Opens a file effect ledger under `dir` (the file is `<dir>/effects.jsonl`, its lock
 * `<dir>/effects.jsonl.lock`).
 *
 * @example
 * ```ts
 * const effects = createFileEffectLedger('/var/lib/payroll/effects');
 * ```
 */
export function createFileEffectLedger(dir: string, options: FileEffectLedgerOptions = {}): FileEffectLedger {
  const path = join(dir, EFFECT_LEDGER_FILE);
  const fsl = options.fs;
  const appender = new JsonlAppender(fsl, 1);
  let cache: { readonly stamp: string; readonly map: Map<string, KeyState> } | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const load = (): Map<string, KeyState> => {
    const stamp = fileStampSync(path);
    if (cache?.stamp !== stamp) cache = { stamp, map: parseRecords(path, readCompleteLinesSync(path, fsl)) };
    return cache.map;
  };
  /** Under the lock: the map as of the file now, then one durable line when `line` says so. */
  const locked = <T>(fn: (map: Map<string, KeyState>, append: (line: string) => void) => T): Promise<T> => {
    const run = queue.then(() =>
      withAppendLock(
        path,
        async () => {
          const map = load();
          return fn(map, (line) => {
            const stamp = appender.append(path, [line]);
            cache = { stamp, map };
          });
        },
        fsl,
      ),
    );
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    id: `file:${path}`,
    async get(key) {
      return load().get(key)?.record;
    },
    begin(key) {
      return locked<EffectBegin>((map, append) => {
        const s = map.get(key);
        if (s?.record !== undefined) return { state: 'done', result: s.record.result };
        if (s?.hasIntent === true) return { state: 'in_doubt', intent: s.intent ?? null };
        const intent = effectIntentBody();
        append(canonicalJson({ key, intent }));
        map.set(key, { hasIntent: true, intent: deepFreeze(intent) });
        return { state: 'started' };
      });
    },
    put(record) {
      return locked<EffectRecord>((map, append) => {
        const s = map.get(record.key);
        if (s?.record !== undefined) return s.record;
        const line = canonicalJson({ key: record.key, result: record.result });
        append(line);
        const kept = deepFreeze(JSON.parse(line) as EffectRecord);
        map.set(record.key, { ...(s ?? { hasIntent: false }), record: kept });
        return kept;
      });
    },
    async records() {
      return [...load().values()].flatMap((s) => (s.record === undefined ? [] : [s.record]));
    },
    async inDoubt() {
      return [...load().entries()].filter(([, s]) => s.hasIntent && s.record === undefined).map(([k]) => k);
    },
  };
}
