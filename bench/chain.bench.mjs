// Chain seam throughput: full in-memory seam commits (view, delta checks, immer commit,
// fingerprint) against the raw fingerprint cost of the same baton; durable commits through the
// file journal against a raw append+fsync loop of lines of the same size (synchronous write +
// fsync, the tightest loop node can run). The journal figure commits precomputed entries (the
// revisions 0–8 of fresh batons: one new journal file per 9 commits, as in real runs), so it
// measures the journal and not the stages; a second raw loop does the same file pattern (a new
// file and its directory fsync every 9 lines). Whole durable runs are reported too.
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { canonicalJson, fingerprintOf } from '../dist/src/canonical/index.js';
import {
  createChain,
  createFileChainJournal,
  createMemoryChainJournal,
  createTaskContract,
  factRule,
  stageDelta,
} from '../dist/src/chain/index.js';
import { opsPerSecond, opsPerSecondSync } from './lib.mjs';

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
    // the entries of fresh runs, computed beforehand (revision 0 … 8 of each baton)
    const runs = [];
    for (let i = 0; i < 400; i++) {
      const mem = createMemoryChainJournal();
      const b = fresh();
      await chain.run(b, { journal: mem });
      runs.push(mem.entries(b.baton_id));
    }
    const journal = createFileChainJournal(join(dir, 'journal'));
    let r = 0;
    let k = 0;
    const commitPerSec = await opsPerSecond(async () => {
      const entries = runs[r % runs.length];
      if (r >= runs.length) throw new Error('bench ran out of precomputed runs');
      await journal.commit(entries[k]);
      if (++k === entries.length) {
        k = 0;
        r++;
      }
    }, 1500);
    const durableRuns = await opsPerSecond(() => chain.run(fresh(), { journal }), 1500);
    const durableCommitsPerSec = durableRuns * (STAGES + 1);
    const line = Buffer.from(`${canonicalJson({ v: 1, baton: full.baton })}\n`);
    const fd = openSync(join(dir, 'raw.jsonl'), 'a');
    const rawAppend = opsPerSecondSync(() => {
      writeSync(fd, line);
      fsyncSync(fd);
    }, 1500);
    closeSync(fd);
    const rawDir = join(dir, 'raw');
    mkdirSync(rawDir);
    let f = 0;
    let n = 0;
    let rf = -1;
    const rawFiles = opsPerSecondSync(() => {
      if (n === 0) {
        rf = openSync(join(rawDir, `b${f++}.jsonl`), 'wx');
      }
      writeSync(rf, line);
      fsyncSync(rf);
      if (n === 0) {
        const d = openSync(rawDir, 'r');
        fsyncSync(d);
        closeSync(d);
      }
      if (++n === STAGES + 1) {
        closeSync(rf);
        n = 0;
      }
    }, 1500);
    if (n !== 0) closeSync(rf);
    return [
      {
        name: 'seam commits/s (memory, 8-stage chain)',
        value: seamsPerSec,
        unit: 'commits/s',
        ratio: seamsPerSec / rawFpPerSec,
      },
      { name: 'raw fingerprint/s of the same baton', value: rawFpPerSec, unit: 'ops/s' },
      { name: 'raw append+fsync/s (same line size)', value: rawAppend, unit: 'ops/s' },
      {
        name: 'raw append+fsync/s, a new file (+ directory fsync) per 9 lines',
        value: rawFiles,
        unit: 'ops/s',
      },
      {
        name: 'durable commits/s (file journal, precomputed entries) vs raw append+fsync',
        value: commitPerSec,
        unit: 'commits/s',
        ratio: commitPerSec / rawAppend,
        target: 0.8,
      },
      {
        name: 'durable commits/s (file journal) vs raw with the same file pattern',
        value: commitPerSec,
        unit: 'commits/s',
        ratio: commitPerSec / rawFiles,
        target: 0.8,
      },
      {
        name: 'durable commits/s (whole 8-stage runs, file journal)',
        value: durableCommitsPerSec,
        unit: 'commits/s',
        ratio: durableCommitsPerSec / rawAppend,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
