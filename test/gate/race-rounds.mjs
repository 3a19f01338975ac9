// Shared body of the ledger race children (race-child.mjs on the fs log, pg-race-child.mjs on the
// PostgreSQL log): a ledger over a log that counts lost compare-and-set appends, and the round loop.
// For each round: wait for <syncDir>/go-<round>, reserve the same continuation on race-<round>
// (even processes share one event key, odd ones use their own; each resting on the same
// CONTINUATION_ELIGIBLE route decision, the candidate the live tree), replay it once, print one JSON
// line with the number of appends that lost the compare-and-set; writes ready-/done- files.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentId } from '../../dist/src/gate/ids.js';
import { createLogLedger, DEFAULT_THRESHOLDS, reservationBasis } from '../../dist/src/gate/index.js';

export const candidate = { commit: null, tree_digest: 'c'.repeat(64) };

const routeBody = {
  schema: 'gate-route/v1',
  packet_id: `pkt_${'0'.repeat(32)}`,
  assessment_ref: null,
  route: 'CONTINUATION_ELIGIBLE',
  reasons: [],
  criteria: [],
  obligations: [],
  thresholds: DEFAULT_THRESHOLDS,
  slots: { ordinary_repair: 1, gate_continuation: 1 },
};
/** The route decision every racer's reservation rests on (contract revision 1), and its digest. */
export const basis = reservationBasis({ ...routeBody, route_id: contentId('rte', routeBody) }, candidate, 1);

/** A ledger over `log` whose `lost()` counts the appends that lost the compare-and-set race. */
export function countingLedger(log) {
  let lost = 0;
  const counted = {
    read: (p) => log.read(p),
    append: async (p, e) => {
      const ok = await log.append(p, e);
      if (!ok) lost++;
      return ok;
    },
  };
  return { ledger: createLogLedger(counted, { now: () => '2026-11-30T12:00:00.000Z' }), lost: () => lost };
}

/** Signals ready-<proc>, then races every round on the go-/done- files under syncDir. */
export async function raceRounds({ ledger, lost }, syncDir, proc, rounds) {
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
      ...basis,
    };
    const lostBefore = lost();
    const first = await ledger.reserve(request, { live: candidate });
    const replay = await ledger.reserve(request, { live: candidate });
    process.stdout.write(
      `${JSON.stringify({
        round,
        proc,
        outcome: first.outcome,
        grant_id: first.grant?.grant_id ?? null,
        reason: first.reason ?? null,
        replay_outcome: replay.outcome,
        replay_grant_id: replay.grant?.grant_id ?? null,
        lost_appends: lost() - lostBefore,
      })}\n`,
    );
    writeFileSync(join(syncDir, `done-${round}-${proc}`), '');
  }
}
