/**
 * The `inspect` option of runProject/runCycle: the xstate inspector attached to the cycle
 * machine's actor receives its inspection events, and the root actor's `@xstate.snapshot` events
 * trace the same state sequence the run reported through `onProgress`, ending in the final state
 * whose output is the run's handoff.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, type Handoff, handoffFor } from '../../src/contract/index.js';
import { runProject } from '../../src/runtime/project-run.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-inspect-'));
  await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
    cwd: dir,
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function solve(d: Dispatch): Promise<{ handoff: Handoff }> {
  const f = d.owned_files[0] as string;
  await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
  const b = await advanceBaseline(d.file_baseline, [f]);
  return { handoff: handoffFor(d, { files_changed: [f], file_baseline: b }) };
}

function phaseOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const [k, v] = Object.entries(value as Record<string, unknown>)[0] ?? ['?', ''];
  return `${k}.${phaseOf(v)}`;
}

/** The root actor's state sequence from its `@xstate.snapshot` inspection events (repeats merged). */
function rootStates(events: readonly InspectionEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type !== '@xstate.snapshot' || e.actorRef.sessionId !== e.rootId) continue;
    const v = phaseOf((e.snapshot as { value?: unknown }).value);
    if (out.at(-1) !== v) out.push(v);
  }
  return out;
}

let t = 0;
const clock = () => (t += 1000);

describe('runProject/runCycle inspect option', () => {
  it('an inspector function receives the cycle actor, its port actors, events and snapshots', async () => {
    const events: InspectionEvent[] = [];
    const phases: string[] = [];
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solve },
      runId: 'run-inspect-1',
      clock,
      inspect: (e) => events.push(e),
      onProgress: (p) => {
        if (phases.at(-1) !== p.phase) phases.push(p.phase);
      },
    });
    expect(r.handoff.status).toBe('solved');
    const types = new Set(events.map((e) => e.type));
    for (const t of ['@xstate.actor', '@xstate.event', '@xstate.snapshot', '@xstate.microstep'])
      expect(types.has(t as InspectionEvent['type'])).toBe(true);
    // the machine and the actors it invoked (planner, worker, diagnostics, checkpointer…)
    const actors = new Set(events.filter((e) => e.type === '@xstate.actor').map((e) => e.actorRef.sessionId));
    expect(actors.size).toBeGreaterThan(3);
    const states = rootStates(events);
    expect(states).toEqual(phases);
    expect(states[0]).toBe('plan.discover');
    expect(states).toContain('work.dispatching');
    expect(states).toContain('checkpoint.commit');
    expect(states.at(-1)).toBe('solved');
    const last = events
      .filter((e) => e.type === '@xstate.snapshot' && e.actorRef.sessionId === e.rootId)
      .at(-1);
    if (last?.type !== '@xstate.snapshot') throw new Error('no root snapshot inspected');
    const final = last.snapshot as { status?: string; output?: Handoff };
    expect(final.status).toBe('done');
    expect(final.output?.status).toBe('solved');
  });

  it('accepts an observer object ({ next })', async () => {
    const seen: string[] = [];
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solve },
      runId: 'run-inspect-2',
      clock,
      inspect: { next: (e) => seen.push(e.type) },
    });
    expect(r.handoff.status).toBe('solved');
    expect(seen).toContain('@xstate.snapshot');
  });
});
