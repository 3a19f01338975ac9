/** Hand-built graph records for the layout step tests. */
import type { MachineGraph, VizEdge, VizNode } from '../../src/viz/graph.js';

/** A state node; `children` and flags default to a plain leaf. */
export function vizNode(id: string, parent: string | null, extra: Partial<VizNode> = {}): VizNode {
  const path = parent === null ? [] : id.split('.').slice(1);
  return {
    id,
    key: parent === null ? id : (path[path.length - 1] as string),
    path,
    parent,
    type: 'atomic',
    initial: false,
    final: false,
    children: [],
    entry: [],
    exit: [],
    invoke: [],
    description: null,
    ...extra,
  };
}

/** An event edge `id` from `source` to `targets`. */
export function vizEdge(
  id: string,
  source: string,
  targets: string[],
  extra: Partial<VizEdge> = {},
): VizEdge {
  return {
    id,
    source,
    targets,
    kind: 'event',
    event: id.toUpperCase(),
    invoke: null,
    guard: null,
    actions: [],
    reenter: false,
    order: 0,
    ...extra,
  };
}

/**
 * `m` with leaves `m.a` (initial), `m.b`, `m.c` and final `m.done`: a → b → c → done, a → c
 * (spans two ranks), c → a (a back edge).
 */
export function chainGraph(): MachineGraph {
  const kids = ['m.a', 'm.b', 'm.c', 'm.done'];
  return {
    id: 'm',
    root: 'm',
    nodes: [
      vizNode('m', null, { type: 'compound', children: kids }),
      vizNode('m.a', 'm', { initial: true }),
      vizNode('m.b', 'm'),
      vizNode('m.c', 'm'),
      vizNode('m.done', 'm', { type: 'final', final: true }),
    ],
    edges: [
      vizEdge('e0', 'm.a', ['m.b']),
      vizEdge('e1', 'm.b', ['m.c']),
      vizEdge('e2', 'm.c', ['m.done']),
      vizEdge('e3', 'm.a', ['m.c']),
      vizEdge('e4', 'm.c', ['m.a']),
    ],
  };
}
