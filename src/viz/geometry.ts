/**
 * The plane geometry of the SVG layout (pure): rounding to 0.1 px, box centres, containment and
 * overlap, clipping a ray at a box border, points on quadratic and cubic Béziers and on a
 * polyline, and a smooth path through points.
 */
import type { LayoutBox, Pt } from './layout-types.js';

/**
 * Rounds to 0.1 px (every coordinate the layout emits is rounded this way).
 *
 * @example
 * ```ts
 * round(12.345); // 12.3
 * ```
 */
export function round(x: number): number {
  return Math.round(x * 10) / 10;
}

/**
 * A coordinate as it is written into SVG path data: {@link round}ed, then `String`.
 *
 * @example
 * ```ts
 * fmt(1 / 3); // '0.3'
 * ```
 */
export function fmt(x: number): string {
  return String(round(x));
}

/**
 * The centre of a box.
 *
 * @example
 * ```ts
 * centre({ id: 'a', x: 0, y: 10, w: 40, h: 20 }); // { x: 20, y: 20 }
 * ```
 */
export function centre(b: LayoutBox): Pt {
  return { x: b.x + b.w / 2, y: b.y + b.h / 2 };
}

/**
 * True when `inner` lies entirely inside `outer` (borders may touch).
 *
 * @example
 * ```ts
 * contains({ id: 'p', x: 0, y: 0, w: 100, h: 100 }, { id: 'c', x: 10, y: 10, w: 20, h: 20 }); // true
 * ```
 */
export function contains(outer: LayoutBox, inner: LayoutBox): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.w <= outer.x + outer.w &&
    inner.y + inner.h <= outer.y + outer.h
  );
}

/**
 * True when two boxes share interior area (touching borders do not overlap).
 *
 * @example
 * ```ts
 * overlaps({ id: 'a', x: 0, y: 0, w: 10, h: 10 }, { id: 'b', x: 10, y: 0, w: 10, h: 10 }); // false
 * ```
 */
export function overlaps(a: LayoutBox, b: LayoutBox): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/**
 * The point where the segment from the box centre towards `p` leaves the box (the centre itself
 * when `p` is the centre).
 *
 * @example
 * ```ts
 * clip({ id: 'a', x: 0, y: 0, w: 20, h: 10 }, { x: 100, y: 5 }); // { x: 20, y: 5 }
 * ```
 */
export function clip(b: LayoutBox, p: Pt): Pt {
  const c = centre(b);
  const dx = p.x - c.x;
  const dy = p.y - c.y;
  if (dx === 0 && dy === 0) return c;
  const sx = dx === 0 ? Number.POSITIVE_INFINITY : b.w / 2 / Math.abs(dx);
  const sy = dy === 0 ? Number.POSITIVE_INFINITY : b.h / 2 / Math.abs(dy);
  const s = Math.min(sx, sy);
  return { x: c.x + dx * s, y: c.y + dy * s };
}

/**
 * The point at parameter `u` (0…1) of the quadratic Bézier `p0`, `c`, `p2`.
 *
 * @example
 * ```ts
 * quad({ x: 0, y: 0 }, { x: 10, y: 20 }, { x: 20, y: 0 }, 0.5); // { x: 10, y: 10 }
 * ```
 */
export function quad(p0: Pt, c: Pt, p2: Pt, u: number): Pt {
  const v = 1 - u;
  return {
    x: v * v * p0.x + 2 * v * u * c.x + u * u * p2.x,
    y: v * v * p0.y + 2 * v * u * c.y + u * u * p2.y,
  };
}

/**
 * The point at parameter `u` (0…1) of the cubic Bézier `p0`, `c1`, `c2`, `p3`.
 *
 * @example
 * ```ts
 * cubic({ x: 0, y: 0 }, { x: 0, y: 8 }, { x: 8, y: 8 }, { x: 8, y: 0 }, 0.5); // { x: 4, y: 6 }
 * ```
 */
export function cubic(p0: Pt, c1: Pt, c2: Pt, p3: Pt, u: number): Pt {
  const v = 1 - u;
  return {
    x: v * v * v * p0.x + 3 * v * v * u * c1.x + 3 * v * u * u * c2.x + u * u * u * p3.x,
    y: v * v * v * p0.y + 3 * v * v * u * c1.y + 3 * v * u * u * c2.y + u * u * u * p3.y,
  };
}

/**
 * A smooth SVG path through the points (Catmull-Rom converted to cubic Béziers); the path passes
 * through every point.
 *
 * @example
 * ```ts
 * smoothPath([{ x: 0, y: 0 }, { x: 6, y: 0 }]); // 'M0,0 C1,0 5,0 6,0'
 * ```
 */
export function smoothPath(pts: readonly Pt[]): string {
  const p = (i: number): Pt => pts[Math.max(0, Math.min(pts.length - 1, i))] as Pt;
  let d = `M${fmt(p(0).x)},${fmt(p(0).y)}`;
  for (let i = 0; i + 1 < pts.length; i++) {
    const p0 = p(i - 1);
    const p1 = p(i);
    const p2 = p(i + 1);
    const p3 = p(i + 2);
    const c1 = { x: p1.x + (p2.x - p0.x) / 6, y: p1.y + (p2.y - p0.y) / 6 };
    const c2 = { x: p2.x - (p3.x - p1.x) / 6, y: p2.y - (p3.y - p1.y) / 6 };
    d += ` C${fmt(c1.x)},${fmt(c1.y)} ${fmt(c2.x)},${fmt(c2.y)} ${fmt(p2.x)},${fmt(p2.y)}`;
  }
  return d;
}

/**
 * The point at fraction `u` (0…1) of a polyline's length.
 *
 * @example
 * ```ts
 * alongPolyline([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 10 }], 0.75); // { x: 10, y: 5 }
 * ```
 */
export function alongPolyline(pts: readonly Pt[], u: number): Pt {
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
