/**
 * How a cycle run ends (layer 1, pure): the stop the run is heading to (user, worker outcome,
 * checkpoint refusal, a failing actor, a reached limit), and the final handoff each final state
 * records — the machine's output.
 */
import type { Handoff, StopReason } from '../contract/index.js';
import type { CycleUpdate } from './context.js';
import { finalHandoff, wrapStuckHandoff } from './final-handoff.js';
import type { CheckpointOutput, CycleContext } from './types.js';

/**
 * Heads for `stopped` with `reason` and no detail (a human's `stop`).
 *
 * @example
 * ```ts
 * stopFor('user-stop').pendingStop; // { reason: 'user-stop', detail: null }
 * ```
 */
export function stopFor(reason: StopReason): CycleUpdate {
  return { pendingStop: { reason, detail: null } };
}

/**
 * Heads for `stopped` because of the last worker outcome: the detail is `prefix`, followed by the
 * outcome's own detail when it is not a handoff (`custody violation: …`).
 *
 * @example
 * ```ts
 * workStop(ctx, { reason: 'protocol-error', prefix: 'worker protocol error' }).pendingStop?.detail;
 * // 'worker protocol error: <the outcome detail>'
 * ```
 */
export function workStop(
  c: Pick<CycleContext, 'lastWork'>,
  p: { readonly reason: StopReason; readonly prefix: string },
): CycleUpdate {
  const w = c.lastWork;
  const detail = w === null || w.kind === 'handoff' ? p.prefix : `${p.prefix}: ${w.detail}`;
  return { pendingStop: { reason: p.reason, detail } };
}

/**
 * Heads for `stopped` because the checkpointer refused the commit (custody violated at the
 * checkpoint): a protocol error naming the refusal.
 *
 * @example
 * ```ts
 * checkpointStop({ now: 0, committed: false, commit: null, message: 'x', refused: 'late write' }).pendingStop?.detail;
 * // 'custody violation at checkpoint: late write'
 * ```
 */
export function checkpointStop(out: CheckpointOutput): CycleUpdate {
  return {
    pendingStop: {
      reason: 'protocol-error',
      detail: `custody violation at checkpoint: ${out.refused ?? ''}`,
    },
  };
}

/**
 * Heads for `stopped` because an actor failed: an operational error naming the phase and the error.
 *
 * @example
 * ```ts
 * errorStop({ phase: 'worker', error: new Error('boom') }).pendingStop?.detail; // 'worker failed: Error: boom'
 * ```
 */
export function errorStop(p: { readonly phase: string; readonly error: unknown }): CycleUpdate {
  return {
    pendingStop: {
      reason: 'operational-error',
      detail: `${p.phase} failed: ${String(p.error ?? 'unknown error')}`,
    },
  };
}

/**
 * Heads for `stopped` on a reached limit: `max-stuck` when it is among them (its blocker fields are
 * set), else the first reported.
 *
 * @example
 * ```ts
 * limitStop({ limitViolations: ['max-cycles', 'max-stuck'] }).pendingStop?.reason; // 'max-stuck'
 * ```
 */
export function limitStop(c: Pick<CycleContext, 'limitViolations'>): CycleUpdate {
  const v = c.limitViolations;
  const reason: StopReason = v.includes('max-stuck') ? 'max-stuck' : (v[0] ?? 'user-stop');
  return { pendingStop: { reason, detail: null } };
}

/**
 * The command that restages a stuck statement when no outer loop runs the cycle.
 *
 * @example
 * ```ts
 * formalizeCommand('A.lean'); // 'handoff formalize --formalize restage --target A.lean'
 * ```
 */
export function formalizeCommand(file: string): string {
  return `handoff formalize --formalize restage --target ${file}`;
}

/**
 * The human chose `formalize`: the run ends stuck with `next_action: redraft` — handed to the
 * outer loop when one is active; otherwise the final record names the command that continues it
 * ({@link formalizeCommand}, in `new_evidence_required_for_rerun`: run-contract/v1 keeps
 * `stop_detail` for operational stops).
 *
 * @example
 * ```ts
 * redraft(ctx).nextActionOverride; // 'redraft'
 * ```
 */
export function redraft(c: Pick<CycleContext, 'options' | 'stuckHandoff' | 'current' | 'log'>): CycleUpdate {
  if (c.options.outerLoop) {
    return {
      nextActionOverride: 'redraft',
      log: [...c.log, 'formalize: handed to the outer loop (redraft)'],
    };
  }
  const id = c.stuckHandoff?.target ?? c.current?.id ?? c.options.target;
  const file = /^(.*):\d+$/.exec(id ?? '')?.[1] ?? c.current?.file ?? c.options.target;
  const cmd = formalizeCommand(file);
  return {
    nextActionOverride: 'redraft',
    continuation: `restage the statement: ${cmd}`,
    log: [...c.log, `formalize: no outer loop — continue with: ${cmd}`],
  };
}

/**
 * The final record of `solved`.
 *
 * @example
 * ```ts
 * finalizeSolved(ctx).final?.status; // 'solved'
 * ```
 */
export function finalizeSolved(c: CycleContext): CycleUpdate {
  return { final: finalHandoff(c, { status: 'solved' }) };
}

/**
 * The final record of `stuck`: blocker fields from the wrapped stuck handoff (else the first
 * target the guard refused), `next_action` overridden by a `formalize` answer.
 *
 * @example
 * ```ts
 * finalizeStuck(ctx).final?.blocker_signature; // 'A.lean:2:omega failed'
 * ```
 */
export function finalizeStuck(c: CycleContext): CycleUpdate {
  const stuck = c.stuckHandoff ?? c.blocked[c.refused[0] ?? ''] ?? null;
  const f = finalHandoff(c, { status: 'stuck', stuck });
  return {
    final: {
      ...f,
      ...(c.nextActionOverride ? { next_action: c.nextActionOverride } : {}),
      ...(c.continuation ? { new_evidence_required_for_rerun: c.continuation } : {}),
    },
  };
}

/**
 * The final record of `stopped`: the pending stop's reason and detail (`user-stop` when none was
 * set); on `max-stuck` the blocker fields of the wrapped stuck handoff (or of the last verdict).
 *
 * @example
 * ```ts
 * finalizeStopped({ ...ctx, pendingStop: { reason: 'max-cycles', detail: null } }).final?.stop_reason; // 'max-cycles'
 * ```
 */
export function finalizeStopped(c: CycleContext): CycleUpdate {
  const p = c.pendingStop ?? { reason: 'user-stop' as const, detail: null };
  const stuck =
    p.reason === 'max-stuck'
      ? (c.stuckHandoff ?? (c.lastStuck ? wrapStuckHandoff(c, c.lastStuck, c.review) : null))
      : null;
  return {
    final: finalHandoff(c, {
      status: 'stopped',
      stopReason: p.reason,
      stuck,
      ...(p.detail === null ? {} : { detail: p.detail }),
    }),
  };
}

/**
 * The machine's output: the final record of the final state reached. (Every final state records
 * one on entry; a context without one is reported as an operational error rather than `null`.)
 *
 * @example
 * ```ts
 * runOutput(snapshot.context).schema; // 'run-contract/v1'
 * ```
 */
export function runOutput(c: CycleContext): Handoff {
  return (
    c.final ??
    finalHandoff(c, {
      status: 'stopped',
      stopReason: 'operational-error',
      detail: 'the cycle ended without a final record',
    })
  );
}
