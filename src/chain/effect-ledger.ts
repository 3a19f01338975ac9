/**
 * Idempotent side effects keyed by `stage_run_id`: an {@link EffectLedger} remembers the result of
 * each effect, and {@link idempotentEffect} runs an effect only when no result is recorded for its
 * key, persisting the result before returning. A retried stage (same checkpoint, same run id)
 * therefore gets the recorded result instead of acting twice.
 */
import { canonicalJson, deepFreeze } from '../canonical/index.js';
import { deepCopy } from './immutable.js';

/** One recorded effect result. */
export interface EffectRecord {
  /** The idempotency key (a `stage_run_id`, optionally with a suffix per effect). */
  readonly key: string;
  /** The effect's JSON result. */
  readonly result: unknown;
}

/** Durable memory of effect results. */
export interface EffectLedger {
  /** The recorded result for `key`, or undefined. */
  get(key: string): Promise<EffectRecord | undefined>;
  /**
   * Records a result durably and resolves to the record that holds for the key: the first one
   * recorded wins (a second put for the same key returns the first record unchanged).
   */
  put(record: EffectRecord): Promise<EffectRecord>;
}

/**
 * An in-memory {@link EffectLedger}.
 *
 * @example
 * ```ts
 * const effects = createMemoryEffectLedger();
 * ```
 */
export function createMemoryEffectLedger(): EffectLedger & { keys(): string[] } {
  const map = new Map<string, EffectRecord>();
  return {
    async get(key) {
      return map.get(key);
    },
    async put(record) {
      const existing = map.get(record.key);
      if (existing) return existing;
      const frozen = deepFreeze({ key: record.key, result: deepCopy(record.result) });
      map.set(record.key, frozen);
      return frozen;
    },
    keys: () => [...map.keys()],
  };
}

/** Outcome of {@link idempotentEffect}. */
export interface EffectOutcome<T> {
  /** The effect's result (recorded or fresh). */
  readonly result: T;
  /** True when the result came from the ledger and the effect did not run. */
  readonly replayed: boolean;
}

/**
 * Runs `effect` at most once per `key`: a recorded result is returned without running it;
 * otherwise the effect runs and its (JSON) result is persisted before this resolves. Pair it with
 * an external system that also honours the key, so a crash between acting and recording cannot
 * act twice either.
 *
 * @example
 * ```ts
 * const { result } = await idempotentEffect(effects, view.stage_run_id, () => bank.pay(view.stage_run_id, lines));
 * return stageDelta({ payment_id: { value: result.payment_id, evidence: [result.ref] } });
 * ```
 * @throws HandoffError `canonical_unsupported` when the result is not JSON-representable.
 */
export async function idempotentEffect<T>(
  ledger: EffectLedger,
  key: string,
  effect: () => Promise<T> | T,
): Promise<EffectOutcome<T>> {
  const recorded = await ledger.get(key);
  if (recorded !== undefined) return { result: deepCopy(recorded.result) as T, replayed: true };
  const result = await effect();
  canonicalJson(result);
  const kept = await ledger.put({ key, result });
  return { result: deepCopy(kept.result) as T, replayed: false };
}
