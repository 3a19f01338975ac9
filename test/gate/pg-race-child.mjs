// Child process of the PostgreSQL ledger race (its own process, its own connection): like
// race-child.mjs, but the log is pgLedgerLog. Args: <url> <schema> <syncDir> <proc> <rounds>.
// For each round: wait for <syncDir>/go-<round>, reserve the same continuation on race-<round>
// (even processes share one event key, odd ones use their own), replay it once, print one JSON
// line with the number of appends that lost the compare-and-set; writes ready-/done- files.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogLedger, pgLedgerLog } from '../../dist/src/gate/index.js';

const [url, schema, syncDir, procArg, roundsArg] = process.argv.slice(2);
const proc = Number(procArg);
const rounds = Number(roundsArg);
const log = pgLedgerLog({ connectionString: url, schema, maxConnections: 1 });
let lost = 0;
const counted = {
  read: (p) => log.read(p),
  append: async (p, e) => {
    const ok = await log.append(p, e);
    if (!ok) lost++;
    return ok;
  },
};
const ledger = createLogLedger(counted, { now: () => '2026-11-30T12:00:00.000Z' });
const candidate = { commit: null, tree_digest: 'c'.repeat(64) };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
await log.migrate();
await log.read('race-0'); // connection open before the first round
writeFileSync(join(syncDir, `ready-${proc}`), '');
for (let round = 0; round < rounds; round++) {
  while (!existsSync(join(syncDir, `go-${round}`))) await sleep(2);
  const request = {
    problem_id: `race-${round}`,
    idempotency_key:
      proc % 2 === 0 ? `continuation:race-${round}:shared` : `continuation:race-${round}:p${proc}`,
    candidate,
    kind: 'continuation',
    directive_id: null,
    requested_by: `job-${proc}`,
  };
  const lostBefore = lost;
  const first = await ledger.reserve(request);
  const replay = await ledger.reserve(request);
  process.stdout.write(
    `${JSON.stringify({
      round,
      proc,
      outcome: first.outcome,
      grant_id: first.grant?.grant_id ?? null,
      reason: first.reason ?? null,
      replay_outcome: replay.outcome,
      replay_grant_id: replay.grant?.grant_id ?? null,
      lost_appends: lost - lostBefore,
    })}\n`,
  );
  writeFileSync(join(syncDir, `done-${round}-${proc}`), '');
}
await log.close();
