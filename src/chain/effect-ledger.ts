/**
 * Exactly-once side effects keyed by `stage_run_id`: an {@link EffectLedger} records, per key, the
 * intent to run an effect and then its result, and {@link idempotentEffect} runs an effect only
 * after its intent is durable — never an effect whose record cannot be written first. A retried
 * stage (same checkpoint, same run id) gets the recorded result instead of acting twice; a key
 * whose intent has no result (the run that began it crashed, is still running, or the effect
 * threw) is *in doubt* and is decided by the caller's `reconcile` function, re-run only when the
 * effect is declared `rerunSafe`, and otherwise refused with `effect_in_doubt` (the rule:
 * {@link decideEffect}). A ledger that cannot record the intent — its lock held (`busy`, e.g. a
 * killed writer's stale lock) or an I/O failure — refuses before the effect runs.
 */
import { hostname } from 'node:os';
import { canonicalJson, deepFreeze } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import { decideEffect, type EffectBegin, intentStillRunning } from './effect-decision.js';
import { deepCopy } from './immutable.js';

export type { EffectBegin } from './effect-decision.js';

/** One recorded effect result. */
export interface EffectRecord {
  /** The idempotency key (a `stage_run_id`, optionally with a suffix per effect). */
  readonly key: string;
  /** The effect's JSON result. */
  readonly result: unknown;
}

/** Durable memory of effect intents and results. */
export interface EffectLedger {
  /**
   * What names the durable ledger (the file ledger: its file's path), so two objects over the same
   * ledger in one process know each other's effects in flight; absent: the object itself.
   */
  readonly id?: string;
  /** The recorded result for `key`, or undefined (also while the key is only intended). */
  get(key: string): Promise<EffectRecord | undefined>;
  /**
   * Records, durably and before it resolves, the intent to run `key`'s effect — unless the key
   * already has a result (`done`) or an intent (`in_doubt`), which it answers instead. Rejects
   * (and records nothing) when the intent cannot be written: `busy` when another writer holds the
   * ledger's lock, `io_error` when the write or its fsync fails.
   */
  begin(key: string): Promise<EffectBegin>;
  /**
   * Records a result durably and resolves to the record that holds for the key: the first one
   * recorded wins (a second put for the same key returns the first record unchanged).
   */
  put(record: EffectRecord): Promise<EffectRecord>;
}

/**
 * The `{host, pid}` an intent names (diagnostic: who began the effect).
 *
 * @example
 * ```ts
 * effectIntentBody(); // { host: 'h1', pid: 4242 }
 * ```
 */
export function effectIntentBody(): { readonly host: string; readonly pid: number } {
  return { host: hostname(), pid: process.pid };
}

/**
 * An in-memory {@link EffectLedger} (intents and results live as long as the object).
 *
 * @example
 * ```ts
 * const effects = createMemoryEffectLedger();
 * ```
 */
export function createMemoryEffectLedger(): EffectLedger & { keys(): string[]; inDoubt(): string[] } {
  const map = new Map<string, EffectRecord>();
  const intents = new Map<string, unknown>();
  return {
    async get(key) {
      return map.get(key);
    },
    async begin(key) {
      const done = map.get(key);
      if (done) return { state: 'done', result: done.result };
      if (intents.has(key)) return { state: 'in_doubt', intent: intents.get(key) };
      intents.set(key, effectIntentBody());
      return { state: 'started' };
    },
    async put(record) {
      const existing = map.get(record.key);
      if (existing) return existing;
      const frozen = deepFreeze({ key: record.key, result: deepCopy(record.result) });
      map.set(record.key, frozen);
      return frozen;
    },
    keys: () => [...map.keys()],
    inDoubt: () => [...intents.keys()].filter((k) => !map.has(k)),
  };
}

/**
 * The keys this process is running an effect (or a reconcile) for right now: per ledger `id` (so
 * two objects over one file ledger see each other's), else per ledger object.
 */
const IN_FLIGHT_BY_ID = new Map<string, Set<string>>();
const IN_FLIGHT_BY_OBJECT = new WeakMap<EffectLedger, Set<string>>();

function inFlightOf(ledger: EffectLedger): {
  has(k: string): boolean;
  add(k: string): void;
  delete(k: string): void;
} {
  const id = ledger.id;
  const get = (): Set<string> | undefined =>
    id === undefined ? IN_FLIGHT_BY_OBJECT.get(ledger) : IN_FLIGHT_BY_ID.get(id);
  return {
    has: (k) => get()?.has(k) === true,
    add: (k) => {
      let s = get();
      if (s === undefined) {
        s = new Set();
        if (id === undefined) IN_FLIGHT_BY_OBJECT.set(ledger, s);
        else IN_FLIGHT_BY_ID.set(id, s);
      }
      s.add(k);
    },
    delete: (k) => {
      const s = get();
      s?.delete(k);
      if (id !== undefined && s?.size === 0) IN_FLIGHT_BY_ID.delete(id);
    },
  };
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown } | null)?.code !== 'ESRCH';
  }
}

/**
 * How {@link idempotentEffect} got its result: `ran` (the effect ran once, after its intent was
 * recorded), `replayed` (the recorded result; nothing ran), `reconciled` (an in-doubt key decided
 * by the caller's `reconcile`), `reran` (an in-doubt key of a `rerunSafe` effect, run again).
 *
 * @example
 * ```ts
 * const { via } = await idempotentEffect(effects, key, pay, { reconcile }); // 'ran' | 'replayed' | …
 * ```
 */
export type EffectVia = 'ran' | 'replayed' | 'reconciled' | 'reran';

/** Outcome of {@link idempotentEffect}. */
export interface EffectOutcome<T> {
  /** The effect's result (recorded or fresh). */
  readonly result: T;
  /** True when the result came from the ledger and neither the effect nor `reconcile` ran. */
  readonly replayed: boolean;
  /** How the result was obtained. */
  readonly via: EffectVia;
}

/**
 * What the caller declares for a key whose earlier run is in doubt (an intent without a result).
 *
 * @example
 * ```ts
 * const options: EffectOptions<Payment> = { reconcile: (key) => bank.finish(key, lines) };
 * ```
 */
export interface EffectOptions<T> {
  /**
   * Decides an in-doubt key: finds out from the effect's target what the earlier run did (e.g. the
   * bank's statement for the idempotency key), completes what is missing without repeating what
   * happened, and returns the result to record. Called at most once per resume; when it throws,
   * the key stays in doubt.
   */
  readonly reconcile?: (key: string) => Promise<T> | T;
  /** The effect may simply run again when in doubt (its target dedupes by key, or a repeat is harmless). */
  readonly rerunSafe?: boolean;
}

/**
 * Runs `effect` at most once per `key` (exactly once when it completes): a recorded result is
 * returned without running it; otherwise the ledger records the intent durably **first** — a
 * ledger that cannot (`busy`: its lock is held, e.g. by a killed writer; `io_error`) rejects and
 * the effect is not run — then the effect runs and its (JSON) result is recorded before this
 * resolves. A key whose intent has no result is in doubt: while the run that recorded the intent
 * still runs on this host the answer is `busy`; otherwise `options.reconcile` decides it,
 * `options.rerunSafe` runs the effect again, and otherwise this rejects with `effect_in_doubt`
 * without running anything. When the effect throws (or its result cannot be recorded), the key
 * stays in doubt: whether it acted is not known.
 *
 * @example
 * ```ts
 * const { result } = await idempotentEffect(effects, view.stage_run_id, () => bank.pay(view.stage_run_id, lines), {
 *   reconcile: (key) => bank.finish(key, lines), // what the bank says happened, completed
 * });
 * return stageDelta({ payment_id: { value: result.payment_id, evidence: [result.ref] } });
 * ```
 * @throws HandoffError `busy` (details `lock`, `path`, `holder`) when the ledger's lock is held and
 *   the intent cannot be recorded (the effect did not run), or (details `key`, `intent`) when the
 *   key is in doubt but the run that recorded its intent is still running on this host — this
 *   process with the key in flight, or a live pid ({@link intentStillRunning}): nothing runs; `effect_in_doubt` (details `key`,
 *   `intent`) for an in-doubt key without `reconcile` or `rerunSafe` (nothing ran); `io_error` when
 *   the ledger cannot write; `canonical_unsupported` when the result is not JSON-representable
 *   (the effect ran: the key stays in doubt); whatever the effect or `reconcile` throws.
 */
export async function idempotentEffect<T>(
  ledger: EffectLedger,
  key: string,
  effect: () => Promise<T> | T,
  options: EffectOptions<T> = {},
): Promise<EffectOutcome<T>> {
  const recorded = await ledger.get(key);
  if (recorded !== undefined)
    return { result: deepCopy(recorded.result) as T, replayed: true, via: 'replayed' };
  const running = inFlightOf(ledger);
  let begin: EffectBegin;
  try {
    begin = await ledger.begin(key); // busy / io_error: rejected here, before the effect
  } catch (e) {
    if (!(e instanceof HandoffError && e.code === 'busy')) throw e;
    // the same code and details, said in the stage's words (a seam's detail quotes the message)
    const d = (e.details ?? {}) as { lock?: unknown; holder?: unknown };
    throw new HandoffError(
      'busy',
      `busy: the effect ledger's lock ${String(d.lock)} is held (holder ${JSON.stringify(d.holder ?? null)}; a dead holder's lock is removed with \`handoff chain recover-lock --effects DIR\`): the effect of ${key} was not run`,
      { details: { ...(e.details as object), key }, cause: e },
    );
  }
  const intent = begin.state === 'in_doubt' ? begin.intent : null;
  const decision = decideEffect(
    begin,
    { reconcile: options.reconcile !== undefined, rerunSafe: options.rerunSafe === true },
    begin.state === 'in_doubt' &&
      intentStillRunning(intent, {
        host: hostname(),
        pid: process.pid,
        inFlight: running.has(key),
        isAlive: isProcessAlive,
      }),
  );
  if (decision === 'wait') {
    throw new HandoffError(
      'busy',
      `the effect of ${key} is being run by ${JSON.stringify(intent ?? null)} (its intent is recorded and that run has not ended): not run or reconciled meanwhile`,
      { details: { key, intent: intent ?? null } },
    );
  }
  if (decision === 'replay') {
    const result = (begin as { result: unknown }).result;
    return { result: deepCopy(result) as T, replayed: true, via: 'replayed' };
  }
  if (decision === 'refuse') {
    throw new HandoffError(
      'effect_in_doubt',
      `the effect of ${key} is in doubt: its intent was recorded (by ${JSON.stringify(intent ?? null)}) but no result — it may have acted; not run again (give a reconcile function, or declare it rerunSafe)`,
      { details: { key, intent: intent ?? null } },
    );
  }
  running.add(key);
  let kept: EffectRecord;
  try {
    const result =
      decision === 'reconcile'
        ? await (options.reconcile as (key: string) => Promise<T> | T)(key)
        : await effect();
    canonicalJson(result);
    kept = await ledger.put({ key, result });
  } finally {
    running.delete(key);
  }
  const via: EffectVia = decision === 'reconcile' ? 'reconciled' : decision === 'rerun' ? 'reran' : 'ran';
  return { result: deepCopy(kept.result) as T, replayed: false, via };
}
