/**
 * `gateConfig` derivation: the advertised run-set of the current gate from `settings.gates`.
 */
import type { DevLoopsSettings, GateAngleEntry, GateConfig } from './schema.js';

/**
 * Fallback of `blockCleanOnFindingSeverities` when a gate block does not set it.
 *
 * @example
 * ```ts
 * deriveGateConfig({ gates: { draft: {} } }, 'draft')?.blockCleanOnFindingSeverities; // ['must-fix']
 * ```
 */
export const DEFAULT_BLOCK_CLEAN_SEVERITIES: readonly string[] = Object.freeze(['must-fix']);

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
 * Derives the gate's `gateConfig`, or `undefined` when `settings.gates[key]` is absent.
 *
 * `angles` = the configured run-set (entries not `enabled: false`) minus the excludes
 * (`excludeAngles` and `enabled: false` entries), plus every mandatory angle (`mandatoryAngles`
 * and `mandatory: true` entries) — mandatory beats excluded. It is never the validator's wider
 * pool. `excludeAngles` is present only when some exclude is not overridden by a mandatory angle.
 *
 * @example
 * ```ts
 * deriveGateConfig({ gates: { draft: { angles: ['a', 'b'], excludeAngles: ['b'], mandatoryAngles: ['m'] } } }, 'draft');
 * // { angles: ['a', 'm'], excludeAngles: ['b'], blockCleanOnFindingSeverities: ['must-fix'], requireCi: true }
 * ```
 */
export function deriveGateConfig(settings: DevLoopsSettings, gate: string): GateConfig | undefined {
  const key = gateSettingsKey(gate);
  const gates = settings.gates;
  if (gates === undefined || !Object.hasOwn(gates, key)) return undefined;
  const g = gates[key];
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
  const angles = runSet.filter((a) => !excludes.includes(a));
  for (const m of mandatory) pushUnique(angles, m);
  const effectiveExcludes = excludes.filter((e) => !mandatory.includes(e));

  return {
    angles,
    ...(effectiveExcludes.length > 0 ? { excludeAngles: effectiveExcludes } : {}),
    blockCleanOnFindingSeverities: [...(g.blockCleanOnFindingSeverities ?? DEFAULT_BLOCK_CLEAN_SEVERITIES)],
    requireCi: g.requireCi ?? true,
  };
}
