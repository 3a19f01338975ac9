/**
 * Tests with real child processes against the built library (run `npm run build` first):
 * fingerprints stable across processes, and kill-and-resume of the payroll chain.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Payment, paymentsOf, runPayroll, type Transfer } from '../../examples/payroll/index.js';
import {
  batonFingerprint,
  createFileChainJournal,
  createFileEffectLedger,
  createStoreChainJournal,
} from '../../src/chain/index.js';
import { createFsStore, isChainRunLoad } from '../../src/store/index.js';
import { tripBaton, tripChain } from './trip-fixture.js';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

let dir: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-proc-'));
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('fingerprints', () => {
  it('are identical when computed in another process', async () => {
    const local = await runPayroll({ contract: 'release' });
    const { stdout } = await run(process.execPath, [fixture('fingerprint.mjs'), 'release']);
    const remote = JSON.parse(stdout) as {
      contract_digest: string;
      fingerprints: string[][];
      run_ids: string[];
      acceptance: string;
    };
    expect(remote.contract_digest).toBe(local.receipts[0]?.contract_digest);
    expect(remote.fingerprints).toEqual(
      local.receipts.map((x) => [x.input_fingerprint, x.output_fingerprint]),
    );
    expect(remote.run_ids).toEqual(local.receipts.map((x) => x.stage_run_id));
    expect(remote.acceptance).toBe(local.acceptance?.receipt_id);
  });

  it('change with any committed fact, identity field, artifact or trace — and ignore receipts', async () => {
    const chain = tripChain();
    const { baton } = await chain.run(tripBaton(chain));
    const base = batonFingerprint(baton);
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    for (let i = 0; i < baton.records.length; i++) {
      for (const field of ['value', 'producer_stage', 'stage_run_id', 'evidence_refs'] as const) {
        const records = baton.records.map((r, j) =>
          j !== i
            ? r
            : {
                ...r,
                [field]:
                  field === 'evidence_refs'
                    ? [...r.evidence_refs, 'x://y']
                    : field === 'value'
                      ? { changed: r.value }
                      : `${r[field]}'`,
              },
        );
        expect(batonFingerprint({ ...baton, records })).not.toBe(base);
      }
    }
    expect(batonFingerprint({ ...baton, intent: 'other' })).not.toBe(base);
    expect(batonFingerprint({ ...baton, baton_id: 'other' })).not.toBe(base);
    expect(batonFingerprint({ ...baton, contract_digest: '0000000000000000' })).not.toBe(base);
    expect(batonFingerprint({ ...baton, artifact_refs: [] })).not.toBe(base);
    expect(batonFingerprint({ ...baton, trace: ['intent', 'pay', 'route'] })).not.toBe(base);
    expect(batonFingerprint({ ...baton, records: [...baton.records].reverse() })).not.toBe(base);
    expect(batonFingerprint({ ...baton, stage_receipts: [] } as never)).toBe(base);
    expect(baton.snapshot_id).toBe(`trip-1::r3::${base}`);
  });
});

/** The final report the payroll worker prints. */
interface WorkerReport {
  outcome: string;
  revision: number;
  resumed_from_revision: number;
  receipts: { stage_name: string; stage_run_id: string }[];
  payments: unknown[];
}

function startWorker(
  hangAt: string,
  journal: 'file' | 'store' = 'file',
): {
  child: ChildProcess;
  hung: Promise<void>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>;
} {
  const child = spawn(process.execPath, [fixture('payroll-worker.mjs'), dir], {
    env: { ...process.env, HANG_AT: hangAt, JOURNAL: journal },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  let onHang: () => void = () => {};
  let onEarlyExit: (e: Error) => void = () => {};
  const hung = new Promise<void>((res, rej) => {
    onHang = res;
    onEarlyExit = rej;
  });
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    if (stdout.includes('HANG\n')) onHang();
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>((res) => {
    child.on('close', (code, signal) => {
      if (code !== 0 && signal === null) stdout += `\n[stderr] ${stderr}`;
      // a worker that ends before printing HANG fails the test at once, with its output
      if (hangAt !== '' && !stdout.includes('HANG\n'))
        onEarlyExit(new Error(`worker ended (${code ?? signal}) before HANG: ${stdout}`));
      res({ code, signal, stdout });
    });
  });
  hung.catch(() => {}); // observed through `await hung` where a hang is expected
  return { child, hung, done };
}

/** The bank's payments (its transfers summed by reference), read from the file rail. */
async function bankPayments(): Promise<Payment[]> {
  const text = await readFile(join(dir, 'bank', 'payments.jsonl'), 'utf8');
  return paymentsOf(
    text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Transfer),
  );
}

async function stageLog(): Promise<
  { stage: string; phase: string; stage_run_id: string; replayed?: boolean }[]
> {
  return (await readFile(join(dir, 'stages.log'), 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('kill and resume (real child processes, SIGKILL mid-chain)', () => {
  it('resumes from the last committed baton with the same stage_run_id; earlier stages never rerun; one payment', async () => {
    // 1. killed inside pay, after the payment was made and recorded, before the delta was committed
    const first = startWorker('pay:effect');
    await first.hung;
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const journal = createFileChainJournal(join(dir, 'journal'));
    expect((await journal.loadLast('payroll-2026-06'))?.trace).toEqual(['intent', 'settle', 'fund_check']);

    // 2. resumed; killed again at the start of receipt (pay committed this time)
    const second = startWorker('receipt:start');
    await second.hung;
    second.child.kill('SIGKILL');
    expect((await second.done).signal).toBe('SIGKILL');
    expect((await createFileChainJournal(join(dir, 'journal')).loadLast('payroll-2026-06'))?.revision).toBe(
      4,
    );

    // 3. resumed to the end
    const third = startWorker('');
    const end = await third.done;
    expect(end.code).toBe(0);
    const report = JSON.parse(end.stdout) as WorkerReport;
    expect(report.outcome).toBe('accepted');
    expect(report.revision).toBe(5);
    expect(report.resumed_from_revision).toBe(4);
    expect(report.payments).toHaveLength(1);

    const log = await stageLog();
    const starts = (stage: string) => log.filter((e) => e.stage === stage && e.phase === 'start');
    expect(starts('intent')).toHaveLength(1);
    expect(starts('settle')).toHaveLength(1);
    expect(starts('fund_check')).toHaveLength(1);
    expect(starts('pay')).toHaveLength(2);
    expect(starts('receipt')).toHaveLength(2);
    const payRunIds = new Set(starts('pay').map((e) => e.stage_run_id));
    expect(payRunIds.size).toBe(1);
    expect(new Set(starts('receipt').map((e) => e.stage_run_id)).size).toBe(1);
    expect(log.filter((e) => e.stage === 'pay' && e.phase === 'effect').map((e) => e.replayed)).toEqual([
      false,
      true,
    ]);
    const payReceipt = report.receipts.find((r) => r.stage_name === 'pay');
    expect(payRunIds.has(payReceipt?.stage_run_id as string)).toBe(true);

    expect(await bankPayments()).toEqual([
      {
        idempotency_key: payReceipt?.stage_run_id,
        payment_id: 'payment-2026-06',
        lines: 798,
        total: 13_706_097,
      },
    ]);
    expect((await createFileEffectLedger(join(dir, 'effects')).records()).map((r) => r.key)).toEqual([
      payReceipt?.stage_run_id,
    ]);
  }, 60_000);

  it('with the fs run store: one chain run, resumed from its last baton-commit, the same stage_run_id, one payment', async () => {
    const store = () => createFsStore({ root: join(dir, '.handoff'), env: {} });
    const lastOf = async () => {
      const s = store();
      const ids = await s.listRuns();
      expect(ids).toHaveLength(1);
      const l = await s.loadRun(ids[0] as string);
      if (!l.ok || !isChainRunLoad(l.value)) throw new Error('not a chain run');
      return l.value;
    };
    // 1. killed inside pay, after the payment was made and recorded, before the delta was committed
    const first = startWorker('pay:effect', 'store');
    await first.hung;
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const afterFirst = await lastOf();
    expect(afterFirst.last_baton.trace).toEqual(['intent', 'settle', 'fund_check']);
    expect(afterFirst.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(afterFirst.damaged).toBe(false);

    // 2. resumed; killed again at the start of receipt (pay committed this time)
    const second = startWorker('receipt:start', 'store');
    await second.hung;
    second.child.kill('SIGKILL');
    expect((await second.done).signal).toBe('SIGKILL');
    expect((await lastOf()).last_baton.revision).toBe(4);

    // 3. resumed to the end
    const end = await startWorker('', 'store').done;
    expect(end.code).toBe(0);
    const report = JSON.parse(end.stdout) as WorkerReport;
    expect(report).toMatchObject({ outcome: 'accepted', revision: 5, resumed_from_revision: 4 });
    expect(report.payments).toHaveLength(1);

    // one run holds the whole history: manifest start baton r0, five commits, fingerprints chained
    const final = await lastOf();
    expect(final.manifest.start_baton.revision).toBe(0);
    expect(final.events.map((e) => [e.seq, e.payload.receipt.stage_name])).toEqual([
      [1, 'intent'],
      [2, 'settle'],
      [3, 'fund_check'],
      [4, 'pay'],
      [5, 'receipt'],
    ]);
    expect(final.events.map((e) => e.payload.receipt.receipt_id)).toEqual(
      report.receipts.map((r) => (r as unknown as { receipt_id: string }).receipt_id),
    );
    // a journal object over the store rebuilds the same last baton
    const journal = createStoreChainJournal(store(), {
      chain_id: final.manifest.chain_id,
      contract: final.manifest.contract,
      specs: final.manifest.stages.map((name) => ({ name })),
    });
    expect((await journal.loadLast('payroll-2026-06'))?.snapshot_id).toBe(final.last_baton.snapshot_id);

    const log = await stageLog();
    const starts = (stage: string) => log.filter((e) => e.stage === stage && e.phase === 'start');
    expect(starts('intent')).toHaveLength(1);
    expect(starts('settle')).toHaveLength(1);
    expect(starts('fund_check')).toHaveLength(1);
    expect(starts('pay')).toHaveLength(2);
    expect(new Set(starts('pay').map((e) => e.stage_run_id)).size).toBe(1);
    const payReceipt = report.receipts.find((r) => r.stage_name === 'pay');
    expect(starts('pay')[0]?.stage_run_id).toBe(payReceipt?.stage_run_id);
    expect(log.filter((e) => e.stage === 'pay' && e.phase === 'effect').map((e) => e.replayed)).toEqual([
      false,
      true,
    ]);
    expect(await bankPayments()).toMatchObject([{ idempotency_key: payReceipt?.stage_run_id, lines: 798 }]);
  }, 60_000);
});
