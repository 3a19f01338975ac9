/**
 * The `inspect` option of runGate: the inspector attached to the gate machine's actor sees the
 * lifecycle's events and snapshots; the root actor's `@xstate.snapshot` events trace the same
 * path the runner reports, and the final snapshot's output (GateMachineOutput) is what the
 * runner handed to the lead.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { InspectedSnapshotEvent, InspectionEvent } from 'xstate';
import type { GateMachineOutput } from '../../machines/index.js';
import {
  createFsLedger,
  currentCandidate,
  DEFAULT_THRESHOLDS,
  ownerAuthority,
  runGate,
  subprocessEvaluator,
} from '../../src/gate/index.js';
import { exampleContract, gitRepo, rm, T0, tempDir } from './fixtures.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/gate/', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

describe('runGate inspect option', () => {
  it('an inspector receives the gate actor’s snapshots in the order of the reported path', async () => {
    const repo = gitRepo({ 'README.md': 'demo\n', '.gitignore': '.handoff/\n' });
    const side = tempDir('gate-inspect-');
    dirs.push(repo, side);
    const contract = exampleContract(await currentCandidate(repo));
    const events: InspectionEvent[] = [];
    const r = await runGate({
      repo,
      contract,
      ledger: createFsLedger(join(side, 'ledger'), { now: () => T0 }),
      evaluator: subprocessEvaluator([process.execPath, join(EXAMPLES, 'evaluator.mjs')]),
      worker: [process.execPath, join(EXAMPLES, 'worker.mjs')],
      authority: ownerAuthority(contract.owner),
      thresholds: DEFAULT_THRESHOLDS,
      now: () => T0,
      recordsDir: join(side, 'records'),
      register: true,
      inspect: (e) => events.push(e),
    });
    const root = events.filter(
      (e): e is InspectedSnapshotEvent => e.type === '@xstate.snapshot' && e.actorRef.sessionId === e.rootId,
    );
    const states: string[] = [];
    for (const e of root) {
      const v = String((e.snapshot as { value?: unknown }).value);
      if (states.at(-1) !== v) states.push(v);
    }
    expect(states).toEqual(r.path);
    expect(states[0]).toBe('provisional');
    expect(states).toContain('collecting');
    expect(['leadReview', 'stopped']).toContain(states.at(-1));
    // the invoked actors (collect, check, evaluate, route…) are inspected too
    const children = events.filter((e) => e.type === '@xstate.actor' && e.actorRef.sessionId !== e.rootId);
    expect(children.length).toBeGreaterThan(2);
    const last = root.at(-1);
    if (last === undefined) throw new Error('no root snapshot inspected');
    const final = last.snapshot as { status?: string; output?: GateMachineOutput };
    expect(final.status).toBe('done');
    expect(final.output?.outcome).toBe(r.outcome);
    for (const n of final.output?.notes ?? []) expect(r.lead.limitations).toContain(n);
  });
});
