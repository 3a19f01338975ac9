/**
 * Coordinate assignment of the SVG layout (pure): ranks are stacked along the compound's
 * direction (each rank as deep as its largest box, boxes centred in it), the boxes of a rank side
 * by side across it (the rank centred on the widest one); then the relative boxes of every
 * compound are resolved to absolute boxes from the outermost compound in.
 */
import { round } from './geometry.js';
import { isDummy } from './layout-rank.js';
import { HEADER, PAD } from './layout-size.js';
import type { LayoutBox, LayoutDirection, Pt, RelativeBox, Size } from './layout-types.js';

/** Space between two ranks. */
export const GAP_RANK: Readonly<Record<LayoutDirection, number>> = { LR: 96, TB: 64 };
/** Space between two boxes of one rank. */
export const GAP_ORDER: Readonly<Record<LayoutDirection, number>> = { LR: 26, TB: 40 };
/** Space beside a dummy node within a rank. */
export const GAP_DUMMY = 12;

/**
 * Positions of ordered ranks inside one compound (relative to its content origin) and the size
 * they take.
 *
 * @example
 * ```ts
 * const p = placeRanks([['a'], ['b']], new Map([['a', { w: 96, h: 32 }], ['b', { w: 96, h: 32 }]]), 'LR');
 * p.rel.get('b'); // { x: 192, y: 0, w: 96, h: 32 }
 * p.size; // { w: 288, h: 32 }
 * ```
 */
export function placeRanks(
  ranks: readonly (readonly string[])[],
  sizes: ReadonlyMap<string, Size>,
  dir: LayoutDirection,
  gaps: readonly number[] = [],
): { rel: Map<string, RelativeBox>; size: Size } {
  const rel = new Map<string, RelativeBox>();
  const along = (sz: Size): number => (dir === 'LR' ? sz.w : sz.h);
  const across = (sz: Size): number => (dir === 'LR' ? sz.h : sz.w);
  const gapBetween = (a: string, b: string): number =>
    isDummy(a) || isDummy(b) ? GAP_DUMMY : GAP_ORDER[dir];
  const spanOf = (r: readonly string[]): number =>
    r.reduce(
      (acc, k, i) => acc + across(sizes.get(k) as Size) + (i === 0 ? 0 : gapBetween(r[i - 1] as string, k)),
      0,
    );
  const rankExtent = ranks.map((r) => Math.max(...r.map((k) => along(sizes.get(k) as Size))));
  const rankSpan = ranks.map(spanOf);
  const totalAcross = Math.max(0, ...rankSpan);
  let cursor = 0;
  ranks.forEach((r, ri) => {
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
    cursor += ext + (ri < ranks.length - 1 ? Math.max(GAP_RANK[dir], gaps[ri] ?? 0) : 0);
  });
  const totalAlong = Math.max(0, cursor);
  return { rel, size: dir === 'LR' ? { w: totalAlong, h: totalAcross } : { w: totalAcross, h: totalAlong } };
}

/** Room left on each side of a label between two ranks. */
export const LABEL_ROOM = 12;

/**
 * The space each gap between consecutive ranks needs for the labels of the edges joining them
 * (left→right only: there a label lies across the gap; top→bottom gaps already fit a label's
 * height): the widest label plus {@link LABEL_ROOM} on each side, 0 when no labelled edge joins
 * the two ranks. `labels` are the edges as `[a, b, label width]`.
 *
 * @example
 * ```ts
 * labelGaps([['a'], ['b']], [['a', 'b', 120]], 'LR'); // [144]
 * ```
 */
export function labelGaps(
  ranks: readonly (readonly string[])[],
  labels: readonly (readonly [string, string, number])[],
  dir: LayoutDirection,
): number[] {
  const gaps = ranks.slice(1).map(() => 0);
  if (dir !== 'LR') return gaps;
  const at = new Map<string, number>();
  ranks.forEach((r, i) => {
    for (const k of r) at.set(k, i);
  });
  for (const [a, b, w] of labels) {
    const ra = at.get(a);
    const rb = at.get(b);
    if (ra === undefined || rb === undefined || Math.abs(ra - rb) !== 1 || w <= 0) continue;
    const g = Math.min(ra, rb);
    gaps[g] = Math.max(gaps[g] as number, w + 2 * LABEL_ROOM);
  }
  return gaps;
}

/**
 * Resolves relative boxes to absolute ones, depth first from `root` placed at `origin`: a
 * compound's children start at its corner plus ({@link PAD}, {@link HEADER}); boxes are rounded to
 * 0.1 px, dummy nodes become the (unrounded) centre points edges pass through.
 *
 * @example
 * ```ts
 * const { boxes, waypoints } = placeAbsolute('m', kidsOf, rel, (k) => index.get(k)!.children.length > 0, { x: 36, y: 44 });
 * ```
 */
export function placeAbsolute(
  root: string,
  kidsOf: ReadonlyMap<string, readonly string[]>,
  rel: ReadonlyMap<string, RelativeBox>,
  isCompound: (id: string) => boolean,
  origin: Pt,
): { boxes: Map<string, LayoutBox>; waypoints: Map<string, Pt> } {
  const boxes = new Map<string, LayoutBox>();
  const waypoints = new Map<string, Pt>();
  const place = (parentId: string, ox: number, oy: number): void => {
    for (const k of kidsOf.get(parentId) ?? []) {
      const r = rel.get(k) as RelativeBox;
      if (isDummy(k)) {
        waypoints.set(k, { x: ox + r.x + r.w / 2, y: oy + r.y + r.h / 2 });
        continue;
      }
      boxes.set(k, { id: k, x: round(ox + r.x), y: round(oy + r.y), w: round(r.w), h: round(r.h) });
      if (isCompound(k)) place(k, ox + r.x + PAD, oy + r.y + HEADER);
    }
  };
  place(root, origin.x, origin.y);
  return { boxes, waypoints };
}
