/**
 * A small deterministic layered layout for the HTML/SVG viewer (pure, no randomness, no
 * floating state): each compound state lays out its children in ranks (depth-first back-edge
 * removal, longest-path ranking, final states in the last rank, barycenter ordering), children's
 * compounds alternate direction (left→right, then top→bottom, …) and are sized bottom-up, so
 * nested boxes never overlap. Edges are quadratic curves clipped at the box borders, parallel
 * edges fan out, and labels are placed greedily at the first free spot along their curve.
 */
import { edgeLabel, eventLabel, type MachineGraph, nodeIndex, type VizEdge, type VizNode } from './graph.js';

/** A positioned box (absolute coordinates). */
export interface LayoutBox {
  readonly id: string;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** A routed edge (one per target of the edge). */
export interface EdgeRoute {
  readonly edge: string;
  readonly source: string;
  readonly target: string;
  /** SVG path data. */
  readonly d: string;
  /** The label's box (centre of its text at x + w/2). */
  readonly label: LayoutBox;
  readonly text: string;
}

/** An initial-state marker: a dot and an arrow into the initial child. */
export interface InitialMarker {
  readonly parent: string;
  readonly child: string;
  readonly cx: number;
  readonly cy: number;
  readonly x2: number;
  readonly y2: number;
}

/** The layout of a whole graph. */
export interface GraphLayout {
  /** Left edge of the drawing (the SVG viewBox origin; ≤ 0 when labels stick out). */
  readonly minX: number;
  /** Top edge of the drawing. */
  readonly minY: number;
  readonly width: number;
  readonly height: number;
  /** Top-level direction chosen. */
  readonly direction: 'LR' | 'TB';
  /** Boxes of every state node (not the root) and of the `(any state)` pseudo node when present. */
  readonly boxes: ReadonlyMap<string, LayoutBox>;
  /** Id of the pseudo node standing for the root's own transitions, or null. */
  readonly anyState: string | null;
  readonly edges: readonly EdgeRoute[];
  readonly initials: readonly InitialMarker[];
}

/** Approximate advance widths (px) of the viewer's fonts, for sizing boxes and labels. */
export const FONT = { title: 7.4, small: 5.9, label: 5.6 } as const;

const PAD = 14;
const HEADER = 24;
const GAP_RANK: Readonly<Record<'LR' | 'TB', number>> = { LR: 96, TB: 64 };
const GAP_ORDER: Readonly<Record<'LR' | 'TB', number>> = { LR: 26, TB: 40 };
const LABEL_H = 14;

interface Size {
  w: number;
  h: number;
}

/**
 * Lines shown in a leaf box: its key, then its invokes.
 *
 * @example
 * ```ts
 * leafLines(node); // { title: 'working', lines: ['invoke worker'] }
 * ```
 */
export function leafLines(n: VizNode): { title: string; lines: string[] } {
  return {
    title: n.key,
    lines: n.invoke.map((i) => (i.src === i.id ? `invoke ${i.id}` : `invoke ${i.id} (${i.src})`)),
  };
}

function leafSize(n: VizNode): Size {
  const { title, lines } = leafLines(n);
  const w = Math.max(96, title.length * FONT.title + 26, ...lines.map((l) => l.length * FONT.small + 22));
  return { w: Math.ceil(w), h: 32 + lines.length * 13 };
}

/**
 * The visible label of an edge in the viewer: like {@link edgeLabel}, but the trigger is left to
 * the edge's colour and dash (see the legend) when it is `always` or the `done`/`error` of the
 * source's only invoke — such edges show only their guard, or nothing. The full label is always
 * in the edge's tooltip.
 *
 * @example
 * ```ts
 * compactLabel(doneEdgeWithoutGuard, sourceWithOneInvoke); // ''
 * ```
 */
export function compactLabel(e: VizEdge, source: VizNode | undefined): string {
  let text = edgeLabel(e);
  if ((e.kind === 'done' || e.kind === 'error') && source !== undefined && source.invoke.length === 1) {
    text = e.guard === null ? '' : `[${e.guard}]`;
  } else if (e.kind === 'always') {
    text = e.guard === null ? '' : `[${e.guard}]`;
  } else if (text === '') {
    text = eventLabel(e);
  }
  if (e.targets.length === 0) text += ' (internal)';
  if (e.reenter) text += ' (reenter)';
  return text.trim();
}

/**
 * Lays out a graph. `direction` forces the top-level direction; by default both are tried and
 * the one that fits a 1400×1000 viewport at the larger scale wins.
 *
 * @example
 * ```ts
 * const l = layoutGraph(machineGraph(chainMachine));
 * l.boxes.get('chain.ready')!.w > 0; // true
 * ```
 */
export function layoutGraph(g: MachineGraph, direction?: 'LR' | 'TB'): GraphLayout {
  if (direction !== undefined) return layoutWith(g, direction);
  const lr = layoutWith(g, 'LR');
  const tb = layoutWith(g, 'TB');
  const scaleOf = (l: GraphLayout): number => Math.min(1400 / l.width, 1000 / l.height);
  return scaleOf(tb) > scaleOf(lr) * 1.05 ? tb : lr;
}

function layoutWith(g: MachineGraph, topDir: 'LR' | 'TB'): GraphLayout {
  const index = nodeIndex(g);
  const anyState = g.edges.some((e) => e.source === g.root) ? `${g.root}::any` : null;
  /** The child of `parent` that contains `id` (or is the pseudo node), else undefined. */
  const childOf = (parent: string, id: string): string | undefined => {
    if (id === g.root) return parent === g.root && anyState !== null ? anyState : undefined;
    let cur: string | null = id;
    while (cur !== null) {
      const p: string | null = index.get(cur)?.parent ?? null;
      if (p === parent) return cur;
      cur = p;
    }
    return undefined;
  };
  const isDummy = (k: string): boolean => k.startsWith('~');
  const rel = new Map<string, { x: number; y: number; w: number; h: number }>();
  /** Dummy node ids per routed edge key (`<edge id>><target>`), from source side to target side. */
  const waypoints = new Map<string, { parent: string; dummies: string[] }>();
  const kidsOf = new Map<string, string[]>();

  const layoutChildren = (parentId: string, dir: 'LR' | 'TB'): Size => {
    const parent = index.get(parentId) as VizNode;
    const kids = [...parent.children];
    if (parentId === g.root && anyState !== null) kids.unshift(anyState);
    const sizes = new Map<string, Size>();
    const flip = dir === 'LR' ? 'TB' : 'LR';
    for (const k of kids) {
      if (k === anyState) {
        sizes.set(k, { w: 110, h: 32 });
        continue;
      }
      const n = index.get(k) as VizNode;
      if (n.children.length === 0) sizes.set(k, leafSize(n));
      else {
        const inner = layoutChildren(k, flip);
        sizes.set(k, {
          w: Math.max(inner.w + 2 * PAD, n.key.length * FONT.title + 2 * PAD + 30),
          h: inner.h + HEADER + PAD,
        });
      }
    }
    // lifted edges between children, in edge order
    const adj = new Map<string, string[]>(kids.map((k) => [k, []]));
    const lifted: { key: string; a: string; b: string }[] = [];
    for (const e of g.edges) {
      const a = childOf(parentId, e.source);
      if (a === undefined) continue;
      for (const t of e.targets) {
        const b = childOf(parentId, t);
        if (b === undefined || a === b) continue;
        lifted.push({ key: `${e.id}>${t}`, a, b });
        (adj.get(a) as string[]).push(b);
      }
    }
    // DFS from the pseudo node and the initial child (then the rest) to find back edges
    const init = kids.find((k) => k !== anyState && (index.get(k) as VizNode).initial);
    const roots = [
      ...(anyState !== null && kids.includes(anyState) ? [anyState] : []),
      ...(init ? [init] : []),
      ...kids,
    ];
    const seen = new Map<string, 1 | 2>();
    const back = new Set<string>();
    const post: string[] = [];
    const dfs = (v: string): void => {
      seen.set(v, 1);
      for (const w of adj.get(v) ?? []) {
        if (seen.get(w) === 1) back.add(`${v}>${w}`);
        else if (seen.get(w) === undefined) dfs(w);
      }
      seen.set(v, 2);
      post.push(v);
    };
    for (const r of roots) if (!seen.has(r)) dfs(r);
    const isFinal = (k: string): boolean => k !== anyState && (index.get(k) as VizNode).final;
    const rank = new Map<string, number>(kids.map((k) => [k, 0]));
    for (const v of [...post].reverse()) {
      for (const w of adj.get(v) ?? []) {
        if (back.has(`${v}>${w}`)) continue;
        rank.set(w, Math.max(rank.get(w) as number, (rank.get(v) as number) + 1));
      }
    }
    let maxRank = 0;
    for (const k of kids) if (!isFinal(k)) maxRank = Math.max(maxRank, rank.get(k) as number);
    if (kids.some(isFinal) && kids.some((k) => !isFinal(k)))
      for (const k of kids) if (isFinal(k)) rank.set(k, maxRank + 1);
    // dummy nodes for edges spanning more than one rank
    const links: [string, string][] = [];
    let dummyNo = 0;
    for (const l of lifted) {
      const ra = rank.get(l.a) as number;
      const rb = rank.get(l.b) as number;
      const step = rb > ra ? 1 : -1;
      const chain: string[] = [];
      if (Math.abs(rb - ra) > 1) {
        for (let r = ra + step; r !== rb; r += step) {
          const id = `~${parentId}~${dummyNo++}`;
          rank.set(id, r);
          sizes.set(id, dir === 'LR' ? { w: 0, h: 10 } : { w: 10, h: 0 });
          chain.push(id);
        }
      }
      waypoints.set(l.key, { parent: parentId, dummies: chain });
      const seq = [l.a, ...chain, l.b];
      for (let i = 0; i + 1 < seq.length; i++) links.push([seq[i] as string, seq[i + 1] as string]);
    }
    // group by rank (nodes in document order, then dummies), then barycenter sweeps
    const all = [...kids, ...[...rank.keys()].filter(isDummy)];
    const ranks: string[][] = [];
    for (const k of all) {
      const r = rank.get(k) as number;
      while (ranks.length <= r) ranks.push([]);
      (ranks[r] as string[]).push(k);
    }
    const nonEmpty = ranks.filter((r) => r.length > 0);
    const neighbours = new Map<string, string[]>(all.map((k) => [k, []]));
    for (const [a, b] of links) {
      (neighbours.get(a) as string[]).push(b);
      (neighbours.get(b) as string[]).push(a);
    }
    const pos = new Map<string, number>();
    for (const r of nonEmpty)
      r.forEach((k, i) => {
        pos.set(k, i);
      });
    for (let sweep = 0; sweep < 6; sweep++) {
      const order = sweep % 2 === 0 ? nonEmpty : [...nonEmpty].reverse();
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
    // place
    const along = (sz: Size): number => (dir === 'LR' ? sz.w : sz.h);
    const across = (sz: Size): number => (dir === 'LR' ? sz.h : sz.w);
    const gapBetween = (a: string, b: string): number => (isDummy(a) || isDummy(b) ? 12 : GAP_ORDER[dir]);
    const spanOf = (r: string[]): number =>
      r.reduce(
        (acc, k, i) => acc + across(sizes.get(k) as Size) + (i === 0 ? 0 : gapBetween(r[i - 1] as string, k)),
        0,
      );
    const rankExtent = nonEmpty.map((r) => Math.max(...r.map((k) => along(sizes.get(k) as Size))));
    const rankSpan = nonEmpty.map(spanOf);
    const totalAcross = Math.max(0, ...rankSpan);
    let cursor = 0;
    nonEmpty.forEach((r, ri) => {
      let c = (totalAcross - (rankSpan[ri] as number)) / 2;
      const ext = rankExtent[ri] as number;
      r.forEach((k, i) => {
        const sz = sizes.get(k) as Size;
        if (i > 0) c += gapBetween(r[i - 1] as string, k);
        const a = cursor + (ext - along(sz)) / 2;
        if (dir === 'LR') rel.set(k, { x: a, y: c, w: sz.w, h: sz.h });
        else rel.set(k, { x: c, y: a, w: sz.w, h: sz.h });
        c += across(sz);
      });
      cursor += ext + GAP_RANK[dir];
    });
    kidsOf.set(parentId, all);
    const totalAlong = Math.max(0, cursor - GAP_RANK[dir]);
    return dir === 'LR' ? { w: totalAlong, h: totalAcross } : { w: totalAcross, h: totalAlong };
  };

  const MARGIN = 36;
  const size = layoutChildren(g.root, topDir);
  // absolute positions
  const boxes = new Map<string, LayoutBox>();
  const dummyAt = new Map<string, { x: number; y: number }>();
  const place = (parentId: string, ox: number, oy: number): void => {
    for (const k of kidsOf.get(parentId) ?? []) {
      const r = rel.get(k) as { x: number; y: number; w: number; h: number };
      if (isDummy(k)) {
        dummyAt.set(k, { x: ox + r.x + r.w / 2, y: oy + r.y + r.h / 2 });
        continue;
      }
      boxes.set(k, { id: k, x: round(ox + r.x), y: round(oy + r.y), w: round(r.w), h: round(r.h) });
      if (k !== anyState && (index.get(k) as VizNode).children.length > 0)
        place(k, ox + r.x + PAD, oy + r.y + HEADER);
    }
  };
  place(g.root, MARGIN, MARGIN + 8);
  const width = round(size.w + 2 * MARGIN);
  const height = round(size.h + 2 * MARGIN + 8);

  // initial markers
  const initials: InitialMarker[] = [];
  for (const n of g.nodes) {
    if (!n.initial || n.parent === null) continue;
    const b = boxes.get(n.id) as LayoutBox;
    const parentDir = dirOf(index, g.root, n.parent, topDir);
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

  // edges
  const boxOf = (id: string): LayoutBox =>
    id === g.root && anyState !== null ? (boxes.get(anyState) as LayoutBox) : (boxes.get(id) as LayoutBox);
  const pairCount = new Map<string, number>();
  const pairSeen = new Map<string, number>();
  const pairKey = (a: string, b: string): string => (a < b ? `${a}|${b}` : `${b}|${a}`);
  const items: { e: VizEdge; t: string }[] = [];
  for (const e of g.edges)
    for (const t of e.targets.length === 0 ? [e.source] : e.targets) items.push({ e, t });
  for (const { e, t } of items)
    pairCount.set(pairKey(e.source, t), (pairCount.get(pairKey(e.source, t)) ?? 0) + 1);
  const placed: LayoutBox[] = [];
  const leafBoxes = [...boxes.values()].filter(
    (b) => b.id === anyState || (index.get(b.id) as VizNode).children.length === 0,
  );
  const headers = [...boxes.values()]
    .filter((b) => b.id !== anyState && (index.get(b.id) as VizNode).children.length > 0)
    .map((b) => ({ id: b.id, x: b.x, y: b.y, w: b.w, h: HEADER }));
  const edges: EdgeRoute[] = [];
  for (const { e, t } of items) {
    const key = pairKey(e.source, t);
    const k = pairSeen.get(key) ?? 0;
    pairSeen.set(key, k + 1);
    const n = pairCount.get(key) as number;
    const a = boxOf(e.source);
    const b = boxOf(t);
    const text = compactLabel(e, index.get(e.source));
    const via = (waypoints.get(`${e.id}>${t}`)?.dummies ?? []).map(
      (id) => dummyAt.get(id) as { x: number; y: number },
    );
    let d: string;
    let curve: (u: number) => { x: number; y: number };
    let candidates = [0.5, 0.38, 0.62, 0.28, 0.72, 0.18, 0.82, 0.45, 0.55];
    if (e.source === t) {
      const cx = a.x + a.w / 2 + (k - (n - 1) / 2) * 30;
      const top = a.y;
      const lift = 34 + k * 10;
      const p0 = { x: cx + 10, y: top };
      const p3 = { x: cx - 10, y: top };
      const c1 = { x: cx + 34, y: top - lift };
      const c2 = { x: cx - 34, y: top - lift };
      d = `M${f(p0.x)},${f(p0.y)} C${f(c1.x)},${f(c1.y)} ${f(c2.x)},${f(c2.y)} ${f(p3.x)},${f(p3.y)}`;
      curve = (u) => cubic(p0, c1, c2, p3, u);
    } else if (via.length > 0) {
      const p0 = clip(a, via[0] as { x: number; y: number });
      const pn = clip(b, via[via.length - 1] as { x: number; y: number });
      const pts = [p0, ...via, pn];
      d = smoothPath(pts);
      curve = (u) => alongPolyline(pts, u);
      candidates = [0.12, 0.2, 0.28, 0.36, 0.5, 0.64, 0.8];
    } else {
      const ca = centre(a);
      const cb = centre(b);
      const offset = (k - (n - 1) / 2) * 26 * (e.source < t ? 1 : -1);
      const dx = cb.x - ca.x;
      const dy = cb.y - ca.y;
      const len = Math.hypot(dx, dy) || 1;
      const nx = -dy / len;
      const ny = dx / len;
      const mid = { x: (ca.x + cb.x) / 2 + nx * offset * 2, y: (ca.y + cb.y) / 2 + ny * offset * 2 };
      const nested = contains(a, b) || contains(b, a);
      const p0 = nested ? ca : clip(a, mid);
      const p2 = nested ? cb : clip(b, mid);
      d = `M${f(p0.x)},${f(p0.y)} Q${f(mid.x)},${f(mid.y)} ${f(p2.x)},${f(p2.y)}`;
      curve = (u) => quad(p0, mid, p2, u);
    }
    if (text === '') {
      const p = curve(0.5);
      edges.push({
        edge: e.id,
        source: e.source,
        target: t,
        d,
        label: { id: e.id, x: round(p.x), y: round(p.y - LABEL_H / 2), w: 0, h: LABEL_H },
        text,
      });
      continue;
    }
    const lw = Math.ceil(text.length * FONT.label + 8);
    let best: LayoutBox | null = null;
    let bestHits = Number.POSITIVE_INFINITY;
    for (const u of candidates) {
      const p = curve(u);
      const box = { id: e.id, x: round(p.x - lw / 2), y: round(p.y - LABEL_H / 2), w: lw, h: LABEL_H };
      const hits =
        placed.filter((q) => overlaps(q, box)).length * 3 +
        leafBoxes.filter((q) => overlaps(q, box)).length * 2 +
        headers.filter((q) => overlaps(q, box)).length;
      if (hits < bestHits) {
        best = box;
        bestHits = hits;
      }
      if (hits === 0) break;
    }
    const label = best as LayoutBox;
    placed.push(label);
    edges.push({ edge: e.id, source: e.source, target: t, d, label, text });
  }
  // grow the canvas to hold labels and loops that stick out
  let minX = 0;
  let minY = 0;
  let maxX = width;
  let maxY = height;
  for (const r of edges) {
    if (r.text === '') continue;
    minX = Math.min(minX, r.label.x - 6);
    minY = Math.min(minY, r.label.y - 6);
    maxX = Math.max(maxX, r.label.x + r.label.w + 6);
    maxY = Math.max(maxY, r.label.y + r.label.h + 6);
  }
  return {
    minX: round(minX),
    minY: round(minY),
    width: round(maxX - minX),
    height: round(maxY - minY),
    direction: topDir,
    boxes,
    anyState,
    edges,
    initials,
  };
}

type Pt = { x: number; y: number };

/** A smooth SVG path through the points (Catmull-Rom converted to cubic Béziers). */
function smoothPath(pts: readonly Pt[]): string {
  const p = (i: number): Pt => pts[Math.max(0, Math.min(pts.length - 1, i))] as Pt;
  let d = `M${f(p(0).x)},${f(p(0).y)}`;
  for (let i = 0; i + 1 < pts.length; i++) {
    const p0 = p(i - 1);
    const p1 = p(i);
    const p2 = p(i + 1);
    const p3 = p(i + 2);
    const c1 = { x: p1.x + (p2.x - p0.x) / 6, y: p1.y + (p2.y - p0.y) / 6 };
    const c2 = { x: p2.x - (p3.x - p1.x) / 6, y: p2.y - (p3.y - p1.y) / 6 };
    d += ` C${f(c1.x)},${f(c1.y)} ${f(c2.x)},${f(c2.y)} ${f(p2.x)},${f(p2.y)}`;
  }
  return d;
}

/** The point at fraction `u` of a polyline's length. */
function alongPolyline(pts: readonly Pt[], u: number): Pt {
  const segs: number[] = [];
  let total = 0;
  for (let i = 0; i + 1 < pts.length; i++) {
    const l = Math.hypot((pts[i + 1] as Pt).x - (pts[i] as Pt).x, (pts[i + 1] as Pt).y - (pts[i] as Pt).y);
    segs.push(l);
    total += l;
  }
  let left = u * total;
  for (let i = 0; i < segs.length; i++) {
    const l = segs[i] as number;
    if (left <= l || i === segs.length - 1) {
      const t = l === 0 ? 0 : Math.min(1, left / l);
      const a = pts[i] as Pt;
      const b = pts[i + 1] as Pt;
      return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t };
    }
    left -= l;
  }
  return pts[0] as Pt;
}

function dirOf(
  index: ReadonlyMap<string, VizNode>,
  root: string,
  parent: string,
  top: 'LR' | 'TB',
): 'LR' | 'TB' {
  let depth = 0;
  for (let c: string | null = parent; c !== null && c !== root; c = index.get(c)?.parent ?? null) depth++;
  return depth % 2 === 0 ? top : top === 'LR' ? 'TB' : 'LR';
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

function f(x: number): string {
  return String(round(x));
}

function centre(b: LayoutBox): { x: number; y: number } {
  return { x: b.x + b.w / 2, y: b.y + b.h / 2 };
}

function contains(outer: LayoutBox, inner: LayoutBox): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.w <= outer.x + outer.w &&
    inner.y + inner.h <= outer.y + outer.h
  );
}

function overlaps(a: LayoutBox, b: LayoutBox): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** The point where the segment from the box centre towards `p` leaves the box. */
function clip(b: LayoutBox, p: { x: number; y: number }): { x: number; y: number } {
  const c = centre(b);
  const dx = p.x - c.x;
  const dy = p.y - c.y;
  if (dx === 0 && dy === 0) return c;
  const sx = dx === 0 ? Number.POSITIVE_INFINITY : b.w / 2 / Math.abs(dx);
  const sy = dy === 0 ? Number.POSITIVE_INFINITY : b.h / 2 / Math.abs(dy);
  const s = Math.min(sx, sy);
  return { x: c.x + dx * s, y: c.y + dy * s };
}

function quad(
  p0: { x: number; y: number },
  c: { x: number; y: number },
  p2: { x: number; y: number },
  u: number,
) {
  const v = 1 - u;
  return {
    x: v * v * p0.x + 2 * v * u * c.x + u * u * p2.x,
    y: v * v * p0.y + 2 * v * u * c.y + u * u * p2.y,
  };
}

function cubic(
  p0: { x: number; y: number },
  c1: { x: number; y: number },
  c2: { x: number; y: number },
  p3: { x: number; y: number },
  u: number,
) {
  const v = 1 - u;
  return {
    x: v * v * v * p0.x + 3 * v * v * u * c1.x + 3 * v * u * u * c2.x + u * u * u * p3.x,
    y: v * v * v * p0.y + 3 * v * v * u * c1.y + 3 * v * u * u * c2.y + u * u * u * p3.y,
  };
}
