/**
 * The evaluator port and its runner: one request per frozen packet, no automatic retry, one total
 * deadline. Every way of not getting an answer is recorded as an assessment (NOT_EVALUATED or
 * INVALID) — the runner never throws for an evaluator's failure and never waits forever.
 */
import { HandoffError } from '../errors/index.js';
import type { Assessment, AssessmentFailure } from './assessment-schema.js';
import {
  assessmentFromResponse,
  type EvaluatorRequest,
  type ExchangeMeta,
  failedAssessment,
} from './evaluator-protocol.js';

/**
 * An evaluator failure raised by a port: a {@link HandoffError} with code `evaluator_failed` and
 * `details.kind`; its `kind` is recorded in the assessment.
 *
 * @example
 * ```ts
 * throw new EvaluatorFailure('invalid-data', 'the evaluator answered without claims');
 * ```
 */
export class EvaluatorFailure extends HandoffError {
  /** What went wrong. */
  readonly kind: AssessmentFailure['kind'];
  constructor(kind: AssessmentFailure['kind'], message: string) {
    super('evaluator_failed', message, { details: { kind } });
    this.name = 'EvaluatorFailure';
    this.kind = kind;
  }
}

/**
 * A pluggable evaluator: a function receiving the request and an abort signal (fired at the
 * deadline) and resolving to the raw response (`{ claims: [...] }`).
 */
export interface EvaluatorPort {
  /** Identifies the evaluator in assessments. */
  readonly id: string;
  /** Answers one request. Throw {@link EvaluatorFailure} for no-key / unavailable. */
  readonly evaluate: (
    request: EvaluatorRequest,
    options: { readonly signal: AbortSignal },
  ) => Promise<unknown>;
}

/**
 * Where assessments are kept per packet, so a packet is never evaluated twice: `begin` records
 * that the single request is being made (false when it already was), `get`/`put` hold the result.
 */
export interface AssessmentStore {
  readonly get: (packetId: string) => Promise<Assessment | null>;
  readonly begin: (packetId: string) => Promise<boolean>;
  readonly put: (assessment: Assessment) => Promise<Assessment>;
}

/**
 * An in-memory {@link AssessmentStore}.
 *
 * @example
 * ```ts
 * const store = memoryAssessmentStore();
 * ```
 */
export function memoryAssessmentStore(): AssessmentStore {
  const begun = new Set<string>();
  const done = new Map<string, Assessment>();
  return {
    get: async (id) => done.get(id) ?? null,
    begin: async (id) => {
      if (begun.has(id)) return false;
      begun.add(id);
      return true;
    },
    put: async (a) => {
      const prev = done.get(a.packet_id);
      if (prev !== undefined) return prev;
      done.set(a.packet_id, a);
      return a;
    },
  };
}

/** Options of {@link runEvaluator}. */
export interface RunEvaluatorOptions {
  readonly port: EvaluatorPort | null;
  readonly request: EvaluatorRequest;
  /** The one total deadline. */
  readonly deadlineMs: number;
  /** ISO clock (injected). */
  readonly now: () => string;
  /** Keeps the one-request-per-packet promise across calls; defaults to a fresh memory store. */
  readonly store?: AssessmentStore;
}

/**
 * Requests an assessment once. A stored assessment for the packet is returned without a call;
 * a begun-but-unfinished request (e.g. a crash) yields NOT_EVALUATED `budget` — no retry.
 *
 * @example
 * ```ts
 * const a = await runEvaluator({ port, request, deadlineMs: 5000, now: () => new Date().toISOString() });
 * if (a.status !== 'EVALUATED') route = 'LEAD_REVIEW';
 * ```
 */
export async function runEvaluator(options: RunEvaluatorOptions): Promise<Assessment> {
  const { request, now } = options;
  const store = options.store ?? memoryAssessmentStore();
  const evaluatorId = options.port?.id ?? 'none';
  const stored = await store.get(request.packet_id);
  if (stored !== null) return stored;
  const started = now();
  const meta = (requests: 0 | 1): ExchangeMeta => ({
    evaluator_id: evaluatorId,
    started_at: started,
    finished_at: now(),
    requests_made: requests,
  });
  if (options.port === null) {
    return store.put(
      failedAssessment(
        request.packet_id,
        { kind: 'unavailable', detail: 'no evaluator configured' },
        meta(0),
      ),
    );
  }
  if (!(await store.begin(request.packet_id))) {
    return store.put(
      failedAssessment(
        request.packet_id,
        { kind: 'budget', detail: 'the one request for this packet was already made; no retry' },
        meta(0),
      ),
    );
  }
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new EvaluatorFailure('timeout', `no answer within the ${options.deadlineMs} ms deadline`));
    }, options.deadlineMs);
  });
  let assessment: Assessment;
  try {
    const raw = await Promise.race([options.port.evaluate(request, { signal: controller.signal }), timeout]);
    assessment = assessmentFromResponse(request, raw, meta(1));
  } catch (e) {
    const failure: AssessmentFailure =
      e instanceof EvaluatorFailure
        ? { kind: e.kind, detail: e.message }
        : { kind: 'unavailable', detail: `evaluator failed: ${(e as Error)?.message ?? String(e)}` };
    assessment = failedAssessment(request.packet_id, failure, meta(1));
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return store.put(assessment);
}
