/**
 * The answer of a sandboxed command worker (layer 0, record): the worker's handoff plus what its
 * sandbox discarded, branded so `delegate` can tell it from a handoff and make the discarded
 * writes an `outside_owned` violation (src/delegate/command-worker.ts).
 */

/**
 * The brand of a {@link SandboxedAnswer}.
 *
 * @example
 * ```ts
 * const a = { [SANDBOXED_ANSWER]: true, handoff, discarded: null } as const;
 * ```
 */
export const SANDBOXED_ANSWER: unique symbol = Symbol.for('handoff-runtime/sandboxed-answer');

/**
 * A handoff with the sandbox's report.
 *
 * @example
 * ```ts
 * const a: SandboxedAnswer = await commandWorker(argv).run(dispatch, { signal });
 * ```
 */
export interface SandboxedAnswer {
  readonly [SANDBOXED_ANSWER]: true;
  /** The worker's handoff as it printed it (untrusted; read and checked by `delegate`). */
  readonly handoff: unknown;
  /** `files outside the owned set were written and discarded: …`, or null. */
  readonly discarded: string | null;
}

/**
 * The sandboxed answer inside `v`, or null when `v` is an ordinary answer. Never throws (a getter
 * or proxy that throws reads as an ordinary answer).
 *
 * @example
 * ```ts
 * sandboxedAnswer({ [SANDBOXED_ANSWER]: true, handoff: h, discarded: null }); // { handoff: h, discarded: null }
 * sandboxedAnswer(h); // null
 * ```
 */
export function sandboxedAnswer(v: unknown): { handoff: unknown; discarded: string | null } | null {
  try {
    if (typeof v !== 'object' || v === null || (v as Partial<SandboxedAnswer>)[SANDBOXED_ANSWER] !== true)
      return null;
    const a = v as SandboxedAnswer;
    return { handoff: a.handoff, discarded: typeof a.discarded === 'string' ? a.discarded : null };
  } catch {
    return null;
  }
}
