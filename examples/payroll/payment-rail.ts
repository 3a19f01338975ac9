/**
 * The payment rail the `pay` stage calls: the experiment's stand-in for a bank API that pays one
 * transfer per employee. Like many real transfer APIs it does what it is told — a repeated
 * request pays again — and it answers for what it did: `statement(reference)` lists the transfers
 * made under a reference. Exactly-once is therefore the caller's job: the `pay` stage runs the
 * payment through the chain's effect ledger (intent recorded before the first transfer) and, for
 * a payment left in doubt by a crash, reconciles against the statement (pays only the employees not
 * on it). Memory and file (one fsync'd JSON line per transfer) implementations.
 */
import { join } from 'node:path';
// The one source import of the examples: the file rail stands in for the bank's own storage and
// borrows the runtime's internal durable JSON-lines helper (not part of the package's API);
// everything the example does with handoffs goes through the public entry points.
import { canonicalJson } from '../../src/canonical/index.js';
import { JsonlAppender, readCompleteLines, withAppendLock } from '../../src/chain/jsonl-file.js';

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

/**
 * One executed transfer (one employee paid once).
 *
 * @example
 * ```ts
 * const t: Transfer = { idempotency_key: 'k', payment_id: 'payment-2026-06', emp_id: 'E0001', amount: 8037 };
 * ```
 */
export interface Transfer {
  readonly idempotency_key: string;
  readonly payment_id: string;
  readonly emp_id: string;
  readonly amount: number;
}

/** A payment: the transfers made under one reference, summed. */
export interface Payment {
  readonly idempotency_key: string;
  readonly payment_id: string;
  readonly lines: number;
  readonly total: number;
}

/** The rail. */
export interface PaymentRail {
  /** Pays every line as one transfer, in order, and sums what this call paid (no dedupe: a repeat pays again). */
  pay(request: PaymentRequest): Promise<Payment>;
  /** The transfers made under `idempotency_key`, in the order they were made (the bank's statement). */
  statement(idempotencyKey: string): Promise<Transfer[]>;
  /** Every payment so far: the transfers grouped by reference, in first-transfer order. */
  payments(): Promise<Payment[]>;
}

/**
 * Options of the rails.
 *
 * @example
 * ```ts
 * const rail = createFilePaymentRail('/tmp/bank', { onTransfer: (n) => n === 19 && hang() });
 * ```
 */
export interface PaymentRailOptions {
  /**
   * Called after each transfer is made (durably, for the file rail) with how many this rail object
   * has made so far — the kill harness's hook (it may hang to simulate a crash between transfers).
   */
  readonly onTransfer?: (count: number, transfer: Transfer) => void | Promise<void>;
}

const cents = (x: number) => Math.round(x * 100) / 100;

/**
 * Sums transfers by reference, in first-transfer order.
 *
 * @example
 * ```ts
 * paymentsOf([{ idempotency_key: 'k', payment_id: 'p', emp_id: 'e1', amount: 10 }]); // [{ …, lines: 1, total: 10 }]
 * ```
 */
export function paymentsOf(transfers: readonly Transfer[]): Payment[] {
  const by = new Map<string, { payment_id: string; lines: number; total: number }>();
  for (const t of transfers) {
    const p = by.get(t.idempotency_key) ?? { payment_id: t.payment_id, lines: 0, total: 0 };
    p.lines++;
    p.total = cents(p.total + t.amount);
    by.set(t.idempotency_key, p);
  }
  return [...by].map(([idempotency_key, p]) => ({ idempotency_key, ...p }));
}

function paidBy(request: PaymentRequest, transfers: readonly Transfer[]): Payment {
  return {
    idempotency_key: request.idempotency_key,
    payment_id: request.payment_id,
    lines: transfers.length,
    total: cents(transfers.reduce((s, t) => s + t.amount, 0)),
  };
}

const transferOf = (request: PaymentRequest, line: PayLine): Transfer => ({
  idempotency_key: request.idempotency_key,
  payment_id: request.payment_id,
  emp_id: line.emp_id,
  amount: line.amount,
});

/**
 * An in-memory rail.
 *
 * @example
 * ```ts
 * const rail = createMemoryPaymentRail(); await rail.pay({ idempotency_key: k, payment_id: 'p', lines });
 * ```
 */
export function createMemoryPaymentRail(options: PaymentRailOptions = {}): PaymentRail {
  const done: Transfer[] = [];
  return {
    async pay(request) {
      const made: Transfer[] = [];
      for (const line of request.lines) {
        const t = transferOf(request, line);
        done.push(t);
        made.push(t);
        await options.onTransfer?.(done.length, t);
      }
      return paidBy(request, made);
    },
    async statement(key) {
      return done.filter((t) => t.idempotency_key === key);
    },
    async payments() {
      return paymentsOf(done);
    },
  };
}

/**
 * A rail whose transfers are durable lines in `<dir>/payments.jsonl`, one per transfer; each
 * transfer holds the file's append lock only while it is written (a rail process killed between
 * transfers leaves no lock), and is fsync'd before the next one starts.
 *
 * @example
 * ```ts
 * const rail = createFilePaymentRail('/tmp/bank');
 * ```
 */
export function createFilePaymentRail(dir: string, options: PaymentRailOptions = {}): PaymentRail {
  const path = join(dir, 'payments.jsonl');
  const load = async () => (await readCompleteLines(path)).map((l) => JSON.parse(l) as Transfer);
  const appender = new JsonlAppender(undefined, 1); // the file's descriptor stays open between transfers
  let count = 0;
  return {
    async pay(request) {
      const made: Transfer[] = [];
      for (const line of request.lines) {
        const t = transferOf(request, line);
        await withAppendLock(path, async () => {
          appender.append(path, [canonicalJson(t)]);
        });
        made.push(t);
        count++;
        await options.onTransfer?.(count, t);
      }
      return paidBy(request, made);
    },
    async statement(key) {
      return (await load()).filter((t) => t.idempotency_key === key);
    },
    async payments() {
      return paymentsOf(await load());
    },
  };
}
