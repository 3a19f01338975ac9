/**
 * The parent side of the ledger race tests (ledger-race.test.ts on the fs log, pg-ledger.test.ts on
 * PostgreSQL): spawn a child, release the rounds through go-/done- files, and read the children's
 * JSON lines (race-rounds.mjs writes them).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ChildResult } from '../helpers/child.js';

export { spawnChild } from '../helpers/child.js';

/**
 * Waits until all `procs` children are up (modules loaded), so each round is a race, then
 * releases the rounds one by one, each once every child finished the previous one.
 */
export async function driveRounds(sync: string, procs: number, rounds: number): Promise<void> {
  const waitFor = async (prefix: string, what: string) => {
    const deadline = Date.now() + 90_000;
    while (readdirSync(sync).filter((f) => f.startsWith(prefix)).length < procs) {
      if (Date.now() > deadline) throw new Error(`${what} did not finish`);
      await new Promise((res) => setTimeout(res, 5));
    }
  };
  await waitFor('ready-', 'start-up');
  for (let r = 0; r < rounds; r++) {
    writeFileSync(join(sync, `go-${r}`), '');
    await waitFor(`done-${r}-`, `round ${r}`);
  }
}

/** Every JSON line the children printed (untyped JSON). */
export function childLines(results: ChildResult[]) {
  return results.flatMap((r) =>
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  );
}

/** The part of a ledger the race assertions read. */
interface GrantStatus {
  status(problemId: string): Promise<{ grants: readonly { grant_id: string; slot: string }[] } | null>;
}

/**
 * The race verdict, the same for every backend: per round exactly one grant, every grant id any
 * process saw (first try or replay) is the winner's, losers were refused `grant_outstanding`,
 * winners' replays returned the stored grant, the ledger holds that one ordinary-repair grant, and
 * the processes really raced (some appends lost the compare-and-set).
 */
export async function expectOneGrantPerRound(
  lines: ReturnType<typeof childLines>,
  procs: number,
  rounds: number,
  ledger: GrantStatus,
): Promise<void> {
  expect(lines).toHaveLength(procs * rounds);
  for (let r = 0; r < rounds; r++) {
    const round = lines.filter((l) => l.round === r);
    const granted = round.filter((l) => l.outcome === 'granted');
    expect(granted).toHaveLength(1);
    const winner = granted[0].grant_id;
    const seen = new Set(round.flatMap((l) => [l.grant_id, l.replay_grant_id]).filter((g) => g !== null));
    expect([...seen]).toEqual([winner]);
    for (const l of round) {
      if (l.outcome === 'refused') expect(l.reason).toBe('grant_outstanding');
      else expect(l.replay_outcome).toBe('replayed');
    }
    const st = await ledger.status(`race-${r}`);
    expect(st?.grants).toHaveLength(1);
    expect(st?.grants[0]?.grant_id).toBe(winner);
    expect(st?.grants[0]?.slot).toBe('ordinary-repair');
  }
  expect(lines.reduce((n, l) => n + l.lost_appends, 0)).toBeGreaterThan(0);
}
