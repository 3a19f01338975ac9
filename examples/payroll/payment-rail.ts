/**
 * The payment rail the `pay` stage calls: the experiment's stand-in for a bank API. Like a real
 * payment API it honours an idempotency key — a second request with the same key returns the
 * first payment instead of paying again. Memory and file (fsync'd JSON lines) implementations.
 */
import { join } from 'node:path';
// The one source import of the examples: the file rail stands in for the bank's own storage and
// borrows the runtime's internal durable JSON-lines helper (not part of the package's API);
// everything the example does with handoffs goes through the public entry points.
import { canonicalJson } from '../../src/canonical/index.js';
import { appendLineDurably, readCompleteLines, withAppendLock } from '../../src/chain/jsonl-file.js';

/** One pay line. */
export interface PayLine {
  readonly emp_id: string;
  readonly amount: number;
}

/** A payment request. */
export interface PaymentRequest {
  readonly idempotency_key: string;
  readonly payment_id: string;
  readonly lines: readonly PayLine[];
}

/** An executed payment. */
export interface Payment {
  readonly idempotency_key: string;
  readonly payment_id: string;
  readonly lines: number;
  readonly total: number;
}

/** The rail. */
export interface PaymentRail {
  /** Pays the lines once per idempotency key. */
  pay(request: PaymentRequest): Promise<Payment>;
  /** Every payment executed so far. */
  payments(): Promise<Payment[]>;
}

function execute(request: PaymentRequest): Payment {
  const total = Math.round(request.lines.reduce((s, l) => s + l.amount, 0) * 100) / 100;
  return {
    idempotency_key: request.idempotency_key,
    payment_id: request.payment_id,
    lines: request.lines.length,
    total,
  };
}

/**
 * An in-memory rail.
 *
 * @example
 * ```ts
 * const rail = createMemoryPaymentRail(); await rail.pay({ idempotency_key: k, payment_id: 'p', lines });
 * ```
 */
export function createMemoryPaymentRail(): PaymentRail {
  const done = new Map<string, Payment>();
  return {
    async pay(request) {
      const existing = done.get(request.idempotency_key);
      if (existing) return existing;
      const p = execute(request);
      done.set(request.idempotency_key, p);
      return p;
    },
    async payments() {
      return [...done.values()];
    },
  };
}

/**
 * A rail whose payments are durable lines in `<dir>/payments.jsonl`; a payment holds the file's
 * append lock, so a concurrent second request is refused with `busy` rather than paying twice.
 *
 * @example
 * ```ts
 * const rail = createFilePaymentRail('/tmp/bank');
 * ```
 */
export function createFilePaymentRail(dir: string): PaymentRail {
  const path = join(dir, 'payments.jsonl');
  const load = async () => (await readCompleteLines(path)).map((l) => JSON.parse(l) as Payment);
  return {
    pay(request) {
      // the check and the append happen under the file's lock: two processes paying with the
      // same key never both pay (the second is refused with busy or finds the first payment)
      return withAppendLock(path, async () => {
        const existing = (await load()).find((p) => p.idempotency_key === request.idempotency_key);
        if (existing) return existing;
        const p = execute(request);
        await appendLineDurably(path, canonicalJson(p));
        return p;
      });
    },
    payments: load,
  };
}
