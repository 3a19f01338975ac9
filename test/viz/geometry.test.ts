/** The layout's plane geometry: rounding, boxes, clipping, Bézier and polyline points, smooth paths. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  alongPolyline,
  centre,
  clip,
  contains,
  cubic,
  fmt,
  overlaps,
  quad,
  round,
  smoothPath,
} from '../../src/viz/geometry.js';

const box = (x: number, y: number, w: number, h: number) => ({ id: 'b', x, y, w, h });

describe('rounding', () => {
  it('rounds to 0.1 px and prints the rounded value', () => {
    expect(round(12.345)).toBe(12.3);
    expect(round(-0.26)).toBe(-0.3);
    expect(fmt(1 / 3)).toBe('0.3');
    expect(fmt(96.00000000000001)).toBe('96');
  });
});

describe('boxes', () => {
  it('centre, containment (borders may touch) and overlap (touching borders do not)', () => {
    expect(centre(box(0, 10, 40, 20))).toEqual({ x: 20, y: 20 });
    expect(contains(box(0, 0, 100, 100), box(10, 10, 20, 20))).toBe(true);
    expect(contains(box(0, 0, 100, 100), box(0, 0, 100, 100))).toBe(true);
    expect(contains(box(0, 0, 100, 100), box(90, 10, 20, 20))).toBe(false);
    expect(overlaps(box(0, 0, 10, 10), box(10, 0, 10, 10))).toBe(false);
    expect(overlaps(box(0, 0, 10, 10), box(9, 9, 10, 10))).toBe(true);
  });

  it('clip finds the border point towards p, the centre for p at the centre', () => {
    expect(clip(box(0, 0, 20, 10), { x: 100, y: 5 })).toEqual({ x: 20, y: 5 });
    expect(clip(box(0, 0, 20, 10), { x: 10, y: -50 })).toEqual({ x: 10, y: 0 });
    expect(clip(box(0, 0, 20, 10), { x: 10, y: 5 })).toEqual({ x: 10, y: 5 });
  });

  it('a clipped point lies on the border of its box (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -500, max: 500 }),
        fc.integer({ min: -500, max: 500 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: -1000, max: 1000 }),
        (x, y, w, h, px, py) => {
          const b = box(x, y, w, h);
          const c = centre(b);
          fc.pre(px !== c.x || py !== c.y);
          const p = clip(b, { x: px, y: py });
          const eps = 1e-9;
          const onX = Math.abs(p.x - x) < eps || Math.abs(p.x - (x + w)) < eps;
          const onY = Math.abs(p.y - y) < eps || Math.abs(p.y - (y + h)) < eps;
          expect(onX || onY).toBe(true);
          expect(p.x >= x - eps && p.x <= x + w + eps && p.y >= y - eps && p.y <= y + h + eps).toBe(true);
        },
      ),
    );
  });
});

describe('curves', () => {
  it('quadratic and cubic Bézier points at their ends and middle', () => {
    const [p0, c, p2] = [
      { x: 0, y: 0 },
      { x: 10, y: 20 },
      { x: 20, y: 0 },
    ];
    expect(quad(p0, c, p2, 0)).toEqual(p0);
    expect(quad(p0, c, p2, 1)).toEqual(p2);
    expect(quad(p0, c, p2, 0.5)).toEqual({ x: 10, y: 10 });
    const q = [
      { x: 0, y: 0 },
      { x: 0, y: 8 },
      { x: 8, y: 8 },
      { x: 8, y: 0 },
    ] as const;
    expect(cubic(q[0], q[1], q[2], q[3], 0)).toEqual(q[0]);
    expect(cubic(q[0], q[1], q[2], q[3], 1)).toEqual(q[3]);
    expect(cubic(q[0], q[1], q[2], q[3], 0.5)).toEqual({ x: 4, y: 6 });
  });

  it('alongPolyline measures by length, clamps past the end', () => {
    const pts = [
      { x: 0, y: 0 },
      { x: 10, y: 0 },
      { x: 10, y: 10 },
    ];
    expect(alongPolyline(pts, 0)).toEqual({ x: 0, y: 0 });
    expect(alongPolyline(pts, 0.25)).toEqual({ x: 5, y: 0 });
    expect(alongPolyline(pts, 0.75)).toEqual({ x: 10, y: 5 });
    expect(alongPolyline(pts, 1)).toEqual({ x: 10, y: 10 });
    expect(alongPolyline(pts, 2)).toEqual({ x: 10, y: 10 });
    expect(alongPolyline([{ x: 3, y: 4 }], 0.5)).toEqual({ x: 3, y: 4 });
  });

  it('smoothPath passes through every point with one cubic per segment', () => {
    expect(
      smoothPath([
        { x: 0, y: 0 },
        { x: 6, y: 0 },
      ]),
    ).toBe('M0,0 C1,0 5,0 6,0');
    const d = smoothPath([
      { x: 96, y: 16 },
      { x: 200, y: 16 },
      { x: 288, y: 16 },
    ]);
    expect(d).toBe('M96,16 C113.3,16 168,16 200,16 C232,16 273.3,16 288,16');
  });
});
