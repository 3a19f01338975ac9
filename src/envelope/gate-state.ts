/**
 * Normalization of the detector-sourced gate state (the envelope's volatile tail), of the build
 * clock, and of the advisory retrospective findings.
 */
import { envelopeError } from './errors.js';
import { nonBlankOrNull } from './guards.js';
import type { GateState, RetrospectiveFindings } from './schema.js';

/**
 * Detector input accepted by the builder. Unknown keys are ignored; every field is optional.
 *
 * @example
 * ```ts
 * const gs: GateStateInput = { currentSubGate: 'watch', currentHeadSha: 'abc123', ciStatus: 'success' };
 * ```
 */
export interface GateStateInput {
  readonly currentSubGate?: unknown;
  readonly currentHeadSha?: unknown;
  readonly ciStatus?: unknown;
  readonly unresolvedThreadCount?: unknown;
  readonly copilotRoundCount?: unknown;
  readonly retrospectiveFindings?: unknown;
  readonly [key: string]: unknown;
}

/** The build clock: a Date, an ISO-8601 string, epoch milliseconds, or a function returning a Date. */
export type EnvelopeClock = Date | string | number | (() => Date);

function countOrZero(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
}

/**
 * Resolves the build clock to an ISO timestamp (`new Date()` when absent).
 *
 * @example
 * ```ts
 * resolveDerivedAt('2026-11-30T12:00:00Z'); // '2026-11-30T12:00:00.000Z'
 * ```
 * @throws HandoffError `envelope_invalid_option` for an unparseable clock value.
 */
export function resolveDerivedAt(now: EnvelopeClock | undefined): string {
  const raw = typeof now === 'function' ? now() : now;
  const date = raw === undefined ? new Date() : raw instanceof Date ? raw : new Date(raw);
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw envelopeError('envelope_invalid_option', 'now must be a valid date', {
      field: 'now',
      got: String(raw),
    });
  }
  return date.toISOString();
}

/**
 * The `gateState` tail: strings trimmed (blank → `null`), counts as integers ≥ 0 (else 0).
 *
 * @example
 * ```ts
 * normalizeGateState({ unresolvedThreadCount: -2 }, '2026-11-30T00:00:00.000Z').unresolvedThreadCount; // 0
 * ```
 */
export function normalizeGateState(input: GateStateInput | null | undefined, derivedAt: string): GateState {
  const gs = input ?? {};
  return {
    derivedAt,
    currentHeadSha: nonBlankOrNull(gs.currentHeadSha),
    ciStatus: nonBlankOrNull(gs.ciStatus),
    unresolvedThreadCount: countOrZero(gs.unresolvedThreadCount),
    copilotRoundCount: countOrZero(gs.copilotRoundCount),
  };
}

/**
 * Normalizes advisory retrospective findings, or returns `null` when `v` is not an object.
 *
 * @example
 * ```ts
 * normalizeRetrospectiveFindings({ internalToolingOnly: 'yes', rawCallViolations: [' gh pr view ', ''] });
 * // { internalToolingOnly: false, rawCallViolations: ['gh pr view'], allowedWriteOps: [] }
 * ```
 */
export function normalizeRetrospectiveFindings(v: unknown): RetrospectiveFindings | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const r = v as Record<string, unknown>;
  const strings = (x: unknown): string[] =>
    Array.isArray(x) ? x.map((e) => String(e).trim()).filter((e) => e.length > 0) : [];
  return {
    internalToolingOnly: r.internalToolingOnly === true,
    rawCallViolations: strings(r.rawCallViolations),
    allowedWriteOps: strings(r.allowedWriteOps),
  };
}
