/** Box sizes of the layout and the compact edge label the viewer shows. */
import { describe, expect, it } from 'vitest';
import { compactLabel } from '../../src/viz/compact-label.js';
import {
  ANY_STATE_SIZE,
  compoundSize,
  dummySize,
  FONT,
  HEADER,
  leafLines,
  leafSize,
  PAD,
} from '../../src/viz/layout-size.js';
import { vizEdge, vizNode } from './layout-fixtures.js';

describe('sizes', () => {
  it('a leaf is at least 96 px wide, 32 px plus 13 px per invoke line high', () => {
    const plain = vizNode('m.a', 'm');
    expect(leafSize(plain)).toEqual({ w: 96, h: 32 });
    const worker = vizNode('m.work', 'm', { invoke: [{ id: 'worker', src: 'worker' }] });
    expect(leafLines(worker)).toEqual({ title: 'work', lines: ['invoke worker'] });
    expect(leafSize(worker)).toEqual({ w: Math.ceil(13 * FONT.small + 22), h: 45 });
    const long = vizNode('m.a', 'm', { invoke: [{ id: 'reviewer', src: 'externalReviewerActor' }] });
    expect(leafLines(long).lines).toEqual(['invoke reviewer (externalReviewerActor)']);
    expect(leafSize(long)).toEqual({ w: Math.ceil(39 * FONT.small + 22), h: 45 });
    const wide = vizNode(`m.${'k'.repeat(20)}`, 'm');
    expect(leafSize(wide).w).toBe(Math.ceil(20 * FONT.title + 26));
  });

  it('a compound pads its children and adds its header; wide enough for its key', () => {
    expect(compoundSize('plan', { w: 200, h: 100 })).toEqual({ w: 200 + 2 * PAD, h: 100 + HEADER + PAD });
    expect(compoundSize('plan', { w: 0, h: 0 }).w).toBe(4 * FONT.title + 2 * PAD + 30);
  });

  it('the pseudo node and dummy nodes have fixed sizes', () => {
    expect(ANY_STATE_SIZE).toEqual({ w: 110, h: 32 });
    expect(dummySize('LR')).toEqual({ w: 0, h: 10 });
    expect(dummySize('TB')).toEqual({ w: 10, h: 0 });
  });
});

describe('compactLabel', () => {
  const oneInvoke = vizNode('m.w', 'm', { invoke: [{ id: 'worker', src: 'worker' }] });
  const twoInvokes = vizNode('m.w', 'm', {
    invoke: [
      { id: 'a', src: 'a' },
      { id: 'b', src: 'b' },
    ],
  });

  it("leaves the trigger to the edge's style for always and the only invoke's done/error", () => {
    const done = vizEdge('e0', 'm.w', ['m.x'], {
      kind: 'done',
      event: 'xstate.done.actor.worker',
      invoke: 'worker',
    });
    expect(compactLabel(done, oneInvoke)).toBe('');
    expect(compactLabel({ ...done, guard: 'ok' }, oneInvoke)).toBe('[ok]');
    expect(compactLabel({ ...done, kind: 'error', event: 'xstate.error.actor.worker' }, oneInvoke)).toBe('');
    const always = vizEdge('e1', 'm.w', ['m.x'], { kind: 'always', event: '' });
    expect(compactLabel(always, oneInvoke)).toBe('');
    expect(compactLabel({ ...always, guard: 'ready' }, undefined)).toBe('[ready]');
  });

  it('keeps the trigger when the source has several invokes, and marks internal and reenter', () => {
    const done = vizEdge('e0', 'm.w', ['m.x'], { kind: 'done', event: 'xstate.done.actor.a', invoke: 'a' });
    expect(compactLabel(done, twoInvokes)).not.toBe('');
    expect(compactLabel(vizEdge('e2', 'm.w', [], { event: 'PING' }), twoInvokes)).toBe('PING (internal)');
    expect(compactLabel(vizEdge('e3', 'm.w', ['m.w'], { event: 'AGAIN', reenter: true }), twoInvokes)).toBe(
      'AGAIN (reenter)',
    );
  });
});
