/**
 * Initial-state markers of the SVG layout (pure): a dot 16 px before the initial child of every
 * compound, on the side its parent's ranks come from, and an arrow into the child.
 */
import type { MachineGraph, VizNode } from './graph.js';
import type { InitialMarker, LayoutBox, LayoutDirection } from './layout-types.js';

/**
 * The direction a compound lays out its children in: the top-level direction at the root, then
 * alternating with depth.
 *
 * @example
 * ```ts
 * directionAt(index, 'cycle', 'cycle.plan', 'LR'); // 'TB'
 * ```
 */
export function directionAt(
  index: ReadonlyMap<string, VizNode>,
  root: string,
  parent: string,
  top: LayoutDirection,
): LayoutDirection {
  let depth = 0;
  for (let c: string | null = parent; c !== null && c !== root; c = index.get(c)?.parent ?? null) depth++;
  return depth % 2 === 0 ? top : top === 'LR' ? 'TB' : 'LR';
}

/**
 * One marker per initial state (not the root), in node order: from the left in a left→right
 * compound, from above in a top→bottom one.
 *
 * @example
 * ```ts
 * initialMarkers(g, nodeIndex(g), boxes, 'LR')[0]; // { parent: 'gate', child: 'gate.idle', cx: 20, … }
 * ```
 */
export function initialMarkers(
  g: MachineGraph,
  index: ReadonlyMap<string, VizNode>,
  boxes: ReadonlyMap<string, LayoutBox>,
  topDir: LayoutDirection,
): InitialMarker[] {
  const initials: InitialMarker[] = [];
  for (const n of g.nodes) {
    if (!n.initial || n.parent === null) continue;
    const b = boxes.get(n.id) as LayoutBox;
    const parentDir = directionAt(index, g.root, n.parent, topDir);
    if (parentDir === 'LR')
      initials.push({
        parent: n.parent,
        child: n.id,
        cx: b.x - 16,
        cy: b.y + b.h / 2,
        x2: b.x,
        y2: b.y + b.h / 2,
      });
    else
      initials.push({
        parent: n.parent,
        child: n.id,
        cx: b.x + b.w / 2,
        cy: b.y - 16,
        x2: b.x + b.w / 2,
        y2: b.y,
      });
  }
  return initials;
}
