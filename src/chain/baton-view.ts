/**
 * `BatonView`: what a stage (or a semantic validator) sees — a detached, read-only copy of the
 * baton. Assigning to the view or its facts throws `TypeError`; nested values are private deep
 * copies, so mutating them never reaches the baton or any other view.
 */
import type { Baton } from './baton.js';
import { deepCopy, readOnly } from './immutable.js';

/** A read-only, detached view of a baton for one stage run. */
export interface BatonView {
  readonly baton_id: string;
  readonly contract_digest: string;
  readonly intent: string;
  readonly revision: number;
  /** The stage this view was made for. */
  readonly stage_name: string;
  /** The run id of that stage run (the idempotency key for its side effects). */
  readonly stage_run_id: string;
  /** Committed facts: a read-only map over deep copies. */
  readonly facts: Readonly<Record<string, unknown>>;
  readonly artifact_refs: readonly string[];
  readonly trace: readonly string[];
}

/**
 * Makes a fresh view of `baton` for `stageName`/`stageRunId`. Every call copies again, so two
 * views never share state.
 *
 * @example
 * ```ts
 * const view = createView(b, 'settle', runId); view.facts.month; // '2026-06'
 * ```
 */
export function createView(baton: Baton, stageName: string, stageRunId: string): BatonView {
  const facts: Record<string, unknown> = Object.create(null);
  for (const r of baton.records) facts[r.key] = deepCopy(r.value);
  return readOnly({
    baton_id: baton.baton_id,
    contract_digest: baton.contract_digest,
    intent: baton.intent,
    revision: baton.revision,
    stage_name: stageName,
    stage_run_id: stageRunId,
    facts: readOnly(facts),
    artifact_refs: Object.freeze([...baton.artifact_refs]),
    trace: Object.freeze([...baton.trace]),
  });
}
