/**
 * The parent side of the ledger race tests (ledger-race.test.ts on the fs log, pg-ledger.test.ts on
 * PostgreSQL): spawn a child, release the rounds through go-/done- files, and read the children's
 * JSON lines (race-rounds.mjs writes them).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
