/**
 * The records of the SVG layout (pure types): boxes, routed edges, initial markers, the whole
 * layout, and the small shapes the layout steps pass between them. `layout.ts` re-exports the
 * public ones.
 */

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
  /** True for an error/stop edge routed through the error lane (collapsible in the viewer). */
  readonly lane: boolean;
}

/** The error badge of a box: how many lane edges leave it, drawn on its right border. */
export interface ErrorBadge {
  /** The box id (a state id, or the pseudo node's id). */
  readonly source: string;
  /** The lane edges leaving it, in edge order. */
  readonly edges: readonly string[];
  readonly box: LayoutBox;
}

/** The shared lane of error/stop edges: a vertical line right of the drawing into the error sinks. */
export interface ErrorLane {
  readonly x: number;
  /** Top of the lane (the highest point where an edge or badge row joins it). */
  readonly top: number;
  /** One path per error sink: down the lane from its top, then into the sink. */
  readonly sinks: readonly { readonly sink: string; readonly d: string }[];
  readonly badges: readonly ErrorBadge[];
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
  /** The error lane, or null when the graph has no lane edges. */
  readonly errorLane: ErrorLane | null;
}

/** The direction ranks advance in: left→right or top→bottom. */
export type LayoutDirection = 'LR' | 'TB';

/** The size of a box before it is placed. */
export interface Size {
  readonly w: number;
  readonly h: number;
}

/** A box relative to its compound's content origin (also dummy nodes, which have no id). */
export interface RelativeBox {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** A point. */
export interface Pt {
  readonly x: number;
  readonly y: number;
}
