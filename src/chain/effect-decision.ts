/**
 * What an effect run through the effect ledger may do (pure): the exactly-once rule of
 * {@link idempotentEffect}. A ledger answers a `begin` with the key's state — its result recorded
 * (`done`), an intent recorded now by this call (`started`), or an intent recorded earlier with no
 * result after it (`in_doubt`: a run began the effect and never recorded how it ended — it crashed,
 * is still running, or the effect threw). The rule decides from that state and what the caller
 * declared:
 *
 * | state | decision |
 * |---|---|
 * | `done` | `replay` the recorded result; the effect is not run |
 * | `started` | `run` the effect (its intent is durable first) |
 * | `in_doubt`, a `reconcile` function given | `reconcile`: the caller's function finds out what happened and finishes it, once |
 * | `in_doubt`, the effect declared `rerunSafe` | `rerun` the effect |
 * | `in_doubt`, neither | `refuse` with `effect_in_doubt`: nothing runs |
 *
 * A ledger that cannot record the intent (its lock held — `busy` — or an I/O failure) answers
 * with an error instead of a state: the effect is not run either.
 */

/** A ledger's answer to `begin(key)`. */
export type EffectBegin =
  | { readonly state: 'done'; readonly result: unknown }
  | { readonly state: 'started' }
  | {
      readonly state: 'in_doubt';
      /** Who recorded the intent (`{host, pid}` as written), for the refusal's message. */
      readonly intent: unknown;
    };

/** What the caller declared about an effect whose earlier run is in doubt. */
export interface EffectDeclaration {
  /** A reconcile function was given (it decides an in-doubt key). */
  readonly reconcile: boolean;
  /** The effect is safe to run again (its target dedupes, or a repeat is harmless). */
  readonly rerunSafe: boolean;
}

/** The decision of {@link decideEffect}. */
export type EffectDecision = 'replay' | 'run' | 'reconcile' | 'rerun' | 'refuse';

/**
 * Decides what to do with an effect given the ledger's answer to `begin` (see the file comment).
 *
 * @example
 * ```ts
 * decideEffect({ state: 'started' }, { reconcile: false, rerunSafe: false }); // 'run'
 * decideEffect({ state: 'in_doubt', intent: null }, { reconcile: false, rerunSafe: false }); // 'refuse'
 * decideEffect({ state: 'in_doubt', intent: null }, { reconcile: true, rerunSafe: true }); // 'reconcile'
 * ```
 */
export function decideEffect(begin: EffectBegin, declared: EffectDeclaration): EffectDecision {
  if (begin.state === 'done') return 'replay';
  if (begin.state === 'started') return 'run';
  if (declared.reconcile) return 'reconcile';
  return declared.rerunSafe ? 'rerun' : 'refuse';
}
