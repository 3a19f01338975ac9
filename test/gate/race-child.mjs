// Child process of the ledger race test: for each round, waits for the round's go-file, then
// reserves the same continuation on the round's problem (even-numbered processes replay one shared
// event key, odd ones use their own), replays its own request once, and reports one JSON line
// (with how many of its appends lost the compare-and-set race). It signals `ready-<proc>` first.
// Modes: `race` (default) and `crash-after-start` (reserve, start, then die before consume).
// The round loop is shared with pg-race-child.mjs (race-rounds.mjs).
import { fsLedgerLog } from '../../dist/src/gate/fs-ledger.js';
import { basis, candidate, countingLedger, raceRounds } from './race-rounds.mjs';

const [ledgerRoot, syncDir, procArg, roundsArg, mode = 'race'] = process.argv.slice(2);
// The fs log, counting lost compare-and-set appends (another process took the sequence number).
const counted = countingLedger(fsLedgerLog(ledgerRoot));

if (mode === 'crash-after-start') {
  const { ledger } = counted;
  const r = await ledger.reserve(
    {
      problem_id: 'crash-1',
      idempotency_key: 'continuation:crash-1:pkt',
      candidate,
      kind: 'continuation',
      directive_id: null,
      requested_by: 'crashing-job',
      ...basis,
    },
    { live: candidate },
  );
  await ledger.start('crash-1', r.grant.grant_id);
  process.stdout.write(`${JSON.stringify({ grant_id: r.grant.grant_id })}\n`);
  process.kill(process.pid, 'SIGKILL');
}

await raceRounds(counted, syncDir, Number(procArg), Number(roundsArg));
