/**
 * The payroll kill harness (real processes against the built library: `npm run build` first):
 * the payroll chain (test/chain/fixtures/payroll-worker.mjs — file journal, file effect ledger,
 * file bank rail, a 40-employee month with 38 PAID lines) is SIGKILLed at every step — the start
 * of each stage, after the 1st, 19th and 38th (last) bank transfer, after the payment's result was
 * recorded — and once twice in a row (inside the payment, then inside its reconciliation), then
 * resumed until it completes. The bank does not dedupe (a repeated transfer pays again), so what
 * keeps each employee paid exactly once is the effect ledger: the intent is durable before the
 * first transfer, and a payment left in doubt is reconciled against the bank's statement instead
 * of being run again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllingLedger, generatePayrollMonth, type Transfer } from '../../examples/payroll/index.js';

const WORKER = fileURLToPath(new URL('./fixtures/payroll-worker.mjs', import.meta.url));
const EMPLOYEES = 40;

let root: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chain-payroll-kill-'));
});
afterAll(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

/** Where a worker hangs to be killed: a stage observation point or after its k-th transfer. */
type KillPoint = { readonly at: string } | { readonly afterTransfers: number };

/** Runs the payroll worker in `dir`; with a kill point, SIGKILLs it there; else runs it to its end. */
async function runWorker(dir: string, kill: KillPoint | null): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, EMPLOYEES: String(EMPLOYEES), HANG_AT: '' };
  if (kill !== null && 'at' in kill) env.HANG_AT = kill.at;
  if (kill !== null && 'afterTransfers' in kill) env.HANG_AFTER_TRANSFERS = String(kill.afterTransfers);
  const child = spawn(process.execPath, [WORKER, dir], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (kill !== null && out.includes('HANG\n')) child.kill('SIGKILL');
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((res) =>
    child.on('close', (c, s) => res([c, s])),
  );
  if (kill !== null && signal !== 'SIGKILL')
    throw new Error(`worker not killed at ${JSON.stringify(kill)}: ${code} ${out} ${err}`);
  if (kill === null && code !== 0) throw new Error(`worker failed (${code ?? signal}): ${out} ${err}`);
  return { code, out };
}

interface Scenario {
  readonly name: string;
  readonly kills: readonly KillPoint[];
  /** How the resumed run's payment was obtained (`ran`, `reconciled`, or `replayed`). */
  readonly via: string;
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'intent:start', kills: [{ at: 'intent:start' }], via: 'ran' },
  { name: 'settle:start', kills: [{ at: 'settle:start' }], via: 'ran' },
  { name: 'fund_check:start', kills: [{ at: 'fund_check:start' }], via: 'ran' },
  { name: 'pay:start', kills: [{ at: 'pay:start' }], via: 'ran' },
  { name: 'after transfer 1', kills: [{ afterTransfers: 1 }], via: 'reconciled' },
  { name: 'after transfer 19', kills: [{ afterTransfers: 19 }], via: 'reconciled' },
  {
    name: 'after transfer 38 (all made, result not recorded)',
    kills: [{ afterTransfers: 38 }],
    via: 'reconciled',
  },
  { name: 'pay:effect (result recorded, not committed)', kills: [{ at: 'pay:effect' }], via: 'replayed' },
  { name: 'receipt:start', kills: [{ at: 'receipt:start' }], via: 'none' },
  {
    name: 'after transfer 10, then after transfer 5 of the reconciliation',
    kills: [{ afterTransfers: 10 }, { afterTransfers: 5 }],
    via: 'reconciled',
  },
];

/** What one scenario left: its figures and the bank's transfers per employee. */
interface ScenarioResult {
  readonly kills: number;
  readonly resumes: number;
  readonly perEmployee: Map<string, number>;
  readonly total: number;
  readonly vias: string[];
  readonly outcome: string;
}

async function runScenario(s: Scenario, i: number): Promise<ScenarioResult> {
  const dir = join(root, `s${i}`);
  await mkdir(dir);
  for (const point of s.kills) await runWorker(dir, point);
  const { out } = await runWorker(dir, null);
  const transfers = (await readFile(join(dir, 'bank', 'payments.jsonl'), 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Transfer);
  const perEmployee = new Map<string, number>();
  for (const t of transfers) perEmployee.set(t.emp_id, (perEmployee.get(t.emp_id) ?? 0) + 1);
  const log = (await readFile(join(dir, 'stages.log'), 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { stage: string; phase: string; via?: string });
  return {
    kills: s.kills.length,
    resumes: s.kills.length,
    perEmployee,
    total: Math.round(transfers.reduce((a, t) => a + t.amount, 0) * 100) / 100,
    vias: log.filter((e) => e.stage === 'pay' && e.phase === 'effect').map((e) => e.via ?? '?'),
    outcome: (JSON.parse(out) as { outcome: string }).outcome,
  };
}

describe('payroll kill harness: SIGKILL at each step, resume, count payments', () => {
  it('every employee is paid exactly once, whatever step the chain was killed at', async () => {
    const month = generatePayrollMonth({ employees: EMPLOYEES });
    const payees = month.payslips.filter((p) => p.status === 'PAID').map((p) => p.emp_id);
    expect(payees).toHaveLength(38);
    const ledgerTotal = controllingLedger(month).paid_total;
    // two scenarios at a time (the machine's two cores)
    const results: ScenarioResult[] = [];
    for (let i = 0; i < SCENARIOS.length; i += 2) {
      const batch = SCENARIOS.slice(i, i + 2);
      results.push(...(await Promise.all(batch.map((s, j) => runScenario(s, i + j)))));
    }
    let doubles = 0;
    let missing = 0;
    for (const [i, r] of results.entries()) {
      const s = SCENARIOS[i] as Scenario;
      expect(r.outcome, s.name).toBe('accepted');
      expect([...r.perEmployee.keys()].sort(), s.name).toEqual([...payees].sort());
      doubles += [...r.perEmployee.values()].filter((n) => n > 1).length;
      missing += payees.filter((p) => !r.perEmployee.has(p)).length;
      expect(r.total, s.name).toBe(ledgerTotal);
      // the resumed run's payment: run fresh, reconciled against the statement, or replayed
      if (s.via !== 'none') expect(r.vias.at(-1), s.name).toBe(s.via);
    }
    const figures = {
      scenarios: results.length,
      kills: results.reduce((a, r) => a + r.kills, 0),
      resumes: results.reduce((a, r) => a + r.resumes, 0),
      double_payments: doubles,
      missing_payments: missing,
    };
    expect(figures).toEqual({
      scenarios: 10,
      kills: 11,
      resumes: 11,
      double_payments: 0,
      missing_payments: 0,
    });
  }, 120_000);
});
