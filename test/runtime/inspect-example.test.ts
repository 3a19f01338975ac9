/**
 * examples/inspect end to end: the transition logger given to runProject's `inspect` option
 * reports the cycle machine's path, from its initial state to `solved`, one line per transition.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { statePath } from '../../examples/inspect/inspect-example.js';
import { main } from '../../examples/inspect/run.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'inspect-example-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('runs the inspect example and logs each transition of the cycle machine', async () => {
  const lines: string[] = [];
  const status = await main([dir], (l) => lines.push(l));
  expect(status).toBe('solved');
  expect(lines[0]).toBe(`project: ${dir}`);
  expect(lines[1]).toBe('(start) → plan.discover  [xstate.init]');
  expect(lines.at(-1)).toBe('handoff: solved');
  const moves = lines.slice(1, -1);
  expect(moves.length).toBeGreaterThan(5);
  // each line starts where the previous one ended
  for (let i = 1; i < moves.length; i++) {
    const prevTo = (moves[i - 1] as string).split(' → ')[1]?.split('  [')[0];
    expect((moves[i] as string).startsWith(`${prevTo} → `)).toBe(true);
  }
  expect(moves.some((l) => l.includes('→ work.dispatching'))).toBe(true);
  expect(moves.at(-1)).toMatch(/→ solved {2}\[/);
});

it('statePath flattens a nested state value', () => {
  expect(statePath('solved')).toBe('solved');
  expect(statePath({ plan: 'discover' })).toBe('plan.discover');
  expect(statePath({ a: { b: 'c' } })).toBe('a.b.c');
});
