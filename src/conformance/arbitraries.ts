/**
 * fast-check arbitraries for run-contract/v1 records. Every generated record is valid; the
 * conformance harness and other projects' test suites use them to throw realistic input at workers
 * and validators. Every arbitrary is a factory (`arbDispatch()`, `arbHandoff({ statuses: ['stuck'] })`):
 * call it for a fresh `fc.Arbitrary`; the defaults generate the same streams for a seed.
 */
import type { Arbitrary } from 'fast-check';
import type { FileBaseline } from '../baseline/schema.js';
import type { Dispatch, Handoff, Status, StopReason } from '../contract/index.js';
import {
  BlockerClassSchema,
  BlockerKindSchema,
  ModeSchema,
  NextActionSchema,
  RUN_CONTRACT_SCHEMA,
  ScopeSchema,
} from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import fc from './peer.js';

const text = fc.string({ maxLength: 24 });
const texts = fc.array(text, { maxLength: 3 });
const segment = fc
  .stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_. -]{0,11}$/)
  .filter((s) => s !== '.' && s !== '..');
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);

/**
 * Distinct absolute paths (1..max).
 *
 * @example
 * ```ts
 * fc.sample(arbAbsolutePaths(3), 1);
 * ```
 */
export function arbAbsolutePaths(max = 3): Arbitrary<string[]> {
  return fc.uniqueArray(
    fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/${s.join('/')}`),
    { minLength: 1, maxLength: max },
  );
}

/**
 * A valid file-baseline/v1 record over exactly `paths`.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbAbsolutePaths().chain(arbBaselineFor), (b) => validateBaseline(b).ok));
 * ```
 */
export function arbBaselineFor(paths: readonly string[]): Arbitrary<FileBaseline> {
  return fc
    .tuple(...paths.map(() => fc.option(fc.tuple(hex64, fc.nat({ max: 1 << 20 })), { nil: null })))
    .map((entries) => ({
      schema: 'file-baseline/v1' as const,
      files: paths.map((path, i) => {
        const e = entries[i] ?? null;
        return e === null
          ? { path, realpath: path, exists: false, sha256: null, size: null }
          : { path, realpath: path, exists: true, sha256: e[0], size: e[1] };
      }),
    }));
}

/**
 * Options of {@link arbFileBaseline}.
 *
 * @example
 * ```ts
 * const o: ArbFileBaselineOptions = { maxFiles: 5 };
 * ```
 */
export interface ArbFileBaselineOptions {
  /** Most entries in the baseline (1..maxFiles; default 3). */
  readonly maxFiles?: number;
}

/**
 * A valid file-baseline/v1 record.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbFileBaseline(), (b) => validateBaseline(b).ok));
 * fc.sample(arbFileBaseline({ maxFiles: 6 }), 3);
 * ```
 */
export function arbFileBaseline(options: ArbFileBaselineOptions = {}): Arbitrary<FileBaseline> {
  return arbAbsolutePaths(options.maxFiles ?? 3).chain(arbBaselineFor);
}

const arbParameters = fc.oneof(
  fc.constant({ worker: null, parameters: {} }),
  fc.record({
    worker: fc.constant('sorry-filler-deep' as const),
    parameters: fc.record({
      fast_pass_error: text,
      permission_level: text,
      deep_budget: fc.record({
        scope: text,
        max_files: fc.integer({ min: 0, max: 9 }),
        max_lines: fc.nat(500),
      }),
    }),
  }),
  fc.record({
    worker: fc.constant('proof-repair' as const),
    parameters: fc.record({
      error: fc.record({
        errorType: text,
        message: text,
        file: text,
        line: fc.nat(9999),
        goal: text,
        localContext: texts,
      }),
    }),
  }),
  fc.record({
    worker: fc.constant('proof-golfer' as const),
    parameters: fc.record({
      search_mode: fc.constantFrom('off' as const, 'quick' as const, 'full' as const),
      golfable_patterns: texts,
      candidate_targets: texts,
    }),
  }),
  fc.record({
    worker: fc.constant('axiom-eliminator' as const),
    parameters: fc.record({ axioms: texts, permission_level: text }),
  }),
);

/**
 * Options of {@link arbDispatch}.
 *
 * @example
 * ```ts
 * const o: ArbDispatchOptions = { maxOwnedFiles: 1, capabilities: ['search-budget:2'] };
 * ```
 */
export interface ArbDispatchOptions {
  /** Most owned files (1..maxOwnedFiles; default 3). */
  readonly maxOwnedFiles?: number;
  /** Capabilities every generated dispatch carries after its generated ones (default none). */
  readonly capabilities?: readonly string[];
}

/**
 * A valid run-contract/v1 dispatch record.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbDispatch(), (d) => validateDispatch(d).ok));
 * fc.sample(arbDispatch({ maxOwnedFiles: 1 }), 5);
 * ```
 */
export function arbDispatch(options: ArbDispatchOptions = {}): Arbitrary<Dispatch> {
  const extra = [...(options.capabilities ?? [])];
  return fc
    .record({
      owned: arbAbsolutePaths(options.maxOwnedFiles ?? 3),
      target: fc.string({ minLength: 1, maxLength: 30 }),
      scope: fc.constantFrom(...ScopeSchema.options),
      mode: fc.constantFrom(...ModeSchema.options),
      params: arbParameters,
      capabilities: texts,
      prior_blocker: fc.option(text, { nil: null }),
      evidence_delta: texts,
      budget: fc.record({
        max_cycles: fc.option(fc.integer({ min: 1, max: 50 }), { nil: null }),
        max_stuck_cycles: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
        runtime: fc.option(fc.stringMatching(/^[1-9][0-9]{0,3}[smh]?$/), { nil: null }),
      }),
      context: fc.record({
        prior_failure: fc.option(text, { nil: null }),
        goal_state: fc.option(text, { nil: null }),
        diagnostics: texts,
        search_results: fc.array(fc.record({ tool: text, query: text, top: texts }), { maxLength: 2 }),
        candidates_tested: fc.array(fc.record({ snippet: text, result: text }), { maxLength: 2 }),
        code_actions: texts,
        scratch_location: fc.string({ minLength: 1, maxLength: 12 }),
      }),
    })
    .chain((r) =>
      arbBaselineFor(r.owned).map(
        (baseline): Dispatch => ({
          schema: RUN_CONTRACT_SCHEMA,
          record: 'dispatch',
          target: r.target,
          scope: r.scope,
          mode: r.mode,
          worker: r.params.worker,
          parameters: r.params.parameters,
          capabilities: [...r.capabilities, ...extra],
          owned_files: r.owned,
          file_baseline: baseline,
          prior_blocker: r.prior_blocker,
          evidence_delta: r.evidence_delta,
          budget: r.budget,
          context: r.context,
        }),
      ),
    );
}

const arbOutcome = () =>
  fc.oneof(
    fc.constant({ status: 'solved' as const, stop_reason: null }),
    fc.constant({ status: 'stuck' as const, stop_reason: null }),
    fc
      .constantFrom<StopReason>(
        'max-stuck',
        'max-cycles',
        'max-runtime',
        'user-stop',
        'queue-empty',
        'protocol-error',
        'operational-error',
      )
      .map((stop_reason) => ({ status: 'stopped' as const, stop_reason })),
  );

/**
 * Options of {@link arbHandoff}.
 *
 * @example
 * ```ts
 * const o: ArbHandoffOptions = { statuses: ['solved', 'stuck'], maxOwnedFiles: 2 };
 * ```
 */
export interface ArbHandoffOptions {
  /** Most owned files (1..maxOwnedFiles; default 3). */
  readonly maxOwnedFiles?: number;
  /** Only these statuses (default every status; `stopped` with every stop reason). */
  readonly statuses?: readonly Status[];
}

/**
 * A valid run-contract/v1 handoff record (every status and stop reason, blocker fields exactly
 * when blocker-driven).
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbHandoff(), (h) => validateHandoff(h).ok));
 * fc.sample(arbHandoff({ statuses: ['stuck'] }), 3);
 * ```
 * @throws HandoffError `usage` when `statuses` is empty.
 */
export function arbHandoff(options: ArbHandoffOptions = {}): Arbitrary<Handoff> {
  const statuses = options.statuses;
  if (statuses !== undefined && statuses.length === 0) {
    throw new HandoffError('usage', 'arbHandoff: statuses must name at least one status');
  }
  const outcome =
    statuses === undefined ? arbOutcome() : arbOutcome().filter((o) => statuses.includes(o.status));
  return fc
    .record({
      outcome,
      owned: arbAbsolutePaths(options.maxOwnedFiles ?? 3),
      target: fc.string({ minLength: 1, maxLength: 30 }),
      scope: fc.constantFrom(...ScopeSchema.options),
      mode: fc.constantFrom(...ModeSchema.options),
      kind: fc.constantFrom(...BlockerKindSchema.options),
      cls: fc.constantFrom(...BlockerClassSchema.options),
      signature: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ''),
      required: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ''),
      detail: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ''),
      dropIdentity: fc.boolean(),
      tools: texts,
      avenues: texts,
      next_action: fc.constantFrom(...NextActionSchema.options),
      changedCount: fc.nat(3),
    })
    .chain((r) =>
      arbBaselineFor(r.owned).map((baseline): Handoff => {
        const { status, stop_reason } = r.outcome;
        const driven = status === 'stuck' || stop_reason === 'max-stuck';
        const operational = stop_reason === 'protocol-error' || stop_reason === 'operational-error';
        const anonymous = stop_reason === 'protocol-error' && r.dropIdentity;
        return {
          schema: RUN_CONTRACT_SCHEMA,
          record: 'handoff',
          target: anonymous ? null : r.target,
          scope: anonymous ? null : r.scope,
          mode: anonymous ? null : r.mode,
          status,
          stop_reason,
          stop_detail: operational ? r.detail : null,
          blocker_kind: driven ? r.kind : null,
          blocker_class: driven && r.kind === 'proof' ? r.cls : null,
          blocker_signature: driven ? r.signature : null,
          attempted_tools: r.tools,
          best_candidates: [],
          failed_avenues: r.avenues,
          evidence: {
            queries: [],
            top_candidates: [],
            attempts: [],
            goal_delta: null,
            diagnostic_delta: null,
          },
          files_owned: anonymous ? [] : r.owned,
          files_changed: r.owned.slice(0, r.changedCount),
          file_baseline: anonymous ? null : baseline,
          artifacts: [],
          next_action: r.next_action,
          new_evidence_required_for_rerun: driven ? r.required : null,
        };
      }),
    );
}
