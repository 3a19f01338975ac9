/**
 * The visible label of an edge in the SVG viewer (pure): the trigger is left to the edge's colour
 * and dash where the legend explains it.
 */
import { edgeLabel, eventLabel, type VizEdge, type VizNode } from './graph.js';

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
