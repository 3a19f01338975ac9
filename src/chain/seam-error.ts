/**
 * `SeamError`: a seam refused a stage's work. It names the stage and the code, and carries the
 * checkpoint (the input baton, unchanged) and the receipts committed so far, so `run` can resume
 * at the failed stage with the same `stage_run_id`.
 */
import { HandoffError, SEAM_CODES } from '../errors/index.js';
import type { Baton, StageReceipt } from './baton.js';

export { SEAM_CODES };

/** One of the nine seam codes. */
export type SeamCode = (typeof SEAM_CODES)[number];

/**
 * A seam refusal (a {@link HandoffError} whose code is a {@link SeamCode}).
 *
 * @example
 * ```ts
 * try { await chain.run(b0); } catch (e) { if (e instanceof SeamError) await chain.run(e.checkpoint); }
 * ```
 */
export class SeamError extends HandoffError {
  /** The seam code. */
  declare readonly code: SeamCode;
  /** The stage whose seam refused. */
  readonly stage: string;
  /** Human detail (`<Type>: <msg>` for a thrown stage). */
  readonly detail: string;
  /** The input baton of the failed seam: resume from here. */
  readonly checkpoint: Baton;
  /** Receipts committed before the failure (the checkpoint's receipts). */
  readonly receipts: readonly StageReceipt[];

  constructor(code: SeamCode, stage: string, detail: string, checkpoint: Baton) {
    super(code, `stage '${stage}' [${code}] ${detail}`, {
      details: {
        stage,
        detail,
        checkpoint_snapshot_id: checkpoint.snapshot_id,
        checkpoint_revision: checkpoint.revision,
      },
    });
    this.name = 'SeamError';
    this.stage = stage;
    this.detail = detail;
    this.checkpoint = checkpoint;
    this.receipts = checkpoint.stage_receipts;
  }
}

/**
 * True when `e` is a {@link SeamError}.
 *
 * @example
 * ```ts
 * if (isSeamError(e)) console.error(e.code, e.stage);
 * ```
 */
export function isSeamError(e: unknown): e is SeamError {
  return e instanceof SeamError;
}
