/**
 * Bounds of the SVG drawing (pure): the canvas around the top-level content with a margin, grown
 * to hold edge labels and loops that stick out of it.
 */
import { round } from './geometry.js';
import { flattenPath } from './layout-check.js';
import type { EdgeRoute, ErrorLane, Pt, Size } from './layout-types.js';

/** Margin around the top-level content. */
export const MARGIN = 36;

/** Where the top-level content starts (the margin, plus 8 px more on top). */
export const CONTENT_ORIGIN: Pt = { x: MARGIN, y: MARGIN + 8 };

/** The drawing's box: origin (≤ 0 when labels stick out) and size. */
export interface DrawingBounds {
  readonly minX: number;
  readonly minY: number;
  readonly width: number;
  readonly height: number;
}

/**
 * The canvas around content of `size`: the margin on every side, 8 px more on top.
 *
 * @example
 * ```ts
 * canvasSize({ w: 100, h: 50 }); // { w: 172, h: 130 }
 * ```
 */
export function canvasSize(size: Size): Size {
  return { w: round(size.w + 2 * MARGIN), h: round(size.h + 2 * MARGIN + 8) };
}

/**
 * The canvas grown to hold every non-empty edge label, every route's points, the error lane and
 * its badges, with 6 px to spare.
 *
 * @example
 * ```ts
 * drawingBounds({ w: 172, h: 130 }, [{ text: 'GO', label: { id: 'e', x: -10, y: 10, w: 20, h: 14 }, … }]);
 * // { minX: -16, minY: 0, width: 188, height: 130 }
 * ```
 */
export function drawingBounds(
  canvas: Size,
  edges: readonly EdgeRoute[],
  lane: ErrorLane | null = null,
): DrawingBounds {
  let minX = 0;
  let minY = 0;
  let maxX = canvas.w;
  let maxY = canvas.h;
  for (const r of edges) {
    if (r.text === '') continue;
    minX = Math.min(minX, r.label.x - 6);
    minY = Math.min(minY, r.label.y - 6);
    maxX = Math.max(maxX, r.label.x + r.label.w + 6);
    maxY = Math.max(maxY, r.label.y + r.label.h + 6);
  }
  const grow = (p: Pt, m: number): void => {
    minX = Math.min(minX, p.x - m);
    minY = Math.min(minY, p.y - m);
    maxX = Math.max(maxX, p.x + m);
    maxY = Math.max(maxY, p.y + m);
  };
  for (const r of edges) for (const line of flattenPath(r.d)) for (const p of line) grow(p, 8);
  for (const s of lane?.sinks ?? []) for (const line of flattenPath(s.d)) for (const p of line) grow(p, 12);
  for (const b of lane?.badges ?? []) grow({ x: b.box.x + b.box.w, y: b.box.y + b.box.h }, 6);
  return { minX: round(minX), minY: round(minY), width: round(maxX - minX), height: round(maxY - minY) };
}
