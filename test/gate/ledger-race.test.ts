/**
 * The enforcer under real concurrency: 16 processes race to reserve the same continuation in each
 * of 10 rounds (each process does every round, synchronised by round files) — exactly one grant per
 * round, and a replayed event returns the same grant. A crash between reserve and consume is
 * reconciled from the ledger without a second grant. Needs `npm run build` (children use dist/).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsLedger } from '../../src/gate/index.js';
import { live, PROFILE, req, rm, T0, tempDir } from './fixtures.js';
import { childLines, driveRounds, expectOneGrantPerRound, spawnChild } from './race.js';

const CHILD = fileURLToPath(new URL('./race-child.mjs', import.meta.url));
const PROCS = 16;
const ROUNDS = 10;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rm(d);
});

describe('fs ledger across processes', () => {
  it(`${PROCS} processes x ${ROUNDS} rounds: exactly one grant per round, replays return it`, async () => {
    const dir = tempDir('gate-race-');
    dirs.push(dir);
    const root = join(dir, 'ledger');
    const sync = join(dir, 'sync');
    const ledger = createFsLedger(root, { now: () => T0 });
    for (let r = 0; r < ROUNDS; r++)
      await ledger.register({ problem_id: `race-${r}`, profile: PROFILE, contract_revision: 1 });
    mkdirSync(sync);
    const children = Array.from({ length: PROCS }, (_, i) =>
      spawnChild(CHILD, [root, sync, String(i), String(ROUNDS)]),
    );
    // every process is up (modules loaded) before the first round starts, so each round is a race
    await driveRounds(sync, PROCS, ROUNDS);
    const results = await Promise.all(children);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    await expectOneGrantPerRound(childLines(results), PROCS, ROUNDS, ledger);
  }, 150_000);

  it('a crash between reserve and consume is reconciled without a second grant', async () => {
    const dir = tempDir('gate-crash-');
    dirs.push(dir);
    const root = join(dir, 'ledger');
    const ledger = createFsLedger(root, { now: () => T0 });
    await ledger.register({ problem_id: 'crash-1', profile: PROFILE, contract_revision: 1 });
    const r = await spawnChild(CHILD, [root, dir, '0', '0', 'crash-after-start']);
    expect(r.signal).toBe('SIGKILL');
    const { grant_id } = JSON.parse(r.stdout.trim());
    // the child's `started` entry (seq 3) is in the log before it was killed
    expect(
      readFileSync(join(root, 'crash-1', 'log.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l.slice(65)) as { event: { seq: number } }).event.seq),
    ).toContain(3);
    // the restarted job replays the same event: it gets the stored grant back, not a new one
    const replay = await ledger.reserve(
      ...live(
        req('continuation:crash-1:pkt', 'c'.repeat(64), {
          problem_id: 'crash-1',
          requested_by: 'restarted-job',
        }),
      ),
    );
    expect(replay).toMatchObject({
      outcome: 'replayed',
      grant: { grant_id, state: 'reserved', started: true },
    });
    // reconciliation from the ledger: started but never consumed → uncertain, hand to the lead
    const rec = await ledger.reconcile('crash-1', grant_id);
    expect(rec.action).toBe('lead-review');
    expect(rec.grant.state).toBe('uncertain');
    expect((await ledger.reconcile('crash-1', grant_id)).action).toBe('lead-review');
    // a renamed job asking for the "next" continuation of the same candidate gets nothing
    const again = await ledger.reserve(
      ...live(
        req('continuation:crash-1:renamed-job', 'c'.repeat(64), {
          problem_id: 'crash-1',
          requested_by: 'renamed-job',
        }),
      ),
    );
    expect(again).toMatchObject({ outcome: 'refused', reason: 'candidate_already_granted' });
    const st = await ledger.status('crash-1');
    expect(st?.grants).toHaveLength(1);
    expect(st?.used['ordinary-repair']).toBe(1);
  }, 60_000);
});
