/**
 * Topology checks run when a chain is constructed: stage and key uniqueness, an earlier owner for
 * every required key, one producer per key, rules exactly covering the produced keys, and rule
 * producers matching the owners.
 */
import { HandoffError } from '../errors/index.js';
import { type FactRule, INPUT_PRODUCER } from './fact-rule.js';
import type { StageSpec } from './stage-spec.js';

/** What the topology check looks at. */
export interface TopologyInput {
  readonly chain_id: string;
  readonly specs: readonly StageSpec[];
  readonly rules: readonly Pick<FactRule, 'key' | 'producer_stage'>[];
  readonly initial_keys: readonly string[];
}

function dups(xs: readonly string[]): string[] {
  return [...new Set(xs.filter((x, i) => xs.indexOf(x) !== i))];
}

/**
 * Lists every topology problem (empty when the chain is well-formed). Messages contain the
 * reference phrases "no earlier owner", "more than one producer", "missing"/"extra".
 *
 * @example
 * ```ts
 * topologyProblems({ chain_id: 'c', specs, rules, initial_keys: [] }); // []
 * ```
 */
export function topologyProblems(t: TopologyInput): string[] {
  const p: string[] = [];
  if (!t.chain_id?.trim()) p.push('chain_id is empty');
  if (t.specs.length === 0) p.push('a chain needs at least one stage');
  const names = t.specs.map((s) => s.name);
  for (const d of dups(names)) p.push(`duplicate stage name '${d}'`);
  if (names.includes(INPUT_PRODUCER)) p.push(`'${INPUT_PRODUCER}' is reserved and cannot name a stage`);
  for (const d of dups(t.rules.map((r) => r.key))) p.push(`duplicate rule for key '${d}'`);
  for (const d of dups(t.initial_keys)) p.push(`duplicate initial key '${d}'`);

  const owner = new Map<string, string>();
  const producers = new Map<string, string[]>();
  const addProducer = (key: string, who: string) => producers.set(key, [...(producers.get(key) ?? []), who]);
  for (const k of t.initial_keys) addProducer(k, INPUT_PRODUCER);
  for (const s of t.specs) for (const k of s.provides) addProducer(k, s.name);
  for (const [k, who] of producers) {
    if (who.length > 1) p.push(`key '${k}' has more than one producer (${who.join(', ')})`);
  }

  const available = new Set<string>(t.initial_keys);
  for (const k of t.initial_keys) if (!owner.has(k)) owner.set(k, INPUT_PRODUCER);
  for (const s of t.specs) {
    for (const k of s.requires) {
      if (!available.has(k)) p.push(`stage '${s.name}' requires '${k}' with no earlier owner`);
    }
    for (const k of s.provides) {
      available.add(k);
      if (!owner.has(k)) owner.set(k, s.name);
    }
  }

  const produced = new Set(producers.keys());
  const ruled = new Set(t.rules.map((r) => r.key));
  const missing = [...produced].filter((k) => !ruled.has(k));
  const extra = [...ruled].filter((k) => !produced.has(k));
  if (missing.length > 0 || extra.length > 0) {
    p.push(
      `rule keys must equal initial + provided keys: missing [${missing.join(', ')}], extra [${extra.join(', ')}]`,
    );
  }
  for (const r of t.rules) {
    const o = owner.get(r.key);
    if (o !== undefined && r.producer_stage !== o) {
      p.push(`rule '${r.key}' names producer '${r.producer_stage}' but '${o}' owns it`);
    }
  }
  return p;
}

/**
 * Throws when the topology is not well-formed.
 *
 * @example
 * ```ts
 * assertTopology({ chain_id: 'c', specs, rules, initial_keys: ['request_id'] });
 * ```
 * @throws HandoffError `invalid_topology` with `details.problems`.
 */
export function assertTopology(t: TopologyInput): void {
  const problems = topologyProblems(t);
  if (problems.length > 0) {
    throw new HandoffError('invalid_topology', `invalid chain topology: ${problems.join('; ')}`, {
      details: { chain_id: t.chain_id, problems },
    });
  }
}
