/**
 * Controller rules 1–5 and 7 (pure): from the exact checks, the stored assessment, the stage and
 * the ledger's view of remaining slots to a {@link RouteDecision}. Probabilities are read through
 * each criterion's declared interpretation (CONFIRMED is not automatically good). Evidence the
 * stage cannot supply, and evidence that needs a prohibited operation, never become obligations.
 * Recomputing with other thresholds re-reads stored probabilities and re-executes nothing.
 */
import type { Assessment, Claim, EvidenceRequest } from './assessment-schema.js';
import type { BlockedReport } from './blocked-schema.js';
import { type Criterion, type Stage, stageRank, type TaskContract } from './contract-schema.js';
import type { EvidencePacket } from './evidence-schema.js';
import type { ExactCheckResult } from './exact-checks.js';
import { contentId } from './ids.js';
import {
  type CriterionOutcome,
  GATE_ROUTE_SCHEMA,
  type Obligation,
  type Route,
  type RouteDecision,
  type RouteReason,
  type Thresholds,
} from './route-schema.js';

/** Criterion id under which a blocked report's proposed next step is assessed. */
export const BLOCKED_STEP_CRITERION = 'proposed_next_step';

/** Remaining slots as the ledger sees them; `null` when the history is missing (fails closed). */
export interface SlotView {
  readonly ordinary_repair: number;
  readonly gate_continuation: number;
}

/** Inputs of {@link decideRoute}; every field is a stored record, so the decision is recomputable. */
export interface RouteInput {
  readonly contract: TaskContract;
  readonly packet: EvidencePacket;
  readonly exact: ExactCheckResult;
  /** The stored assessment; null when none was requested (exact checks failed first). */
  readonly assessment: Assessment | null;
  readonly thresholds: Thresholds;
  readonly slots: SlotView | null;
  /** True once a gate continuation was consumed before the first lead handoff (rule 7). */
  readonly afterContinuation: boolean;
  /** A blocked report: routing then asks whether its proposed next step is supported. */
  readonly blocked?: BlockedReport | undefined;
}

/**
 * The (good, bad) probabilities of a claim under an interpretation. For
 * `confirmed-is-violation`, CONFIRMED is the bad reading and REFUTED the good one.
 *
 * @example
 * ```ts
 * readClaim({ CONFIRMED: 0.9, REFUTED: 0.1 }, 'confirmed-is-violation'); // { good: 0.1, bad: 0.9 }
 * ```
 */
export function readClaim(
  distribution: Claim['distribution'],
  interpretation: Criterion['interpretation'],
): { good: number; bad: number } {
  const confirmed = distribution.CONFIRMED ?? 0;
  const refuted = distribution.REFUTED ?? 0;
  return interpretation === 'confirmed-is-good'
    ? { good: confirmed, bad: refuted }
    : { good: refuted, bad: confirmed };
}

/**
 * Why an evidence request cannot become an obligation at this stage, or null when it can.
 * Executions and tests need at least the `unit` stage unless the request names its stage.
 *
 * @example
 * ```ts
 * requestExclusion({ kind: 'execution', detail: 'prod run', stage: 'production', operation: null }, contract);
 * // 'out_of_stage'
 * ```
 */
export function requestExclusion(
  request: EvidenceRequest,
  contract: Pick<TaskContract, 'stage' | 'prohibited_operations'>,
): 'out_of_stage' | 'prohibited' | null {
  if (request.operation !== null && contract.prohibited_operations.includes(request.operation)) {
    return 'prohibited';
  }
  const needed: Stage =
    request.stage ?? (request.kind === 'execution' || request.kind === 'test' ? 'unit' : 'source-only');
  return stageRank(needed) > stageRank(contract.stage) ? 'out_of_stage' : null;
}

function criteriaOf(input: RouteInput): Criterion[] {
  if (input.blocked === undefined) return input.contract.criteria;
  return [
    {
      id: BLOCKED_STEP_CRITERION,
      text: `Is the proposed next step supported by the evidence? ${input.blocked.proposed_next_step}`,
      text_revision: 1,
      required: true,
      interpretation: 'confirmed-is-good',
    },
  ];
}

function finish(
  input: RouteInput,
  route: Route,
  reasons: RouteReason[],
  criteria: CriterionOutcome[],
  obligations: Obligation[],
): RouteDecision {
  const body = {
    schema: GATE_ROUTE_SCHEMA,
    packet_id: input.packet.packet_id,
    assessment_ref:
      input.assessment === null
        ? null
        : { assessment_id: input.assessment.assessment_id, status: input.assessment.status },
    route,
    reasons,
    criteria,
    obligations,
    thresholds: input.thresholds,
    slots: input.slots === null ? null : { ...input.slots },
  } as const;
  return { ...body, route_id: contentId('rte', body) } as RouteDecision;
}

/**
 * Decides the route. Order: STOP codes → other exact failures (LEAD_REVIEW) → assessment failure
 * (LEAD_REVIEW, never a grant) → per-criterion reading → REVIEW_READY / CONTINUATION_ELIGIBLE /
 * LEAD_REVIEW. CONTINUATION_ELIGIBLE additionally needs known ledger history, a remaining slot and
 * no gate continuation consumed already. For a BLOCKED report the one question is whether its
 * proposed next step is supported: supported ⇒ (at most) CONTINUATION_ELIGIBLE, otherwise LEAD_REVIEW
 * — never REVIEW_READY, since the work is not done.
 *
 * Reason codes: exact-check codes, `assessment_not_evaluated`, `assessment_invalid`,
 * `assessment_missing`, `criterion_unanswered`, `evidence_out_of_stage`, `prohibited_not_obligation`,
 * `criteria_not_met`, `ledger_history_missing`, `continuation_already_used`, `slots_exhausted`,
 * `all_required_satisfied`, `limited_by_stage_or_policy`, `proposed_step_supported`,
 * `proposed_step_unsupported`.
 *
 * @example
 * ```ts
 * const d = decideRoute({ contract, packet, exact, assessment, thresholds: DEFAULT_THRESHOLDS,
 *   slots: { ordinary_repair: 1, gate_continuation: 1 }, afterContinuation: false });
 * d.route; // 'REVIEW_READY' | 'LEAD_REVIEW' | 'CONTINUATION_ELIGIBLE' | 'STOP'
 * ```
 */
export function decideRoute(input: RouteInput): RouteDecision {
  const { contract, exact, assessment, thresholds } = input;
  const criteria = criteriaOf(input);
  const reasons: RouteReason[] = [];
  const notEvaluated = (): CriterionOutcome[] =>
    criteria.map((c) => ({
      criterion_id: c.id,
      required: c.required,
      status: 'not-evaluated',
      p_good: null,
      p_bad: null,
    }));

  if (!exact.ok) {
    for (const f of exact.failures) reasons.push({ code: f.code, criterion_id: null, detail: f.detail });
    return finish(input, exact.stop ? 'STOP' : 'LEAD_REVIEW', reasons, notEvaluated(), []);
  }
  if (assessment === null) {
    reasons.push({ code: 'assessment_missing', criterion_id: null, detail: 'no assessment was recorded' });
    return finish(input, 'LEAD_REVIEW', reasons, notEvaluated(), []);
  }
  if (assessment.status !== 'EVALUATED') {
    reasons.push({
      code: assessment.status === 'INVALID' ? 'assessment_invalid' : 'assessment_not_evaluated',
      criterion_id: null,
      detail: `${assessment.failure?.kind ?? 'unknown'}: ${assessment.failure?.detail ?? ''}`,
    });
    return finish(input, 'LEAD_REVIEW', reasons, notEvaluated(), []);
  }

  const outcomes: CriterionOutcome[] = [];
  const obligations: Obligation[] = [];
  let unmet = 0;
  let limited = 0;
  for (const c of criteria) {
    const claim = assessment.claims.find((k) => k.criterion_id === c.id);
    if (claim === undefined) {
      outcomes.push({
        criterion_id: c.id,
        required: c.required,
        status: 'insufficient',
        p_good: null,
        p_bad: null,
      });
      if (c.required) {
        unmet++;
        reasons.push({
          code: 'criterion_unanswered',
          criterion_id: c.id,
          detail: 'no claim for this criterion',
        });
        obligations.push({ criterion_id: c.id, evidence: [] });
      }
      continue;
    }
    const { good, bad } = readClaim(claim.distribution, c.interpretation);
    const kept: EvidenceRequest[] = [];
    for (const r of claim.requested_evidence) {
      const why = requestExclusion(r, contract);
      if (why === null) kept.push(r);
      else if (c.required) {
        reasons.push({
          code: why === 'prohibited' ? 'prohibited_not_obligation' : 'evidence_out_of_stage',
          criterion_id: c.id,
          detail:
            why === 'prohibited'
              ? `evaluator asked for ${r.kind} needing prohibited operation ${r.operation}: not an obligation`
              : `evaluator asked for ${r.kind} beyond the ${contract.stage} stage: not a rejection`,
        });
      }
    }
    let status: CriterionOutcome['status'];
    if (good >= thresholds.satisfied) status = 'satisfied';
    else if (bad >= thresholds.violated) status = 'violated';
    else if (claim.requested_evidence.length > 0 && kept.length === 0) status = 'limited';
    else status = 'insufficient';
    outcomes.push({ criterion_id: c.id, required: c.required, status, p_good: good, p_bad: bad });
    if (!c.required) continue;
    if (status === 'limited') limited++;
    if (status === 'violated' || status === 'insufficient') {
      unmet++;
      obligations.push({ criterion_id: c.id, evidence: kept });
    }
  }

  if (input.blocked !== undefined) {
    // A BLOCKED report: only a supported proposed step may become a continuation (still a mere
    // recommendation for the enforcer); an unsupported or unassessable one goes to the lead.
    if (unmet > 0 || limited > 0) {
      reasons.push({
        code: 'proposed_step_unsupported',
        criterion_id: BLOCKED_STEP_CRITERION,
        detail: 'the proposed next step is not supported by the evidence at the threshold; the lead decides',
      });
      return finish(input, 'LEAD_REVIEW', reasons, outcomes, []);
    }
    reasons.push({
      code: 'proposed_step_supported',
      criterion_id: BLOCKED_STEP_CRITERION,
      detail: 'the proposed next step is supported by the evidence (its hypothesis stays unverified)',
    });
    obligations.push({ criterion_id: BLOCKED_STEP_CRITERION, evidence: [] });
    return continuationOrLead(input, reasons, outcomes, obligations);
  }
  if (unmet === 0) {
    reasons.push({
      code: limited > 0 ? 'limited_by_stage_or_policy' : 'all_required_satisfied',
      criterion_id: null,
      detail:
        limited > 0
          ? `${limited} required criterion(s) cannot be evidenced at this stage or policy; the lead decides`
          : 'every required criterion is satisfied at the threshold (ready for review, not acceptance)',
    });
    return finish(input, 'REVIEW_READY', reasons, outcomes, []);
  }
  reasons.push({
    code: 'criteria_not_met',
    criterion_id: null,
    detail: `${unmet} required criterion(s) not met`,
  });
  return continuationOrLead(input, reasons, outcomes, obligations);
}

/** CONTINUATION_ELIGIBLE only with known history, no continuation used yet and a slot left. */
function continuationOrLead(
  input: RouteInput,
  reasons: RouteReason[],
  outcomes: CriterionOutcome[],
  obligations: Obligation[],
): RouteDecision {
  if (input.slots === null) {
    reasons.push({
      code: 'ledger_history_missing',
      criterion_id: null,
      detail: 'missing ledger history never means zero attempts used; failing closed',
    });
    return finish(input, 'LEAD_REVIEW', reasons, outcomes, obligations);
  }
  if (input.afterContinuation) {
    reasons.push({
      code: 'continuation_already_used',
      criterion_id: null,
      detail: 'after a gate continuation the result goes to the lead unconditionally',
    });
    return finish(input, 'LEAD_REVIEW', reasons, outcomes, obligations);
  }
  if (input.slots.ordinary_repair + input.slots.gate_continuation <= 0) {
    reasons.push({
      code: 'slots_exhausted',
      criterion_id: null,
      detail: 'no ordinary repair or gate continuation left',
    });
    return finish(input, 'LEAD_REVIEW', reasons, outcomes, obligations);
  }
  return finish(input, 'CONTINUATION_ELIGIBLE', reasons, outcomes, obligations);
}

/**
 * Recomputes a recommendation after a threshold change, from the same stored records. Nothing is
 * re-executed; an earlier grant is not affected (its idempotency key is the packet's, not the route's).
 *
 * @example
 * ```ts
 * const stricter = recomputeRoute(storedInputs, { satisfied: 0.95, violated: 0.5 });
 * ```
 */
export function recomputeRoute(input: RouteInput, thresholds: Thresholds): RouteDecision {
  return decideRoute({ ...input, thresholds });
}
