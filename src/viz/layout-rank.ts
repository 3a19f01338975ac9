/**
 * Ranking (layering) step of the SVG layout (pure): the edges between a compound's children are
 * lifted to the children that contain their ends, back edges are found by a depth-first search
 * from the `(any state)` pseudo node and the initial child, ranks are longest paths over the
 * remaining edges with final states in the last rank, and edges spanning more than one rank get a
 * chain of dummy nodes (one per rank in between) so they can be routed around the boxes there.
 */
import type { VizEdge, VizNode } from './graph.js';

/** An edge between two children of one compound (`key` is `<edge id>><target>`). */
export interface LiftedEdge {
  readonly key: string;
  readonly a: string;
  readonly b: string;
}

/** The result of {@link insertDummies}. */
export interface DummyInsertion {
  /** The ranks with every dummy node appended (children first, in their order, then dummies). */
  readonly rank: Map<string, number>;
  /** Dummy node ids in creation order. */
  readonly dummies: string[];
  /** The dummy chain of each lifted edge key, from source side to target side (empty when none). */
  readonly chains: Map<string, string[]>;
  /** Rank-to-rank links: each lifted edge as consecutive pairs of its node, dummies, node. */
  readonly links: [string, string][];
}

/**
 * True for the id of a dummy node (`~<parent>~<n>`).
 *
 * @example
 * ```ts
 * isDummy('~gate~0'); // true
 * ```
 */
export function isDummy(id: string): boolean {
  return id.startsWith('~');
}

/**
 * The key of a directed link between two nodes, as the back-edge set holds it.
 *
 * @example
 * ```ts
 * linkKey('a', 'b'); // 'a>b'
 * ```
 */
export function linkKey(from: string, to: string): string {
  return `${from}>${to}`;
}

/**
 * Which child of `parent` contains `id` (or is it); the machine root maps to the `(any state)`
 * pseudo node at the root's own level, and to nothing elsewhere.
 *
 * @example
 * ```ts
 * const childOf = childContaining(nodeIndex(g), 'gate', null);
 * childOf('gate', 'gate.plan.choose'); // 'gate.plan'
 * ```
 */
export function childContaining(
  index: ReadonlyMap<string, VizNode>,
  root: string,
  anyState: string | null,
): (parent: string, id: string) => string | undefined {
  return (parent, id) => {
    if (id === root) return parent === root && anyState !== null ? anyState : undefined;
    let cur: string | null = id;
    while (cur !== null) {
      const p: string | null = index.get(cur)?.parent ?? null;
      if (p === parent) return cur;
      cur = p;
    }
    return undefined;
  };
}

/**
 * The edges between distinct children of one compound, in edge order, and their adjacency
 * lists. `childOf` maps a node id to the child containing it (undefined: outside the compound).
 *
 * @example
 * ```ts
 * liftEdges(g.edges, ['m.a', 'm.b'], (id) => childOf('m', id));
 * // { lifted: [{ key: 'e0>m.b', a: 'm.a', b: 'm.b' }], adj: Map { 'm.a' => ['m.b'], 'm.b' => [] } }
 * ```
 */
export function liftEdges(
  edges: readonly VizEdge[],
  kids: readonly string[],
  childOf: (id: string) => string | undefined,
): { lifted: LiftedEdge[]; adj: Map<string, string[]> } {
  const adj = new Map<string, string[]>(kids.map((k) => [k, []]));
  const lifted: LiftedEdge[] = [];
  for (const e of edges) {
    const a = childOf(e.source);
    if (a === undefined) continue;
    for (const t of e.targets) {
      const b = childOf(t);
      if (b === undefined || a === b) continue;
      lifted.push({ key: `${e.id}>${t}`, a, b });
      (adj.get(a) as string[]).push(b);
    }
  }
  return { lifted, adj };
}

/**
 * The order the depth-first search starts from: the pseudo node (when among the children), the
 * initial child, then every child (already-seen ones are skipped by the search).
 *
 * @example
 * ```ts
 * searchRoots(['m::any', 'm.a', 'm.b'], 'm::any', 'm.b'); // ['m::any', 'm.b', 'm::any', 'm.a', 'm.b']
 * ```
 */
export function searchRoots(
  kids: readonly string[],
  anyState: string | null,
  initial: string | undefined,
): string[] {
  return [
    ...(anyState !== null && kids.includes(anyState) ? [anyState] : []),
    ...(initial ? [initial] : []),
    ...kids,
  ];
}

/**
 * Depth-first search from `roots` in order: the back edges (as {@link linkKey}s) and the
 * post-order of the visit.
 *
 * @example
 * ```ts
 * backEdges(['a'], new Map([['a', ['b']], ['b', ['a']]])); // { back: Set { 'b>a' }, post: ['b', 'a'] }
 * ```
 */
export function backEdges(
  roots: readonly string[],
  adj: ReadonlyMap<string, readonly string[]>,
): { back: Set<string>; post: string[] } {
  const seen = new Map<string, 1 | 2>();
  const back = new Set<string>();
  const post: string[] = [];
  const dfs = (v: string): void => {
    seen.set(v, 1);
    for (const w of adj.get(v) ?? []) {
      if (seen.get(w) === 1) back.add(linkKey(v, w));
      else if (seen.get(w) === undefined) dfs(w);
    }
    seen.set(v, 2);
    post.push(v);
  };
  for (const r of roots) if (!seen.has(r)) dfs(r);
  return { back, post };
}

/**
 * Longest-path ranks over the forward edges (every child starts at rank 0; the reverse
 * post-order is a topological order once back edges are ignored).
 *
 * @example
 * ```ts
 * const adj = new Map([['a', ['b']], ['b', ['c']], ['c', []]]);
 * longestPathRanks(['a', 'b', 'c'], adj, new Set(), ['c', 'b', 'a']); // Map { a: 0, b: 1, c: 2 }
 * ```
 */
export function longestPathRanks(
  kids: readonly string[],
  adj: ReadonlyMap<string, readonly string[]>,
  back: ReadonlySet<string>,
  post: readonly string[],
): Map<string, number> {
  const rank = new Map<string, number>(kids.map((k) => [k, 0]));
  for (const v of [...post].reverse()) {
    for (const w of adj.get(v) ?? []) {
      if (back.has(linkKey(v, w))) continue;
      rank.set(w, Math.max(rank.get(w) as number, (rank.get(v) as number) + 1));
    }
  }
  return rank;
}

/**
 * Moves final states to one rank after every other child (only when there are both final and
 * non-final children); returns a new map with the same key order.
 *
 * @example
 * ```ts
 * finalsLast(['a', 'done'], new Map([['a', 2], ['done', 1]]), (k) => k === 'done'); // Map { a: 2, done: 3 }
 * ```
 */
export function finalsLast(
  kids: readonly string[],
  rank: ReadonlyMap<string, number>,
  isFinal: (id: string) => boolean,
): Map<string, number> {
  const out = new Map(rank);
  let maxRank = 0;
  for (const k of kids) if (!isFinal(k)) maxRank = Math.max(maxRank, out.get(k) as number);
  if (kids.some(isFinal) && kids.some((k) => !isFinal(k)))
    for (const k of kids) if (isFinal(k)) out.set(k, maxRank + 1);
  return out;
}

/**
 * The ranks of a compound's children: back edges from a depth-first search from `roots`,
 * longest-path ranks over the rest, final states last.
 *
 * @example
 * ```ts
 * rankLayers(kids, adj, searchRoots(kids, null, initial), (k) => index.get(k)!.final);
 * ```
 */
export function rankLayers(
  kids: readonly string[],
  adj: ReadonlyMap<string, readonly string[]>,
  roots: readonly string[],
  isFinal: (id: string) => boolean,
): Map<string, number> {
  const { back, post } = backEdges(roots, adj);
  return finalsLast(kids, longestPathRanks(kids, adj, back, post), isFinal);
}

/**
 * Gives every lifted edge spanning more than one rank a chain of dummy nodes `~<parent>~<n>`, one
 * per rank in between (numbered in edge order), and splits every lifted edge into rank-to-rank
 * links. The input map is not changed.
 *
 * @example
 * ```ts
 * const r = insertDummies([{ key: 'e0>m.c', a: 'm.a', b: 'm.c' }], new Map([['m.a', 0], ['m.c', 2]]), 'm');
 * r.chains.get('e0>m.c'); // ['~m~0']
 * r.links; // [['m.a', '~m~0'], ['~m~0', 'm.c']]
 * ```
 */
export function insertDummies(
  lifted: readonly LiftedEdge[],
  rank: ReadonlyMap<string, number>,
  parentId: string,
): DummyInsertion {
  const out = new Map(rank);
  const dummies: string[] = [];
  const chains = new Map<string, string[]>();
  const links: [string, string][] = [];
  for (const l of lifted) {
    const ra = out.get(l.a) as number;
    const rb = out.get(l.b) as number;
    const step = rb > ra ? 1 : -1;
    const chain: string[] = [];
    if (Math.abs(rb - ra) > 1) {
      for (let r = ra + step; r !== rb; r += step) {
        const id = `~${parentId}~${dummies.length}`;
        out.set(id, r);
        dummies.push(id);
        chain.push(id);
      }
    }
    chains.set(l.key, chain);
    const seq = [l.a, ...chain, l.b];
    for (let i = 0; i + 1 < seq.length; i++) links.push([seq[i] as string, seq[i + 1] as string]);
  }
  return { rank: out, dummies, chains, links };
}
