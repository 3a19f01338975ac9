/**
 * HTML/SVG exporter (pure): one self-contained HTML page — no scripts, no external CSS, fonts or
 * images, a restrictive Content-Security-Policy — holding an inline SVG drawn from
 * {@link layoutGraph}: compound states as framed groups, one `g.state` per state node, one
 * `g.edge` per transition with its label, initial markers, a legend and, with an overlay, the
 * visited path (classes `visited`, `inferred`, `current`, `data-visits` counts) plus a step table.
 */

import { classifyEdges } from './edge-class.js';
import { htmlText } from './escape.js';
import { displayPath, edgeLabel, type MachineGraph, nodeIndex, type VizNode } from './graph.js';
import { FONT, type GraphLayout, layoutGraph, leafLines } from './layout.js';
import type { PathOverlay } from './overlay.js';

/** Options of {@link toHtml}. */
export interface HtmlOptions {
  readonly overlay?: PathOverlay | null;
  /** Page title (default `handoff viz — <machine>`). */
  readonly title?: string;
  /** Extra lines shown under the title (e.g. a run summary). */
  readonly subtitle?: readonly string[];
  /** Forces the top-level layout direction. */
  readonly direction?: 'LR' | 'TB';
  /**
   * How the page opens its error/stop edges (see `edge-class.ts`): `collapsed` shows only the
   * error badges and the shared lane, `expanded` draws every edge; `auto` (the default) collapses
   * when there are at least {@link COLLAPSE_MIN} of them. The page's toggle switches either way.
   */
  readonly errors?: 'auto' | 'collapsed' | 'expanded';
}

/** With `errors: 'auto'`, the number of error/stop edges from which the page opens collapsed. */
export const COLLAPSE_MIN = 12;

const CSS = `
:root { color-scheme: light; }
body { margin: 0; padding: 12px 18px; font: 13px/1.4 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #1c2833; background: #fafbfc; }
h1 { font-size: 18px; margin: 0 0 2px; }
header p { margin: 0; color: #455a64; }
svg#machine { display: block; max-width: 100%; height: auto; margin: 8px 0; background: #fff; border: 1px solid #dfe4e8; }
svg text { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
.compound > rect { fill: #f3f6f9; stroke: #90a4ae; stroke-width: 1.2; }
.compound > text { font-size: 12px; font-weight: bold; fill: #37474f; }
.state.leaf > rect { fill: #fff; stroke: #37474f; stroke-width: 1.3; }
.state.final > rect.outer { fill: none; stroke: #37474f; stroke-width: 1.3; }
.state .title { font-size: 12.5px; font-weight: bold; fill: #1c2833; }
.state .sub { font-size: 10px; fill: #607d8b; }
.pseudo > rect { fill: #fff; stroke: #78909c; stroke-dasharray: 4 3; }
.pseudo > text { font-size: 11px; fill: #546e7a; font-style: italic; }
.edge path { fill: none; stroke-width: 1.3; }
.edge.kind-event path { stroke: #263238; }
.edge.kind-always path { stroke: #90a4ae; stroke-dasharray: 5 4; }
.edge.kind-done path, .edge.kind-state-done path { stroke: #2e7d32; }
.edge.kind-error path { stroke: #c62828; stroke-opacity: 0.75; }
.edge-label rect { fill: #fff; fill-opacity: 0.88; stroke: none; }
.edge-label text { font-size: 10px; fill: #263238; }
.edge-label.kind-error text { fill: #b71c1c; }
.edge-label.kind-done text { fill: #1b5e20; }
.edge-label.kind-always text { fill: #546e7a; }
.initial circle { fill: #263238; }
.initial line { stroke: #263238; stroke-width: 1.3; }
.state.visited > rect { fill: #ffe0b2; stroke: #e65100; stroke-width: 3; }
.compound.visited > rect { stroke: #e65100; stroke-width: 2.5; }
.state.inferred > rect { fill: #fff8e1; stroke: #ffb74d; stroke-width: 2; stroke-dasharray: 5 3; }
.state.current > rect { fill: #ffcc80; stroke: #bf360c; stroke-width: 4; }
.edge.visited path { stroke: #e65100; stroke-width: 3.5; stroke-opacity: 1; stroke-dasharray: none; }
.edge.inferred path { stroke: #ffb74d; stroke-width: 2.5; stroke-dasharray: 6 4; stroke-opacity: 1; }
.edge-label.visited text { fill: #bf360c; font-weight: bold; }
.edge:hover path { stroke-width: 4; }
.error-lane path { fill: none; stroke: #c62828; stroke-width: 2.2; stroke-opacity: 0.8; }
.error-badge rect { fill: #fff5f5; stroke: #c62828; stroke-width: 1.1; }
.error-badge text { font-size: 10px; font-weight: bold; fill: #b71c1c; }
#expand-errors:not(:checked) ~ svg .lane:not(.visited):not(.inferred) { display: none; }
.errors-toggle { display: inline-block; margin: 4px 0; color: #37474f; cursor: pointer; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; margin: 6px 0; color: #37474f; }
.legend svg { vertical-align: middle; }
table { border-collapse: collapse; margin: 8px 0; font-size: 12px; }
td, th { border: 1px solid #dfe4e8; padding: 2px 8px; text-align: left; vertical-align: top; }
`;

const MARKERS: readonly [string, string][] = [
  ['event', '#263238'],
  ['always', '#90a4ae'],
  ['done', '#2e7d32'],
  ['state-done', '#2e7d32'],
  ['error', '#c62828'],
  ['visited', '#e65100'],
  ['inferred', '#ffb74d'],
];

function n1(x: number): string {
  return String(Math.round(x * 10) / 10);
}

function markerDefs(): string {
  return MARKERS.map(
    ([k, c]) =>
      `<marker id="arrow-${k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${c}"/></marker>`,
  ).join('');
}

function legend(withOverlay: boolean): string {
  const line = (cls: string, color: string, dash: string, w = 1.5): string =>
    `<svg width="44" height="12" aria-hidden="true"><line x1="2" y1="6" x2="36" y2="6" stroke="${color}" stroke-width="${w}"${dash ? ` stroke-dasharray="${dash}"` : ''} marker-end="url(#legend-${cls})"/><defs><marker id="legend-${cls}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="${color}"/></marker></defs></svg>`;
  const box = (fill: string, stroke: string, extra = ''): string =>
    `<svg width="30" height="18" aria-hidden="true"><rect x="2" y="2" width="26" height="14" rx="5" fill="${fill}" stroke="${stroke}" stroke-width="1.5"${extra}/></svg>`;
  const items = [
    `<span class="legend-item" data-legend="state">${box('#fff', '#37474f')} state</span>`,
    `<span class="legend-item" data-legend="compound">${box('#f3f6f9', '#90a4ae')} compound state</span>`,
    `<span class="legend-item" data-legend="final"><svg width="30" height="18" aria-hidden="true"><rect x="1" y="1" width="28" height="16" rx="6" fill="none" stroke="#37474f"/><rect x="4" y="4" width="22" height="10" rx="4" fill="#fff" stroke="#37474f"/></svg> final state</span>`,
    `<span class="legend-item" data-legend="initial"><svg width="30" height="12" aria-hidden="true"><circle cx="6" cy="6" r="4.5" fill="#263238"/><line x1="11" y1="6" x2="28" y2="6" stroke="#263238"/></svg> initial</span>`,
    `<span class="legend-item" data-legend="event">${line('event', '#263238', '')} event</span>`,
    `<span class="legend-item" data-legend="always">${line('always', '#90a4ae', '5 4')} always (eventless)</span>`,
    `<span class="legend-item" data-legend="done">${line('done', '#2e7d32', '')} invoke done</span>`,
    `<span class="legend-item" data-legend="error">${line('error', '#c62828', '')} invoke error</span>`,
    '<span class="legend-item" data-legend="guard">[guard] · invoke id (src)</span>',
    `<span class="legend-item" data-legend="error-lane"><svg width="44" height="18" aria-hidden="true"><line x1="36" y1="1" x2="36" y2="17" stroke="#c62828" stroke-width="2.2"/><rect x="2" y="2" width="24" height="14" rx="7" fill="#fff5f5" stroke="#c62828"/><text x="14" y="13" text-anchor="middle" font-size="10" font-weight="bold" fill="#b71c1c">✕n</text></svg> n error/stop exits, all joining one lane to the stop state</span>`,
  ];
  if (withOverlay) {
    items.push(
      `<span class="legend-item" data-legend="visited">${box('#ffe0b2', '#e65100')}${line('visited', '#e65100', '', 3)} visited (×count)</span>`,
      `<span class="legend-item" data-legend="inferred">${box('#fff8e1', '#ffb74d', ' stroke-dasharray="4 3"')}${line('inferred', '#ffb74d', '6 4', 2.5)} inferred (not recorded)</span>`,
      `<span class="legend-item" data-legend="current">${box('#ffcc80', '#bf360c')} last state</span>`,
    );
  }
  return `<div class="legend" role="list">${items.join('')}</div>`;
}

function nodeClasses(n: VizNode, o: PathOverlay | null): string {
  const cls = ['node', 'state', n.children.length > 0 ? 'compound' : 'leaf', `type-${n.type}`];
  if (n.initial) cls.push('initial-state');
  if (n.final) cls.push('final');
  if (o !== null) {
    if (o.nodeVisits[n.id] !== undefined) cls.push('visited');
    else if (o.inferredNodes[n.id] !== undefined) cls.push('inferred');
    if (o.current === n.id) cls.push('current');
  }
  return cls.join(' ');
}

function tooltip(n: VizNode): string {
  const parts = [n.id];
  if (n.description) parts.push(n.description);
  if (n.entry.length > 0) parts.push(`entry: ${n.entry.join(', ')}`);
  if (n.exit.length > 0) parts.push(`exit: ${n.exit.join(', ')}`);
  for (const i of n.invoke) parts.push(`invoke: ${i.id} (src ${i.src})`);
  return parts.join('\n');
}

/**
 * Renders the SVG of a graph (the `<svg>` element only).
 *
 * @example
 * ```ts
 * const svg = toSvg(machineGraph(chainMachine));
 * svg.startsWith('<svg'); // true
 * ```
 */
export function toSvg(g: MachineGraph, options: HtmlOptions = {}, layout?: GraphLayout): string {
  const o = options.overlay ?? null;
  const l = layout ?? layoutGraph(g, options.direction);
  const out: string[] = [];
  out.push(
    `<svg id="machine" xmlns="http://www.w3.org/2000/svg" viewBox="${n1(l.minX)} ${n1(l.minY)} ${n1(l.width)} ${n1(l.height)}" width="${n1(l.width)}" height="${n1(l.height)}" role="img" aria-label="${htmlText(`state machine ${g.id}`)}" data-machine="${htmlText(g.id)}" data-direction="${l.direction}">`,
  );
  out.push(`<defs>${markerDefs()}</defs>`);
  // compound frames (outermost first: document order has parents first)
  out.push('<g class="compounds">');
  for (const n of g.nodes) {
    if (n.parent === null || n.children.length === 0) continue;
    const b = l.boxes.get(n.id);
    if (b === undefined) continue;
    const visits = o?.nodeVisits[n.id];
    out.push(
      `<g class="${nodeClasses(n, o)}" data-id="${htmlText(n.id)}"${visits === undefined ? '' : ` data-visits="${visits}"`}><title>${htmlText(tooltip(n))}</title><rect x="${n1(b.x)}" y="${n1(b.y)}" width="${n1(b.w)}" height="${n1(b.h)}" rx="10"/><text x="${n1(b.x + 10)}" y="${n1(b.y + 16)}">${htmlText(n.key)}${visits === undefined ? '' : ` ×${visits}`}</text></g>`,
    );
  }
  out.push('</g>');
  // edges (under the leaf boxes)
  out.push('<g class="edges">');
  const classes = classifyEdges(g);
  const laneIds = new Set(l.edges.filter((r) => r.lane).map((r) => r.edge));
  const byEdge = new Map<string, typeof l.edges>();
  for (const r of l.edges) byEdge.set(r.edge, [...(byEdge.get(r.edge) ?? []), r]);
  for (const e of g.edges) {
    const routes = byEdge.get(e.id) ?? [];
    const visits = o?.edgeVisits[e.id];
    const inferred = o?.inferredEdges[e.id];
    const cls = ['edge', `kind-${e.kind}`];
    if (visits !== undefined) cls.push('visited');
    else if (inferred !== undefined) cls.push('inferred');
    if (laneIds.has(e.id)) cls.push('lane');
    const marker = visits !== undefined ? 'visited' : inferred !== undefined ? 'inferred' : e.kind;
    const full = [edgeLabel(e), e.actions.length > 0 ? `actions: ${e.actions.join(', ')}` : '']
      .filter(Boolean)
      .join('\n');
    out.push(
      `<g class="${cls.join(' ')}" data-id="${e.id}" data-source="${htmlText(e.source)}" data-targets="${htmlText(e.targets.join(' '))}" data-class="${classes.get(e.id)}"${visits === undefined ? '' : ` data-visits="${visits}"`}${inferred === undefined ? '' : ` data-inferred="${inferred}"`}><title>${htmlText(full)}</title>${routes.map((r) => `<path d="${r.d}" marker-end="url(#arrow-${marker})"/>`).join('')}</g>`,
    );
  }
  out.push('</g>');
  if (l.errorLane !== null) {
    const index = nodeIndex(g);
    const sinkNames = l.errorLane.sinks.map((x) => displayPath(index.get(x.sink) as VizNode)).join(', ');
    out.push(
      `<g class="error-lane" data-x="${n1(l.errorLane.x)}" data-sinks="${htmlText(l.errorLane.sinks.map((x) => x.sink).join(' '))}"><title>${htmlText(`error/stop lane: ${laneIds.size} transitions into ${sinkNames}`)}</title>${l.errorLane.sinks.map((x) => `<path d="${x.d}" marker-end="url(#arrow-error)"/>`).join('')}</g>`,
    );
  }
  // initial markers
  out.push('<g class="initials">');
  for (const m of l.initials) {
    out.push(
      `<g class="initial" data-parent="${htmlText(m.parent)}" data-child="${htmlText(m.child)}"><circle cx="${n1(m.cx)}" cy="${n1(m.cy)}" r="5"/><line x1="${n1(m.cx)}" y1="${n1(m.cy)}" x2="${n1(m.x2)}" y2="${n1(m.y2)}"/></g>`,
    );
  }
  out.push('</g>');
  // leaf states and the pseudo node
  out.push('<g class="leaves">');
  if (l.anyState !== null) {
    const b = l.boxes.get(l.anyState);
    if (b !== undefined) {
      out.push(
        `<g class="node pseudo" data-id="${htmlText(g.root)}"><title>${htmlText(`transitions of the machine root (${g.root}): taken from any state`)}</title><rect x="${n1(b.x)}" y="${n1(b.y)}" width="${n1(b.w)}" height="${n1(b.h)}" rx="6"/><text x="${n1(b.x + b.w / 2)}" y="${n1(b.y + b.h / 2 + 4)}" text-anchor="middle">(any state)</text></g>`,
      );
    }
  }
  for (const n of g.nodes) {
    if (n.parent === null || n.children.length > 0) continue;
    const b = l.boxes.get(n.id);
    if (b === undefined) continue;
    const visits = o?.nodeVisits[n.id] ?? o?.inferredNodes[n.id];
    const { title, lines } = leafLines(n);
    const shapes = n.final
      ? `<rect class="outer" x="${n1(b.x - 3)}" y="${n1(b.y - 3)}" width="${n1(b.w + 6)}" height="${n1(b.h + 6)}" rx="12"/><rect x="${n1(b.x)}" y="${n1(b.y)}" width="${n1(b.w)}" height="${n1(b.h)}" rx="9"/>`
      : `<rect x="${n1(b.x)}" y="${n1(b.y)}" width="${n1(b.w)}" height="${n1(b.h)}" rx="8"/>`;
    const cx = b.x + b.w / 2;
    const texts = [
      `<text class="title" x="${n1(cx)}" y="${n1(b.y + 20)}" text-anchor="middle">${htmlText(title)}${visits === undefined ? '' : ` ×${visits}`}</text>`,
      ...lines.map(
        (t, i) =>
          `<text class="sub" x="${n1(cx)}" y="${n1(b.y + 33 + i * 13)}" text-anchor="middle">${htmlText(t)}</text>`,
      ),
    ];
    out.push(
      `<g class="${nodeClasses(n, o)}" data-id="${htmlText(n.id)}"${visits === undefined ? '' : ` data-visits="${visits}"`}><title>${htmlText(tooltip(n))}</title>${shapes}${texts.join('')}</g>`,
    );
  }
  out.push('</g>');
  // labels on top
  out.push('<g class="labels">');
  for (const r of l.edges) {
    const e = g.edges.find((x) => x.id === r.edge);
    if (e === undefined) continue;
    const visits = o?.edgeVisits[e.id];
    const inferred = o?.inferredEdges[e.id];
    const count = visits !== undefined ? ` ×${visits}` : inferred !== undefined ? ` (×${inferred})` : '';
    const text = `${r.text}${count}`.trim();
    if (text === '') continue;
    const w = Math.max(r.label.w, Math.ceil(text.length * FONT.label + 8));
    const x = r.label.x + r.label.w / 2 - w / 2;
    const cls = ['edge-label', `kind-${e.kind}`];
    if (visits !== undefined) cls.push('visited');
    else if (inferred !== undefined) cls.push('inferred');
    if (r.lane) cls.push('lane');
    out.push(
      `<g class="${cls.join(' ')}" data-edge="${e.id}"><rect x="${n1(x)}" y="${n1(r.label.y)}" width="${n1(w)}" height="${n1(r.label.h)}" rx="3"/><text x="${n1(x + w / 2)}" y="${n1(r.label.y + r.label.h - 3.5)}" text-anchor="middle">${htmlText(text)}</text></g>`,
    );
  }
  for (const bd of l.errorLane?.badges ?? []) {
    const lines = bd.edges.map((id) => {
      const e = g.edges.find((x) => x.id === id) as (typeof g.edges)[number];
      return `${edgeLabel(e)} → ${e.targets.map((t) => displayPath(nodeIndex(g).get(t) as VizNode)).join(', ')}`;
    });
    const b = bd.box;
    out.push(
      `<g class="error-badge" data-source="${htmlText(bd.source)}" data-edges="${bd.edges.join(' ')}"><title>${htmlText(`${bd.edges.length} error/stop exits:\n${lines.join('\n')}`)}</title><rect x="${n1(b.x)}" y="${n1(b.y)}" width="${n1(b.w)}" height="${n1(b.h)}" rx="7"/><text x="${n1(b.x + b.w / 2)}" y="${n1(b.y + b.h - 3.5)}" text-anchor="middle">✕${bd.edges.length}</text></g>`,
    );
  }
  out.push('</g>');
  out.push('</svg>');
  return out.join('\n');
}

/** The checkbox (before the SVG, so CSS can hide lane edges) and its label. */
function errorsToggle(g: MachineGraph, options: HtmlOptions): string {
  const classes = classifyEdges(g);
  const n = g.edges.filter((e) => classes.get(e.id) === 'stop').length;
  if (n === 0) return '';
  const mode = options.errors ?? 'auto';
  const expanded = mode === 'expanded' || (mode === 'auto' && n < COLLAPSE_MIN);
  return `<input type="checkbox" id="expand-errors"${expanded ? ' checked' : ''}><label class="errors-toggle" for="expand-errors">draw the ${n} error/stop transitions (else: ✕n badges and one lane)</label>`;
}

function stepTable(g: MachineGraph, o: PathOverlay): string {
  const index = nodeIndex(g);
  const rows = o.steps.map((s) => {
    const states = s.nodes.map((id) => index.get(id)?.path.join('.') ?? id).join(', ') || '(unknown)';
    const via =
      s.edge !== null
        ? edgeLabel(g.edges.find((e) => e.id === s.edge) as (typeof g.edges)[number])
        : s.inferred.length > 0
          ? `inferred: ${s.inferred.map((id) => edgeLabel(g.edges.find((e) => e.id === id) as (typeof g.edges)[number])).join(' → ')}`
          : '';
    return `<tr data-step="${s.index}"><td>${s.index + 1}</td><td>${htmlText(states)}</td><td>${htmlText(via)}</td><td>${htmlText(s.label ?? '')}</td></tr>`;
  });
  const gaps = o.gaps.map((x) => `<li>step ${x.step + 1}: ${htmlText(x.reason)}</li>`).join('');
  return `<section class="path"><h2>Path</h2><table><thead><tr><th>#</th><th>state</th><th>via</th><th>from</th></tr></thead><tbody>${rows.join('')}</tbody></table>${gaps === '' ? '' : `<ul class="gaps">${gaps}</ul>`}</section>`;
}

/**
 * Renders a self-contained HTML page with the machine's SVG, a legend and (with an overlay) the
 * highlighted path and its step table. No network access is needed or allowed (CSP
 * `default-src 'none'`).
 *
 * @example
 * ```ts
 * const html = toHtml(machineGraph(gateMachine), { overlay: overlayPath(g, steps) });
 * html.includes('class="node state'); // true
 * ```
 */
export function toHtml(g: MachineGraph, options: HtmlOptions = {}): string {
  const o = options.overlay ?? null;
  const title = options.title ?? `handoff viz — ${g.id}`;
  const states = g.nodes.length - 1;
  const summary = `${states} states, ${g.edges.length} transitions${o === null ? '' : `, path of ${o.steps.length} steps`}`;
  const sub = (options.subtitle ?? []).map((s) => `<p>${htmlText(s)}</p>`).join('');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="generator" content="handoff viz">',
    `<title>${htmlText(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    `<header><h1>${htmlText(title)}</h1><p>${htmlText(summary)}</p>${sub}</header>`,
    errorsToggle(g, options),
    legend(o !== null),
    toSvg(g, options),
    o === null ? '' : stepTable(g, o),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
