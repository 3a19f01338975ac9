/**
 * The trace of a resumed chain run: a chain stopped mid-way (a stage fails → SeamError, or the
 * process is gone → a fresh journal object on the same directory or store) and continued with
 * `chain.resume` starts a new seam machine, whose first recorded step leaves `chain.ready`. Both
 * journals (the file journal and the run-store journal) record it with the next commit, and the
 * audit (`handoff audit --chain-journal DIR --baton ID`, `handoff audit RUN_ID`) accepts it as a
 * restart at a commit boundary — the step is the machine's first in its write, or follows a
 * machine that reached a final state — and flags nothing. Hostile: a forged restart in the middle
 * of a write, or one followed by an impossible transition, is still flagged with its cite. A real
 * crash: the payroll chain killed (SIGKILL) inside `pay` in a child process running the built
 * library, then resumed to the end by a new child — both journals audit ok, one restart.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine } from '../../machines/index.js';
import { canonicalJsonUtf8 } from '../../src/canonical/index.js';
import {
  type ChainJournal,
  chainJournalCite,
  chainJournalFile,
  createFileChainJournal,
  createStoreChainJournal,
  readFileChainJournalTrace,
  SeamError,
} from '../../src/chain/index.js';
import { createFsStore } from '../../src/store/index.js';
import type { TraceStep } from '../../src/store/store-types.js';
import { machineGraph } from '../../src/viz/graph.js';
import { cliMain } from '../helpers/cli-main.js';
import { goodStages, tripBaton, tripChain } from './trip-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-resume-trace-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const BATON = 'trip-1';

/** A trip chain whose `route` stage throws on its first call (a SeamError after the first commit). */
function failingOnce() {
  const stages = goodStages();
  const route = stages.route;
  let calls = 0;
  stages.route = async (...args: Parameters<typeof route>) => {
    calls += 1;
    if (calls === 1) throw new Error('route service unavailable');
    return route(...args);
  };
  return tripChain(stages);
}

/** Runs the chain until its `route` stage fails; the SeamError's checkpoint is revision 1. */
async function stopAtRoute(journal: ChainJournal): Promise<ReturnType<typeof failingOnce>> {
  const chain = failingOnce();
  const err = await chain.run(tripBaton(chain), { journal }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SeamError);
  expect(err).toMatchObject({ code: 'stage_failed', stage: 'route' });
  expect((err as SeamError).checkpoint.revision).toBe(1);
  return chain;
}

interface ChainAudit {
  schema: string;
  ok: boolean;
  entries: number;
  traced_lines: number;
  steps: number;
  findings: { code: string; cite: string; index: number; detail: string }[];
  restarts: { cite: string; index: number; machine: string }[];
}

const auditJournal = async (d: string): Promise<{ code: number; report: ChainAudit; err: string }> => {
  const r = await cliMain(['audit', '--chain-journal', d, '--baton', BATON, '--json'], dir);
  return { code: r.code, report: JSON.parse(r.out) as ChainAudit, err: r.err };
};

const auditRun = async (runId: string, root: string): Promise<{ code: number; report: ChainAudit }> => {
  const r = await cliMain(['audit', runId, '--root', root, '--json'], dir);
  expect(r.err).toBe('');
  return { code: r.code, report: JSON.parse(r.out) as ChainAudit };
};

function fileTraced(d: string) {
  const r = readFileChainJournalTrace(d, BATON);
  if (!r.ok) throw new Error(r.detail);
  return r;
}

const START = { from: 'chain.ready', event: 'START', to: 'chain.running' };

describe('file journal: a resumed run’s trace', () => {
  it('after a SeamError, resume with the same journal object: the resumed machine’s START opens the next line; the audit is ok and names the restart', async () => {
    const journal = createFileChainJournal(dir);
    const chain = await stopAtRoute(journal);
    const result = await chain.resume(journal, BATON);
    expect(result.baton.revision).toBe(3);
    await journal.close();
    const r = fileTraced(dir);
    expect(r.entries).toBe(4);
    expect(r.traced.map((t) => [t.first_seq, t.revision])).toEqual([
      [2, 1],
      [3, 2],
      [4, 3],
    ]);
    // the failed run's steps after its last commit never reached a commit: the resumed machine's
    // first step is the first step of the next line
    expect(r.traced[1]?.trace[0]).toMatchObject(START);
    const { code, report, err } = await auditJournal(dir);
    expect(err).toBe('');
    expect(report).toMatchObject({ schema: 'chain-journal-audit/v1', ok: true, findings: [] });
    expect(report.restarts).toEqual([{ cite: chainJournalCite(BATON, 3), index: 0, machine: 'chain' }]);
    expect(code).toBe(0);
  });

  it('the text report names the restart on one line (and a run never resumed has no such line)', async () => {
    const journal = createFileChainJournal(dir);
    const chain = await stopAtRoute(journal);
    await chain.resume(journal, BATON);
    await journal.close();
    const r = await cliMain(['audit', '--chain-journal', dir, '--baton', BATON], dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `restarts: ${chainJournalCite(BATON, 3)} step 0 (chain) — a resumed run's new machine began at its initial state\n`,
    );
    const other = await mkdtemp(join(tmpdir(), 'chain-resume-trace-plain-'));
    try {
      const plain = createFileChainJournal(other);
      await tripChain().run(tripBaton(tripChain()), { journal: plain });
      await plain.close();
      const q = await cliMain(['audit', '--chain-journal', other, '--baton', BATON], dir);
      expect(q.code).toBe(0);
      expect(q.out).not.toContain('restarts:');
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('a fresh process (a new journal object and a new chain on the same directory) resumes: the audit is ok', async () => {
    const first = createFileChainJournal(dir, { holdLocks: true });
    await stopAtRoute(first);
    await first.close();
    const again = createFileChainJournal(dir, { holdLocks: true });
    const result = await tripChain().resume(again, BATON);
    expect(result.baton.revision).toBe(3);
    await again.close();
    const r = fileTraced(dir);
    expect(r.traced[1]?.trace[0]).toMatchObject(START);
    const { code, report } = await auditJournal(dir);
    expect(report).toMatchObject({ ok: true, findings: [] });
    expect(report.restarts).toHaveLength(1);
    expect(code).toBe(0);
  });

  it('an untraced journal resumed stays byte-for-byte the untraced lines (no key, no marker)', async () => {
    const journal = createFileChainJournal(dir, { trace: false });
    const chain = await stopAtRoute(journal);
    await chain.resume(journal, BATON);
    await journal.close();
    const lines = (await readFile(chainJournalFile(dir, BATON), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    for (const l of lines)
      expect(Object.keys(JSON.parse(l) as object).sort()).toEqual([
        'baton',
        'baton_id',
        'receipt',
        'revision',
        'v',
      ]);
    const { code, report } = await auditJournal(dir);
    expect(report).toMatchObject({ ok: false, steps: 0, restarts: [] });
    expect(code).toBe(5);
  });

  it('hostile: a restart forged in the middle of a line (the old machine not stopped) is not_active, with its cite', async () => {
    const journal = createFileChainJournal(dir);
    const chain = await stopAtRoute(journal);
    await chain.resume(journal, BATON);
    await journal.close();
    const file = chainJournalFile(dir, BATON);
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    // line 4 (the pay commit) of the resumed run: [committed→running, running→validating,
    // validating→committed]; a forger inserts a new machine's START after the stage began
    const line = JSON.parse(lines[3] as string) as { trace: TraceStep[] };
    expect(line.trace[0]).toMatchObject({ from: 'chain.committed', to: 'chain.running' });
    line.trace.splice(1, 0, { machine: 'chain', ...START, guard: 'requiresPresent' });
    lines[3] = canonicalJsonUtf8(line);
    await writeFile(file, `${lines.join('\n')}\n`);
    const { code, report } = await auditJournal(dir);
    expect(code).toBe(5);
    expect(report.ok).toBe(false);
    expect(report.findings).toEqual([
      expect.objectContaining({ code: 'not_active', cite: chainJournalCite(BATON, 4), index: 1 }),
    ]);
    expect(report.restarts).toEqual([{ cite: chainJournalCite(BATON, 3), index: 0, machine: 'chain' }]);
  });

  it('hostile: a forged restart at the start of a line does not hide an impossible transition after it', async () => {
    const journal = createFileChainJournal(dir);
    await tripChain().run(tripBaton(tripChain()), { journal });
    await journal.close();
    const file = chainJournalFile(dir, BATON);
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    // line 3 (the route commit): its first step becomes a START, and the stage's own step
    // (running→validating) is removed — validating→committed from running is impossible
    const line = JSON.parse(lines[2] as string) as { trace: TraceStep[] };
    expect(line.trace.map((s) => s.to)).toEqual(['chain.running', 'chain.validating', 'chain.committed']);
    line.trace = [{ machine: 'chain', ...START, guard: 'requiresPresent' }, line.trace[2] as TraceStep];
    lines[2] = canonicalJsonUtf8(line);
    await writeFile(file, `${lines.join('\n')}\n`);
    const { code, report } = await auditJournal(dir);
    expect(code).toBe(5);
    expect(report.findings).toEqual([
      expect.objectContaining({ code: 'not_active', cite: chainJournalCite(BATON, 3), index: 1 }),
    ]);
  });
});

describe('run-store journal: a resumed run’s trace', () => {
  async function storeRunResumed(fresh: boolean): Promise<{ root: string; runId: string }> {
    const root = join(dir, '.handoff');
    const journal = createStoreChainJournal(createFsStore({ root, env: {} }), tripChain());
    const chain = await stopAtRoute(journal);
    const runId = journal.runOf(BATON);
    if (runId === undefined) throw new Error('no run');
    const resumer = fresh ? createStoreChainJournal(createFsStore({ root, env: {} }), tripChain()) : journal;
    const result = await (fresh ? tripChain() : chain).resume(resumer, BATON);
    expect(result.baton.revision).toBe(3);
    expect(resumer.runOf(BATON)).toBe(runId); // the same run goes on
    return { root, runId };
  }

  async function batches(root: string, runId: string): Promise<{ first_seq: number; trace: TraceStep[] }[]> {
    return (await readFile(join(root, 'runs', runId, 'batches.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { first_seq: number; trace: TraceStep[] });
  }

  for (const fresh of [false, true])
    it(`${fresh ? 'a fresh process (new store and journal objects)' : 'after a SeamError, the same journal object'}: the resumed batch starts with START; handoff audit RUN_ID is ok (exit 0)`, async () => {
      const { root, runId } = await storeRunResumed(fresh);
      const b = await batches(root, runId);
      expect(b.map((x) => x.first_seq)).toEqual([1, 2, 3]);
      // the stopped machine's steps after its last commit are not carried into the resumed batch
      expect(b[1]?.trace[0]).toMatchObject(START);
      const { code, report } = await auditRun(runId, root);
      expect(report).toMatchObject({ ok: true, findings: [] });
      expect(report.restarts).toEqual([{ cite: `${runId}#2`, index: 0, machine: 'chain' }]);
      expect(code).toBe(0);
    });

  it('handoff inspect draws the resumed run’s recorded path without a gap', async () => {
    const { root, runId } = await storeRunResumed(false);
    const r = await cliMain(['inspect', runId, '--root', root, '--format', 'json'], dir);
    expect(r.err).toBe('');
    const report = JSON.parse(r.out) as {
      path: { steps: { state: string; cite: string }[] };
      overlay: { gaps: unknown[]; current: string | null; edge_visits: Record<string, number> };
    };
    expect(report.overlay.gaps).toEqual([]);
    expect(report.overlay.current).toBe('chain.accepted');
    const states = report.path.steps.map((s) => s.state);
    expect(states.slice(0, 4)).toEqual(['ready', 'running', 'validating', 'committed']);
    expect(states.at(-1)).toBe('accepted');
    expect(states.filter((s) => s === 'committed')).toHaveLength(3);
    // the restart is drawn: back to ready at the resumed write's cite, then its START
    const back = report.path.steps.findIndex((s, i) => i > 0 && s.state === 'ready');
    expect(back).toBeGreaterThan(0);
    expect(report.path.steps[back]?.cite).toBe(`${runId}#2`);
    expect(report.path.steps[back - 1]?.state).not.toBe('ready');
    expect(report.path.steps[back + 1]?.state).toBe('running');
    expect(states.filter((s) => s === 'ready')).toHaveLength(2);
    // the resumed machine's START is drawn on its own edge (ready → running), taken twice: the
    // first run's and the resumed run's
    const g = machineGraph(chainMachine as unknown as AnyStateMachine);
    const start = g.edges.find(
      (e) => e.source === 'chain.ready' && e.event === 'START' && e.targets[0] === 'chain.running',
    );
    expect(start && report.overlay.edge_visits[start.id]).toBe(2);
  });

  it('hostile: a restart forged mid-batch in a store run is flagged with the batch cite (exit 5)', async () => {
    const { root, runId } = await storeRunResumed(true);
    const file = join(root, 'runs', runId, 'batches.jsonl');
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const third = JSON.parse(lines[2] as string) as { trace: TraceStep[] };
    expect(third.trace[0]).toMatchObject({ from: 'chain.committed', to: 'chain.running' });
    third.trace.splice(1, 0, { machine: 'chain', ...START, guard: 'requiresPresent' });
    lines[2] = canonicalJsonUtf8(third);
    await writeFile(file, `${lines.join('\n')}\n`);
    const { code, report } = await auditRun(runId, root);
    expect(code).toBe(5);
    expect(report.findings).toEqual([
      expect.objectContaining({ code: 'not_active', cite: `${runId}#3`, index: 1 }),
    ]);
  });
});

const WORKER = fileURLToPath(new URL('./fixtures/payroll-worker.mjs', import.meta.url));

/**
 * Runs the payroll worker (the built library) on `dir` with `journal`; with `hangAt` it is killed
 * (SIGKILL) once it reports the hang. Resolves with how it ended.
 */
function payrollWorker(
  hangAt: string,
  journal: 'file' | 'store',
): Promise<{ signal: string | null; code: number | null }> {
  const child = spawn(process.execPath, [WORKER, dir], {
    env: { ...process.env, HANG_AT: hangAt, JOURNAL: journal },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (hangAt !== '' && out.includes('HANG\n')) child.kill('SIGKILL');
  });
  child.stderr.resume();
  return new Promise((res) => child.on('close', (code, signal) => res({ code, signal })));
}

describe('a real crash (SIGKILL in a child process) and a resume in a new process', () => {
  it('file journal: the resumed process’s first line starts at chain.ready; handoff audit --chain-journal is ok with one restart', async () => {
    expect(await payrollWorker('pay:effect', 'file')).toMatchObject({ signal: 'SIGKILL' });
    expect(await payrollWorker('', 'file')).toMatchObject({ code: 0 });
    const r = await cliMain(
      ['audit', '--chain-journal', join(dir, 'journal'), '--baton', 'payroll-2026-06', '--json'],
      dir,
    );
    expect(r.err).toBe('');
    const report = JSON.parse(r.out) as ChainAudit;
    expect(report).toMatchObject({ ok: true, findings: [], entries: 6, traced_lines: 5 });
    // lines: the start baton, intent, settle, fund_check (first process), pay, receipt (resumed)
    expect(report.restarts).toEqual([
      { cite: chainJournalCite('payroll-2026-06', 5), index: 0, machine: 'chain' },
    ]);
    expect(r.code).toBe(0);
  });

  it('run-store journal: the same chain run goes on; handoff audit RUN_ID is ok with one restart', async () => {
    expect(await payrollWorker('pay:effect', 'store')).toMatchObject({ signal: 'SIGKILL' });
    expect(await payrollWorker('', 'store')).toMatchObject({ code: 0 });
    const root = join(dir, '.handoff');
    const runs = await createFsStore({ root, env: {} }).listRuns();
    expect(runs).toHaveLength(1);
    const runId = runs[0] as string;
    const { code, report } = await auditRun(runId, root);
    expect(report).toMatchObject({ ok: true, findings: [] });
    expect(report.restarts).toEqual([{ cite: `${runId}#4`, index: 0, machine: 'chain' }]);
    expect(code).toBe(0);
  });
});
