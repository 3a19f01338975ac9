/**
 * The seam algorithm as pure functions: checkpoint validation, the run id, the required-facts
 * check, the conversion of a thrown stage, and the delta checks in the reference order ending in
 * a commit. No I/O; stages and journals live elsewhere.
 */
import { tryCanonicalJson } from '../canonical/index.js';
import { type AcceptanceReceipt, createAcceptanceReceipt } from './acceptance-receipt.js';
import { type Baton, batonProblems, commitBaton, type FactRecord, type StageReceipt } from './baton.js';
import { createView } from './baton-view.js';
import { type FactRule, INPUT_PRODUCER } from './fact-rule.js';
import { deepCopy } from './immutable.js';
import type { SeamCode } from './seam-error.js';
import { parseStageDelta } from './stage-delta.js';
import type { StageSpec } from './stage-spec.js';

/** What the seam needs to know about a chain (the chain itself implements it). */
export interface SeamPlan {
  readonly chain_id: string;
  readonly contract_digest: string;
  readonly specs: readonly StageSpec[];
  readonly initial_keys: readonly string[];
  readonly rules: ReadonlyMap<string, FactRule>;
}

/** A seam refusal as data. */
export interface SeamFailure {
  readonly ok: false;
  readonly code: SeamCode;
  readonly stage: string;
  readonly detail: string;
}

/** A successful seam: the next baton and its receipt. */
export interface SeamCommit {
  readonly ok: true;
  readonly baton: Baton;
  readonly receipt: StageReceipt;
}

/** Outcome of {@link checkDelta}. */
export type SeamOutcome = SeamCommit | SeamFailure;

function fail(code: SeamCode, stage: string, detail: string): SeamFailure {
  return { ok: false, code, stage, detail };
}

/**
 * The run id of `stage` on `baton`: `<baton_id>::<stage>::r<revision>::<fingerprint>`. Stable for
 * retries from the same checkpoint, so it is the idempotency key of the stage's side effects.
 *
 * @example
 * ```ts
 * stageRunId(b1, 'settle'); // 'payroll-2026-06::settle::r1::9c0f…'
 * ```
 */
export function stageRunId(baton: Baton, stage: string): string {
  return `${baton.baton_id}::${stage}::r${baton.revision}::${baton.fingerprint}`;
}

/**
 * The run id of initial facts.
 *
 * @example
 * ```ts
 * inputRunId('b'); // 'b::__input__'
 * ```
 */
export function inputRunId(batonId: string): string {
  return `${batonId}::${INPUT_PRODUCER}`;
}

/**
 * Why `baton` cannot be a checkpoint of this chain, or null when it can: the digest differs, the
 * baton has more stages than the chain, the trace is not a prefix of the chain, the fact keys do
 * not exactly match the committed prefix, or the baton's own invariants do not hold.
 *
 * @example
 * ```ts
 * checkpointProblem(chain, foreignBaton); // 'contract digest differs: …'
 * ```
 */
export function checkpointProblem(plan: SeamPlan, baton: Baton): string | null {
  if (baton.contract_digest !== plan.contract_digest) {
    return `contract digest differs: baton ${baton.contract_digest}, chain ${plan.contract_digest}`;
  }
  if (baton.trace.length > plan.specs.length) {
    return `baton has ${baton.trace.length} stages, more stages than the chain (${plan.specs.length})`;
  }
  const prefix = plan.specs.slice(0, baton.trace.length).map((s) => s.name);
  if (baton.trace.some((t, i) => t !== prefix[i])) {
    return `trace [${baton.trace.join(', ')}] is not a prefix of the chain [${plan.specs.map((s) => s.name).join(', ')}]`;
  }
  const expected = new Set<string>(plan.initial_keys);
  for (const s of plan.specs.slice(0, baton.trace.length)) for (const k of s.provides) expected.add(k);
  const actual = new Set(baton.records.map((r) => r.key));
  const missing = [...expected].filter((k) => !actual.has(k));
  const extra = [...actual].filter((k) => !expected.has(k));
  if (missing.length > 0 || extra.length > 0) {
    return `fact keys do not match the committed prefix: missing [${missing.join(', ')}], extra [${extra.join(', ')}]`;
  }
  const problems = batonProblems(baton);
  return problems.length > 0 ? `baton invariants broken: ${problems.join('; ')}` : null;
}

/**
 * The stage that runs next on `baton`, or undefined when the chain is complete.
 *
 * @example
 * ```ts
 * nextStage(chain, b1)?.name; // 'settle'
 * ```
 */
export function nextStage(plan: SeamPlan, baton: Baton): StageSpec | undefined {
  return plan.specs[baton.revision];
}

/**
 * Check 1: the required facts of the next stage that are not committed on `baton`.
 *
 * @example
 * ```ts
 * checkRequires(chain, b1); // null, or a `missing_required_fact` failure
 * ```
 */
export function checkRequires(plan: SeamPlan, baton: Baton): SeamFailure | null {
  const spec = nextStage(plan, baton);
  if (spec === undefined) return null;
  const have = new Set(baton.records.map((r) => r.key));
  const missing = spec.requires.filter((k) => !have.has(k));
  return missing.length > 0
    ? fail('missing_required_fact', spec.name, `missing required fact(s): ${missing.join(', ')}`)
    : null;
}

/**
 * Check 2: turns whatever a stage threw into a `stage_failed` failure with detail `<Type>: <msg>`.
 *
 * @example
 * ```ts
 * stageFailure('route', new TypeError('boom')).detail; // 'TypeError: boom'
 * ```
 */
export function stageFailure(stage: string, thrown: unknown): SeamFailure {
  const detail =
    thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : `${typeof thrown}: ${String(thrown)}`;
  return fail('stage_failed', stage, detail);
}

/**
 * Checks 3–8 for the delta the next stage returned on `baton`, in the reference order: delta
 * shape, promised facts, undeclared facts, overwrites (defensive), then per provided key in
 * `provides` order its type (zod schema, and JSON-representable), evidence and semantic rule (the
 * validator gets a fresh view of `baton`); then commits. Never throws.
 *
 * @example
 * ```ts
 * const out = checkDelta(chain, b1, await stage(view)); if (out.ok) b2 = out.baton;
 * ```
 */
export function checkDelta(plan: SeamPlan, baton: Baton, delta: unknown): SeamOutcome {
  const spec = nextStage(plan, baton);
  if (spec === undefined) return fail('invalid_stage_delta', '?', 'the chain is already complete');
  const name = spec.name;
  const runId = stageRunId(baton, name);

  const parsed = parseStageDelta(delta);
  if (!parsed.ok)
    return fail('invalid_stage_delta', name, `the stage did not return a StageDelta: ${parsed.detail}`);
  const d = parsed.delta;
  const delivered = new Map(d.facts.map((f) => [f.key, f]));

  const missing = spec.provides.filter((k) => !delivered.has(k));
  if (missing.length > 0)
    return fail('promised_fact_missing', name, `did not deliver promised fact(s): ${missing.join(', ')}`);

  const undeclared = d.facts.map((f) => f.key).filter((k) => !spec.provides.includes(k));
  if (undeclared.length > 0)
    return fail('undeclared_fact', name, `delivered undeclared fact(s): ${undeclared.join(', ')}`);

  const committed = new Set(baton.records.map((r) => r.key));
  const overwrite = d.facts.map((f) => f.key).filter((k) => committed.has(k));
  if (overwrite.length > 0)
    return fail(
      'committed_fact_overwrite',
      name,
      `would overwrite committed fact(s): ${overwrite.join(', ')}`,
    );

  const records: FactRecord[] = [];
  const evidence: string[] = [];
  for (const key of spec.provides) {
    const fact = delivered.get(key);
    const rule = plan.rules.get(key);
    if (fact === undefined || rule === undefined)
      return fail('undeclared_fact', name, `no rule for '${key}'`);
    const json = tryCanonicalJson(fact.value);
    if (!json.ok)
      return fail('fact_type_mismatch', name, `'${key}' is not JSON-representable: ${json.error.message}`);
    let typed: { success: boolean; error?: { issues: readonly { message: string }[] } };
    try {
      typed = rule.type.safeParse(fact.value);
    } catch (e) {
      typed = { success: false, error: { issues: [{ message: String(e) }] } };
    }
    if (!typed.success) {
      const why = typed.error?.issues.map((i) => i.message).join('; ') ?? 'type check failed';
      return fail('fact_type_mismatch', name, `'${key}' has the wrong type: ${why}`);
    }
    if ((rule.evidence_required ?? true) && fact.evidence_refs.length === 0) {
      return fail('fact_evidence_missing', name, `'${key}' requires evidence but none was given`);
    }
    if (rule.validator !== undefined) {
      let finding: string | null | undefined;
      try {
        finding = rule.validator(JSON.parse(json.json), createView(baton, name, runId));
      } catch (e) {
        finding = `validator threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
      }
      if (finding) {
        const rule_ = rule.describe ? ` (${rule.describe})` : '';
        return fail('fact_semantic_violation', name, `'${key}': ${finding}${rule_}`);
      }
    }
    records.push({
      key,
      value: deepCopy(fact.value),
      producer_stage: name,
      stage_run_id: runId,
      evidence_refs: [...fact.evidence_refs],
    });
    for (const e of fact.evidence_refs) if (!evidence.includes(e)) evidence.push(e);
  }

  let next: Baton;
  try {
    next = commitBaton(baton, {
      stage_name: name,
      records,
      artifact_refs: d.artifact_refs,
      receipt: (outputFingerprint, outputRevision) => ({
        receipt_id: `receipt::${runId}`,
        contract_digest: plan.contract_digest,
        baton_id: baton.baton_id,
        stage_name: name,
        stage_run_id: runId,
        input_revision: baton.revision,
        output_revision: outputRevision,
        input_fingerprint: baton.fingerprint,
        output_fingerprint: outputFingerprint,
        consumed_keys: [...spec.requires],
        produced_keys: [...spec.provides],
        evidence_refs: evidence,
      }),
    });
  } catch (e) {
    return fail('invalid_stage_delta', name, `the delta could not be committed: ${String(e)}`);
  }
  const receipt = next.stage_receipts[next.stage_receipts.length - 1] as StageReceipt;
  return { ok: true, baton: next, receipt };
}

/**
 * The acceptance receipt of a completed baton: `accept::<snapshot_id>`, decision `accepted`.
 *
 * @example
 * ```ts
 * acceptanceFor(chain, b5).artifact_id === b5.snapshot_id; // true
 * ```
 */
export function acceptanceFor(plan: SeamPlan, baton: Baton): AcceptanceReceipt {
  return createAcceptanceReceipt({
    receipt_id: `accept::${baton.snapshot_id}`,
    contract_digest: plan.contract_digest,
    artifact_id: baton.snapshot_id,
    checked_by: plan.chain_id,
    decision: 'accepted',
    findings: [],
  });
}
