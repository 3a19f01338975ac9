// Gate ledger benchmark: fs reservations (register + reserve + replay per problem) against the raw
// limit measured in the same run (temp write + fsync + link publish, the ledger's append primitive).
import { mkdtempSync, rmSync } from 'node:fs';
import { link, open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsLedger } from '../dist/src/gate/index.js';
import { opsPerSecond } from './lib.mjs';

export default async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gate-bench-'));
  try {
    let n = 0;
    const raw = await opsPerSecond(async () => {
      const tmp = join(dir, `t${n}`);
      const h = await open(tmp, 'wx');
      await h.writeFile('{"x":1}\n');
      await h.sync();
      await h.close();
      await link(tmp, join(dir, `r${n++}`));
      await unlink(tmp);
    }, 1500);
    const ledger = createFsLedger(join(dir, 'ledger'), { now: () => '2026-11-30T12:00:00.000Z' });
    const profile = { ordinary_repairs: 1, gate_continuations: 1, lead_directed_attempts: 3 };
    const candidate = { commit: null, tree_digest: 'c'.repeat(64) };
    let p = 0;
    const reservations = await opsPerSecond(async () => {
      const problem_id = `p${p++}`;
      await ledger.register({ problem_id, profile, contract_revision: 1 });
      const req = {
        problem_id,
        idempotency_key: 'k',
        candidate,
        kind: 'continuation',
        directive_id: null,
        requested_by: 'b',
      };
      await ledger.reserve(req);
      await ledger.reserve(req);
    }, 3000);
    // each op appends twice (register, reserve); the replay only reads
    return [
      { name: 'raw append (write+fsync+link)', value: raw, unit: 'ops/s' },
      {
        name: 'fs ledger register+reserve+replay',
        value: reservations,
        unit: 'ops/s',
        ratio: (reservations * 2) / raw,
        target: 0.3,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
