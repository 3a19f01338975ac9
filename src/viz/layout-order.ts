/**
 * Ordering step of the SVG layout (pure): nodes are grouped by rank (children in document order,
 * then dummy nodes), then six barycenter sweeps (down, up, down, …) sort each rank by the mean
 * position of its neighbours in other ranks, ties kept in their current order.
 */
import { isDummy } from './layout-rank.js';

/** Barycenter sweeps the layout runs. */
export const SWEEPS = 6;

/**
 * The nodes of a compound in the order ranks receive them: children as given, then the dummy
 * nodes in the order the rank map holds them.
 *
 * @example
 * ```ts
 * rankedNodes(['m.a', 'm.c'], new Map([['m.a', 0], ['m.c', 2], ['~m~0', 1]])); // ['m.a', 'm.c', '~m~0']
 * ```
 */
export function rankedNodes(kids: readonly string[], rank: ReadonlyMap<string, number>): string[] {
  return [...kids, ...[...rank.keys()].filter(isDummy)];
}

/**
 * Groups nodes by rank, each rank in the order of `nodes`; empty ranks are dropped.
 *
 * @example
 * ```ts
 * groupByRank(['a', 'b', 'c'], new Map([['a', 0], ['b', 2], ['c', 0]])); // [['a', 'c'], ['b']]
 * ```
 */
export function groupByRank(nodes: readonly string[], rank: ReadonlyMap<string, number>): string[][] {
  const ranks: string[][] = [];
  for (const k of nodes) {
    const r = rank.get(k) as number;
    while (ranks.length <= r) ranks.push([]);
    (ranks[r] as string[]).push(k);
  }
  return ranks.filter((r) => r.length > 0);
}

/**
 * Barycenter ordering: `sweeps` passes, alternately from the first rank and from the last; each
 * rank is sorted by the mean position of its neighbours outside the rank (a node without any
 * keeps its position as its value), ties broken by the current position. Returns new arrays.
 *
 * @example
 * ```ts
 * barycenterOrder([['a', 'b'], ['x', 'y']], [['a', 'y'], ['b', 'x']]); // [['b', 'a'], ['x', 'y']]
 * ```
 */
export function barycenterOrder(
  ranks: readonly (readonly string[])[],
  links: readonly (readonly [string, string])[],
  sweeps: number = SWEEPS,
): string[][] {
  const out = ranks.map((r) => [...r]);
  const neighbours = new Map<string, string[]>(out.flat().map((k) => [k, []]));
  for (const [a, b] of links) {
    (neighbours.get(a) as string[]).push(b);
    (neighbours.get(b) as string[]).push(a);
  }
  const pos = new Map<string, number>();
  for (const r of out)
    r.forEach((k, i) => {
      pos.set(k, i);
    });
  for (let sweep = 0; sweep < sweeps; sweep++) {
    const order = sweep % 2 === 0 ? out : [...out].reverse();
    for (const r of order) {
      const bary = new Map<string, number>();
      for (const k of r) {
        const ps = (neighbours.get(k) as string[])
          .filter((n) => !r.includes(n))
          .map((n) => pos.get(n) as number);
        bary.set(k, ps.length === 0 ? (pos.get(k) as number) : ps.reduce((x, y) => x + y, 0) / ps.length);
      }
      r.sort(
        (a, b) =>
          (bary.get(a) as number) - (bary.get(b) as number) ||
          (pos.get(a) as number) - (pos.get(b) as number),
      );
      r.forEach((k, i) => {
        pos.set(k, i);
      });
    }
  }
  return out;
}

/**
 * Moves the nodes in `last` (error sinks) to the end of their rank, keeping both groups' order,
 * so the sinks sit next to the error lane. Returns new arrays.
 *
 * @example
 * ```ts
 * sinksLast([['m.stopped', 'm.done']], new Set(['m.stopped'])); // [['m.done', 'm.stopped']]
 * ```
 */
export function sinksLast(ranks: readonly (readonly string[])[], last: ReadonlySet<string>): string[][] {
  return ranks.map((r) => [...r.filter((k) => !last.has(k)), ...r.filter((k) => last.has(k))]);
}
