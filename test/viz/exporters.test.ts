/** Exporters: structure per format, determinism, and label escaping against hostile names. */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { setup } from 'xstate';
import { chainMachine, cycleMachine, gateMachine } from '../../machines/index.js';
import { dotString, htmlText, markdownCell, mermaidText } from '../../src/viz/escape.js';
import { edgeLabel, nodeIndex } from '../../src/viz/graph.js';
import {
  machineGraph,
  overlayPath,
  toDot,
  toHtml,
  toJson,
  toMermaid,
  VIZ_GRAPH_SCHEMA,
} from '../../src/viz/index.js';
import { layoutGraph } from '../../src/viz/layout.js';
import { mermaidIds } from '../../src/viz/mermaid.js';

const chain = machineGraph(chainMachine as unknown as AnyStateMachine);
const cycle = machineGraph(cycleMachine as unknown as AnyStateMachine);
const gate = machineGraph(gateMachine as unknown as AnyStateMachine);

const EVIL = '"]; x -> y [label="pwn" <script>alert(1)</script> #35; ; \\l\nend';
/** A machine whose state keys, events, guard and action names try to break out of every format. */
const evilMachine = setup({
  guards: { [`g${EVIL}`]: () => true },
  actions: { [`a${EVIL}`]: () => {} },
}).createMachine({
  id: 'evil',
  initial: 'start "x"',
  states: {
    'start "x"': {
      on: { [EVIL]: { target: 'end <b>|', guard: `g${EVIL}`, actions: `a${EVIL}` } },
    },
    'end <b>|': { type: 'final' },
  },
});
const evil = machineGraph(evilMachine as unknown as AnyStateMachine);

describe('toMermaid', () => {
  it('has one transition line per edge target, initial and final markers, composite blocks', () => {
    for (const g of [chain, cycle, gate]) {
      const text = toMermaid(g);
      const lines = text.split('\n');
      expect(lines[1]).toBe('stateDiagram-v2');
      const transitions = lines.filter((l) => / --> /.test(l) && !l.includes('[*]'));
      expect(transitions.length).toBe(g.edges.reduce((n, e) => n + Math.max(1, e.targets.length), 0));
      const ids = mermaidIds(g);
      for (const e of g.edges) {
        const t = e.targets[0] ?? e.source;
        const line = `${ids.get(e.source)} --> ${ids.get(t)} : ${mermaidText(edgeLabel(e))}`;
        expect(transitions.some((l) => l.trim().startsWith(line))).toBe(true);
      }
      const finals = g.nodes.filter((n) => n.final);
      expect(lines.filter((l) => / --> \[\*\]$/.test(l)).length).toBe(finals.length);
      const compounds = g.nodes.filter((n) => n.parent !== null && n.children.length > 0);
      expect(lines.filter((l) => /^\s*state \w+ \{$/.test(l)).length).toBe(compounds.length);
      expect(toMermaid(g)).toBe(text);
    }
  });

  it('writes chain transitions readably', () => {
    const text = toMermaid(chain);
    expect(text).toContain('  ready --> running : START [requiresPresent]\n');
    expect(text).toContain('  failed --> running : RETRY [and(canRetry, requiresPresent)]\n');
    expect(text).toContain('  failed --> failed : RETRY [canRetry] (reenter)\n');
  });

  it('draws the gate root transition from an (any state) pseudo state', () => {
    const text = toMermaid(gate);
    expect(text).toContain('state "(any state)" as gate_any_state');
    expect(text).toContain('gate_any_state --> stopped : HARD_STOP');
  });

  it('escapes hostile labels: only safe characters and entity codes, identifiers sanitised', () => {
    const text = toMermaid(evil);
    expect(text).not.toContain('<script>');
    for (const line of text.split('\n').slice(2)) {
      if (line.trim() === '') continue;
      // no raw quote/brace/angle/semicolon/newline inside labels: every '#' starts an entity code
      const withoutEntities = line.replace(/#\d+;/g, '').replace(/-->|\[\*\]/g, '');
      expect(withoutEntities).not.toMatch(/[#;<>{}|\\]/);
    }
    const ids = [...mermaidIds(evil).values()];
    for (const id of ids) expect(id).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    expect(mermaidText('a;b#c\nd')).toBe('a#59;b#35;c d');
  });
});

describe('toDot', () => {
  it('has one edge statement per edge target plus initial arrows, clusters for compounds', () => {
    for (const g of [chain, cycle, gate]) {
      const text = toDot(g);
      expect(text.startsWith(`digraph "${g.id}" {`)).toBe(true);
      const edgeLines = text.split('\n').filter((l) => / -> /.test(l) && l.includes(' id="e'));
      expect(edgeLines.length).toBe(g.edges.reduce((n, e) => n + Math.max(1, e.targets.length), 0));
      const compounds = g.nodes.filter((n) => n.parent !== null && n.children.length > 0);
      expect(text.split('subgraph "cluster_').length - 1).toBe(compounds.length);
      expect(toDot(g)).toBe(text);
    }
  });

  it('clips edges into compound states at the cluster', () => {
    const text = toDot(cycle);
    const index = nodeIndex(cycle);
    const intoCompound = cycle.edges.filter((e) =>
      e.targets.some((t) => (index.get(t)?.children.length ?? 0) > 0),
    );
    expect(intoCompound.length).toBeGreaterThan(3);
    for (const e of intoCompound) {
      const line = text.split('\n').find((l) => l.includes(`id="${e.id}"`)) ?? '';
      expect(line).toContain(`lhead="cluster_${e.targets[0]}"`);
    }
    expect(text).toMatch(/-> "cycle\.plan\.discover" \[[^\]]*lhead="cluster_cycle\.plan"/);
  });

  it('quotes hostile text so nothing escapes a string', () => {
    const text = toDot(evil);
    const outside = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    expect(outside).toMatch(/^[\s\w[\]=,;{}\->."]*$/);
    expect(outside).not.toContain('pwn');
    expect(dotString('a"b\\c\nd')).toBe('"a\\"b\\\\c\\nd"');
  });
});

describe('toJson', () => {
  it('is the graph model with a fixed key order and stable bytes', () => {
    const text = toJson(cycle);
    const doc = JSON.parse(text) as { schema: string; nodes: unknown[]; edges: { id: string }[] };
    expect(doc.schema).toBe(VIZ_GRAPH_SCHEMA);
    expect(Object.keys(doc)).toEqual(['schema', 'machine', 'root', 'nodes', 'edges']);
    expect(doc.nodes).toHaveLength(cycle.nodes.length);
    expect(doc.edges.map((e) => e.id)).toEqual(cycle.edges.map((e) => e.id));
    expect(Object.keys(doc.edges[0] as object)).toEqual([
      'id',
      'source',
      'targets',
      'kind',
      'event',
      'invoke',
      'guard',
      'actions',
      'reenter',
      'order',
    ]);
    expect(toJson(machineGraph(cycleMachine as unknown as AnyStateMachine))).toBe(text);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('round-trips hostile names unchanged', () => {
    const doc = JSON.parse(toJson(evil)) as { edges: { event: string }[] };
    expect(doc.edges[0]?.event).toBe(EVIL);
  });
});

describe('toHtml', () => {
  it('is self-contained: no scripts, no external references, CSP default-src none', () => {
    for (const g of [chain, cycle, gate]) {
      const html = toHtml(g);
      expect(html).not.toMatch(/<script|<link|@import|src=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/i);
      expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
      expect(toHtml(g)).toBe(html);
    }
  });

  it('has one g.state per state, one g.edge per transition and a legend', () => {
    for (const g of [chain, cycle, gate]) {
      const html = toHtml(g);
      expect(html.match(/<g class="node state /g)?.length).toBe(g.nodes.length - 1);
      expect(html.match(/<g class="edge /g)?.length).toBe(g.edges.length);
      for (const e of g.edges) expect(html).toContain(`data-id="${e.id}"`);
      expect(html).toContain('class="legend"');
    }
  });

  it('error/stop edges: collapsed by default from COLLAPSE_MIN, a CSS-only toggle, badges and one lane', () => {
    const html = toHtml(cycle);
    const stops = cycle.edges.filter(
      (e) => e.targets.length > 0 && e.targets.every((t) => t === 'cycle.stopped'),
    );
    expect(stops.length).toBeGreaterThan(40);
    expect(html).toContain('<input type="checkbox" id="expand-errors">');
    expect(html).toContain(`draw the ${stops.length} error/stop transitions`);
    expect(html.match(/<g class="edge [^"]*\blane\b/g)).toHaveLength(stops.length);
    expect(html.match(/data-class="stop"/g)).toHaveLength(stops.length);
    expect(html.match(/<g class="error-badge"/g)).toHaveLength(new Set(stops.map((e) => e.source)).size);
    expect(html).toMatch(/<g class="error-lane" [^>]*data-sinks="cycle\.stopped"/);
    expect(html).toContain(
      '#expand-errors:not(:checked) ~ svg .lane:not(.visited):not(.inferred) { display: none; }',
    );
    expect(html.indexOf('id="expand-errors"')).toBeLessThan(html.indexOf('<svg id="machine"'));
    expect(toHtml(cycle, { errors: 'expanded' })).toContain(
      '<input type="checkbox" id="expand-errors" checked>',
    );
    expect(toHtml(gate)).toContain('<input type="checkbox" id="expand-errors" checked>');
    expect(toHtml(gate, { errors: 'collapsed' })).toContain('<input type="checkbox" id="expand-errors">');
    expect(toHtml(gate).match(/data-class="error"/g)).toHaveLength(8);
    const noStops = machineGraph(
      setup({}).createMachine({
        id: 'm',
        initial: 'a',
        states: { a: { on: { GO: 'b' } }, b: {} },
      }) as unknown as AnyStateMachine,
    );
    expect(toHtml(noStops)).not.toContain('id="expand-errors"');
    expect(toHtml(noStops)).not.toContain('<g class="error-lane"');
  });

  it('a visited stop edge keeps its lane class after visited, so the collapsed page still draws it', () => {
    const o = overlayPath(cycle, [{ state: 'plan.discover' }, { state: 'stopped' }]);
    const html = toHtml(cycle, { overlay: o });
    expect(html).toMatch(/<g class="edge kind-error visited lane" data-id="e2"/);
    expect(html).toMatch(/<g class="edge-label kind-[a-z-]+ lane" data-edge="e9"/);
  });

  it('escapes hostile names in text and attributes', () => {
    const html = toHtml(evil);
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/data-id="[^"]*"[^ >/]/);
    expect(htmlText(`<a href='x'>&"`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&quot;');
  });

  it('lays out without overlapping sibling boxes, children inside their compound', () => {
    for (const g of [chain, cycle, gate]) {
      const l = layoutGraph(g);
      const index = nodeIndex(g);
      for (const n of g.nodes) {
        if (n.parent === null) continue;
        const b = l.boxes.get(n.id);
        expect(b).toBeDefined();
        const siblings = (index.get(n.parent)?.children ?? []).filter((s) => s !== n.id);
        for (const s of siblings) {
          const o = l.boxes.get(s);
          if (b === undefined || o === undefined) continue;
          const overlap = b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h;
          expect(overlap, `${n.id} overlaps ${s}`).toBe(false);
        }
        const p = l.boxes.get(n.parent);
        if (p !== undefined && b !== undefined) {
          expect(b.x >= p.x && b.y >= p.y && b.x + b.w <= p.x + p.w && b.y + b.h <= p.y + p.h).toBe(true);
        }
      }
      expect(l.edges.length).toBe(g.edges.reduce((k, e) => k + Math.max(1, e.targets.length), 0));
    }
  });
});

describe('markdownCell', () => {
  it('neutralises table and HTML syntax', () => {
    expect(markdownCell('a|b <c>\nd')).toBe('a\\|b &lt;c&gt; d');
  });
});
