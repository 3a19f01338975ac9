/**
 * Shared fixtures of the envelope tests: resolver outputs in both shapes and a fixed clock.
 */
import type { BuildEnvelopeOptions } from '../../src/envelope/index.js';

/** A fixed build clock. */
export const NOW = '2026-11-30T12:00:00.000Z';

/** Deterministic base options: fixed clock, empty environment. */
export const BASE_OPTS: BuildEnvelopeOptions = { now: NOW, env: {} };

/** A bare resolver bundle for `strategy` targeting `artifact`. */
export function bareBundle(
  strategy: string | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    publicEntrypoint: 'dev-loop',
    repo: 'acme/app',
    routeKind: 'route',
    selectedGate: strategy,
    selectedStrategy: strategy,
    executionMode: 'bounded_handoff',
    nextAction: `Run ${String(strategy)} for acme/app#42.`,
    requiredReads: ['skills/dev-loop/SKILL.md'],
    activeArtifact: { kind: 'issue', issue: 42 },
    ...extra,
  };
}

/** The wrapped startup result around a bundle. */
export function wrapped(
  bundle: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    ok: true,
    bundleKind: bundle.bundleKind ?? 'route',
    selectedStrategy: bundle.selectedStrategy ?? 'none',
    nextAction: bundle.nextAction,
    bundle,
    ...extra,
  };
}

/** A bare terminal reconciliation bundle. */
export function reconcileBare(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return bareBundle(null, {
    routeKind: 'needs_reconcile',
    selectedGate: 'fail_closed_reconcile',
    selectedStrategy: null,
    nextAction: 'Stop and reconcile the issue/PR linkage before routing.',
    ...extra,
  });
}

/** A wrapped terminal reconciliation startup result (bundleKind at both levels, outer 'none'). */
export function reconcileWrapped(
  inner: Record<string, unknown> = {},
  outer: Record<string, unknown> = {},
): Record<string, unknown> {
  const bundle = reconcileBare({ bundleKind: 'needs_reconcile', ...inner });
  return {
    ok: true,
    bundleKind: 'needs_reconcile',
    selectedStrategy: 'none',
    nextAction: bundle.nextAction,
    bundle,
    ...outer,
  };
}
