/**
 * The journal audit over real runs: the trace collected from a real cycle run (runProject with the
 * collector as its `inspect` option) replays through the cycle machine without a finding, and each
 * kind of tampering — an edge the machine lacks, a forged guard, a step from a state that is not
 * active, a foreign machine — is flagged with the cite of the batch that carried it; a lost batch
 * record (untraced events before a step that does not continue the path) is a trace gap.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainMachine, cycleMachine, gateMachine } from '../../machines/index.js';
import { auditTrace, createTraceCollector, type TracedBatch } from '../../src/audit/index.js';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, type Handoff, handoffFor } from '../../src/contract/index.js';
import { runProject } from '../../src/runtime/project-run.js';
import type { TraceStep } from '../../src/store/store-types.js';
import { machineGraph } from '../../src/viz/graph.js';

const RUN = '20261201T120000Z-0123abcd';
const GRAPHS = [machineGraph(cycleMachine), machineGraph(gateMachine), machineGraph(chainMachine)];

let dir: string;
let trace: TraceStep[];

async function solve(d: Dispatch): Promise<{ handoff: Handoff }> {
  const f = d.owned_files[0] as string;
  await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
  const b = await advanceBaseline(d.file_baseline, [f]);
  return { handoff: handoffFor(d, { files_changed: [f], file_baseline: b }) };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-audit-'));
  await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
    cwd: dir,
  });
  const collector = createTraceCollector({ machines: ['cycle'] });
  let t = 0;
  const r = await runProject({
    projectRoot: dir,
    flags: { target: '.', scope: 'project', mode: 'autoprove' },
    worker: { inProcess: solve },
    runId: 'run-audit-1',
    clock: () => (t += 1000),
    inspect: collector.inspect,
  });
  expect(r.handoff.status).toBe('solved');
  trace = collector.take();
  expect(collector.pending).toBe(0);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The trace cut into batches of `size` steps, seqs 1, 2, … */
function batches(steps: readonly TraceStep[], size = 5): TracedBatch[] {
  const out: TracedBatch[] = [];
  for (let i = 0; i < steps.length; i += size)
    out.push({ first_seq: out.length + 1, last_seq: out.length + 1, trace: steps.slice(i, i + size) });
  return out;
}

describe('auditTrace', () => {
  it('a real run: every recorded transition is one the cycle machine allows, in order', () => {
    expect(trace.length).toBeGreaterThan(10);
    expect(trace[0]?.from).toBe('cycle.plan.discover');
    expect(trace.some((s) => s.guard !== undefined)).toBe(true);
    const r = auditTrace(RUN, batches(trace), GRAPHS);
    expect(r.findings).toEqual([]);
    expect(r.untraced).toEqual([]);
    expect(r).toMatchObject({ schema: 'run-audit/v1', run_id: RUN, ok: true, steps: trace.length });
  });

  it('an edge the machine does not have is flagged with its batch cite', () => {
    const forged = [...trace];
    const i = 7;
    forged[i] = { ...(forged[i] as TraceStep), to: 'cycle.solved' };
    const r = auditTrace(RUN, batches(forged), GRAPHS);
    expect(r.ok).toBe(false);
    expect(r.findings[0]).toMatchObject({ code: 'no_such_transition', cite: `${RUN}#2`, index: 2 });
  });

  it('a forged guard on a real edge is flagged', () => {
    const i = trace.findIndex((s) => s.guard !== undefined);
    const forged = [...trace];
    forged[i] = { ...(forged[i] as TraceStep), guard: 'alwaysTrue' };
    const r = auditTrace(RUN, batches(forged, 1000), GRAPHS);
    expect(r.findings.map((f) => [f.code, f.index])).toEqual([['guard_mismatch', i]]);
  });

  it('a real edge from a state that is not active (a dropped or reordered step) is flagged', () => {
    const dropped = trace.filter((_, k) => k !== 3);
    const r = auditTrace(RUN, batches(dropped, 1000), GRAPHS);
    expect(r.ok).toBe(false);
    expect(r.findings[0]?.code).toBe('not_active');
    expect(r.findings[0]?.index).toBe(3);
  });

  it('a batch record missing before a step (its events untraced) is a trace gap, not a tamper', () => {
    const all = batches(trace, 3);
    // the record of seq 3 is lost (a power cut): seq 3's event stays, its transitions are gone
    const lost = all.filter((b) => b.first_seq !== 3);
    const r = auditTrace(RUN, lost, GRAPHS);
    expect(r.ok).toBe(false);
    expect(r.untraced).toEqual([{ first_seq: 3, last_seq: 3 }]);
    expect(r.findings.map((f) => [f.code, f.cite, f.index])).toEqual([['trace_gap', `${RUN}#4`, 0]]);
    expect(r.findings[0]?.detail).toContain('event 3 before this batch carry no trace record');
    // replay resynchronizes at the gap: the rest of the run is checked as before (a forged guard
    // in a later batch is still found)
    const at = lost.findIndex((b) => b.first_seq > 4 && b.trace.some((t) => t.guard !== undefined));
    const batch = lost[at] as TracedBatch;
    const k = batch.trace.findIndex((t) => t.guard !== undefined);
    const forged = batch.trace.map((t, n) => (n === k ? { ...t, guard: 'alwaysTrue' } : t));
    const edited = lost.map((b, n) => (n === at ? { ...b, trace: forged } : b));
    expect(auditTrace(RUN, edited, GRAPHS).findings.map((f) => [f.code, f.cite])).toEqual([
      ['trace_gap', `${RUN}#4`],
      ['guard_mismatch', `${RUN}#${batch.first_seq}`],
    ]);
  });

  it('untraced events whose steps continue the path are no gap; a record present is never excused', () => {
    // seqs 2k+1 only: every other event carries no record, and no transition was lost
    const sparse = batches(trace, 3).map((b, k) => ({ ...b, first_seq: 2 * k + 1, last_seq: 2 * k + 1 }));
    const sparseReport = auditTrace(RUN, sparse, GRAPHS);
    expect(sparseReport).toMatchObject({ ok: true, findings: [] });
    // …but the report names them: their transitions, if any, were not checked
    expect(sparseReport.untraced).toEqual(
      sparse.slice(1).map((b) => ({ first_seq: b.first_seq - 1, last_seq: b.first_seq - 1 })),
    );
    // a step dropped inside a batch that follows its predecessor directly stays not_active
    const dropped = batches(trace, 3).map((b) => (b.first_seq === 4 ? { ...b, trace: b.trace.slice(1) } : b));
    expect(auditTrace(RUN, dropped, GRAPHS).findings.map((f) => f.code)).toEqual(['not_active']);
  });

  it('a step of a machine the audit does not know is flagged; a run without a trace is not ok', () => {
    const foreign = [...trace, { machine: 'payroll', from: 'a', event: 'GO', to: 'b' }];
    const r = auditTrace(RUN, batches(foreign, 1000), GRAPHS);
    expect(r.findings.map((f) => f.code)).toEqual(['unknown_machine']);
    const none = auditTrace(RUN, [{ first_seq: 1, last_seq: 2, trace: [] }], GRAPHS);
    expect(none).toMatchObject({ ok: false, steps: 0, findings: [] });
  });
});
