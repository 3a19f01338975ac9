/**
 * Orthogonal routing around boxes (pure): a shortest path with few bends on the grid of lines
 * through the obstacles' borders (kept {@link CLEARANCE} px away), the ports next to the end
 * boxes and the middles of the channels between them. Used for edges whose plain curve would
 * cross a box, and for error/stop edges on their way to the error lane. Deterministic: ties go
 * to the state queued first.
 */
import { fmt } from './geometry.js';
import type { LayoutBox, Pt } from './layout-types.js';

/** Distance kept between a routed path and an obstacle. */
export const CLEARANCE = 8;
/** Extra cost of one bend, in px of length. */
export const BEND_COST = 40;
/** Radius of the rounded corners of a drawn orthogonal path. */
export const CORNER = 6;

/** Extra cost per px of running along a segment an earlier route already uses. */
export const SHARED_COST = 1.5;
/** Spacing of the extra grid lines around everything (for routes that go round the outside). */
export const OUTER_STEP = 14;

/**
 * Grid segments earlier routes use, by {@link segmentKey}, with their end coordinates
 * `[x1, y1, x2, y2]`; later routes avoid sharing them.
 */
export type SegmentUse = Map<string, readonly [number, number, number, number]>;

/**
 * The key of the segment between two points, the same either way round.
 *
 * @example
 * ```ts
 * segmentKey({ x: 0, y: 0 }, { x: 10, y: 0 }) === segmentKey({ x: 10, y: 0 }, { x: 0, y: 0 }); // true
 * ```
 */
export function segmentKey(a: Pt, b: Pt): string {
  const [p, q] = a.x < b.x || (a.x === b.x && a.y < b.y) ? [a, b] : [b, a];
  return `${p.x},${p.y},${q.x},${q.y}`;
}

/**
 * Records the grid segments of a route's points (consecutive grid points of one straight run
 * are split at every grid line of `xs` × `ys` that the run passes).
 *
 * @example
 * ```ts
 * useSegments(used, [{ x: 0, y: 0 }, { x: 20, y: 0 }], [0, 10, 20], [0]); // sets '0,0,10,0' and '10,0,20,0'
 * ```
 */
export function useSegments(
  used: SegmentUse,
  pts: readonly Pt[],
  xs: readonly number[],
  ys: readonly number[],
): void {
  for (let k = 0; k + 1 < pts.length; k++) {
    const a = pts[k] as Pt;
    const b = pts[k + 1] as Pt;
    if (a.y === b.y) {
      const cut = [a.x, b.x, ...xs.filter((x) => x > Math.min(a.x, b.x) && x < Math.max(a.x, b.x))].sort(
        (u, v) => u - v,
      );
      for (let i = 0; i + 1 < cut.length; i++)
        addUse(used, { x: cut[i] as number, y: a.y }, { x: cut[i + 1] as number, y: a.y });
    } else if (a.x === b.x) {
      const cut = [a.y, b.y, ...ys.filter((y) => y > Math.min(a.y, b.y) && y < Math.max(a.y, b.y))].sort(
        (u, v) => u - v,
      );
      for (let i = 0; i + 1 < cut.length; i++)
        addUse(used, { x: a.x, y: cut[i] as number }, { x: a.x, y: cut[i + 1] as number });
    }
  }
}

function addUse(used: SegmentUse, a: Pt, b: Pt): void {
  const [p, q] = a.x < b.x || (a.x === b.x && a.y < b.y) ? [a, b] : [b, a];
  used.set(segmentKey(p, q), [p.x, p.y, q.x, q.y]);
}

/** Unit directions: right, down, left, up. */
const DIRS: readonly Pt[] = [
  { x: 1, y: 0 },
  { x: 0, y: 1 },
  { x: -1, y: 0 },
  { x: 0, y: -1 },
];

/** A port: the border point of an end box, the grid point {@link CLEARANCE} px out, its direction. */
export interface Port {
  readonly border: Pt;
  readonly out: Pt;
  /** Index into right, down, left, up: the direction leaving the box. */
  readonly dir: number;
}

/**
 * The four side-middle ports of a box (right, bottom, left, top).
 *
 * @example
 * ```ts
 * boxPorts({ id: 'a', x: 0, y: 0, w: 100, h: 20 })[0]; // { border: { x: 100, y: 10 }, out: { x: 108, y: 10 }, dir: 0 }
 * ```
 */
export function boxPorts(b: LayoutBox): Port[] {
  const cx = b.x + b.w / 2;
  const cy = b.y + b.h / 2;
  const borders: Pt[] = [
    { x: b.x + b.w, y: cy },
    { x: cx, y: b.y + b.h },
    { x: b.x, y: cy },
    { x: cx, y: b.y },
  ];
  return borders.map((p, dir) => {
    const d = DIRS[dir] as Pt;
    return { border: p, out: { x: p.x + d.x * CLEARANCE, y: p.y + d.y * CLEARANCE }, dir };
  });
}

/**
 * True when `p` lies strictly inside box `b` grown by `m` on every side.
 *
 * @example
 * ```ts
 * insideGrown({ id: 'a', x: 0, y: 0, w: 10, h: 10 }, { x: 12, y: 5 }, 3); // true
 * ```
 */
export function insideGrown(b: LayoutBox, p: Pt, m: number): boolean {
  return p.x > b.x - m && p.x < b.x + b.w + m && p.y > b.y - m && p.y < b.y + b.h + m;
}

/** A goal of {@link orthoRoute}: ports of the target box, or any point on the vertical line `x`. */
export type OrthoGoal = { readonly ports: readonly Port[] } | { readonly laneX: number };

/** A sorted, de-duplicated coordinate list with the middles of its gaps added. */
function axis(values: readonly number[]): number[] {
  const base = [...new Set(values.map((v) => Math.round(v * 10) / 10))].sort((a, b) => a - b);
  const out: number[] = [];
  base.forEach((v, i) => {
    if (i > 0) out.push(((base[i - 1] as number) + v) / 2);
    out.push(v);
  });
  return out;
}

/** A binary min-heap of [cost, sequence, state]. */
class Heap {
  private readonly a: [number, number, number][] = [];
  get size(): number {
    return this.a.length;
  }
  push(item: [number, number, number]): void {
    const a = this.a;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (less(a[p] as [number, number, number], item)) break;
      a[i] = a[p] as [number, number, number];
      i = p;
    }
    a[i] = item;
  }
  pop(): [number, number, number] {
    const a = this.a;
    const top = a[0] as [number, number, number];
    const last = a.pop() as [number, number, number];
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c =
          r < a.length && less(a[r] as [number, number, number], a[l] as [number, number, number]) ? r : l;
        if (less(last, a[c] as [number, number, number])) break;
        a[i] = a[c] as [number, number, number];
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

function less(p: readonly [number, number, number], q: readonly [number, number, number]): boolean {
  return p[0] < q[0] || (p[0] === q[0] && p[1] < q[1]);
}

/**
 * The cheapest orthogonal polyline (length plus {@link BEND_COST} per bend) from one of the
 * `from` ports to the goal that never enters an obstacle grown by {@link CLEARANCE}; it starts at
 * the port's border point and ends at the goal port's border point (or on the lane line). Null
 * when there is none.
 *
 * @example
 * ```ts
 * orthoRoute(boxPorts(a), { ports: boxPorts(b) }, [wall]); // [{ x: 100, y: 10 }, …, { x: 200, y: 10 }]
 * ```
 */
export function orthoRoute(
  from: readonly Port[],
  goal: OrthoGoal,
  all: readonly LayoutBox[],
  used: SegmentUse = new Map(),
): Pt[] | null {
  const obstacles = outermost(all);
  const m = CLEARANCE - 0.01;
  const freeAt = (x: number, y: number): boolean => {
    for (const b of obstacles)
      if (x > b.x - m && x < b.x + b.w + m && y > b.y - m && y < b.y + b.h + m) return false;
    return true;
  };
  const isFree = (p: Pt): boolean => freeAt(p.x, p.y);
  const starts = from.filter((p) => isFree(p.out));
  const goals = 'ports' in goal ? goal.ports.filter((p) => isFree(p.out)) : [];
  if (starts.length === 0 || ('ports' in goal && goals.length === 0)) return null;
  const xv: number[] = [];
  const yv: number[] = [];
  for (const b of obstacles) {
    xv.push(b.x - CLEARANCE, b.x + b.w + CLEARANCE);
    yv.push(b.y - CLEARANCE, b.y + b.h + CLEARANCE);
  }
  for (const p of [...starts, ...goals]) {
    xv.push(p.out.x);
    yv.push(p.out.y);
  }
  const lo = Math.min(...xv, ...yv) - 40;
  const hi = Math.max(...xv, ...yv) + 40;
  for (const k of [0, 1, 2]) {
    xv.push(lo - k * OUTER_STEP, hi + k * OUTER_STEP);
    yv.push(lo - k * OUTER_STEP, hi + k * OUTER_STEP);
  }
  if ('laneX' in goal) xv.push(goal.laneX);
  const xs = axis(xv);
  const ys = axis(yv);
  const nx = xs.length;
  const ny = ys.length;
  const at = (i: number, j: number): Pt => ({ x: xs[i] as number, y: ys[j] as number });
  const free = new Int8Array(nx * ny).fill(-1);
  const nodeFree = (i: number, j: number): boolean => {
    const k = j * nx + i;
    if (free[k] === -1) free[k] = freeAt(xs[i] as number, ys[j] as number) ? 1 : 0;
    return free[k] === 1;
  };
  // steps to the right (h) and down (v) from each node: -1 unknown, 0 blocked, 1 free, 2 free but shared
  const stepH = new Int8Array(nx * ny).fill(-1);
  const stepV = new Int8Array(nx * ny).fill(-1);
  const xIndex = new Map(xs.map((x, i) => [x, i]));
  const yIndex = new Map(ys.map((y, j) => [y, j]));
  for (const [x1, y1, x2, y2] of used.values()) {
    const i1 = xIndex.get(x1);
    const j1 = yIndex.get(y1);
    const i2 = xIndex.get(x2);
    const j2 = yIndex.get(y2);
    if (i1 === undefined || j1 === undefined || i2 === undefined || j2 === undefined) continue;
    if (j1 === j2 && i2 === i1 + 1) stepH[j1 * nx + i1] = 3;
    if (i1 === i2 && j2 === j1 + 1) stepV[j1 * nx + i1] = 3;
  }
  /** 0 blocked, 1 free, 2 free but used by an earlier route. */
  const step = (i: number, j: number, i2: number, j2: number): number => {
    const h = j === j2;
    const a = h ? j * nx + Math.min(i, i2) : Math.min(j, j2) * nx + i;
    const arr = h ? stepH : stepV;
    const v = arr[a] as number;
    if (v === 0 || v === 1 || v === 2) return v;
    const ok =
      nodeFree(i2, j2) &&
      freeAt(((xs[i] as number) + (xs[i2] as number)) / 2, ((ys[j] as number) + (ys[j2] as number)) / 2);
    const r = ok ? (v === 3 ? 2 : 1) : 0;
    arr[a] = r;
    return r;
  };
  const ix = (x: number): number => xs.indexOf(Math.round(x * 10) / 10);
  const iy = (y: number): number => ys.indexOf(Math.round(y * 10) / 10);
  const goalDir = new Map<number, number>();
  for (const p of goals) goalDir.set(iy(p.out.y) * nx + ix(p.out.x), (p.dir + 2) % 4);
  const laneI = 'laneX' in goal ? ix(goal.laneX) : -1;
  const hx = (i: number, j: number): number => {
    if (laneI >= 0) return Math.abs((xs[laneI] as number) - (xs[i] as number));
    let best = Number.POSITIVE_INFINITY;
    for (const p of goals)
      best = Math.min(best, Math.abs(p.out.x - (xs[i] as number)) + Math.abs(p.out.y - (ys[j] as number)));
    return best;
  };
  const dist = new Float64Array(nx * ny * 4).fill(Number.POSITIVE_INFINITY);
  const prev = new Int32Array(nx * ny * 4).fill(-1);
  const startOf = new Map<number, Port>();
  const heap = new Heap();
  let seq = 0;
  for (const p of starts) {
    const s = (iy(p.out.y) * nx + ix(p.out.x)) * 4 + p.dir;
    if (dist[s] === 0) continue;
    dist[s] = 0;
    startOf.set(s, p);
    heap.push([hx(ix(p.out.x), iy(p.out.y)), seq++, s]);
  }
  let end = -1;
  while (heap.size > 0) {
    const [f, , s] = heap.pop();
    const d = dist[s] as number;
    const node = s >> 2;
    const dir = s & 3;
    const i = node % nx;
    const j = (node - i) / nx;
    if (f > d + hx(i, j) + 1e-9) continue;
    if (laneI >= 0 ? i === laneI : goalDir.has(node) && goalDir.get(node) === dir) {
      end = s;
      break;
    }
    if (laneI < 0 && goalDir.has(node) && goalDir.get(node) !== dir) {
      const t = node * 4 + (goalDir.get(node) as number);
      const nd = d + BEND_COST;
      if (nd < (dist[t] as number)) {
        dist[t] = nd;
        prev[t] = s;
        heap.push([nd + hx(i, j), seq++, t]);
      }
    }
    for (let nd = 0; nd < 4; nd++) {
      if (nd === (dir + 2) % 4) continue;
      const dv = DIRS[nd] as Pt;
      const i2 = i + dv.x;
      const j2 = j + dv.y;
      if (i2 < 0 || j2 < 0 || i2 >= nx || j2 >= ny) continue;
      const free2 = step(i, j, i2, j2);
      if (free2 === 0) continue;
      const len =
        Math.abs((xs[i2] as number) - (xs[i] as number)) + Math.abs((ys[j2] as number) - (ys[j] as number));
      const shared = free2 === 2 ? len * SHARED_COST : 0;
      const cost = d + len + shared + (nd === dir ? 0 : BEND_COST);
      const t = (j2 * nx + i2) * 4 + nd;
      if (cost < (dist[t] as number)) {
        dist[t] = cost;
        prev[t] = s;
        heap.push([cost + hx(i2, j2), seq++, t]);
      }
    }
  }
  if (end < 0) return null;
  const pts: Pt[] = [];
  let s = end;
  while (s >= 0) {
    const node = s >> 2;
    const i = node % nx;
    const p = at(i, (node - i) / nx);
    const last = pts[pts.length - 1];
    if (last === undefined || last.x !== p.x || last.y !== p.y) pts.push(p);
    if (prev[s] === -1) break;
    s = prev[s] as number;
  }
  pts.reverse();
  useSegments(used, pts, xs, ys);
  const start = startOf.get(s) as Port;
  const out = [start.border, ...pts];
  if (laneI < 0) {
    const last = pts[pts.length - 1] as Pt;
    const g = goals.find((p) => p.out.x === last.x && p.out.y === last.y) as Port;
    out.push(g.border);
  }
  return simplify(out);
}

/**
 * The boxes not inside another of the boxes (nested obstacles add nothing to the blocked area).
 *
 * @example
 * ```ts
 * outermost([parent, childOfParent, other]); // [parent, other]
 * ```
 */
export function outermost(boxes: readonly LayoutBox[]): LayoutBox[] {
  return boxes.filter(
    (b) =>
      !boxes.some(
        (o) => o !== b && o.x <= b.x && o.y <= b.y && o.x + o.w >= b.x + b.w && o.y + o.h >= b.y + b.h,
      ),
  );
}

/**
 * Drops repeated points and the middle points of straight runs.
 *
 * @example
 * ```ts
 * simplify([{ x: 0, y: 0 }, { x: 5, y: 0 }, { x: 10, y: 0 }]); // [{ x: 0, y: 0 }, { x: 10, y: 0 }]
 * ```
 */
export function simplify(pts: readonly Pt[]): Pt[] {
  const out: Pt[] = [];
  for (const p of pts) {
    const last = out[out.length - 1];
    if (last !== undefined && last.x === p.x && last.y === p.y) continue;
    const before = out[out.length - 2];
    if (
      before !== undefined &&
      last !== undefined &&
      ((before.x === last.x && last.x === p.x) || (before.y === last.y && last.y === p.y))
    )
      out.pop();
    out.push(p);
  }
  return out;
}

/**
 * SVG path data of a polyline with corners rounded by up to {@link CORNER} px (quadratic).
 *
 * @example
 * ```ts
 * roundedPath([{ x: 0, y: 0 }, { x: 20, y: 0 }, { x: 20, y: 20 }]); // 'M0,0 L14,0 Q20,0 20,6 L20,20'
 * ```
 */
export function roundedPath(pts: readonly Pt[]): string {
  const p0 = pts[0] as Pt;
  let d = `M${fmt(p0.x)},${fmt(p0.y)}`;
  for (let i = 1; i < pts.length; i++) {
    const p = pts[i] as Pt;
    const next = pts[i + 1];
    if (next === undefined) {
      d += ` L${fmt(p.x)},${fmt(p.y)}`;
      break;
    }
    const q = pts[i - 1] as Pt;
    const r = Math.min(
      CORNER,
      Math.hypot(p.x - q.x, p.y - q.y) / 2,
      Math.hypot(next.x - p.x, next.y - p.y) / 2,
    );
    const a = towards(p, q, r);
    const b = towards(p, next, r);
    d += ` L${fmt(a.x)},${fmt(a.y)} Q${fmt(p.x)},${fmt(p.y)} ${fmt(b.x)},${fmt(b.y)}`;
  }
  return d;
}

function towards(p: Pt, q: Pt, r: number): Pt {
  const l = Math.hypot(q.x - p.x, q.y - p.y) || 1;
  return { x: p.x + ((q.x - p.x) / l) * r, y: p.y + ((q.y - p.y) / l) * r };
}
