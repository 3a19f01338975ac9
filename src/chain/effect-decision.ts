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
 * | `in_doubt`, its run still running here | `wait`: refused with `busy`, nothing runs ({@link intentStillRunning}) |
 * | `in_doubt`, a `reconcile` function given | `reconcile`: the caller's function finds out what happened and finishes it, once |
 * | `in_doubt`, the effect declared `rerunSafe` | `rerun` the effect |
 * | `in_doubt`, neither | `refuse` with `effect_in_doubt`: nothing runs |
 *
 * A ledger that cannot record the intent (its lock held — `busy` — or an I/O failure) answers
 * with an error instead of a state: the effect is not run either.
 */

/**
 * A ledger's answer to `begin(key)`.
 *
 * @example
 * ```ts
 * const b: EffectBegin = await ledger.begin('payroll-2026-06::pay::1'); // { state: 'started' }
 * ```
 */
export type EffectBegin =
  | { readonly state: 'done'; readonly result: unknown }
  | { readonly state: 'started' }
  | {
      readonly state: 'in_doubt';
      /** Who recorded the intent (`{host, pid}` as written), for the refusal's message. */
      readonly intent: unknown;
    };

/**
 * What the caller declared about an effect whose earlier run is in doubt.
 *
 * @example
 * ```ts
 * const declared: EffectDeclaration = { reconcile: true, rerunSafe: false };
 * ```
 */
export interface EffectDeclaration {
  /** A reconcile function was given (it decides an in-doubt key). */
  readonly reconcile: boolean;
  /** The effect is safe to run again (its target dedupes, or a repeat is harmless). */
  readonly rerunSafe: boolean;
}

/**
 * The decision of {@link decideEffect}. `wait`: the key is in doubt but the run that recorded its
 * intent is still running here (its effect may be under way), so nothing is decided now (`busy`).
 *
 * @example
 * ```ts
 * const d: EffectDecision = decideEffect({ state: 'started' }, declared); // 'run'
 * ```
 */
export type EffectDecision = 'replay' | 'run' | 'reconcile' | 'rerun' | 'refuse' | 'wait';

/**
 * Decides what to do with an effect given the ledger's answer to `begin` (see the file comment).
 *
 * @example
 * ```ts
 * decideEffect({ state: 'started' }, { reconcile: false, rerunSafe: false }); // 'run'
 * decideEffect({ state: 'in_doubt', intent: null }, { reconcile: false, rerunSafe: false }); // 'refuse'
 * decideEffect({ state: 'in_doubt', intent: null }, { reconcile: true, rerunSafe: true }); // 'reconcile'
 * decideEffect({ state: 'in_doubt', intent: null }, { reconcile: true, rerunSafe: true }, true); // 'wait'
 * ```
 */
export function decideEffect(
  begin: EffectBegin,
  declared: EffectDeclaration,
  intentRunning = false,
): EffectDecision {
  if (begin.state === 'done') return 'replay';
  if (begin.state === 'started') return 'run';
  if (intentRunning) return 'wait';
  if (declared.reconcile) return 'reconcile';
  return declared.rerunSafe ? 'rerun' : 'refuse';
}

/**
 * What {@link intentStillRunning} knows of the machine it runs on.
 *
 * @example
 * ```ts
 * const here: EffectHere = { host: hostname(), pid: process.pid, inFlight: false, isAlive: (p) => p === 42 };
 * ```
 */
export interface EffectHere {
  /** This machine's hostname. */
  readonly host: string;
  /** This process's pid. */
  readonly pid: number;
  /** Whether this process is running the key's effect right now. */
  readonly inFlight: boolean;
  /** True when `pid` names a process here, or its absence cannot be proven (the safe side). */
  readonly isAlive: (pid: number) => boolean;
}

/**
 * Whether the run that recorded an in-doubt intent (`{host, pid}`) may still be running its
 * effect: this process with the key in flight, or another live pid of this host. An intent of
 * another host cannot be checked from here and counts as not running (its key is decided by
 * `reconcile`, which must then be safe against a run still going on elsewhere); a body that is not
 * `{host, pid}` counts as not running.
 *
 * @example
 * ```ts
 * const here = { host: 'h1', pid: 10, inFlight: false, isAlive: (p: number) => p === 42 };
 * intentStillRunning({ host: 'h1', pid: 42 }, here); // true: a live process of this host
 * intentStillRunning({ host: 'h1', pid: 10 }, here); // false: this process, not running it now
 * intentStillRunning({ host: 'h2', pid: 42 }, here); // false: cannot be checked from here
 * ```
 */
export function intentStillRunning(intent: unknown, here: EffectHere): boolean {
  if (typeof intent !== 'object' || intent === null) return false;
  const { host, pid } = intent as { host?: unknown; pid?: unknown };
  if (host !== here.host || typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return false;
  return pid === here.pid ? here.inFlight : here.isAlive(pid);
}
