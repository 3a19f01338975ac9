/**
 * A support conversation routed by checked transfers: triage → billing → refunds, then returned.
 * One route is refused (triage may not hand straight to refunds) and one field is redacted (the
 * card number never leaves triage, not even into the journal). Run after `npm run build`:
 * `node dist/examples/transfer/support-triage.js [journal-dir]`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type RoutePolicy,
  readTransferSession,
  submitTransfer,
  type TransferDecision,
  type TransferRequest,
  validateRoutePolicy,
} from 'handoff-runtime/transfer';

/**
 * The support desk's route policy (`handoff-routes/v1`).
 *
 * @example
 * ```ts
 * SUPPORT_POLICY.routes.map((r) => `${r.from} → ${r.to}`); // ['triage → billing', 'billing → refunds']
 * ```
 */
export const SUPPORT_POLICY: RoutePolicy = {
  schema: 'handoff-routes/v1',
  entry: 'triage',
  lease_seconds: 900,
  max_transfers: 4,
  routes: [
    {
      from: 'triage',
      to: 'billing',
      context: { include: ['customer_id', 'question', 'card_number'], redact: ['card_number'] },
    },
    {
      from: 'billing',
      to: 'refunds',
      context: { include: ['customer_id', 'invoice_id', 'amount'], redact: [] },
      max_per_session: 1,
    },
  ],
};

const T0 = Date.parse('2026-03-02T09:00:00.000Z');

function ask(
  request_id: string,
  from: string,
  to: string | undefined,
  reason: string,
  context: Record<string, unknown>,
  kind: TransferRequest['kind'] = 'transfer',
): TransferRequest {
  return {
    schema: 'handoff-transfer/v1',
    session: 'support-7731',
    request_id,
    kind,
    from,
    ...(to === undefined ? {} : { to }),
    reason,
    context,
    blocker: null,
    evidence_delta: [],
  };
}

/** One step of the conversation and the decision it got. */
export interface TriageStep {
  readonly request: TransferRequest;
  readonly decision: TransferDecision;
}

/**
 * Runs the conversation against a file journal under `dir` (the clock starts at a fixed instant
 * and advances a minute per step) and returns every step's decision.
 *
 * @example
 * ```ts
 * const steps = await runSupportTriage('/tmp/support');
 * steps.map((s) => s.decision.code); // ['not_allowlisted', 'granted', 'granted', 'returned']
 * ```
 */
export async function runSupportTriage(dir: string): Promise<TriageStep[]> {
  const policy = validateRoutePolicy(SUPPORT_POLICY);
  if (!policy.ok) throw new Error('the example policy is not valid');
  const conversation = [
    // triage tries to skip billing: refunds is not reachable from triage
    ask('t1', 'triage', 'refunds', 'customer wants a refund', { customer_id: 'c-19', question: 'refund?' }),
    ask('t2', 'triage', 'billing', 'double charge on the March invoice', {
      customer_id: 'c-19',
      question: 'I was charged twice',
      card_number: '4111 1111 1111 1111',
      sentiment: 'angry',
    }),
    ask('b1', 'billing', 'refunds', 'duplicate charge confirmed', {
      customer_id: 'c-19',
      invoice_id: 'INV-2026-03-118',
      amount: 49.9,
      internal_notes: 'ledger shows two captures',
    }),
    ask('r1', 'refunds', undefined, 'refund issued', {}, 'return'),
  ];
  const steps: TriageStep[] = [];
  for (const [i, request] of conversation.entries()) {
    const decision = await submitTransfer(dir, policy.value, request, { now: () => T0 + i * 60_000 });
    steps.push({ request, decision });
  }
  return steps;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'support-triage-'));
  for (const { request, decision } of await runSupportTriage(dir)) {
    const route = `${request.from} → ${request.to ?? request.kind}`;
    process.stdout.write(
      `${route.padEnd(22)} ${decision.outcome.padEnd(8)} ${decision.code.padEnd(16)} forwarded ${JSON.stringify(decision.context)}${decision.redacted.length > 0 ? ` redacted ${decision.redacted.join(', ')}` : ''}\n`,
    );
  }
  const s = readTransferSession(dir, 'support-7731');
  process.stdout.write(`session ${s.status} after ${s.transfers} transfers; journal in ${dir}\n`);
}
