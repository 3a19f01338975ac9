/** CLI tests of `handoff chain` against the built binary (run `npm run build` first). */
import { describe, expect, it } from 'vitest';
import { runCli, stdoutJson } from '../helpers/cli.js';

interface Out {
  example: string;
  wrong_value: boolean;
  runs: {
    contract: string;
    outcome: string;
    paid_total: number;
    paid_lines: number;
    overpaid: number;
    receipts: { stage_name: string }[];
    seam_error: { code: string; stage: string } | null;
  }[];
}

describe('handoff chain example payroll', () => {
  it('clean run: exit 0, five receipts, 798 lines paid', async () => {
    const r = await runCli(['chain', 'example', 'payroll', '--json']);
    expect(r.code).toBe(0);
    const out = stdoutJson<Out>(r);
    expect(out.runs).toHaveLength(1);
    expect(out.runs[0]).toMatchObject({
      contract: 'release',
      outcome: 'accepted',
      paid_lines: 798,
      paid_total: 13_706_097,
    });
    expect(out.runs[0]?.receipts.map((x) => x.stage_name)).toEqual([
      'intent',
      'settle',
      'fund_check',
      'pay',
      'receipt',
    ]);
  });

  it('--wrong-value runs the experiment: thin pays 38,444 too much, release stops at settle; exit 3', async () => {
    const r = await runCli(['chain', 'example', 'payroll', '--wrong-value', '--json']);
    expect(r.code).toBe(3);
    const [thin, release] = stdoutJson<Out>(r).runs;
    expect(thin).toMatchObject({
      contract: 'thin',
      outcome: 'accepted',
      paid_lines: 800,
      paid_total: 13_744_541,
      overpaid: 38_444,
    });
    expect(release).toMatchObject({
      contract: 'release',
      outcome: 'stopped',
      paid_total: 0,
      seam_error: { code: 'fact_semantic_violation', stage: 'settle' },
    });
    expect(release?.receipts).toHaveLength(1);
  });

  it('--contract thin --wrong-value alone is accepted (exit 0); text output prints the receipts', async () => {
    const r = await runCli(['chain', 'example', 'payroll', '--wrong-value', '--contract', 'thin']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('receipt::payroll-2026-06::settle::r1::');
    expect(r.stdout).toContain('ACCEPTED accept::payroll-2026-06::r5::');
    expect(r.stdout).toContain('overpaid 38,444.00');
    const release = await runCli(['chain', 'example', 'payroll', '--wrong-value', '--contract', 'release']);
    expect(release.code).toBe(3);
    expect(release.stdout).toContain("STOPPED stage 'settle' [fact_semantic_violation]");
    expect(release.stdout).toContain('paid: nothing');
  });

  it('--wrong-value (text) prints both runs as documented: thin accepted and overpaid, release stopped at settle; exit 3', async () => {
    const r = await runCli(['chain', 'example', 'payroll', '--wrong-value']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('');
    const [thin, release] = r.stdout.split('== payroll ').slice(1);
    expect(thin).toMatch(/^payroll-2026-06: contract thin, settle source obligation ==/);
    expect(thin).toContain('evidence [ledger://payroll/obligations?month=2026-06]');
    expect(thin).toContain('trace: intent -> settle -> fund_check -> pay -> receipt');
    expect(thin).toContain('ACCEPTED accept::payroll-2026-06::r5::');
    expect(thin).toContain(
      'paid: 800 lines, 13,744,541.00 (controlling ledger 13,706,097.00; overpaid 38,444.00)',
    );
    expect(release).toMatch(/^payroll-2026-06: contract release, settle source obligation ==/);
    expect(release?.match(/ r\d->r\d /g)).toEqual([' r0->r1 ']);
    expect(release).toContain('trace: intent\n');
    expect(release).toContain(
      "STOPPED stage 'settle' [fact_semantic_violation] 'net_total': got 13,744,541.00, the controlling ledger's PAID sum is 13,706,097.00",
    );
    expect(release).toMatch(/checkpoint payroll-2026-06::r1::[0-9a-f]{16}\n/);
    expect(release).toContain('paid: nothing (controlling ledger 13,706,097.00)');
  });

  it('--help after the verb prints the help (exit 0)', async () => {
    for (const args of [
      ['chain', 'example', 'payroll', '--help'],
      ['chain', 'example', '-h'],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toContain('usage: handoff chain example payroll [--wrong-value]');
    }
  });

  it('usage errors exit 2', async () => {
    for (const args of [
      ['chain'],
      ['chain', 'example'],
      ['chain', 'example', 'travel'],
      ['chain', 'example', 'payroll', '--contract', 'loose'],
      ['chain', 'example', 'payroll', '--nope'],
      ['chain', 'example', 'payroll', 'extra'],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toMatchObject({ error: 'usage' });
    }
    const help = await runCli(['chain', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit: 0 every run accepted, 3 a run stopped at a seam, 2 usage.');
  });
});
