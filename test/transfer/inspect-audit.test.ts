/**
 * `handoff inspect`/`audit --transfer-journal DIR --session S` in-process: each journal write
 * carries the transfer machine's transitions; the audit replays them against machines/transfer.ts
 * and checks each write's trace against its lines (exit 0 ok, 5 flagged or no trace, 3 no journal,
 * 4 damaged, 2 usage); inspect shows the decisions with their cites and the path over the machine.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { submitTransfer, validateRoutePolicy, validateTransferRequest } from '../../src/transfer/index.js';
import { transferJournalFile } from '../../src/transfer/journal-path.js';
import { cliMain } from '../helpers/cli-main.js';

const NOW = '2026-01-01T00:00:00.000Z';
const SESSION = 'conv-9';
const POLICY = {
  schema: 'handoff-routes/v1',
  entry: 'triage',
  lease_seconds: 60,
  routes: [{ from: 'triage', to: 'billing', context: { include: ['question', 'card'], redact: ['card'] } }],
};
const request = (request_id: string, over: Record<string, unknown> = {}) => ({
  schema: 'handoff-transfer/v1',
  session: SESSION,
  request_id,
  from: 'triage',
  to: 'billing',
  reason: 'invoice',
  context: { question: 'twice?', card: '4111' },
  ...over,
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'transfer-audit-'));
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function decide(name: string, value: unknown, now = NOW): Promise<number> {
  writeFileSync(join(dir, name), JSON.stringify(value));
  const r = await cliMain(
    ['transfer', '--policy', 'policy.json', '--journal', 'j', '--request', name, '--now', now],
    dir,
  );
  return r.code;
}
const audit = (extra: string[] = []) =>
  cliMain(['audit', '--transfer-journal', 'j', '--session', SESSION, ...extra], dir);
const inspect = (extra: string[] = []) =>
  cliMain(['inspect', '--transfer-journal', 'j', '--session', SESSION, ...extra], dir);

const journalFile = () => transferJournalFile(join(dir, 'j'), SESSION);
/** Rewrites the session's journal lines through `edit` (the lines as parsed JSON). */
function editJournal(edit: (lines: Record<string, unknown>[]) => void): void {
  const lines = readFileSync(journalFile(), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  edit(lines);
  writeFileSync(journalFile(), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}
type Step = { from: string; event: string; to: string; guard?: string };
const traceOf = (line: Record<string, unknown> | undefined) => (line?.trace ?? []) as Step[];

/** triage → billing granted (lines 1 open + 2), then billing returns the session (line 3). */
async function grantedAndReturned(): Promise<void> {
  expect(await decide('r1.json', request('r1'))).toBe(0);
  expect(await decide('r2.json', request('r2', { kind: 'return', from: 'billing', to: undefined }))).toBe(0);
}

describe('transfer journal writes carry the machine trace', () => {
  it('a granted and returned session audits ok (exit 0) and inspect draws its path', async () => {
    await grantedAndReturned();
    const lines = readFileSync(journalFile(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // the opening line is written with the first decision, which carries the write's trace
    expect(lines.map((l) => [l.entry.kind, l.trace === undefined ? 0 : l.trace.length])).toEqual([
      ['open', 0],
      ['decision', 3],
      ['decision', 4],
    ]);
    const a = await audit(['--json']);
    expect(a.code).toBe(0);
    const report = JSON.parse(a.out);
    expect(report).toMatchObject({
      schema: 'transfer-journal-audit/v1',
      session: SESSION,
      ok: true,
      entries: 3,
      traced_writes: 2,
      steps: 7,
      findings: [],
      write_findings: [],
      untraced: [],
    });
    const text = await audit();
    expect(text.code).toBe(0);
    expect(text.out).toContain('audit session "conv-9": ok — 7 recorded transitions in 2 journal writes');

    const i = await inspect();
    expect(i.code).toBe(0);
    expect(i.err).toBe('');
    expect(i.out).toContain('transfer session conv-9 · 3 journal lines · returned (nobody holds authority)');
    expect(i.out).toContain('conv-9#2  2026-01-01T00:00:00.000Z  r1: triage → billing granted (granted)');
    expect(i.out).toContain('redacted card');
    expect(i.out).toContain(
      'conv-9#2: idle ─REQUEST→ requested ─isAuthorized→ authorized ─isTransferKind→ transferring ⇒ active',
    );
    expect(i.out).toContain(
      'conv-9#3: idle ─statusIs(status=active)→ active ─REQUEST→ requested ─isAuthorized→ authorized ─always→ closing ⇒ returned',
    );
    expect(i.out).toContain('never visited: refusing, escalated, revoked, expired');
    expect(i.out).not.toContain('4111');
    const j = await inspect(['--json']);
    const shown = JSON.parse(j.out);
    expect(shown.schema).toBe('handoff-transfer-inspect/v1');
    expect(shown.path.writes.map((w: { cite: string; after: string }) => [w.cite, w.after])).toEqual([
      ['conv-9#2', 'active'],
      ['conv-9#3', 'returned'],
    ]);
    expect(shown.lines.map((l: { active: string | null }) => l.active)).toEqual(['triage', 'billing', null]);
    // the recorded path drawn over the machine (mermaid; dot and html alike)
    const m = await inspect(['--format', 'mermaid']);
    expect(m.code).toBe(0);
    expect(m.out).toContain('idle --> active : always [statusIs(status=active)] (visited x1)');
    expect(m.out).toContain('requested --> authorized : always [isAuthorized] (visited x2)');
    expect(m.out).toContain('class closing current');
    const dot = await inspect(['--format', 'dot']);
    expect(dot.code).toBe(0);
    expect(dot.out).toMatch(/^digraph/);
  });

  it('a refused request is a traced write that ends in refusing; the session stays with its agent', async () => {
    expect(await decide('r1.json', request('r1'))).toBe(0);
    // triage is no longer active: refused not_active, journaled
    expect(await decide('r2.json', request('r2'))).toBe(5);
    const a = await audit(['--json']);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.out)).toMatchObject({ ok: true, traced_writes: 2, entries: 3 });
    const i = await inspect();
    expect(i.code).toBe(0);
    expect(i.out).toContain('conv-9#3');
    expect(i.out).toContain('r2: triage → billing refused (not_active)');
    expect(i.out).toContain(
      'conv-9#3: idle ─statusIs(status=active)→ active ─REQUEST→ requested ─always→ refusing ⇒ active',
    );
    expect(i.out).toContain('transfer session conv-9 · 3 journal lines · active (active: billing)');
    expect(i.out).not.toContain('never visited: refusing');
  });

  it('a revocation and an expired lease are traced writes that end the session (closing, refusing)', async () => {
    expect(await decide('r1.json', request('r1'))).toBe(0);
    const rv = await cliMain(
      ['transfer', 'revoke', '--journal', 'j', '--session', SESSION, '--now', NOW],
      dir,
    );
    expect(rv.code).toBe(0);
    expect((await audit()).code).toBe(0);
    const i = await inspect(['--json']);
    const after = JSON.parse(i.out).path.writes.map((w: { after: string }) => w.after);
    expect(after).toEqual(['active', 'revoked']);
    expect(JSON.parse(i.out).path.writes[1].steps.at(-1)).toMatchObject({
      event: 'REVOKE',
      to: 'transfer.closing',
    });

    rmSync(join(dir, 'j'), { recursive: true, force: true });
    expect(await decide('r1.json', request('r1'))).toBe(0);
    // billing's 60 s lease ran out: the refusal ends the session as expired
    const late = '2026-01-01T00:05:00.000Z';
    expect(
      await decide('r3.json', request('r3', { kind: 'return', from: 'billing', to: undefined }), late),
    ).toBe(5);
    expect((await audit()).code).toBe(0);
    const t = await inspect();
    expect(t.out).toContain('refused (lease_expired)');
    expect(t.out).toMatch(/conv-9#3: idle .* refusing ⇒ expired/);
  });

  it('a journaled string cannot forge a line or a terminal control in the text report', async () => {
    expect(await decide('r1.json', request('r1', { reason: 'invoice\nconv-9#9  forged\u001b[2J' }))).toBe(0);
    const t = await inspect();
    expect(t.code).toBe(0);
    expect(t.out).not.toContain('\u001b');
    expect(t.out.split('\n').filter((l) => l.startsWith('conv-9#9'))).toEqual([]);
    expect(t.out).toContain('invoice\\u000aconv-9#9  forged\\u001b[2J');
  });

  it('flags an edited step that the machine does not allow (exit 5, cited)', async () => {
    await grantedAndReturned();
    editJournal((lines) => {
      // requested → authorized becomes requested → transferring: no such transition
      const step = traceOf(lines[1])[1] as Step;
      step.to = 'transfer.transferring';
    });
    const a = await audit(['--json']);
    expect(a.code).toBe(5);
    const r = JSON.parse(a.out);
    expect(r.ok).toBe(false);
    expect(r.findings[0]).toMatchObject({ code: 'no_such_transition', cite: 'conv-9#2', index: 1 });
    // the replay goes on from the state the edited step claims: the next step is out of place too
    expect(r.findings.map((f: { code: string; cite: string }) => [f.code, f.cite])).toEqual([
      ['no_such_transition', 'conv-9#2'],
      ['not_active', 'conv-9#2'],
    ]);
    expect(r.write_findings).toEqual([]);
    const text = await audit();
    expect(text.code).toBe(5);
    expect(text.out).toContain('conv-9#2 step 1: no_such_transition');
  });

  it('flags a write whose allowed steps do not match its lines (a trace copied from another write)', async () => {
    await grantedAndReturned();
    editJournal((lines) => {
      // the return's write gets the grant's trace: every step an edge, and a new actor may begin at idle
      (lines[2] as Record<string, unknown>).trace = traceOf(lines[1]);
    });
    const a = await audit(['--json']);
    expect(a.code).toBe(5);
    const r = JSON.parse(a.out);
    expect(r.findings).toEqual([]);
    expect(
      r.write_findings.map((f: { code: string; cite: string; index: number }) => [f.code, f.cite, f.index]),
    ).toEqual([
      ['write_mismatch', 'conv-9#3', 0],
      ['write_mismatch', 'conv-9#3', 2],
    ]);
    expect(r.write_findings[0].detail).toContain('folds to active, the trace restores requested');
    expect(r.write_findings[1].detail).toContain('is written in closing, the trace ends in transferring');
    // a restore to a status the journal does not fold to is flagged the same way
    editJournal((lines) => {
      (lines[2] as Record<string, unknown>).trace = [
        {
          machine: 'transfer',
          from: 'transfer.idle',
          event: 'xstate.always',
          guard: 'statusIs(status=escalated)',
          to: 'transfer.escalated',
        },
      ];
    });
    const e = JSON.parse((await audit(['--json'])).out);
    expect(e.findings).toEqual([]);
    expect(e.write_findings[0].detail).toContain('folds to active, the trace restores escalated');
  });

  it('flags a line whose trace was removed after traced writes, and a write ending in the wrong state', async () => {
    await grantedAndReturned();
    editJournal((lines) => {
      delete (lines[2] as Record<string, unknown>).trace;
      traceOf(lines[1]).pop(); // the grant's write now ends in authorized
    });
    const r = JSON.parse((await audit(['--json'])).out);
    expect(r.ok).toBe(false);
    expect(r.write_findings.map((f: { code: string; cite: string }) => [f.code, f.cite])).toEqual([
      ['write_mismatch', 'conv-9#2'],
      ['untraced_line', 'conv-9#3'],
    ]);
  });

  it('older lines without a trace stay loadable: inspect shows them, audit says no trace recorded (5)', async () => {
    await grantedAndReturned();
    editJournal((lines) => {
      for (const l of lines) delete l.trace;
    });
    const status = await cliMain(['transfer', 'status', '--journal', 'j', '--session', SESSION], dir);
    expect(JSON.parse(status.out).status).toBe('returned');
    const a = await audit();
    expect(a.code).toBe(5);
    expect(a.out).toContain('no trace recorded — nothing to check (3 journal lines)');
    expect(a.out).toContain('untraced: lines #1–#3');
    const i = await inspect();
    expect(i.code).toBe(0);
    expect(i.out).toContain('no trace recorded');
    expect(i.out).toContain('conv-9#3');
  });

  it('trace: false writes no trace (the audit then has nothing to check)', async () => {
    const policy = validateRoutePolicy(POLICY);
    const req = validateTransferRequest(request('r1'));
    if (!policy.ok || !req.ok) throw new Error('fixture');
    const d = await submitTransfer(join(dir, 'j'), policy.value, req.value, { trace: false });
    expect(d.outcome).toBe('granted');
    expect(readFileSync(journalFile(), 'utf8')).not.toContain('"trace"');
    const a = await audit();
    expect(a.code).toBe(5);
    expect(a.out).toContain('no trace recorded');
  });

  it('a journal begun without traces and continued with them audits the traced writes (older lines listed)', async () => {
    const policy = validateRoutePolicy(POLICY);
    const req = validateTransferRequest(request('r1'));
    if (!policy.ok || !req.ok) throw new Error('fixture');
    await submitTransfer(join(dir, 'j'), policy.value, req.value, {
      now: () => Date.parse(NOW),
      trace: false,
    });
    // the next writer traces: its actor is restored to active, as the older lines fold to
    expect(await decide('r2.json', request('r2', { kind: 'return', from: 'billing', to: undefined }))).toBe(
      0,
    );
    const a = await audit(['--json']);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.out)).toMatchObject({
      ok: true,
      traced_writes: 1,
      untraced: [{ first_seq: 1, last_seq: 2 }],
    });
    expect((await audit()).out).toContain('untraced: lines #1–#2 were written without a trace');
  });

  it('answers no journal with 3, a damaged journal with 4 and a bad invocation with 2', async () => {
    expect((await audit()).code).toBe(3);
    expect((await inspect()).code).toBe(3);
    await grantedAndReturned();
    editJournal((lines) => {
      (lines[2] as Record<string, unknown>).seq = 7;
    });
    const a = await audit();
    expect(a.code).toBe(4);
    expect(a.err).toContain('journal_damaged');
    expect((await inspect()).code).toBe(4);
    expect((await cliMain(['audit', '--transfer-journal', 'j'], dir)).code).toBe(2);
    expect((await cliMain(['audit', '--session', SESSION], dir)).code).toBe(2);
    expect((await cliMain(['inspect', '--transfer-journal', 'j'], dir)).code).toBe(2);
    expect((await inspect(['--format', 'svg'])).code).toBe(2);
  });
});
