/**
 * The active state configuration of a machine while a trace is replayed (pure): the set of active
 * atomic states, entered from the root's initial states and moved by each transition — the
 * states under the transition's domain (the least common ancestor of source and targets, or the
 * source itself when the targets lie below it) are left and the targets are entered, descending
 * through initial children. The protocol machines have no parallel or history states; a parallel
 * node enters every region, a history node is entered as its parent's initial state.
 */
import type { MachineGraph, VizNode } from '../viz/graph.js';

/** The nodes of a graph by id. */
export type NodeIndex = ReadonlyMap<string, VizNode>;

/** The atomic states entered when `id` is entered (its initial descendants; every region of a parallel node). */
export function enterLeaves(index: NodeIndex, id: string): string[] {
  const node = index.get(id);
  if (node === undefined) return [];
  if (node.children.length === 0 || node.type === 'final' || node.type === 'history') return [id];
  if (node.type === 'parallel') return node.children.flatMap((c) => enterLeaves(index, c));
  const initial = node.children.find((c) => index.get(c)?.initial === true) ?? node.children[0];
  return initial === undefined ? [id] : enterLeaves(index, initial);
}

/**
 * The active atomic states of a machine when it starts.
 *
 * @example
 * ```ts
 * initialConfiguration(machineGraph(cycleMachine)); // ['cycle.plan.discover']
 * ```
 */
export function initialConfiguration(graph: MachineGraph): string[] {
  return enterLeaves(new Map(graph.nodes.map((n) => [n.id, n])), graph.root);
}

/** `id` and its ancestors, nearest first. */
export function ancestry(index: NodeIndex, id: string): string[] {
  const out: string[] = [];
  for (let cur: string | null = id; cur !== null; cur = index.get(cur)?.parent ?? null) out.push(cur);
  return out;
}

/** True when `id` is an active state or an ancestor of one. */
export function isActive(index: NodeIndex, leaves: readonly string[], id: string): boolean {
  return leaves.some((leaf) => ancestry(index, leaf).includes(id));
}

/**
 * The configuration after a transition from `source` to `targets` (ids); a targetless transition
 * changes nothing.
 *
 * @example
 * ```ts
 * applyTransition(index, ['cycle.plan.discover'], 'cycle.plan.discover', ['cycle.plan.approve']);
 * ```
 */
export function applyTransition(
  index: NodeIndex,
  leaves: readonly string[],
  source: string,
  targets: readonly string[],
): string[] {
  if (targets.length === 0) return [...leaves];
  const sourceChain = ancestry(index, source);
  const below = targets.every((t) => t !== source && ancestry(index, t).includes(source));
  // the domain: the source itself when every target lies below it, else the nearest strict
  // ancestor of the source that contains every target
  const domain = below
    ? source
    : (sourceChain.slice(1).find((a) => targets.every((t) => ancestry(index, t).includes(a))) ?? null);
  const kept =
    domain === null ? [] : leaves.filter((leaf) => !ancestry(index, leaf).slice(1).includes(domain));
  const entered = targets.flatMap((t) => enterLeaves(index, t));
  return [...kept, ...entered.filter((e) => !kept.includes(e))];
}
