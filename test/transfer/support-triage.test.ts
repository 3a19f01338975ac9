/**
 * The runnable example: triage → billing → refunds with one refused route and one redacted field,
 * ending returned; the card number appears in no decision and no journal byte.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runSupportTriage } from '../../examples/transfer/support-triage.js';
import { readTransferSession, transferJournalFile } from '../../src/transfer/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'support-triage-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('routes triage → billing → refunds, refuses triage → refunds, redacts the card number', async () => {
  const steps = await runSupportTriage(dir);
  expect(steps.map((s) => [s.decision.outcome, s.decision.code, s.decision.active])).toEqual([
    ['refused', 'not_allowlisted', 'triage'],
    ['granted', 'granted', 'billing'],
    ['granted', 'granted', 'refunds'],
    ['granted', 'returned', null],
  ]);
  expect(steps[1]?.decision).toMatchObject({
    context: { customer_id: 'c-19', question: 'I was charged twice' },
    redacted: ['card_number'],
  });
  expect(steps[2]?.decision.context).toEqual({
    customer_id: 'c-19',
    invoice_id: 'INV-2026-03-118',
    amount: 49.9,
  });
  expect(JSON.stringify(steps.map((s) => s.decision))).not.toContain('4111');
  expect(readFileSync(transferJournalFile(dir, 'support-7731'), 'utf8')).not.toContain('4111');
  expect(readTransferSession(dir, 'support-7731')).toMatchObject({
    status: 'returned',
    transfers: 2,
    seq: 5,
  });
});
