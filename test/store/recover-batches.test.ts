/**
 * `recoverRun` verifies the batch records before it cuts complete lines (real files): a record
 * forged or left inconsistent — naming acknowledged single appends, superseding a batch whose
 * events are present, starting inside another batch, followed by more sidecar lines after a torn
 * batch — is refused (`batch_record_inconsistent`), every byte kept; a real crash-torn batch, also
 * one that superseded an aborted batch, is still cut back to its first line. The pure rule
 * (`batchRecordProblems`) and `planTail`'s refusal are pinned too.
 */
import { appendFileSync, readdirSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  batchRecordText,
  batchSha256,
  judgeBatches,
  parseBatchRecords,
} from '../../src/store/batch-rules.js';
import { batchRecordProblems } from '../../src/store/batch-verify.js';
import { recoverRun } from '../../src/store/fs-recover.js';
import { createFsStore, type RunLoad } from '../../src/store/index.js';
import { parseJournal } from '../../src/store/journal-parse.js';
import { planTail } from '../../src/store/recover-rules.js';
import { dispatch, note } from './fixtures.js';
import { tempDir } from './tmp.js';

const NOW = '2026-11-30T10:00:00Z';

/** A clock one second later on every call (single appends get distinct timestamps). */
function tickingClock(): () => Date {
  let t = Date.parse(NOW);
  return () => {
    t += 1000;
    return new Date(t);
  };
}

interface Run {
  readonly root: string;
  readonly id: string;
  readonly dir: string;
  readonly journal: string;
  readonly sidecar: string;
}

async function runWith(notes: number): Promise<Run> {
  const root = join(tempDir('recover-batches-'), 'store');
  const store = createFsStore({ root, env: {}, now: tickingClock() });
  const c = await store.createRun({ dispatch: dispatch(), now: NOW });
  const id = c.run_id as string;
  for (let i = 1; i <= notes; i++)
    expect(await store.append(id, 'note', note(`n${i}`))).toMatchObject({ outcome: 'committed', seq: i });
  store.close();
  const dir = join(root, 'runs', id);
  return { root, id, dir, journal: join(dir, 'events.jsonl'), sidecar: join(dir, 'batches.jsonl') };
}

async function batch(run: Run, texts: string[], first: number): Promise<void> {
  const store = createFsStore({ root: run.root, env: {}, now: tickingClock() });
  expect(
    await store.appendBatch(
      run.id,
      texts.map((t) => ({ kind: 'note', payload: note(t) })),
    ),
  ).toMatchObject({ outcome: 'committed', first_seq: first, seq: first + texts.length - 1 });
  store.close();
}

async function loaded(run: Run): Promise<RunLoad> {
  const l = await createFsStore({ root: run.root, env: {} }).load(run.id);
  if (!l.ok) throw new Error(`${l.code}: ${l.detail}`);
  return l.value;
}

function texts(bytes: Buffer): string[] {
  return bytes
    .toString('utf8')
    .split('\n')
    .slice(0, -1) // only newline-terminated lines
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { payload: { text: string } }).payload.text);
}

/** A record line (with its newline) for seqs first..last and a digest that matches nothing. */
function forged(first: number, last: number): string {
  return `${batchRecordText(first, last, 'f'.repeat(64), [])}\n`;
}

/** The byte length of the first `n` lines of a file. */
function prefixBytes(file: string, n: number): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  return Buffer.byteLength(`${lines.slice(0, n).join('\n')}\n`);
}

/** Recover must refuse, leave the run byte-identical, and every acknowledged event must still be there. */
async function expectRefusedUntouched(run: Run, acknowledged: string[], reasonText: RegExp): Promise<void> {
  const before = Object.fromEntries(readdirSync(run.dir).map((f) => [f, readFileSync(join(run.dir, f))]));
  const r = await recoverRun({ root: run.root, runId: run.id, env: {} });
  expect(r).toMatchObject({
    outcome: 'refused',
    code: 'journal_damaged',
    reason: 'batch_record_inconsistent',
    actions: [],
  });
  expect(r.detail).toMatch(reasonText);
  expect(r.detail).not.toMatch(/[\u0000-\u001f]/);
  const after = Object.fromEntries(readdirSync(run.dir).map((f) => [f, readFileSync(join(run.dir, f))]));
  expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
  for (const [f, b] of Object.entries(before)) expect(after[f]?.equals(b), f).toBe(true);
  expect(texts(readFileSync(run.journal)).slice(0, acknowledged.length)).toEqual(acknowledged);
}

describe('recover verifies batch records before cutting complete lines', () => {
  it('a forged record naming acknowledged single appends (distinct timestamps) is refused; nothing cut', async () => {
    const run = await runWith(4);
    appendFileSync(run.sidecar, forged(3, 7));
    // the load believes the record (all-or-nothing): it reports a torn batch and shows 2 events
    const l = await loaded(run);
    expect([l.damaged, l.events.length]).toEqual([true, 2]);
    await expectRefusedUntouched(run, ['n1', 'n2', 'n3', 'n4'], /carry 2 timestamps/);
  });

  it('a forged record that supersedes a complete batch from inside it is refused', async () => {
    const run = await runWith(2);
    await batch(run, ['b3', 'b4', 'b5'], 3);
    appendFileSync(run.sidecar, forged(4, 9));
    await expectRefusedUntouched(run, ['n1', 'n2', 'b3', 'b4', 'b5'], /starts at 4, not 3/);
  });

  it('a forged record re-using the first seq of a complete batch (whose digest matches) is refused', async () => {
    const run = await runWith(2);
    await batch(run, ['b3', 'b4', 'b5'], 3);
    appendFileSync(run.sidecar, forged(3, 9));
    await expectRefusedUntouched(
      run,
      ['n1', 'n2', 'b3', 'b4', 'b5'],
      /were written, so that batch was not aborted/,
    );
  });

  it('hostile: a torn batch followed by more sidecar lines (a record, then garbage with control bytes) is refused', async () => {
    const run = await runWith(2);
    await batch(run, ['b3', 'b4', 'b5'], 3);
    truncateSync(run.journal, prefixBytes(run.journal, 3) + 17);
    appendFileSync(run.sidecar, `${forged(10, 11)}\u001b[2J{"count":\u0007\n`);
    await expectRefusedUntouched(run, ['n1', 'n2'], /has line 2 after it/);
  });

  it('a real crash-torn batch that superseded an aborted batch is still cut back and journaled', async () => {
    const run = await runWith(2);
    // a crash after an earlier batch's record was fsync'd, before its lines were written
    appendFileSync(run.sidecar, forged(3, 5));
    await batch(run, ['b3', 'b4', 'b5', 'b6'], 3);
    const acknowledged = prefixBytes(run.journal, 2);
    truncateSync(run.journal, prefixBytes(run.journal, 4) + 9); // b3, b4 whole, b5 torn
    const r = await recoverRun({ root: run.root, runId: run.id, env: {} });
    expect(r).toMatchObject({
      outcome: 'recovered',
      actions: [{ kind: 'tail_truncated', line: 3, size_after: acknowledged }],
      cite: `${run.id}#3`,
    });
    const l = await loaded(run);
    expect(l.damaged).toBe(false);
    expect(l.events.slice(0, 2).map((e) => (e.payload as { text: string }).text)).toEqual(['n1', 'n2']);
    expect(l.events).toHaveLength(3);
  });

  it('crash residue is not flagged: an unterminated last record and a torn partial line are recovered', async () => {
    const run = await runWith(2);
    await batch(run, ['b3', 'b4'], 3);
    // a one-event batch with a trace: its record is written unsynced, then the line; a power cut
    // kept part of each
    appendFileSync(run.sidecar, forged(5, 5).slice(0, 40));
    const whole = readFileSync(run.journal).length;
    appendFileSync(run.journal, '{"kind":"note","pay');
    const r = await recoverRun({ root: run.root, runId: run.id, env: {} });
    expect(r).toMatchObject({
      outcome: 'recovered',
      actions: [{ kind: 'tail_truncated', line: 5, bytes: 19, size_before: whole + 19, size_after: whole }],
    });
    expect(texts(readFileSync(run.journal))).toEqual([
      'n1',
      'n2',
      'b3',
      'b4',
      expect.stringMatching(/^store recover:/),
    ]);
  });
});

describe('batchRecordProblems (pure)', () => {
  const runId = '20261130T100000Z-0a1b2c3d';
  const line = (seq: number, ts: string, text: string): string =>
    `{"kind":"note","payload":{"kind":"candidate","lean":null,"text":"${text}"},"schema":"run-store-event/v2","seq":${seq},"ts":"${ts}"}\n`;
  const T1 = '2026-11-30T10:00:01Z';
  const T2 = '2026-11-30T10:00:02Z';

  function problems(journal: string, sidecar: string) {
    const bytes = Buffer.from(journal, 'utf8');
    const p = parseJournal(bytes, runId, 'run-store-event/v2');
    const parsed = parseBatchRecords(Buffer.from(sidecar, 'utf8'));
    const lastSeq = p.events.length;
    const j = judgeBatches(parsed.records, {
      bytes,
      fromSeq: 1,
      lastSeq,
      validBytes: p.validBytes,
      damage: p.damage,
    });
    return batchRecordProblems({
      parsed,
      statuses: j.statuses,
      bytes,
      lastSeq,
      stamps: p.events.map((e) => e.ts),
    });
  }

  it('a complete batch and a torn last batch with one timestamp: no problem', () => {
    const b12 = line(1, T1, 'a') + line(2, T1, 'b');
    const j = `${b12}${line(3, T2, 'c')}${line(4, T2, 'd')}`;
    const side = `${batchRecordText(1, 2, batchSha256(Buffer.from(b12)), [])}\n${forged(3, 6)}`;
    expect(problems(j, side)).toEqual([]);
  });

  it('a torn batch whose present lines carry two timestamps is a problem at its line', () => {
    const j = line(1, T1, 'a') + line(2, T2, 'b');
    expect(problems(j, forged(1, 3))).toEqual([
      { line: 1, detail: expect.stringContaining('carry 2 timestamps') },
    ]);
  });

  it('a superseding record starting elsewhere is a problem; one starting at the same seq over absent lines is not', () => {
    const j = line(1, T1, 'a') + line(2, T1, 'b');
    expect(problems(j, forged(3, 5) + forged(4, 6))).toEqual([
      { line: 2, detail: expect.stringContaining('starts at 4, not 3') },
    ]);
    expect(problems(j, forged(3, 5) + forged(3, 4))).toEqual([]);
  });

  it('planTail refuses a torn-batch cut when there are problems, and cuts without', () => {
    const shape = {
      size: 300,
      validBytes: 300,
      damage: null,
      tailHasNewline: false,
      loadDamage: { code: 'truncated_tail' as const, line: 3, bytes: 100, detail: 'torn batch' },
    };
    expect(planTail(shape)).toMatchObject({ kind: 'truncate', action: { size_after: 200 } });
    expect(planTail({ ...shape, batchProblems: [{ line: 2, detail: 'x' }] })).toMatchObject({
      kind: 'refuse',
      reason: 'batch_record_inconsistent',
    });
  });
});
