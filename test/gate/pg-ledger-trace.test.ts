import { beforeAll, describe, expect, it } from 'vitest';
import { gateMachine } from '../../machines/index.js';
import { canonicalJson } from '../../src/canonical/index.js';
import { auditLedgerTrace, type LedgerTrace } from '../../src/gate/index.js';
import { createPgLedger, pgLedgerDdl } from '../../src/pg/index.js';
import type { TraceStep } from '../../src/store/store-types.js';
import { machineGraph } from '../../src/viz/graph.js';
import { leadHandoffEvent, registeredEvent } from '../helpers/ledger-events.js';
import { usePgLedgers } from '../helpers/pg-ledger-fixture.js';
import { usePostgres } from '../setup/postgres.js';
import { PROFILE, runExampleGate, T0 } from './fixtures.js';

const PROBLEM = 'example-greet';
const graphs = [machineGraph(gateMachine)];
const db = usePostgres();
const pgl = usePgLedgers(db, { cleanup: 'afterAll' });

/** One real gate run (example worker and evaluator) on the PostgreSQL ledger; its schema and path. */
const runSchema = pgl.schema('trace_run_');
let path: readonly string[] = [];
beforeAll(async () => {
  const ledger = createPgLedger({ connectionString: db.url(), schema: runSchema }, { now: () => T0 });
  try {
    const r = await runExampleGate(ledger, pgl.dirs);
    path = r.path;
  } finally {
    await ledger.close();
  }
}, 120_000);

describe('a gate run on the PostgreSQL ledger records its machine transitions', () => {
  it('every entry the run wrote carries its trace in its row, the first marked start; the audit passes', async () => {
    const read = await pgl.log(runSchema).readTraces(PROBLEM);
    if (read === null) throw new Error('the run wrote no history');
    expect(read.entries).toBeGreaterThanOrEqual(4); // registered, reserved, started, consumed, …
    expect(read.traced.map((t) => t.seq)).toEqual(Array.from({ length: read.entries }, (_, i) => i + 1));
    expect(read.traced.map((t) => t.trace.start)).toEqual(read.traced.map((_, i) => i === 0));
    const steps = read.traced.flatMap((t) => t.trace.steps);
    // the recorded steps are the run's path: they end where the run ended
    expect(steps.at(-1)?.to).toBe(`gate.${path.at(-1)}`);
    const r = auditLedgerTrace(PROBLEM, read.entries, read.traced, graphs);
    expect(r).toMatchObject({ ok: true, runs: 1, entries: read.entries, traced_entries: read.entries });
    expect(r.steps).toBe(steps.length);
    expect(r.findings).toEqual([]);
    // the column holds the trace as JSON text, beside the unchanged event
    const c = await pgl.sql();
    const row = (
      await c.query(
        `SELECT event, trace FROM "${runSchema}".ledger_events WHERE problem_id = $1 AND seq = 1`,
        [PROBLEM],
      )
    ).rows[0];
    expect(JSON.parse(row.trace)).toEqual(read.traced[0]?.trace);
    expect(Object.keys(JSON.parse(row.event))).not.toContain('trace');
  });

  it('hostile: a rival cannot edit a traced row; a row it appends with a forged step is flagged at its cite', async () => {
    const c = await pgl.sql();
    const t = `"${runSchema}".ledger_events`;
    await expect(c.query(`UPDATE ${t} SET trace = NULL WHERE problem_id = $1`, [PROBLEM])).rejects.toThrow(
      /append-only/,
    );
    const before = await pgl.log(runSchema).readTraces(PROBLEM);
    if (before === null) throw new Error('no history');
    const last = before.traced.at(-1)?.trace.steps.at(-1) as TraceStep;
    const seq = before.entries + 1;
    const forged: LedgerTrace = {
      start: false,
      steps: [{ machine: 'gate', from: last.to, event: 'WORKER.FORGED\u001b]0;x\u0007', to: 'gate.done' }],
    };
    const event = leadHandoffEvent(seq, 'forged');
    await c.query(`INSERT INTO ${t} (problem_id, seq, type, event, trace) VALUES ($1, $2, $3, $4, $5)`, [
      PROBLEM,
      seq,
      event.type,
      canonicalJson(event),
      JSON.stringify(forged),
    ]);
    const read = await pgl.log(runSchema).readTraces(PROBLEM);
    if (read === null) throw new Error('no history');
    const r = auditLedgerTrace(PROBLEM, read.entries, read.traced, graphs);
    expect(r.ok).toBe(false);
    expect(r.findings).toEqual([
      expect.objectContaining({ code: 'no_such_transition', cite: `${PROBLEM}#${seq}`, seq, index: 0 }),
    ]);
  });

  it('hostile: a row whose trace is not a trace fails the audit closed; the ledger itself still reads', async () => {
    const schema = pgl.schema('trace_bad_');
    const l = pgl.ledger(schema);
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const c = await pgl.sql();
    const event = leadHandoffEvent(2);
    await c.query(
      `INSERT INTO "${schema}".ledger_events (problem_id, seq, type, event, trace) VALUES ('p1', 2, $1, $2, $3)`,
      [event.type, canonicalJson(event), JSON.stringify({ start: 'yes', steps: [{ machine: '' }] })],
    );
    await expect(l.log.readTraces('p1')).rejects.toMatchObject({ code: 'ledger_damaged' });
    // the ledger's own reads never select the trace: its decisions do not depend on it
    expect((await l.status('p1'))?.seq).toBe(2);
    await c.query(
      `INSERT INTO "${schema}".ledger_events (problem_id, seq, type, event, trace) VALUES ('p1', 3, $1, $2, 'not json')`,
      ['lead-handoff', canonicalJson({ ...event, seq: 3 })],
    );
    await expect(l.log.readTraces('p2')).resolves.toBeNull();
    await expect(l.log.readTraces('p1')).rejects.toMatchObject({ code: 'ledger_damaged' });
    await expect(l.log.readTraces('../x')).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('the trace column', () => {
  it('entries written without a trace (ledger verbs) have none; an invalid trace is refused before the INSERT', async () => {
    const schema = pgl.schema('trace_plain_');
    const l = pgl.log(schema);
    const bad = { start: 'yes', steps: [{ machine: '' }] } as unknown as LedgerTrace;
    await expect(l.append('p1', registeredEvent('p1'), { trace: bad })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    expect(await l.read('p1')).toBeNull();
    expect(await l.append('p1', registeredEvent('p1'))).toBe(true);
    expect(await l.readTraces('p1')).toEqual({ entries: 1, traced: [] });
    const trace: LedgerTrace = {
      start: true,
      steps: [{ machine: 'gate', from: 'gate.a', event: 'E', to: 'gate.b' }],
    };
    const handoff = leadHandoffEvent(2);
    expect(await l.append('p1', handoff, { trace })).toBe(true);
    // a losing compare-and-set writes nothing, its trace included
    expect(await l.append('p1', { ...handoff, route: 'rival' }, { trace: { start: false, steps: [] } })).toBe(
      false,
    );
    expect(await l.readTraces('p1')).toEqual({ entries: 2, traced: [{ seq: 2, trace }] });
  });

  it('a table made before the column existed is migrated in place (also by two logs at once); its rows read as untraced', async () => {
    const schema = pgl.schema('trace_old_');
    const c = await pgl.sql();
    // the previous version's DDL: everything but the column
    const old = pgLedgerDdl(schema).filter((q) => !q.includes('ADD COLUMN'));
    expect(old).toHaveLength(pgLedgerDdl(schema).length - 1);
    for (const q of old) await c.query(q);
    await c.query(
      `INSERT INTO "${schema}".ledger_events (problem_id, seq, type, event) VALUES ('p1', 1, 'registered', $1)`,
      [canonicalJson(registeredEvent('p1'))],
    );
    const column = () =>
      c.query(
        `SELECT is_nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'ledger_events' AND column_name = 'trace'`,
        [schema],
      );
    expect((await column()).rows).toEqual([]);
    const a = pgl.log(schema);
    const b = pgl.log(schema);
    await Promise.all([a.migrate(), b.migrate()]);
    expect((await column()).rows).toEqual([{ is_nullable: 'YES' }]);
    expect(await a.read('p1')).toEqual([registeredEvent('p1')]);
    expect(await a.readTraces('p1')).toEqual({ entries: 1, traced: [] });
    const trace: LedgerTrace = { start: true, steps: [] };
    const handoff = leadHandoffEvent(2);
    expect(await b.append('p1', handoff, { trace })).toBe(true);
    expect(await a.readTraces('p1')).toEqual({ entries: 2, traced: [{ seq: 2, trace }] });
    // the migration is idempotent: a third log on the migrated table changes nothing
    await pgl.log(schema).migrate();
    expect(await pgl.log(schema).readTraces('p1')).toEqual({ entries: 2, traced: [{ seq: 2, trace }] });
  });
});
