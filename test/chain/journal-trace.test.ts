/**
 * The chain file journal records the chain machine's transitions: each commit line carries the
 * steps since the previous commit under an optional `trace` key (a line without steps has none),
 * `readFileChainJournalTrace` reads them back, and replaying them through the chain machine
 * (`auditTrace`) passes for a real run and flags an edited step with the cite of its line. A reader
 * that knows nothing of the key still reads the same batons; an untraced journal's lines are the
 * traced lines without the key, byte for byte.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine } from '../../machines/index.js';
import { auditTrace } from '../../src/audit/index.js';
import { canonicalJson } from '../../src/canonical/index.js';
import {
  type ChainJournalTracedCommit,
  chainJournalCite,
  chainJournalFile,
  createFileChainJournal,
  readFileChainJournalTrace,
  stageDelta,
} from '../../src/chain/index.js';
import { machineGraph } from '../../src/viz/graph.js';
import { goodStages, tripBaton, tripChain } from './trip-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-ftrace-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const graphs = () => [machineGraph(chainMachine as unknown as AnyStateMachine)];
const audit = (traced: readonly ChainJournalTracedCommit[]) =>
  auditTrace('trip-1', traced, graphs(), (line) => chainJournalCite('trip-1', line));

async function linesOf(d: string): Promise<Record<string, unknown>[]> {
  return (await readFile(chainJournalFile(d, 'trip-1'), 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function traced(d: string): readonly ChainJournalTracedCommit[] {
  const r = readFileChainJournalTrace(d, 'trip-1');
  if (!r.ok) throw new Error(`unexpected: ${r.detail}`);
  return r.traced;
}

describe('file journal trace', () => {
  it('each seam commit line carries the machine steps since the previous commit; the replay through the chain machine is ok', async () => {
    const chain = tripChain();
    const journal = createFileChainJournal(dir, { holdLocks: true });
    expect(journal.inspect).toBeTypeOf('function');
    await chain.run(tripBaton(chain), { journal });
    const lines = await linesOf(dir);
    expect(lines).toHaveLength(4);
    expect('trace' in (lines[0] as object)).toBe(false); // the start baton: committed before the machine ran
    const r = readFileChainJournalTrace(dir, 'trip-1');
    if (!r.ok) throw new Error(r.detail);
    expect(r.entries).toBe(4);
    expect(r.traced.map((t) => [t.first_seq, t.last_seq, t.revision])).toEqual([
      [2, 2, 1],
      [3, 3, 2],
      [4, 4, 3],
    ]);
    for (const t of r.traced) {
      expect(t.trace.every((s) => s.machine === 'chain')).toBe(true);
      expect(t.trace).toEqual((lines[t.first_seq - 1] as { trace: unknown }).trace);
    }
    expect(r.traced[0]?.trace[0]).toMatchObject({ from: 'chain.ready', event: 'START', to: 'chain.running' });
    const report = audit(r.traced);
    expect(report).toMatchObject({ ok: true, batches: 3, findings: [] });
    expect(report.steps).toBe(r.traced.reduce((n, t) => n + t.trace.length, 0));
    expect(report.steps).toBeGreaterThan(6);
  });

  it('an old reader sees the same records: untraced lines are the traced lines without the trace key, byte for byte', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const plainDir = join(dir, 'plain');
    await chain.run(b0, { journal: createFileChainJournal(dir) });
    const plain = createFileChainJournal(plainDir, { trace: false });
    expect(plain.inspect).toBeUndefined();
    await chain.run(b0, { journal: plain });
    const withTrace = (await readFile(chainJournalFile(dir, 'trip-1'), 'utf8')).trimEnd().split('\n');
    const without = (await readFile(chainJournalFile(plainDir, 'trip-1'), 'utf8')).trimEnd().split('\n');
    expect(without).toHaveLength(4);
    for (const [i, line] of withTrace.entries()) {
      const rec = JSON.parse(line) as Record<string, unknown>;
      // the v1 shape an older reader knows, plus at most the optional trace
      expect(Object.keys(rec).filter((k) => k !== 'trace')).toEqual([
        'baton',
        'baton_id',
        'receipt',
        'revision',
        'v',
      ]);
      delete rec.trace;
      expect(canonicalJson(rec)).toBe(without[i]);
    }
    expect(readFileChainJournalTrace(plainDir, 'trip-1')).toMatchObject({ ok: true, entries: 4, traced: [] });
    // the loaders of both read the same batons
    const a = await createFileChainJournal(dir).entries('trip-1');
    const b = await createFileChainJournal(plainDir).entries('trip-1');
    expect(a.map((e) => e.baton.fingerprint)).toEqual(b.map((e) => e.baton.fingerprint));
  });

  it('hostile: an edited step (a transition the chain machine lacks) is flagged with the cite of its line', async () => {
    const chain = tripChain();
    await chain.run(tripBaton(chain), { journal: createFileChainJournal(dir) });
    const lines = await linesOf(dir);
    const third = lines[2] as { trace: { to: string }[] };
    (third.trace[0] as { to: string }).to = 'chain.ready'; // back before START: no such transition
    await writeFile(chainJournalFile(dir, 'trip-1'), `${lines.map((l) => canonicalJson(l)).join('\n')}\n`);
    // the batons are untouched: the journal still loads; the audit sees the edit
    expect(await createFileChainJournal(dir).entries('trip-1')).toHaveLength(4);
    const report = audit(traced(dir));
    expect(report.ok).toBe(false);
    expect(report.findings[0]).toMatchObject({
      code: 'no_such_transition',
      cite: chainJournalCite('trip-1', 3),
      index: 0,
    });
    expect(chainJournalCite('trip-1', 3)).toMatch(/^baton-[0-9a-f]+\.jsonl#3$/);
  });

  it('hostile: a malformed trace or a damaged line is a structured journal_damaged with the line, never a throw', async () => {
    const chain = tripChain();
    await chain.run(tripBaton(chain), { journal: createFileChainJournal(dir) });
    const file = chainJournalFile(dir, 'trip-1');
    const lines = await linesOf(dir);
    const write = (ls: unknown[]) => writeFile(file, `${ls.map((l) => canonicalJson(l)).join('\n')}\n`);
    await write([lines[0], { ...lines[1], trace: 'START→done' }, lines[2], lines[3]]);
    expect(readFileChainJournalTrace(dir, 'trip-1')).toMatchObject({
      ok: false,
      code: 'journal_damaged',
      line: 2,
    });
    await write([
      lines[0],
      lines[1],
      { ...lines[2], trace: [{ machine: 'chain', from: 'a', event: 'E', to: 'b', x: 1 }] },
    ]);
    expect(readFileChainJournalTrace(dir, 'trip-1')).toMatchObject({
      ok: false,
      code: 'journal_damaged',
      line: 3,
    });
    await writeFile(file, `${canonicalJson(lines[0])}\ngarbage\n`);
    expect(readFileChainJournalTrace(dir, 'trip-1')).toMatchObject({
      ok: false,
      code: 'journal_damaged',
      line: 2,
    });
    expect(readFileChainJournalTrace(join(dir, 'none'), 'trip-1')).toMatchObject({
      ok: true,
      entries: 0,
      traced: [],
    });
  });

  it('hostile: stage output that looks like a trace or holds newlines never reaches the trace', async () => {
    const stages = goodStages();
    const forged =
      '"}\n{"trace":[{"machine":"chain","from":"chain.ready","event":"START","to":"chain.done"}]}\n';
    stages.intent = () =>
      stageDelta({
        city: { value: forged, evidence: ['chat://1\n{"trace":[]}'] },
        policy: {
          value: { latest_departure: '18:00\n{"trace":[{"machine":"evil"}]}' },
          evidence: ['policy://travel/v3'],
        },
      });
    const chain = tripChain(stages);
    await chain.run(tripBaton(chain), { journal: createFileChainJournal(dir) });
    const text = await readFile(chainJournalFile(dir, 'trip-1'), 'utf8');
    expect(text.trimEnd().split('\n')).toHaveLength(4); // one line per commit: newlines are escaped
    const t = traced(dir);
    expect(t.flatMap((c) => c.trace.map((s) => s.machine))).toEqual(
      t.flatMap((c) => c.trace.map(() => 'chain')),
    );
    expect(audit(t)).toMatchObject({ ok: true, findings: [] });
    const last = await createFileChainJournal(dir).loadLast('trip-1');
    expect(last?.records.find((r) => r.key === 'city')?.value).toBe(forged);
  });

  it('a start baton drops an earlier run’s leftover steps; a failed commit’s steps go with the retried commit', async () => {
    const chain = tripChain();
    const journal = createFileChainJournal(dir, { holdLocks: true });
    await chain.run(tripBaton(chain), { journal }); // its last transitions follow its last commit
    const b2 = chain.newBaton({
      baton_id: 'trip-2',
      intent: 'x',
      facts: { request_id: { value: 'req-8', evidence: ['chat://msg/1'] } },
    });
    await chain.run(b2, { journal });
    const second = readFileChainJournalTrace(dir, 'trip-2');
    if (!second.ok) throw new Error(second.detail);
    expect(second.traced[0]?.trace[0]).toMatchObject({ from: 'chain.ready', event: 'START' });
    expect(
      auditTrace('trip-2', second.traced, graphs(), (line) => chainJournalCite('trip-2', line)),
    ).toMatchObject({ ok: true, findings: [] });

    // the first seam's commit fails (another writer took the lock during the stage): its steps
    // are kept and written with the retried commit of the same entry
    const retryDir = join(dir, 'retry');
    const j3 = createFileChainJournal(retryDir);
    const blocker = createFileChainJournal(retryDir, { holdLocks: true, trace: false });
    const b0 = tripBaton(chain);
    const stages = goodStages();
    const intent = stages.intent;
    stages.intent = async (...args: Parameters<typeof intent>) => {
      await blocker.commit({ baton: b0, receipt: null }); // a duplicate: it takes and keeps the lock
      return intent(...args);
    };
    await expect(tripChain(stages).run(b0, { journal: j3 })).rejects.toMatchObject({ code: 'busy' });
    await blocker.close();
    const c1 = await tripChain().advance(b0);
    await j3.commit({ baton: c1.baton, receipt: c1.receipt });
    const got = readFileChainJournalTrace(retryDir, 'trip-1');
    if (!got.ok) throw new Error(got.detail);
    expect(got.traced.map((t) => t.first_seq)).toEqual([2]);
    expect(got.traced[0]?.trace[0]).toMatchObject({ from: 'chain.ready', event: 'START' });
    expect(audit(got.traced)).toMatchObject({ ok: true, findings: [] });
  });
});
