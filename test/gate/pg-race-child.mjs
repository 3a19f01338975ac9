// Child process of the PostgreSQL ledger race (its own process, its own connection): like
// race-child.mjs, but the log is pgLedgerLog. Args: <url> <schema> <syncDir> <proc> <rounds>.
// The round loop is shared with race-child.mjs (race-rounds.mjs).
import { pgLedgerLog } from '../../dist/src/pg/index.js';
import { countingLedger, raceRounds } from './race-rounds.mjs';

const [url, schema, syncDir, procArg, roundsArg] = process.argv.slice(2);
const log = pgLedgerLog({ connectionString: url, schema, maxConnections: 1 });
await log.migrate();
await log.read('race-0'); // connection open before the first round
await raceRounds(countingLedger(log), syncDir, Number(procArg), Number(roundsArg));
await log.close();
