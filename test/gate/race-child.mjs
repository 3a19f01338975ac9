// Child process of the ledger race test: for each round, waits for the round's go-file, then
// reserves the same continuation on the round's problem (even-numbered processes replay one shared
// event key, odd ones use their own), replays its own request once, and reports one JSON line
// (with how many of its appends lost the compare-and-set race). It signals `ready-<proc>` first.
// Modes: `race` (default) and `crash-after-start` (reserve, start, then die before consume).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogLedger, fsLedgerLog } from '../../dist/src/gate/index.js';

const [ledgerRoot, syncDir, procArg, roundsArg, mode = 'race'] = process.argv.slice(2);
const proc = Number(procArg);
const rounds = Number(roundsArg);
// The fs log, counting lost compare-and-set appends (another process took the sequence number).
const log = fsLedgerLog(ledgerRoot);
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

if (mode === 'crash-after-start') {
  const r = await ledger.reserve({
    problem_id: 'crash-1',
    idempotency_key: 'continuation:crash-1:pkt',
    candidate,
    kind: 'continuation',
    directive_id: null,
    requested_by: 'crashing-job',
  });
  await ledger.start('crash-1', r.grant.grant_id);
  process.stdout.write(`${JSON.stringify({ grant_id: r.grant.grant_id })}\n`);
  process.kill(process.pid, 'SIGKILL');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
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
