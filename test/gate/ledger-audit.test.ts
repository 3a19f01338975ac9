/**
 * The gate ledger's transition trace (issue 15): a gate run records the gate machine's steps on
 * the ledger entries it writes (the first marked `start`), and `handoff audit --gate-ledger` replays them
 * through the machine definition. A valid run passes; an entry edited to carry a transition the
 * machine does not allow — checksum recomputed, so the ledger itself still reads — is flagged with
 * its cite `<problem>#<seq>` and the step's index (`auditLedgerTrace`, `handoff audit --gate-ledger`); hostile strings in a forged step cannot forge
 * output lines or reach the terminal raw; a line whose checksum no longer matches is a damaged
 * ledger (exit 4). A traced append that loses its compare-and-set keeps its steps for the next.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateMachine } from '../../machines/index.js';
import {
  auditLedgerTrace,
  createFsLedger,
  createLogLedger,
  fsLedgerLog,
  type LedgerEvent,
  type LedgerLog,
  type LedgerTrace,
  memoryLedgerLog,
} from '../../src/gate/index.js';
import { LEDGER_LOG_FILE } from '../../src/gate/ledger-line.js';
import type { TraceStep } from '../../src/store/store-types.js';
import { machineGraph } from '../../src/viz/graph.js';
import { runCli } from '../helpers/cli.js';
import { PROFILE, rm, runExampleGate, T0, tempDir } from './fixtures.js';

const PROBLEM = 'example-greet';
const graphs = [machineGraph(gateMachine)];
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rm(d);
});

/** One real gate run (example worker and evaluator) on a fresh repository; its ledger directory. */
let ledgerDir = '';
let path: readonly string[] = [];
let pristine = '';
beforeAll(async () => {
  const side = tempDir('gate-audit-');
  dirs.push(side);
  ledgerDir = join(side, 'ledger');
  const r = await runExampleGate(createFsLedger(ledgerDir, { now: () => T0 }), dirs);
  path = r.path;
  pristine = readFileSync(logFile(), 'utf8');
}, 120_000);

const logFile = () => join(ledgerDir, PROBLEM, LEDGER_LOG_FILE);

interface Body {
  event: LedgerEvent;
  nonce: string;
  schema: string;
  trace?: { start: boolean; steps: TraceStep[] };
}

/** The log's lines as bodies, and a writer that re-checksums edited bodies (what a forger can do). */
function lines(text: string): Body[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l.slice(65)) as Body);
}
function writeLines(bodies: Body[]): void {
  const text = bodies
    .map((b) => {
      const body = JSON.stringify(b);
      return `${createHash('sha256').update(body, 'utf8').digest('hex')} ${body}\n`;
    })
    .join('');
  writeFileSync(logFile(), text);
}

async function audit() {
  const read = await fsLedgerLog(ledgerDir).readTraces(PROBLEM);
  if (read === null) throw new Error('no history');
  return auditLedgerTrace(PROBLEM, read.entries, read.traced, graphs);
}

describe('a gate run records its machine transitions on its ledger entries', () => {
  it('every entry the run wrote carries its trace, the first marked start; the audit passes', async () => {
    writeFileSync(logFile(), pristine);
    const bodies = lines(pristine);
    expect(bodies.length).toBeGreaterThanOrEqual(4); // registered, reserved, started, consumed, …, lead-handoff
    expect(bodies.map((b) => b.trace?.start)).toEqual(bodies.map((_, i) => i === 0));
    const steps = bodies.flatMap((b) => b.trace?.steps ?? []);
    // the recorded steps are the run's path: they end where the run ended
    expect(steps.at(-1)?.to).toBe(`gate.${path.at(-1)}`);
    expect(new Set(steps.map((s) => s.machine))).toEqual(new Set(['gate']));
    const r = await audit();
    expect(r).toMatchObject({ ok: true, runs: 1, entries: bodies.length, traced_entries: bodies.length });
    expect(r.steps).toBe(steps.length);
    expect(r.findings).toEqual([]);
  });

  it('an edited entry with an impossible transition is flagged with its cite and position', async () => {
    const bodies = lines(pristine);
    const at = bodies.findIndex((b, i) => i > 0 && (b.trace?.steps.length ?? 0) > 1);
    expect(at).toBeGreaterThan(0);
    const edited = bodies[at] as Body & { trace: { steps: TraceStep[] } };
    edited.trace.steps[1] = { ...(edited.trace.steps[1] as TraceStep), event: 'WORKER.FORGED' };
    writeLines(bodies);
    // the ledger itself still reads: the checksum was recomputed
    expect((await createFsLedger(ledgerDir, { now: () => T0 }).status(PROBLEM))?.seq).toBe(bodies.length);
    const r = await audit();
    expect(r.ok).toBe(false);
    expect(r.findings).toEqual([
      expect.objectContaining({
        code: 'no_such_transition',
        cite: `${PROBLEM}#${edited.event.seq}`,
        seq: edited.event.seq,
        index: 1,
      }),
    ]);
    writeFileSync(logFile(), pristine);
  });

  it('a trace that drops a step is flagged where the replay no longer matches (not_active)', async () => {
    const bodies = lines(pristine);
    const at = bodies.findIndex((b, i) => i > 0 && (b.trace?.steps.length ?? 0) > 1);
    const edited = bodies[at] as Body & { trace: { steps: TraceStep[] } };
    edited.trace.steps.splice(0, 1);
    writeLines(bodies);
    const r = await audit();
    expect(r.findings[0]).toMatchObject({
      code: 'not_active',
      cite: `${PROBLEM}#${edited.event.seq}`,
      index: 0,
    });
    writeFileSync(logFile(), pristine);
  });
});

describe('handoff audit --gate-ledger', () => {
  it('exits 0 on the run, 5 with one escaped line per finding on a hostile edit, 4 on a damaged line', async () => {
    writeFileSync(logFile(), pristine);
    const ok = await runCli(['audit', '--gate-ledger', ledgerDir, '--problem', PROBLEM]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^audit example-greet: ok — \d+ recorded transitions of 1 gate run\(s\)/);
    const json = await runCli(['audit', '--gate-ledger', ledgerDir, '--problem', PROBLEM, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ schema: 'gate-ledger-audit/v1', ok: true, runs: 1 });
    // hostile: a forged step whose strings carry a terminal escape and a forged report line
    const bodies = lines(pristine);
    const at = bodies.findIndex((b, i) => i > 0 && (b.trace?.steps.length ?? 0) > 0);
    const edited = bodies[at] as Body & { trace: { steps: TraceStep[] } };
    const forged = 'X\u001b]0;pwned\u0007\naudit example-greet: ok';
    edited.trace.steps[0] = { ...(edited.trace.steps[0] as TraceStep), event: forged };
    writeLines(bodies);
    const bad = await runCli(['audit', '--gate-ledger', ledgerDir, '--problem', PROBLEM]);
    expect(bad.code, bad.stderr).toBe(5);
    expect(bad.stdout).not.toContain('\u001b');
    expect(bad.stdout).not.toContain('\u0007');
    const out = bad.stdout.split('\n');
    expect(out.filter((l) => l.startsWith('audit '))).toHaveLength(1);
    expect(out.filter((l) => l.startsWith(`  ${PROBLEM}#`))).toEqual([
      expect.stringContaining(`${PROBLEM}#${edited.event.seq} step 0: `),
    ]);
    // an edit without a recomputed checksum: the ledger is damaged
    writeFileSync(logFile(), pristine.replace('"start":true', '"start":false'));
    expect((await runCli(['audit', '--gate-ledger', ledgerDir, '--problem', PROBLEM])).code).toBe(4);
    // a ledger without history, and one written without traces: nothing to check
    expect((await runCli(['audit', '--gate-ledger', ledgerDir, '--problem', 'nobody'])).code).toBe(5);
    expect((await runCli(['audit', '--gate-ledger', ledgerDir, '--problem', '../x'])).code).toBe(3);
    expect((await runCli(['audit', '--problem', PROBLEM])).code).toBe(2);
    writeFileSync(logFile(), pristine);
  }, 60_000);
});

describe('the traced ledger view', () => {
  it('an entry written without a trace (ledger verbs) has none; the audit says so', async () => {
    const root = tempDir('gate-audit-plain-');
    dirs.push(root);
    await createFsLedger(root, { now: () => T0 }).register({
      problem_id: 'p1',
      profile: PROFILE,
      contract_revision: 1,
    });
    const read = await fsLedgerLog(root).readTraces('p1');
    expect(read).toEqual({ entries: 1, traced: [] });
    expect(auditLedgerTrace('p1', 1, [], graphs)).toMatchObject({ ok: false, steps: 0, runs: 0 });
    // the line is byte-for-byte the untraced format (no trace key)
    expect(
      Object.keys(JSON.parse(readFileSync(join(root, 'p1', LEDGER_LOG_FILE), 'utf8').slice(65))),
    ).toEqual(['event', 'nonce', 'schema']);
  });

  it('a traced append that loses its compare-and-set keeps its steps for the next append', async () => {
    const mem = memoryLedgerLog();
    const written: { seq: number; trace: LedgerTrace | undefined }[] = [];
    let rivalOnce = true;
    const log: LedgerLog = {
      read: (p) => mem.read(p),
      append: async (p, e, o) => {
        if (rivalOnce && e.seq === 2) {
          // a rival process takes seq 2 first
          rivalOnce = false;
          await mem.append(p, { type: 'lead-handoff', seq: 2, at: T0, packet_id: null, route: 'rival' });
          return false;
        }
        const ok = await mem.append(p, e);
        if (ok) written.push({ seq: e.seq, trace: o?.trace });
        return ok;
      },
    };
    const queue: TraceStep[][] = [
      [{ machine: 'gate', from: 'gate.a', event: 'E1', to: 'gate.b' }],
      [{ machine: 'gate', from: 'gate.b', event: 'E2', to: 'gate.c' }],
      [],
    ];
    const ledger = createLogLedger(log, { now: () => T0 });
    await ledger.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const traced = ledger.traced?.({ take: () => queue.shift() ?? [] });
    if (traced === undefined) throw new Error('a log ledger can trace');
    await traced.recordLeadHandoff('p1', { packet_id: null, route: 'lead' });
    expect(written).toEqual([
      { seq: 1, trace: undefined },
      {
        seq: 3,
        trace: {
          start: true,
          steps: [
            { machine: 'gate', from: 'gate.a', event: 'E1', to: 'gate.b' },
            { machine: 'gate', from: 'gate.b', event: 'E2', to: 'gate.c' },
          ],
        },
      },
    ]);
  });

  it('hostile: an invalid trace is refused before a byte is written', async () => {
    const root = tempDir('gate-audit-bad-');
    dirs.push(root);
    const log = fsLedgerLog(root);
    const event: LedgerEvent = {
      type: 'registered',
      seq: 1,
      at: T0,
      problem_id: 'p1',
      profile: PROFILE,
      contract_revision: 1,
    };
    const bad = { start: 'yes', steps: [{ machine: '' }] } as unknown as LedgerTrace;
    await expect(log.append('p1', event, { trace: bad })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await log.read('p1')).toBeNull();
    expect(await log.append('p1', event, { trace: { start: true, steps: [] } })).toBe(true);
    expect((await log.readTraces('p1'))?.traced).toEqual([{ seq: 1, trace: { start: true, steps: [] } }]);
    log.close();
  });
});
