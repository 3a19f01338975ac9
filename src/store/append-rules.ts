/**
 * The append rules shared by the durable backends (fs and PostgreSQL): what is checked before the
 * store is touched, which event schema a kind may be written under, what is re-checked under the
 * run's lock, and the canonical event line. Pure: no I/O.
 */
import { fastCanonicalJsonUtf8 } from './canonical-fast.js';
import { batonCommitProblem, type ChainTail, checkBatonCommit, startTail } from './chain-rules.js';
import {
  BATON_COMMIT_KIND,
  type BatonCommitPayload,
  CHAIN_EVENT_SCHEMA,
  isChainManifest,
  type StoredManifest,
} from './chain-schema.js';
import {
  CACHE_SCHEMA,
  EVENT_KINDS_V1,
  EVENT_V2_SCHEMA,
  type EventSchemaId,
  eventSchemaOf,
} from './schema.js';
import { refused, type StoreEventKind, type StoreResult } from './store.js';
import { validateEventPayload } from './validate-payload.js';

/** An append that passed the checks made before touching the store. */
export interface PreparedAppend {
  /** The validated `{ baton, receipt }` of a `baton-commit`, else null. */
  readonly commit: BatonCommitPayload | null;
  /** The payload's canonical JSON text (the reference's raw UTF-8 form). */
  readonly payloadText: string;
}

/** The event schema a run's events are written under. */
export type AppendEventSchema = EventSchemaId | typeof CHAIN_EVENT_SCHEMA;

/**
 * Checks an append before the store is touched: the payload's shape for its kind (cites and the
 * baton sequence are checked again under the lock) and that it has a canonical form. The caller
 * has already checked the run id.
 *
 * @example
 * ```ts
 * const p = prepareAppend(runId, 'note', { kind: 'candidate', text: 'simp', lean: null });
 * if (!p.ok) return p.result;
 * ```
 */
export function prepareAppend(
  runId: string,
  kind: StoreEventKind,
  payload: unknown,
): { ok: true; value: PreparedAppend } | { ok: false; result: StoreResult } {
  let commit: BatonCommitPayload | null = null;
  if (kind === BATON_COMMIT_KIND) {
    const c = checkBatonCommit(payload);
    if (!c.ok) return { ok: false, result: refused(runId, 'invalid_payload', c.detail) };
    commit = c.value;
  } else {
    const shape = validateEventPayload(kind, payload, {
      runId,
      eventSchema: EVENT_V2_SCHEMA,
      nextSeq: Number.MAX_SAFE_INTEGER,
    });
    if (!shape.ok) return { ok: false, result: refused(runId, shape.code, shape.detail) };
  }
  try {
    // a string the reference could not encode as UTF-8 (a lone surrogate) is refused here too
    return { ok: true, value: { commit, payloadText: fastCanonicalJsonUtf8(payload) } };
  } catch (e) {
    return { ok: false, result: refused(runId, 'invalid_payload', String((e as Error)?.message ?? e)) };
  }
}

/**
 * The event schema `kind` is written under in the run of `manifest`, or the `kind_unsupported`
 * refusal: a baton commit only in a chain run, nothing else in one, and v2 kinds only in v2 runs.
 *
 * @example
 * ```ts
 * const s = appendEventSchema(runId, manifest, 'review', prepared.commit);
 * if (!s.ok) return s.result; // a v1 run refuses `review`
 * ```
 */
export function appendEventSchema(
  runId: string,
  manifest: StoredManifest,
  kind: StoreEventKind,
  commit: BatonCommitPayload | null,
): { ok: true; eventSchema: AppendEventSchema } | { ok: false; result: StoreResult } {
  if (isChainManifest(manifest) !== (commit !== null)) {
    return {
      ok: false,
      result: refused(
        runId,
        'kind_unsupported',
        commit !== null
          ? `kind ${kind} needs a chain run; ${runId} is a run-contract run`
          : `kind ${kind} is not a chain run's kind (${BATON_COMMIT_KIND})`,
      ),
    };
  }
  if (isChainManifest(manifest)) return { ok: true, eventSchema: CHAIN_EVENT_SCHEMA };
  const eventSchema = eventSchemaOf(manifest);
  if (eventSchema !== EVENT_V2_SCHEMA && !(EVENT_KINDS_V1 as readonly string[]).includes(kind)) {
    return {
      ok: false,
      result: refused(
        runId,
        'kind_unsupported',
        `kind ${kind} needs a run-store-event/v2 run; this run is v1`,
      ),
    };
  }
  return { ok: true, eventSchema };
}

/**
 * The event an append writes, as the checks under the lock need it (the fs store's append plan
 * is one; the PostgreSQL store builds one inside its transaction).
 *
 * @example
 * ```ts
 * const e: LockedAppend = { runId, manifest, eventSchema, kind: 'note', payload, commit: null };
 * ```
 */
export interface LockedAppend {
  readonly runId: string;
  readonly manifest: StoredManifest;
  readonly eventSchema: AppendEventSchema;
  readonly kind: StoreEventKind;
  readonly payload: unknown;
  /** The parsed `baton-commit` payload; null for the run-contract kinds. */
  readonly commit: BatonCommitPayload | null;
}

/**
 * The checks made under the run's lock against the real next seq: a replan's cites must name
 * this run and an earlier seq; a baton commit must follow the last committed baton (`tail`, or
 * the manifest's start baton). Returns the refusal, or null when the append may be written.
 *
 * @example
 * ```ts
 * const refusal = lockedAppendRefusal(plan, state.tail, state.lastSeq + 1);
 * if (refusal !== null) return refusal;
 * ```
 */
export function lockedAppendRefusal(
  event: LockedAppend,
  tail: ChainTail | null,
  nextSeq: number,
): StoreResult | null {
  const { runId, manifest, eventSchema, kind, payload, commit } = event;
  if (kind === 'replan' && eventSchema !== CHAIN_EVENT_SCHEMA) {
    const check = validateEventPayload(kind, payload, { runId, eventSchema, nextSeq });
    if (!check.ok) return refused(runId, check.code, check.detail);
  }
  if (commit !== null && isChainManifest(manifest)) {
    const problem = batonCommitProblem(manifest, tail ?? startTail(manifest), commit);
    if (problem !== null) return refused(runId, problem.code, problem.detail);
  }
  return null;
}

/**
 * The canonical event line (without its newline) around an already canonical payload: keys in
 * sorted order (kind, payload, schema, seq, ts); the envelope's own text is ASCII, the payload's
 * the reference's raw UTF-8 form, so the line is byte-identical (once encoded as UTF-8) to what
 * lean4-skills' `run_store.py` writes for the same event.
 *
 * @example
 * ```ts
 * eventLine('note', '{"kind":"candidate","lean":null,"text":"simp"}', 'run-store-event/v2', 3, '2026-11-30T10:00:00Z');
 * ```
 */
export function eventLine(
  kind: StoreEventKind,
  payloadText: string,
  eventSchema: AppendEventSchema,
  seq: number,
  ts: string,
): string {
  return `{"kind":"${kind}","payload":${payloadText},"schema":"${eventSchema}","seq":${seq},"ts":"${ts}"}`;
}

/**
 * The canonical handoff cache (`run-store-handoff/v1`, without its newline) around an already
 * canonical handoff payload: keys in sorted order (payload, schema, seq), as the reference writes it.
 *
 * @example
 * ```ts
 * cacheText('{"record":"handoff",…}', 7); // '{"payload":{"record":"handoff",…},"schema":"run-store-handoff/v1","seq":7}'
 * ```
 */
export function cacheText(payloadText: string, seq: number): string {
  return `{"payload":${payloadText},"schema":"${CACHE_SCHEMA}","seq":${seq}}`;
}
