/**
 * The layout's coordinate steps: ranks stacked along the direction and centred across it,
 * relative boxes resolved to absolute ones, initial markers, the canvas and its growth for labels.
 */
import { describe, expect, it } from 'vitest';
import { nodeIndex } from '../../src/viz/graph.js';
import { CONTENT_ORIGIN, canvasSize, drawingBounds, MARGIN } from '../../src/viz/layout-bounds.js';
import { directionAt, initialMarkers } from '../../src/viz/layout-initials.js';
import { GAP_DUMMY, GAP_ORDER, GAP_RANK, placeAbsolute, placeRanks } from '../../src/viz/layout-place.js';
import { HEADER, PAD } from '../../src/viz/layout-size.js';
import type { EdgeRoute, LayoutBox } from '../../src/viz/layout-types.js';
import { chainGraph, vizNode } from './layout-fixtures.js';

const sz = (w: number, h: number) => ({ w, h });

describe('placeRanks', () => {
  it('LR: ranks advance in x by the widest box plus the rank gap; a rank is centred in y', () => {
    const sizes = new Map([
      ['a', sz(96, 32)],
      ['b', sz(120, 32)],
      ['c', sz(96, 60)],
    ]);
    const p = placeRanks([['a'], ['b', 'c']], sizes, 'LR');
    const across = 32 + GAP_ORDER.LR + 60;
    expect(p.rel.get('a')).toEqual({ x: 0, y: (across - 32) / 2, w: 96, h: 32 });
    expect(p.rel.get('b')).toEqual({ x: 96 + GAP_RANK.LR, y: 0, w: 120, h: 32 });
    expect(p.rel.get('c')).toEqual({ x: 96 + GAP_RANK.LR + 12, y: 32 + GAP_ORDER.LR, w: 96, h: 60 });
    expect(p.size).toEqual({ w: 96 + GAP_RANK.LR + 120, h: across });
  });

  it('TB swaps the axes; dummy nodes sit closer to their neighbours', () => {
    const sizes = new Map([
      ['a', sz(96, 32)],
      ['~m~0', sz(10, 0)],
    ]);
    const p = placeRanks([['a', '~m~0']], sizes, 'TB');
    expect(p.rel.get('a')).toEqual({ x: 0, y: 0, w: 96, h: 32 });
    expect(p.rel.get('~m~0')).toEqual({ x: 96 + GAP_DUMMY, y: 16, w: 10, h: 0 });
    expect(p.size).toEqual({ w: 96 + GAP_DUMMY + 10, h: 32 });
    expect(GAP_RANK.TB).toBe(64);
  });

  it('no ranks take no space', () => {
    expect(placeRanks([], new Map(), 'LR').size).toEqual({ w: 0, h: 0 });
  });
});

describe('placeAbsolute', () => {
  it('offsets children of a compound by its corner plus padding and header; dummies become centre points', () => {
    const kidsOf = new Map([
      ['m', ['m.p', '~m~0']],
      ['m.p', ['m.p.x']],
    ]);
    const rel = new Map([
      ['m.p', { x: 10, y: 20, w: 200, h: 100 }],
      ['~m~0', { x: 300, y: 40, w: 0, h: 10 }],
      ['m.p.x', { x: 0.04, y: 5, w: 96, h: 32 }],
    ]);
    const { boxes, waypoints } = placeAbsolute('m', kidsOf, rel, (k) => k === 'm.p', CONTENT_ORIGIN);
    expect([...boxes.keys()]).toEqual(['m.p', 'm.p.x']);
    expect(boxes.get('m.p')).toEqual({ id: 'm.p', x: MARGIN + 10, y: MARGIN + 8 + 20, w: 200, h: 100 });
    expect(boxes.get('m.p.x')).toEqual({
      id: 'm.p.x',
      x: MARGIN + 10 + PAD,
      y: MARGIN + 8 + 20 + HEADER + 5,
      w: 96,
      h: 32,
    });
    expect(waypoints.get('~m~0')).toEqual({ x: MARGIN + 300, y: MARGIN + 8 + 45 });
  });
});

describe('initial markers', () => {
  it('direction alternates with depth below the root', () => {
    const index = nodeIndex({
      id: 'n',
      root: 'n',
      nodes: [
        vizNode('n', null, { children: ['n.p'] }),
        vizNode('n.p', 'n', { children: ['n.p.q'] }),
        vizNode('n.p.q', 'n.p'),
      ],
      edges: [],
    });
    expect(directionAt(index, 'n', 'n', 'LR')).toBe('LR');
    expect(directionAt(index, 'n', 'n.p', 'LR')).toBe('TB');
    expect(directionAt(index, 'n', 'n.p.q', 'LR')).toBe('LR');
    expect(directionAt(index, 'n', 'n.p', 'TB')).toBe('LR');
  });

  it('a dot 16 px before the initial child, from the left (LR) or from above (TB)', () => {
    const g = chainGraph();
    const boxes = new Map<string, LayoutBox>([['m.a', { id: 'm.a', x: 50, y: 60, w: 96, h: 32 }]]);
    expect(initialMarkers(g, nodeIndex(g), boxes, 'LR')).toEqual([
      { parent: 'm', child: 'm.a', cx: 34, cy: 76, x2: 50, y2: 76 },
    ]);
    expect(initialMarkers(g, nodeIndex(g), boxes, 'TB')).toEqual([
      { parent: 'm', child: 'm.a', cx: 98, cy: 44, x2: 98, y2: 60 },
    ]);
  });
});

describe('bounds', () => {
  it('the canvas adds the margin around the content and 8 px on top', () => {
    expect(canvasSize({ w: 100, h: 50 })).toEqual({ w: 100 + 2 * MARGIN, h: 50 + 2 * MARGIN + 8 });
  });

  it('grows to hold non-empty labels with 6 px to spare; empty labels do not count', () => {
    const route = (text: string, x: number, y: number, w: number): EdgeRoute => ({
      edge: 'e',
      source: 'a',
      target: 'b',
      d: 'M50,50',
      text,
      label: { id: 'e', x, y, w, h: 14 },
      lane: false,
    });
    expect(drawingBounds({ w: 172, h: 130 }, [route('GO', -10, 10, 20)])).toEqual({
      minX: -16,
      minY: 0,
      width: 188,
      height: 130,
    });
    expect(drawingBounds({ w: 172, h: 130 }, [route('', -100, -100, 0)])).toEqual({
      minX: 0,
      minY: 0,
      width: 172,
      height: 130,
    });
    expect(drawingBounds({ w: 172, h: 130 }, [route('LONG', 160, 120, 30)])).toEqual({
      minX: 0,
      minY: 0,
      width: 196,
      height: 140,
    });
  });

  it('grows to hold route points with 8 px to spare, the error lane with 12 and badges with 6', () => {
    const r: EdgeRoute = {
      edge: 'e',
      source: 'a',
      target: 'b',
      d: 'M50,50 L-20,50 Q-20,200 50,200',
      text: '',
      label: { id: 'e', x: 0, y: 0, w: 0, h: 14 },
      lane: false,
    };
    const b = drawingBounds({ w: 172, h: 130 }, [r]);
    expect(b.minX).toBe(-28);
    expect(b.height).toBe(208);
    const lane = {
      x: 300,
      top: 20,
      sinks: [{ sink: 'b', d: 'M300,20 L300,100' }],
      badges: [{ source: 'a', edges: ['e'], box: { id: 'badge:a', x: 100, y: 140, w: 24, h: 14 } }],
    };
    expect(drawingBounds({ w: 172, h: 130 }, [], lane)).toEqual({
      minX: 0,
      minY: 0,
      width: 312,
      height: 160,
    });
  });
});
