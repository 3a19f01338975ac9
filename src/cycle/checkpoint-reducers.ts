/**
 * Reducers of the checkpoint phase (layer 1, pure): the project gate's answer, a skipped
 * checkpoint, and the checkpointer's commit (or refusal).
 */
import { type CycleUpdate, currentCycle } from './context.js';
import type { CheckpointOutput, CycleContext, DiagnosticsOutput } from './types.js';

/**
 * Absorbs the project gate's answer: its errors join the last five gate results (the
 * repeated-build-error rule reads them).
 *
 * @example
 * ```ts
 * absorbGate(ctx, { ...gate, errors: ['A.lean:1:error'] }).gateErrors?.at(-1); // ['A.lean:1:error']
 * ```
 */
export function absorbGate(c: Pick<CycleContext, 'now' | 'gateErrors'>, out: DiagnosticsOutput): CycleUpdate {
  return {
    now: Math.max(c.now, out.now),
    gateErrors: [...c.gateErrors, out.errors].slice(-5),
  };
}

/**
 * Notes why the checkpoint was skipped (`No changes this cycle — skipping checkpoint` when
 * nothing was accepted).
 *
 * @example
 * ```ts
 * noteSkipCheckpoint({ ...ctx, accepted: [] }).log?.at(-1); // 'checkpoint: No changes this cycle — skipping checkpoint'
 * ```
 */
export function noteSkipCheckpoint(c: Pick<CycleContext, 'accepted' | 'options' | 'log'>): CycleUpdate {
  return {
    log: [
      ...c.log,
      c.accepted.length === 0
        ? 'checkpoint: No changes this cycle — skipping checkpoint'
        : `checkpoint: skipped (${c.options.commit === 'never' ? '--commit=never' : 'gate failed or checkpoint off'})`,
    ],
  };
}

/**
 * Absorbs the checkpointer's answer: a commit is recorded (cycle, commit, files, message) and
 * makes a `checkpoint` review due; a skip or a refusal is logged with its reason.
 *
 * @example
 * ```ts
 * absorbCheckpoint(ctx, { now: 0, committed: true, commit: 'abc', message: 'checkpoint: x' }).checkpoints?.length; // 1
 * ```
 */
export function absorbCheckpoint(
  c: Pick<CycleContext, 'now' | 'checkpoints' | 'accepted' | 'tracker' | 'log'>,
  out: CheckpointOutput,
): CycleUpdate {
  return {
    now: Math.max(c.now, out.now),
    committedThisCycle: out.committed,
    checkpoints: out.committed
      ? [
          ...c.checkpoints,
          { cycle: currentCycle(c), commit: out.commit, files: c.accepted, message: out.message },
        ]
      : c.checkpoints,
    // a commit's message is its subject (`checkpoint: …`); a skip reports why
    log: [
      ...c.log,
      out.committed
        ? `${out.message}${out.commit ? ` (${out.commit.slice(0, 8)})` : ''}`
        : `checkpoint: ${out.refused ? `refused — ${out.refused}` : out.message}`,
    ],
  };
}

/**
 * True when the checkpointer refused the commit (a late write found by the re-check against
 * verified custody).
 *
 * @example
 * ```ts
 * checkpointRefused({ now: 0, committed: false, commit: null, message: 'x', refused: 'late write' }); // true
 * ```
 */
export function checkpointRefused(out: CheckpointOutput): boolean {
  return (out.refused ?? null) !== null;
}
