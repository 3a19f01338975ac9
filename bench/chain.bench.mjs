// Chain seam throughput: full in-memory seam commits (view, delta checks, immer commit,
// fingerprint) against the raw fingerprint cost of the same baton; durable commits through the
// file journal against a raw append+fsync loop of lines of the same size.
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { canonicalJson, fingerprintOf } from '../dist/src/canonical/index.js';
import {
  createChain,
  createFileChainJournal,
  createTaskContract,
  factRule,
  stageDelta,
} from '../dist/src/chain/index.js';
import { opsPerSecond } from './lib.mjs';

const STAGES = 8;

function benchChain() {
  const stages = [];
  const rules = [];
  for (let i = 0; i < STAGES; i++) {
    const key = `k${i}`;
    stages.push({
      spec: { name: `s${i}`, requires: i === 0 ? [] : [`k${i - 1}`], provides: [key] },
      run: () =>
        stageDelta({
          [key]: {
            value: { n: i, items: Array.from({ length: 20 }, (_, j) => ({ id: j, v: j * i })) },
            evidence: [`ev://${i}`],
          },
        }),
    });
    rules.push(
      factRule({
        key,
        producer_stage: `s${i}`,
        type: z.object({ n: z.number(), items: z.array(z.object({ id: z.number(), v: z.number() })) }),
      }),
    );
  }
  const contract = createTaskContract({
    contract_id: 'bench',
    version: 1,
    objective: 'o',
    output_schema: 's',
    accountable_owner: 'me',
  });
  return createChain({ chain_id: 'bench', contract, stages, rules });
}

export default async () => {
  const chain = benchChain();
  let id = 0;
  const fresh = () => chain.newBaton({ baton_id: `b${id++}`, intent: 'bench' });
  const full = await chain.run(fresh());

  // in-memory: a whole 8-stage run, reported per seam commit
  const runsPerSec = await opsPerSecond(() => chain.run(fresh()), 1500);
  const seamsPerSec = runsPerSec * STAGES;
  // raw: fingerprint of the final baton's content once per seam (the unavoidable hashing)
  const body = { ...full.baton, stage_receipts: undefined, fingerprint: undefined, snapshot_id: undefined };
  delete body.stage_receipts;
  delete body.fingerprint;
  delete body.snapshot_id;
  const rawFpPerSec = await opsPerSecond(() => fingerprintOf(body), 1000);

  // durable: file journal commits vs a raw append+fsync loop of the same line size
  const dir = await mkdtemp(join(tmpdir(), 'chain-bench-'));
  try {
    const journal = createFileChainJournal(join(dir, 'journal'));
    const durableRuns = await opsPerSecond(() => chain.run(fresh(), { journal }), 2000);
    const durableCommitsPerSec = durableRuns * (STAGES + 1);
    const line = `${canonicalJson({ v: 1, baton: full.baton })}\n`;
    const fd = await open(join(dir, 'raw.jsonl'), 'a');
    const rawAppend = await opsPerSecond(async () => {
      await fd.write(line);
      await fd.sync();
    }, 1500);
    await fd.close();
    return [
      {
        name: 'seam commits/s (memory, 8-stage chain)',
        value: seamsPerSec,
        unit: 'commits/s',
        ratio: seamsPerSec / rawFpPerSec,
      },
      { name: 'raw fingerprint/s of the same baton', value: rawFpPerSec, unit: 'ops/s' },
      {
        name: 'durable commits/s (file journal)',
        value: durableCommitsPerSec,
        unit: 'commits/s',
        ratio: durableCommitsPerSec / rawAppend,
      },
      { name: 'raw append+fsync/s (same line size)', value: rawAppend, unit: 'ops/s' },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
