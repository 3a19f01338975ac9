/**
 * The continuation ledger on PostgreSQL (a real server: test/setup/postgres.ts): the ledger rules
 * of ledger.test.ts on the pg log, what the database itself enforces (append-only, dense seqs,
 * one reservation per idempotency key and grant), a damaged log failing closed, and 16 real
 * processes — each with its own connection — racing for the same continuation in each of 10
 * rounds: exactly one grant per round. Children use dist/ (run `npm run build` first).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { usePgLedgers } from '../helpers/pg-ledger-fixture.js';
import { usePostgres } from '../setup/postgres.js';
import { directive, live, PROFILE, req, T0, tempDir } from './fixtures.js';
import { ledgerRuleTests } from './ledger-rules.js';
import { childLines, driveRounds, expectOneGrantPerRound, spawnChild } from './race.js';

const CHILD = fileURLToPath(new URL('./pg-race-child.mjs', import.meta.url));
const db = usePostgres();
const pgl = usePgLedgers(db, { cleanup: 'afterEach' });

describe('ledger (postgres)', () => {
  ledgerRuleTests(() => pgl.ledger());

  it('refuses path-unsafe problem ids', async () => {
    await expect(pgl.ledger().status('../escape')).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('uses the ordinary repair first, then the gate continuation, then nothing; a new session sees the same', async () => {
    const l = pgl.ledger();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const g1 = await l.reserve(...live(req('k1', '1'.repeat(64))));
    if (g1.outcome === 'refused') throw new Error('unreachable');
    expect(g1).toMatchObject({ outcome: 'granted', grant: { slot: 'ordinary-repair' } });
    expect(await l.reserve(...live(req('k2', '2'.repeat(64))))).toMatchObject({
      reason: 'grant_outstanding',
    });
    await l.start('p1', g1.grant.grant_id);
    await l.consume('p1', g1.grant.grant_id);
    expect((await l.consume('p1', g1.grant.grant_id)).state).toBe('consumed');
    expect(await l.reserve(...live(req('k3', '1'.repeat(64))))).toMatchObject({
      reason: 'candidate_already_granted',
    });
    const g2 = await l.reserve(...live(req('k2', '2'.repeat(64))));
    if (g2.outcome === 'refused') throw new Error('unreachable');
    expect(g2.grant.slot).toBe('gate-continuation');
    await l.consume('p1', g2.grant.grant_id);
    // another session (a new ledger object, its own pool) on the same database
    const restarted = pgl.ledger(l.log.schema);
    expect(await restarted.reserve(...live(req('k1', '1'.repeat(64))))).toMatchObject({
      outcome: 'replayed',
      grant: { grant_id: g1.grant.grant_id },
    });
    expect(await restarted.reserve(...live(req('k1', '9'.repeat(64))))).toMatchObject({
      reason: 'key_conflict',
    });
    expect(
      await restarted.reserve(...live(req('k4', '4'.repeat(64), { requested_by: 'renamed' }))),
    ).toMatchObject({
      reason: 'exhausted',
    });
    await restarted.addDirective(directive('d1'));
    await restarted.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 2 });
    expect(await l.reserve(...live(req('k5', '5'.repeat(64))))).toMatchObject({ reason: 'exhausted' });
    expect((await l.status('p1'))?.used).toEqual({
      'ordinary-repair': 1,
      'gate-continuation': 1,
      'lead-directed': 0,
    });
  });
});

describe('what the database enforces', () => {
  it('append-only, dense seqs, one reservation per idempotency key; a damaged log fails closed', async () => {
    const l = pgl.ledger();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const g = await l.reserve(...live(req('k1')));
    if (g.outcome === 'refused') throw new Error('unreachable');
    const c = await pgl.sql();
    const t = `"${l.log.schema}".ledger_events`;
    const row = (await c.query(`SELECT * FROM ${t} WHERE seq = 2`)).rows[0];
    for (const [q, params] of [
      [`UPDATE ${t} SET event = '{}' WHERE seq = 2`, []],
      [`DELETE FROM ${t}`, []],
      [`TRUNCATE ${t}`, []],
      // a second reservation under the same key (as the next seq) and a gapped seq
      [
        `INSERT INTO ${t} (problem_id, seq, type, idempotency_key, grant_id, event) VALUES ('p1', 3, 'reserved', $1, 'grt_x', '{}')`,
        [row.idempotency_key],
      ],
      [`INSERT INTO ${t} (problem_id, seq, type, event) VALUES ('p1', 9, 'started', '{}')`, []],
    ] as const) {
      await expect(c.query(q, [...params]), q).rejects.toThrow(/append-only|not dense|duplicate key/);
    }
    expect((await l.status('p1'))?.grants).toHaveLength(1);
    // a row written behind the ledger (triggers bypassed by a superuser) fails closed
    await c.query(`ALTER TABLE ${t} DISABLE TRIGGER USER`);
    await c.query(`INSERT INTO ${t} (problem_id, seq, type, event) VALUES ('p1', 4, 'started', '{}')`);
    await c.query(`ALTER TABLE ${t} ENABLE TRIGGER USER`);
    await expect(l.reserve(...live(req('k2')))).rejects.toMatchObject({ code: 'ledger_damaged' });
  });
});

describe('what the log refuses before the INSERT', () => {
  it('hostile: an event its reader would refuse (an empty key, a bad profile) is invalid_input; nothing is stored and the ledger stays usable', async () => {
    const l = pgl.ledger();
    await expect(
      l.log.append('p1', {
        type: 'registered',
        seq: 1,
        at: T0,
        problem_id: 'p1',
        profile: 'no',
        contract_revision: 1,
      } as never),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^ledger of p1: not a valid ledger event \(.+\); nothing was written$/),
    });
    expect(await l.status('p1')).toBeNull();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    // a reservation under an empty idempotency key builds a grant its reader refuses
    await expect(l.reserve(...live(req('')))).rejects.toMatchObject({ code: 'invalid_input' });
    const c = await pgl.sql();
    expect((await c.query(`SELECT count(*)::int AS n FROM "${l.log.schema}".ledger_events`)).rows[0].n).toBe(
      1,
    );
    expect(await l.reserve(...live(req('k1')))).toMatchObject({ outcome: 'granted' });
    expect((await l.status('p1'))?.seq).toBe(2);
  });
});

describe('postgres ledger across processes', () => {
  const PROCS = 16;
  const ROUNDS = 10;
  it(`${PROCS} processes x ${ROUNDS} rounds, one connection each: exactly one grant per round`, async () => {
    const l = pgl.ledger();
    for (let r = 0; r < ROUNDS; r++)
      await l.register({ problem_id: `race-${r}`, profile: PROFILE, contract_revision: 1 });
    const dir = tempDir('gate-pg-race-');
    pgl.dirs.push(dir);
    const sync = join(dir, 'sync');
    mkdirSync(sync);
    const children = Array.from({ length: PROCS }, (_, i) =>
      spawnChild(CHILD, [db.url(), l.log.schema, sync, String(i), String(ROUNDS)]),
    );
    await driveRounds(sync, PROCS, ROUNDS);
    const results = await Promise.all(children);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    await expectOneGrantPerRound(childLines(results), PROCS, ROUNDS, l);
  }, 150_000);
});
