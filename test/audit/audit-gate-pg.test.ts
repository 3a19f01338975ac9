import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/gate/index.js';
import { createPgLedger, pgLedgerLog } from '../../src/pg/index.js';
import { rm, runExampleGate, T0 } from '../gate/fixtures.js';
import { cliMain } from '../helpers/cli-main.js';
import { usePostgres } from '../setup/postgres.js';

const PROBLEM = 'example-greet';
const db = usePostgres();
const dirs: string[] = [];

beforeAll(async () => {
  const ledger = createPgLedger({ connectionString: db.url() }, { now: () => T0 });
  try {
    await runExampleGate(ledger, dirs);
  } finally {
    await ledger.close();
  }
}, 120_000);
afterAll(() => {
  for (const d of dirs) rm(d);
});

const audit = (...args: string[]) => cliMain(['audit', ...args], dirs[1] as string);

describe('handoff audit --gate-ledger-pg', () => {
  it('the run recorded on the PostgreSQL ledger replays through the gate machine: ok, exit 0', async () => {
    const r = await audit('--gate-ledger-pg', db.url(), '--problem', PROBLEM, '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { ok: boolean; runs: number; steps: number; findings: unknown[] };
    expect(report).toMatchObject({ ok: true, runs: 1, findings: [] });
    expect(report.steps).toBeGreaterThan(5);
    const none = await audit('--gate-ledger-pg', db.url(), '--problem', 'no-such-problem');
    expect(none.code).toBe(5);
    expect(none.out).toMatch(/^audit no-such-problem: no trace recorded/);
  });

  it('hostile: a row appended with a forged step is flagged at its cite, its escapes kept escaped (exit 5)', async () => {
    const log = pgLedgerLog({ connectionString: db.url() });
    const before = await log.readTraces(PROBLEM);
    await log.close();
    if (before === null) throw new Error('the run wrote no history');
    const last = before.traced.at(-1)?.trace.steps.at(-1);
    const seq = before.entries + 1;
    const event: LedgerEvent = { type: 'lead-handoff', seq, at: T0, packet_id: null, route: 'forged' };
    const trace = {
      start: false,
      steps: [{ machine: 'gate', from: last?.to, event: 'WORKER.FORGED\u001b]0;x\u0007', to: 'gate.done' }],
    };
    const c = new pg.Client({ connectionString: db.url() });
    await c.connect();
    try {
      const t = (
        await c.query(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'ledger_events'`)
      ).rows[0] as { table_schema: string };
      await c.query(
        `INSERT INTO "${t.table_schema}".ledger_events (problem_id, seq, type, event, trace) VALUES ($1, $2, $3, $4, $5)`,
        [PROBLEM, seq, event.type, JSON.stringify(event), JSON.stringify(trace)],
      );
    } finally {
      await c.end();
    }
    const r = await audit('--gate-ledger-pg', db.url(), '--problem', PROBLEM);
    expect(r.code).toBe(5);
    expect(r.out).toContain(`${PROBLEM}#${seq} step 0: no_such_transition`);
    expect(r.out).not.toContain('\u001b');
  });

  it('a ledger flag is needed, and only one: usage errors (exit 2)', async () => {
    expect((await audit('--problem', PROBLEM)).code).toBe(2);
    expect((await audit('--gate-ledger', 'x', '--gate-ledger-pg', db.url(), '--problem', PROBLEM)).code).toBe(
      2,
    );
    expect((await audit('--gate-ledger-pg', db.url())).code).toBe(2);
  });
});
