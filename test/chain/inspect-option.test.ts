/**
 * The `inspect` option of a chain run (HandoffChain.run/resume/advance, runChainMachine — all
 * through driveChain): the inspector attached to the seam machine's actor sees its events and
 * snapshots, and the root actor's `@xstate.snapshot` events trace the states the run reports.
 */

import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { createMemoryChainJournal, runChainMachine } from '../../src/chain/index.js';
import { tripBaton, tripChain } from './trip-fixture.js';

function rootStates(events: readonly InspectionEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type !== '@xstate.snapshot' || e.actorRef.sessionId !== e.rootId) continue;
    const v = String((e.snapshot as { value?: unknown }).value);
    if (out.at(-1) !== v) out.push(v);
  }
  return out;
}

describe('chain run inspect option', () => {
  it('HandoffChain.run passes the inspector to the seam machine’s actor', async () => {
    const chain = tripChain();
    const events: InspectionEvent[] = [];
    const r = await chain.run(tripBaton(chain), { inspect: (e) => events.push(e) });
    expect(r.baton.revision).toBe(3);
    expect(rootStates(events)).toEqual([
      'ready',
      'running',
      'validating',
      'committed',
      'running',
      'validating',
      'committed',
      'running',
      'validating',
      'committed',
      'accepted',
    ]);
    // START was sent to the machine, and each stage ran as an invoked actor
    expect(events.some((e) => e.type === '@xstate.event' && e.event.type === 'START')).toBe(true);
    const runStage = events.filter(
      (e) =>
        e.type === '@xstate.actor' &&
        e.actorRef.sessionId !== e.rootId &&
        (e.actorRef as { id?: string }).id === 'stage',
    );
    expect(runStage.length).toBeGreaterThanOrEqual(3);
  });

  it('runChainMachine: the inspected states equal the reported states; advance takes it too', async () => {
    const chain = tripChain();
    const events: InspectionEvent[] = [];
    const r = await runChainMachine(chain, tripBaton(chain), {
      journal: createMemoryChainJournal(),
      inspect: { next: (e) => events.push(e) },
    });
    expect(rootStates(events)).toEqual(r.states);
    const one: InspectionEvent[] = [];
    const c = await tripChain().advance(tripBaton(chain), { inspect: (e) => one.push(e) });
    expect(c.ok).toBe(true);
    expect(rootStates(one)).toEqual(['ready', 'running', 'validating', 'committed']);
  });
});
