/**
 * Box sizes of the SVG layout (pure): font advance widths, the lines a leaf box shows, the size of
 * a leaf, of a compound around its laid-out children, of the `(any state)` pseudo node and of a
 * dummy node.
 */
import type { VizNode } from './graph.js';
import type { LayoutDirection, Size } from './layout-types.js';

/** Approximate advance widths (px) of the viewer's fonts, for sizing boxes and labels. */
export const FONT = { title: 7.4, small: 5.9, label: 5.6 } as const;

/** Padding inside a compound box, around its children. */
export const PAD = 14;
/** Height of a compound box's title strip. */
export const HEADER = 24;
/** Size of the `(any state)` pseudo node. */
export const ANY_STATE_SIZE: Size = { w: 110, h: 32 };

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

/**
 * The size of a leaf box: wide enough for its title and invoke lines (at least 96 px), 32 px
 * plus 13 px per invoke line high.
 *
 * @example
 * ```ts
 * leafSize(workingWithInvokeWorker); // { w: 99, h: 45 }
 * ```
 */
export function leafSize(n: VizNode): Size {
  const { title, lines } = leafLines(n);
  const w = Math.max(96, title.length * FONT.title + 26, ...lines.map((l) => l.length * FONT.small + 22));
  return { w: Math.ceil(w), h: 32 + lines.length * 13 };
}

/**
 * The size of a compound box around the `inner` size of its laid-out children: padding on three
 * sides, the title strip on top, and wide enough for its own key.
 *
 * @example
 * ```ts
 * compoundSize('plan', { w: 200, h: 100 }); // { w: 228, h: 138 }
 * ```
 */
export function compoundSize(key: string, inner: Size): Size {
  return {
    w: Math.max(inner.w + 2 * PAD, key.length * FONT.title + 2 * PAD + 30),
    h: inner.h + HEADER + PAD,
  };
}

/**
 * The size of a dummy node (a waypoint of an edge spanning ranks): 10 px across the ranks,
 * nothing along them.
 *
 * @example
 * ```ts
 * dummySize('LR'); // { w: 0, h: 10 }
 * ```
 */
export function dummySize(dir: LayoutDirection): Size {
  return dir === 'LR' ? { w: 0, h: 10 } : { w: 10, h: 0 };
}
