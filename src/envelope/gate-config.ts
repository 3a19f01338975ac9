/**
 * `gateConfig` derivation: the advertised run-set of the current gate from `settings.gates`.
 */
import { type DevLoopsSettings, type GateAngleEntry, type GateConfig, normalizeSeverity } from './schema.js';

/**
 * Fallback of `blockCleanOnFindingSeverities` when a gate block does not set it (the reference's
 * default since its severity rename; `high` is the canonical name of the legacy `must-fix`).
 *
 * @example
 * ```ts
 * deriveGateConfig({ gates: { draft: {} } }, 'draft')?.blockCleanOnFindingSeverities; // ['high']
 * ```
 */
export const DEFAULT_BLOCK_CLEAN_SEVERITIES: readonly string[] = Object.freeze(['high']);

/**
 * The `settings.gates` keys that are gate blocks. Other keys under `gates` (requireFanoutEvidence,
 * fanout, anglePool, size, …) are settings of other tools and never produce a `gateConfig`.
 *
 * @example
 * ```ts
 * GATE_BLOCK_KEYS.includes('preApproval'); // true
 * ```
 */
export const GATE_BLOCK_KEYS: readonly string[] = Object.freeze(['draft', 'preApproval', 'spike']);

/**
 * The `settings.gates` key of a gate (`pre-approval` → `preApproval`).
 *
 * @example
 * ```ts
 * gateSettingsKey('pre-approval'); // 'preApproval'
 * ```
 */
export function gateSettingsKey(gate: string): string {
  return gate === 'pre-approval' ? 'preApproval' : gate;
}

function entryName(e: GateAngleEntry): string {
  return (typeof e === 'string' ? e : e.name).trim();
}

function pushUnique(list: string[], name: string): void {
  if (!list.includes(name)) list.push(name);
}

/**
 * Derives the gate's `gateConfig`, or `undefined` when `settings.gates[key]` is absent or `key`
 * is not a gate block (draft, preApproval, spike).
 *
 * `angles` = every mandatory angle first (`mandatoryAngles` and `mandatory: true` entries, as the
 * reference's resolver puts them), then the configured run-set (entries not `enabled: false`)
 * minus the excludes (`excludeAngles` and `enabled: false` entries) — a mandatory angle is kept
 * even when excluded. It is never the validator's wider pool. `excludeAngles` is present only when
 * some exclude is not overridden by a mandatory angle. `blockCleanOnFindingSeverities` is
 * normalised to the canonical names (`must-fix` → `high`, `worth-fixing-now` → `medium`,
 * `nice-to-have`/`defer` → `low`), de-duplicated, default `['high']`.
 *
 * @example
 * ```ts
 * deriveGateConfig({ gates: { draft: { angles: ['a', 'b'], excludeAngles: ['b'], mandatoryAngles: ['m'] } } }, 'draft');
 * // { angles: ['m', 'a'], excludeAngles: ['b'], blockCleanOnFindingSeverities: ['high'], requireCi: true }
 * ```
 */
export function deriveGateConfig(settings: DevLoopsSettings, gate: string): GateConfig | undefined {
  const key = gateSettingsKey(gate);
  const gates = settings.gates as Readonly<Record<string, unknown>> | undefined;
  if (gates === undefined || !GATE_BLOCK_KEYS.includes(key) || !Object.hasOwn(gates, key)) return undefined;
  const g = settings.gates?.[key as 'draft' | 'preApproval' | 'spike'];
  if (g === undefined) return undefined;

  const excludes: string[] = [];
  const mandatory: string[] = [];
  const runSet: string[] = [];
  for (const name of g.excludeAngles ?? []) pushUnique(excludes, name.trim());
  for (const name of g.mandatoryAngles ?? []) pushUnique(mandatory, name.trim());
  for (const entry of g.angles ?? []) {
    const name = entryName(entry);
    if (typeof entry !== 'string' && entry.mandatory === true) pushUnique(mandatory, name);
    if (typeof entry !== 'string' && entry.enabled === false) pushUnique(excludes, name);
    else pushUnique(runSet, name);
  }
  const angles = [...mandatory];
  for (const a of runSet) if (!excludes.includes(a)) pushUnique(angles, a);
  const effectiveExcludes = excludes.filter((e) => !mandatory.includes(e));
  const severities: string[] = [];
  for (const s of g.blockCleanOnFindingSeverities ?? DEFAULT_BLOCK_CLEAN_SEVERITIES) {
    pushUnique(severities, normalizeSeverity(s));
  }

  return {
    angles,
    ...(effectiveExcludes.length > 0 ? { excludeAngles: effectiveExcludes } : {}),
    blockCleanOnFindingSeverities: severities,
    requireCi: g.requireCi ?? true,
  };
}
