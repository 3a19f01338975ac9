/**
 * Payload validation before any write (pure): each event kind's payload against its record, the
 * run's event schema (a v2 kind in a v1 run is `kind_unsupported`), and the replan rule that every
 * cite names this run and a seq earlier than the new event's.
 *
 * Depth: every record (each payload kind, a dispatch, a baton commit) nests at most
 * `MAX_RECORD_DEPTH` levels and the envelopes that wrap one (an event line, a manifest, the handoff
 * cache) one more, so the record inside keeps the whole limit. The check is the same on validate,
 * append and load, and it runs first, before anything walks the value (`too_deep`).
 */
import { validateDispatch, validateHandoff } from '../contract/validate.js';
import {
  depthIssue,
  integralFloatIssue,
  mayHoldIntegralFloatCanonical,
  memberDepthIssue,
  safeValidate,
  type ValidationIssue,
  type ValidationResult,
} from '../validation/index.js';
import {
  BatonCommitPayloadSchema,
  ChainEventLineSchema,
  ChainManifestSchema,
  type StoredManifest,
  StoredManifestSchema,
} from './chain-schema.js';
import { parseCite } from './cite.js';
import { quoteValue } from './quote-value.js';
import { replanAsReferenceReads } from './reference-cite.js';
import {
  EVENT_KINDS_V1,
  EVENT_V1_SCHEMA,
  type EventKind,
  EventKindSchema,
  EventLineSchema,
  type EventSchemaId,
  type HandoffCache,
  HandoffCacheSchema,
  ManifestSchema,
  NoteKindSchema,
  NotePayloadSchema,
  ReplanSummarySchema,
  ReviewRecordSchema,
} from './schema.js';
import type { StoreCode } from './store-types.js';

/** Outcome of {@link validateEventPayload}. */
export type PayloadCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: Extract<StoreCode, 'invalid_payload' | 'kind_unsupported'>;
      readonly detail: string;
      readonly issues: readonly ValidationIssue[];
    };

/**
 * Joins issues into one human-readable detail line (at most eight, then a count).
 *
 * @example
 * ```ts
 * describeIssues([{ path: 'text', code: 'invalid_type', message: 'expected string' }]); // 'text: expected string'
 * ```
 */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .slice(0, 8)
    .map((i) => `${i.path === '' ? '(root)' : i.path}: ${i.message}`)
    .concat(issues.length > 8 ? [`… ${issues.length - 8} more`] : [])
    .join('; ');
}

/**
 * Checks a replan's cites: each must parse, name `runId`, and cite a seq below `newSeq`.
 *
 * @example
 * ```ts
 * checkReplanCites(['R#1', 'R#3'], 'R', 3); // [{ path: 'cites.1', code: 'cite_not_earlier', … }]
 * ```
 */
export function checkReplanCites(cites: readonly string[], runId: string, newSeq: number): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  cites.forEach((cite, i) => {
    const c = parseCite(cite);
    const path = `cites.${i}`;
    if (c === null || c.seq === 'manifest') {
      issues.push({ path, code: 'bad_cite', message: `not a <run_id>#<seq> cite: ${cite}` });
    } else if (c.run_id !== runId) {
      issues.push({ path, code: 'cite_other_run', message: `cite ${cite} names another run` });
    } else if (c.seq >= newSeq) {
      issues.push({
        path,
        code: 'cite_not_earlier',
        message: `cite ${cite} is not an earlier event (new seq ${newSeq})`,
      });
    }
  });
  return issues;
}

const NOTE_KINDS: ReadonlySet<unknown> = new Set(NoteKindSchema.options);

/** Exactly `{kind, text, lean}` with a note kind, a string text and a string-or-null lean. */
function isPlainNote(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (
    Object.keys(o).length === 3 &&
    NOTE_KINDS.has(o.kind) &&
    typeof o.text === 'string' &&
    (o.lean === null || typeof o.lean === 'string') &&
    Object.hasOwn(o, 'lean')
  );
}

/** Context of an append: the run, its event schema, and the seq the new event would get. */
export interface AppendContext {
  readonly runId: string;
  readonly eventSchema: EventSchemaId;
  readonly nextSeq: number;
  /**
   * Reading a stored line (load, or bytes another writer appended) rather than appending: a
   * replan's cites are read as the reference reads them (`"<run-id>#1\n"` passes, see
   * `reference-cite.ts`). Appends leave it unset and keep the exact rule.
   */
  readonly reading?: boolean;
}

/** The issues of `payload` as the record of event kind `kind` (its depth already checked). */
function kindIssues(kind: EventKind, payload: unknown, ctx: AppendContext): readonly ValidationIssue[] {
  switch (kind) {
    case 'dispatch': {
      const r = validateDispatch(payload);
      return r.ok ? [] : r.issues;
    }
    case 'handoff': {
      const r = validateHandoff(payload);
      return r.ok ? [] : r.issues;
    }
    case 'note': {
      const r = safeValidate(NotePayloadSchema, payload);
      return r.ok ? [] : r.issues;
    }
    case 'review': {
      const r = safeValidate(ReviewRecordSchema, payload);
      return r.ok ? [] : r.issues;
    }
    case 'replan': {
      const r = safeValidate(
        ReplanSummarySchema,
        ctx.reading === true ? replanAsReferenceReads(payload) : payload,
      );
      return r.ok ? checkReplanCites(r.value.cites, ctx.runId, ctx.nextSeq) : r.issues;
    }
  }
}

/**
 * Validates an event kind and payload for appending to a run. A payload nested deeper than
 * `MAX_RECORD_DEPTH` is `invalid_payload` with a `too_deep` issue, found before anything walks it.
 * Never throws.
 *
 * @example
 * ```ts
 * validateEventPayload('review', rec, { runId, eventSchema: 'run-store-event/v1', nextSeq: 2 });
 * // { ok: false, code: 'kind_unsupported', … }
 * ```
 */
export function validateEventPayload(kind: unknown, payload: unknown, ctx: AppendContext): PayloadCheck {
  const k = EventKindSchema.safeParse(kind);
  if (!k.success) {
    return {
      ok: false,
      code: 'kind_unsupported',
      detail: `unknown event kind ${quoteValue(kind)}`,
      issues: [{ path: 'kind', code: 'kind_unsupported', message: 'unknown event kind' }],
    };
  }
  if (ctx.eventSchema === EVENT_V1_SCHEMA && !(EVENT_KINDS_V1 as readonly string[]).includes(k.data)) {
    return {
      ok: false,
      code: 'kind_unsupported',
      detail: `kind ${k.data} needs a run-store-event/v2 run; this run is v1`,
      issues: [{ path: 'kind', code: 'kind_unsupported', message: 'kind not supported by a v1 run' }],
    };
  }
  if (k.data === 'note' && isPlainNote(payload)) return { ok: true }; // the load loop's fast path
  const deep = depthIssue(payload);
  const issues = deep === null ? kindIssues(k.data, payload, ctx) : [deep];
  if (issues.length === 0) return { ok: true };
  return {
    ok: false,
    code: 'invalid_payload',
    detail: `invalid ${k.data} payload: ${describeIssues(issues)}`,
    issues,
  };
}

/** Record kinds accepted by `validateRecord` (the CLI's `validate --kind`). */
export const RECORD_KINDS = [
  'manifest',
  'event',
  'dispatch',
  'handoff',
  'note',
  'cache',
  'review',
  'replan',
  'baton-commit',
] as const;
/** A record kind of {@link validateRecord}. */
export type RecordKind = (typeof RECORD_KINDS)[number];

/** Record kinds that wrap records (one level more than `MAX_RECORD_DEPTH` allowed). */
const ENVELOPE_KINDS: ReadonlySet<RecordKind> = new Set(['manifest', 'event', 'cache']);

/**
 * Validates a stored manifest of any kind (run-contract v1/v2, chain-v1) as the backends read it:
 * its members (the dispatch, the contract, the start baton) within `MAX_RECORD_DEPTH`, then the
 * schema. Never throws.
 *
 * @example
 * ```ts
 * const m = validateStoredManifest(JSON.parse(text)); if (!m.ok) refuse(describeIssues(m.issues));
 * ```
 */
export function validateStoredManifest(value: unknown): ValidationResult<StoredManifest> {
  const deep = memberDepthIssue(value);
  return deep === null ? safeValidate(StoredManifestSchema, value) : { ok: false, issues: [deep] };
}

/**
 * Validates a stored manifest's text as the backends read it: {@link validateStoredManifest} of
 * `value` (the parse of `text`), then no integral float in an integer field (`"max_cycles":20.0`
 * in its dispatch is not an `int` for the reference either, issue 34). Never throws.
 *
 * @example
 * ```ts
 * const m = validateStoredManifestText(text, JSON.parse(text)); if (!m.ok) refuse(describeIssues(m.issues));
 * ```
 */
export function validateStoredManifestText(text: string, value: unknown): ValidationResult<StoredManifest> {
  const m = validateStoredManifest(value);
  if (!m.ok || !mayHoldIntegralFloatCanonical(text)) return m;
  const f = integralFloatIssue(text, value, (v) => validateStoredManifest(v).ok);
  return f === null ? m : { ok: false, issues: [f] };
}

/**
 * Validates a handoff cache record as the backends read it: its payload within
 * `MAX_RECORD_DEPTH`, then the schema. Never throws.
 *
 * @example
 * ```ts
 * const c = validateHandoffCache(JSON.parse(text)); const cache = c.ok ? c.value : 'invalid';
 * ```
 */
export function validateHandoffCache(value: unknown): ValidationResult<HandoffCache> {
  const deep = memberDepthIssue(value);
  return deep === null ? safeValidate(HandoffCacheSchema, value) : { ok: false, issues: [deep] };
}

/**
 * Validates a standalone record of the store (`handoff store validate`). For `event`, the line's
 * payload is checked against its kind; for `replan`, only the shape (the same-run rule needs a
 * journal; for `baton-commit` and chain event lines, only the payload's own rules — the sequence needs
 * the journal). Manifests and event lines of chain runs are recognised by their `schema`. Depth is
 * checked first: a record deeper than `MAX_RECORD_DEPTH`, or an envelope (`manifest`, `event`,
 * `cache`) with a member deeper than that, has the one issue `too_deep`. Never throws.
 *
 * @example
 * ```ts
 * validateRecord('note', { kind: 'candidate', text: 'x', lean: null }); // []
 * ```
 */
export function validateRecord(kind: RecordKind, value: unknown): ValidationIssue[] {
  const deep = ENVELOPE_KINDS.has(kind) ? memberDepthIssue(value) : depthIssue(value);
  if (deep !== null) return [deep];
  switch (kind) {
    case 'manifest': {
      if ((value as { schema?: unknown } | null)?.schema === 'run-store-manifest/chain-v1') {
        const c = safeValidate(ChainManifestSchema, value);
        return c.ok ? [] : [...c.issues];
      }
      const r = safeValidate(ManifestSchema, value);
      if (!r.ok) return [...r.issues];
      const d = validateDispatch(r.value.dispatch);
      return d.ok ? [] : d.issues.map((i) => ({ ...i, path: `dispatch.${i.path}` }));
    }
    case 'event': {
      if ((value as { schema?: unknown } | null)?.schema === 'run-store-event/chain-v1') {
        const c = safeValidate(ChainEventLineSchema, value);
        if (!c.ok) return [...c.issues];
        const p = safeValidate(BatonCommitPayloadSchema, c.value.payload);
        return p.ok ? [] : p.issues.map((i) => ({ ...i, path: `payload.${i.path}` }));
      }
      const r = safeValidate(EventLineSchema, value);
      if (!r.ok) return [...r.issues];
      if (r.value.kind === 'replan') {
        const p = safeValidate(ReplanSummarySchema, r.value.payload);
        return p.ok ? [] : p.issues.map((i) => ({ ...i, path: `payload.${i.path}` }));
      }
      const c = validateEventPayload(r.value.kind, r.value.payload, {
        runId: '00000000T000000Z-00000000',
        eventSchema: r.value.schema,
        nextSeq: r.value.seq,
      });
      return c.ok
        ? []
        : c.issues.map((i) => ({ ...i, path: i.path === 'kind' ? 'kind' : `payload.${i.path}` }));
    }
    case 'dispatch': {
      const r = validateDispatch(value);
      return r.ok ? [] : [...r.issues];
    }
    case 'handoff': {
      const r = validateHandoff(value);
      return r.ok ? [] : [...r.issues];
    }
    case 'note': {
      const r = safeValidate(NotePayloadSchema, value);
      return r.ok ? [] : [...r.issues];
    }
    case 'cache': {
      const r = safeValidate(HandoffCacheSchema, value);
      return r.ok ? [] : [...r.issues];
    }
    case 'review': {
      const r = safeValidate(ReviewRecordSchema, value);
      return r.ok ? [] : [...r.issues];
    }
    case 'replan': {
      const r = safeValidate(ReplanSummarySchema, value);
      return r.ok ? [] : [...r.issues];
    }
    case 'baton-commit': {
      const r = safeValidate(BatonCommitPayloadSchema, value);
      return r.ok ? [] : [...r.issues];
    }
  }
}
