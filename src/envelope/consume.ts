/**
 * The agent consumption pattern as a typed plan a host follows step by step: validate the
 * envelope, read `requiredReads` in order, run `nextAction`, respect `stopRules`, self-validate
 * against `acceptance`, use sanctioned commands only, and read the volatile `gateState` last.
 */
import { HandoffError } from '../errors/index.js';
import { MERGE_STOP_RULE } from './constants.js';
import type { Acceptance, GateState, HandoffEnvelope, SanctionedCommands } from './schema.js';
import { type EnvelopeValidationWarning, validateHandoffEnvelope } from './validate.js';

/** One step of the consumption plan, in the order the agent must take them. */
export type ConsumptionStep =
  | {
      readonly step: 1;
      readonly kind: 'read-envelope';
      readonly warnings: readonly EnvelopeValidationWarning[];
    }
  | { readonly step: 2; readonly kind: 'read-required'; readonly paths: readonly string[] }
  | {
      readonly step: 3;
      readonly kind: 'execute-next-action';
      readonly nextAction: string;
      readonly cwd: string | null;
      readonly worktreeRequired: boolean;
    }
  | { readonly step: 4; readonly kind: 'respect-stop-rules'; readonly stopRules: readonly string[] }
  | { readonly step: 5; readonly kind: 'self-validate'; readonly acceptance: Acceptance }
  | { readonly step: 6; readonly kind: 'sanctioned-commands-only'; readonly map: SanctionedCommands | null }
  | {
      readonly step: 7;
      readonly kind: 'read-gate-state-last';
      readonly gateState: GateState;
      readonly volatile: true;
    };

/**
 * Validates `input` and returns the seven consumption steps in order.
 *
 * @example
 * ```ts
 * for (const s of planConsumption(envelope)) host.perform(s);
 * ```
 * @throws HandoffError `invalid_record` when the envelope fails validation (details carry the errors).
 */
export function planConsumption(input: unknown): readonly ConsumptionStep[] {
  const r = validateHandoffEnvelope(input);
  if (!r.ok) {
    throw new HandoffError('invalid_record', 'handoff envelope failed validation; do not act on it', {
      details: { errors: r.errors },
    });
  }
  const e = input as HandoffEnvelope;
  return [
    { step: 1, kind: 'read-envelope', warnings: r.warnings ?? [] },
    { step: 2, kind: 'read-required', paths: e.requiredReads },
    {
      step: 3,
      kind: 'execute-next-action',
      nextAction: e.nextAction,
      cwd: e.cwd,
      worktreeRequired: e.worktreeRequired,
    },
    { step: 4, kind: 'respect-stop-rules', stopRules: e.stopRules },
    { step: 5, kind: 'self-validate', acceptance: e.acceptance },
    { step: 6, kind: 'sanctioned-commands-only', map: e.sanctionedCommands ?? null },
    { step: 7, kind: 'read-gate-state-last', gateState: e.gateState, volatile: true },
  ];
}

/**
 * True when the agent must stop at `point` (a stop rule) without an authorization. `merge` is also
 * authorized by `overrides.mergeAuthorized === true` (which the builder forces to `false` under
 * human-only merge).
 *
 * @example
 * ```ts
 * mustStopAt(envelope, 'merge'); // true unless authorized
 * mustStopAt(envelope, 'merge', new Set(['merge'])); // false
 * ```
 */
export function mustStopAt(
  envelope: Pick<HandoffEnvelope, 'stopRules' | 'overrides'>,
  point: string,
  authorizations: ReadonlySet<string> = new Set(),
): boolean {
  if (!envelope.stopRules.includes(point)) return false;
  if (authorizations.has(point)) return false;
  return !(point === MERGE_STOP_RULE && envelope.overrides?.mergeAuthorized === true);
}

/** What the agent reports before declaring completion. */
export interface CompletionReport {
  /** Criterion id → met. */
  readonly criteria: Readonly<Record<string, boolean>>;
  /** Evidence kinds supplied (e.g. `commands-run`). */
  readonly evidence: readonly string[];
  /** Finalization turns used. */
  readonly turns: number;
}

/** Outcome of {@link checkCompletion}. */
export interface CompletionCheck {
  readonly ok: boolean;
  readonly unmetRequired: readonly string[];
  readonly unmetRecommended: readonly string[];
  readonly missingEvidence: readonly string[];
  readonly turnsExceeded: boolean;
}

/**
 * Self-validation against `acceptance`: every required criterion met, every evidence kind
 * supplied, within `maxFinalizationTurns`. Unmet recommended criteria do not fail the check.
 *
 * @example
 * ```ts
 * checkCompletion(envelope.acceptance, { criteria: { scope: true }, evidence: ['commands-run'], turns: 1 }).ok;
 * ```
 */
export function checkCompletion(acceptance: Acceptance, report: CompletionReport): CompletionCheck {
  const unmet = (sev: 'required' | 'recommended') =>
    acceptance.criteria.filter((c) => c.severity === sev && report.criteria[c.id] !== true).map((c) => c.id);
  const unmetRequired = unmet('required');
  const missingEvidence = acceptance.evidence.filter((k) => !report.evidence.includes(k));
  const turnsExceeded = report.turns > acceptance.maxFinalizationTurns;
  return {
    ok: unmetRequired.length === 0 && missingEvidence.length === 0 && !turnsExceeded,
    unmetRequired,
    unmetRecommended: unmet('recommended'),
    missingEvidence,
    turnsExceeded,
  };
}

/** How the sanctioned-command map classifies a command or operation. */
export type CommandClass =
  | {
      readonly kind: 'sanctioned';
      readonly group: 'reads' | 'edits' | 'lifecycle';
      readonly operation: string;
      readonly wrapper: string;
    }
  | { readonly kind: 'forbidden'; readonly entry: string }
  | { readonly kind: 'orchestrator-owned'; readonly entry: string }
  | { readonly kind: 'unlisted' };

const squash = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Classifies an operation name (`ci-status`) or a command line against the map: a mapped
 * operation or a command that starts with a mapped wrapper is sanctioned; a command starting with
 * a forbidden or orchestrator-owned entry (whitespace- and case-insensitive) is refused. Without a
 * map everything is `unlisted`.
 *
 * @example
 * ```ts
 * classifyCommand(envelope, 'gh pr merge 12'); // { kind: 'orchestrator-owned', entry: 'gh pr merge' }
 * ```
 */
export function classifyCommand(
  envelope: Pick<HandoffEnvelope, 'sanctionedCommands'>,
  command: string,
): CommandClass {
  const map = envelope.sanctionedCommands;
  if (map === undefined) return { kind: 'unlisted' };
  const c = squash(command);
  for (const entry of map.orchestratorOwned)
    if (c.startsWith(squash(entry))) return { kind: 'orchestrator-owned', entry };
  for (const entry of map.forbidden) if (c.startsWith(squash(entry))) return { kind: 'forbidden', entry };
  for (const group of ['reads', 'edits', 'lifecycle'] as const) {
    for (const [operation, wrapper] of Object.entries(map[group])) {
      if (c === squash(operation) || c.startsWith(squash(wrapper)))
        return { kind: 'sanctioned', group, operation, wrapper };
    }
  }
  return { kind: 'unlisted' };
}

/**
 * Every wrapper path of the map's operation groups, unfiltered (so a contract test fails on a bad
 * entry instead of skipping it).
 *
 * @example
 * ```ts
 * sanctionedWrapperPaths(map).every((p) => existsSync(p));
 * ```
 */
export function sanctionedWrapperPaths(map: SanctionedCommands): string[] {
  return [...Object.values(map.reads), ...Object.values(map.edits), ...Object.values(map.lifecycle)];
}
