/**
 * Classification of a run-store mutation result (run-store-result/v1) into a verdict the
 * persistence controller can act on (layer 1, pure). Anything the controller cannot read with
 * certainty — no result, a thrown exception, a wrong schema, an exit code that contradicts the
 * outcome, a foreign run id, a seq other than the one expected — is `malformed`: never a success.
 *
 * A thrown store call is `malformed`, not `indeterminate`: the {@link Store} contract has every
 * backend report its own I/O failures as results (an unexpected OSError mid-write is the store's
 * `indeterminate` with a `step`), so a throw means the controller received no result at all — the
 * spec's "no/malformed/contradictory result" row, like a store process that printed nothing.
 * Both rows stop the run as `unconfirmed` with no cite and no retry; only the outcome label differs.
 */

/** The store result schema id the controller accepts. */
export const STORE_RESULT_SCHEMA = 'run-store-result/v1';

/** Exit code of each store outcome (run-store CLI). */
export const STORE_OUTCOME_EXIT: Readonly<Record<string, number>> = {
  committed: 0,
  nothing_written: 3,
  journal_only: 5,
  indeterminate: 6,
};

/** What the controller learned from one store call. */
export type StoreVerdict =
  | { readonly kind: 'committed'; readonly seq: number }
  | { readonly kind: 'journal_only'; readonly seq: number; readonly detail: string | null }
  | { readonly kind: 'refused'; readonly code: string; readonly detail: string | null }
  | { readonly kind: 'indeterminate'; readonly step: string | null; readonly detail: string | null }
  | { readonly kind: 'malformed'; readonly reason: string };

/** What the controller expected of the result. */
export interface VerdictExpectation {
  /** The operation asked of the store. */
  readonly op: 'append' | 'set-handoff';
  /** The run the mutation addressed. */
  readonly runId: string;
  /** The seq the new event must carry (the controller is the sole writer: last_seq + 1). */
  readonly expectedSeq: number;
  /** The process exit code, when the store ran as a subprocess. */
  readonly exitCode?: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optString(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/**
 * Classifies a raw store mutation result.
 *
 * @example
 * ```ts
 * classifyStoreResult({ schema: 'run-store-result/v1', outcome: 'committed', run_id: id, seq: 3 },
 *   { op: 'append', runId: id, expectedSeq: 3 }); // { kind: 'committed', seq: 3 }
 * ```
 */
export function classifyStoreResult(raw: unknown, expect: VerdictExpectation): StoreVerdict {
  if (!isRecord(raw)) return { kind: 'malformed', reason: 'the store returned no result object' };
  if (raw.schema !== STORE_RESULT_SCHEMA) {
    return { kind: 'malformed', reason: `unexpected result schema ${JSON.stringify(raw.schema ?? null)}` };
  }
  const outcome = raw.outcome;
  if (typeof outcome !== 'string' || !Object.hasOwn(STORE_OUTCOME_EXIT, outcome)) {
    return { kind: 'malformed', reason: `unknown outcome ${JSON.stringify(outcome ?? null)}` };
  }
  if (expect.exitCode !== undefined && STORE_OUTCOME_EXIT[outcome] !== expect.exitCode) {
    return { kind: 'malformed', reason: `exit code ${expect.exitCode} contradicts outcome ${outcome}` };
  }
  if (raw.run_id !== expect.runId) {
    return {
      kind: 'malformed',
      reason: `result names run ${JSON.stringify(raw.run_id ?? null)}, not ${expect.runId}`,
    };
  }
  const detail = optString(raw.detail);
  switch (outcome) {
    case 'committed':
    case 'journal_only': {
      const seq = raw.seq;
      if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1) {
        return { kind: 'malformed', reason: `${outcome} without a valid seq` };
      }
      if (seq !== expect.expectedSeq) {
        return { kind: 'malformed', reason: `${outcome} at seq ${seq}, expected ${expect.expectedSeq}` };
      }
      if (outcome === 'journal_only') {
        if (expect.op !== 'set-handoff') {
          return { kind: 'malformed', reason: 'journal_only is only possible for set-handoff' };
        }
        return { kind: 'journal_only', seq, detail };
      }
      return { kind: 'committed', seq };
    }
    case 'nothing_written': {
      const code = optString(raw.code);
      if (code === null) return { kind: 'malformed', reason: 'nothing_written without a refusal code' };
      return { kind: 'refused', code, detail };
    }
    default:
      return { kind: 'indeterminate', step: optString(raw.step), detail };
  }
}

/**
 * Classifies a thrown exception from a store call: no result means no certainty.
 *
 * @example
 * ```ts
 * verdictFromThrow(new Error('EIO')); // { kind: 'malformed', reason: 'the store call threw: EIO' }
 * ```
 */
export function verdictFromThrow(error: unknown): StoreVerdict {
  const msg = error instanceof Error ? error.message : String(error);
  return { kind: 'malformed', reason: `the store call threw: ${msg}` };
}

/**
 * True when the verdict is a `busy` refusal (the one refusal retried once after 1 s).
 *
 * @example
 * ```ts
 * isBusy({ kind: 'refused', code: 'busy', detail: null }); // true
 * ```
 */
export function isBusy(v: StoreVerdict): boolean {
  return v.kind === 'refused' && v.code === 'busy';
}
