/**
 * run-store/v1 records (layer 0, no I/O): the run manifest (v1 and v2), the journal event line,
 * the note payload, review-record/v1, replan-summary/v1 and the disposable handoff cache.
 * Exact keys everywhere (`z.strictObject`); cross-field rules are `superRefine`s whose issues
 * carry a spec-style `params.code`.
 */
import { z } from 'zod';
import { DispatchSchema } from '../contract/dispatch-schema.js';
import { BlockerClassSchema, BlockerKindSchema, NextActionSchema, ScopeSchema } from '../contract/enums.js';
import { HandoffSchema, isBlockerDriven } from '../contract/handoff-schema.js';
import { validateHandoff } from '../contract/validate.js';

/** Run id format: `YYYYMMDDTHHMMSSZ-<8 lower-case hex>`, nothing else (no `..`, no slashes). */
export const RUN_ID_PATTERN = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/;
/** Timestamp format of `created`, `--now` and event `ts`: `YYYY-MM-DDTHH:MM:SSZ`. */
export const TIMESTAMP_PATTERN = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;
/** A same-run replan cite: `<run-id>#<seq>` with seq ≥ 1 (no leading zeros). */
export const SEQ_CITE_PATTERN = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#[1-9][0-9]*$/;

/** Schema id of a v1 manifest. */
export const MANIFEST_V1_SCHEMA = 'run-store-manifest/v1';
/** Schema id of a v2 manifest. */
export const MANIFEST_V2_SCHEMA = 'run-store-manifest/v2';
/** Schema id of v1 event lines (kinds dispatch, handoff, note). */
export const EVENT_V1_SCHEMA = 'run-store-event/v1';
/** Schema id of v2 event lines (adds review, replan). */
export const EVENT_V2_SCHEMA = 'run-store-event/v2';
/** Schema id of the handoff cache file. */
export const CACHE_SCHEMA = 'run-store-handoff/v1';
/** Schema id of the review payload. */
export const REVIEW_RECORD_SCHEMA = 'review-record/v1';
/** Schema id of the replan payload. */
export const REPLAN_SUMMARY_SCHEMA = 'replan-summary/v1';
/** Schema id of the store's mutation results. */
export const RESULT_SCHEMA = 'run-store-result/v1';
/** Schema id of the load result. */
export const LOAD_SCHEMA = 'run-store-load/v1';

/** Returns true when `s` is a real UTC instant in the exact `YYYY-MM-DDTHH:MM:SSZ` form. */
function isRealTimestamp(s: string): boolean {
  if (!TIMESTAMP_PATTERN.test(s)) return false;
  const d = new Date(s);
  return !Number.isNaN(d.getTime()) && d.toISOString().replace(/\.000Z$/, 'Z') === s;
}

/** A timestamp string `YYYY-MM-DDTHH:MM:SSZ` naming a real instant. */
export const TimestampSchema = z.string().refine(isRealTimestamp, {
  message: 'must be a timestamp YYYY-MM-DDTHH:MM:SSZ',
  params: { code: 'bad_timestamp' },
});

/** A run id in the exact format. */
export const RunIdSchema = z.string().regex(RUN_ID_PATTERN, 'must be a run id YYYYMMDDTHHMMSSZ-<8 hex>');

/** Event kinds of v1 runs. */
export const EVENT_KINDS_V1 = ['dispatch', 'handoff', 'note'] as const;
/** Event kinds of v2 runs. */
export const EVENT_KINDS_V2 = ['dispatch', 'handoff', 'note', 'review', 'replan'] as const;
/** Every event kind. */
export const EventKindSchema = z.enum(EVENT_KINDS_V2);
/** An event kind. */
export type EventKind = z.infer<typeof EventKindSchema>;
/** Event schema versions (`--event-schema v1|v2`). */
export const EventSchemaVersionSchema = z.enum(['v1', 'v2']);
/** `v1` or `v2`. */
export type EventSchemaVersion = z.infer<typeof EventSchemaVersionSchema>;
/** The event schema id of a version. */
export type EventSchemaId = typeof EVENT_V1_SCHEMA | typeof EVENT_V2_SCHEMA;

const manifestCommon = {
  run_id: RunIdSchema,
  created: TimestampSchema,
  plugin_version: z.string().min(1),
  storage_root: z.string().min(1),
  tracker_session_id: z.string().min(1).nullable(),
  prior_run: RunIdSchema.nullable(),
  dispatch: DispatchSchema,
};

/** Manifest v1 (exact keys). Immutable once published. */
export const ManifestV1Schema = z.strictObject({
  schema: z.literal(MANIFEST_V1_SCHEMA),
  ...manifestCommon,
});

/** Manifest v2 (exact keys): v1 plus `event_schema: "run-store-event/v2"`. */
export const ManifestV2Schema = z.strictObject({
  schema: z.literal(MANIFEST_V2_SCHEMA),
  ...manifestCommon,
  event_schema: z.literal(EVENT_V2_SCHEMA),
});

/** Either manifest version. */
export const ManifestSchema = z.discriminatedUnion('schema', [ManifestV1Schema, ManifestV2Schema]);
/** A run manifest. */
export type Manifest = z.infer<typeof ManifestSchema>;

/**
 * The event schema id a manifest's run uses.
 *
 * @example
 * ```ts
 * eventSchemaOf({ schema: 'run-store-manifest/v2' }); // 'run-store-event/v2'
 * ```
 */
export function eventSchemaOf(manifest: Pick<Manifest, 'schema'>): EventSchemaId {
  return manifest.schema === MANIFEST_V2_SCHEMA ? EVENT_V2_SCHEMA : EVENT_V1_SCHEMA;
}

/** The six note kinds. */
export const NoteKindSchema = z.enum([
  'candidate',
  'failed-avenue',
  'search-result',
  'blocker-diagnosis',
  'definition-gap',
  'source-note',
]);
/** A note kind. */
export type NoteKind = z.infer<typeof NoteKindSchema>;

/** Note payload (exact keys): `{ kind, text, lean }`. */
export const NotePayloadSchema = z.strictObject({
  kind: NoteKindSchema,
  text: z.string(),
  lean: z.string().nullable(),
});
/** A note payload. */
export type NotePayload = z.infer<typeof NotePayloadSchema>;

/** Stuck-review triage block (exact keys). */
export const TriageSchema = z.strictObject({
  blocker_class: BlockerClassSchema.nullable(),
  blocker_kind: BlockerKindSchema.nullable(),
  blocker_signature: z.string().nullable(),
  next_action: NextActionSchema,
  statement_may_be_false: z.boolean(),
  evidence: z.union([z.string(), z.array(z.string())]),
});
/** A triage block. */
export type Triage = z.infer<typeof TriageSchema>;

/**
 * lean4-review-output/v2 — the reference's exact shape is not known to us; we require an object
 * whose `error` member is present and a string or null (the rule the store depends on), and keep
 * every other member as given.
 */
export const ReviewOutputSchema = z.looseObject({ error: z.string().nullable() });

function issue(ctx: z.RefinementCtx, path: (string | number)[], code: string, message: string): void {
  ctx.addIssue({ code: 'custom', path, message, params: { code } });
}

/**
 * review-record/v1 with its rules: completed batch → output only (output.error null); completed
 * stuck → triage and mapped_handoff (a valid, blocker-driven handoff for the same target whose
 * next_action and blocker kind/class/signature equal the triage's); skipped/failed → none of the
 * three and a non-empty detail; source `none` only when skipped.
 */
export const ReviewRecordSchema = z
  .strictObject({
    schema: z.literal(REVIEW_RECORD_SCHEMA),
    cycle: z.number().int().min(0),
    mode: z.enum(['batch', 'stuck']),
    target: z.string().min(1),
    scope: ScopeSchema,
    line: z.number().int().min(0).nullable(),
    source: z.enum(['internal', 'external', 'both', 'none']),
    status: z.enum(['completed', 'skipped', 'failed']),
    output: ReviewOutputSchema.nullable(),
    triage: TriageSchema.nullable(),
    mapped_handoff: z.unknown(),
    detail: z.string().nullable(),
  })
  .superRefine((r, ctx) => {
    if (r.mapped_handoff === undefined) {
      issue(ctx, ['mapped_handoff'], 'missing_key', 'mapped_handoff is required (null or a handoff)');
      return;
    }
    if (r.source === 'none' && r.status !== 'skipped') {
      issue(ctx, ['source'], 'source_none_not_skipped', 'source "none" is only allowed when skipped');
    }
    if (r.status !== 'completed') {
      for (const k of ['output', 'triage', 'mapped_handoff'] as const) {
        if (r[k] !== null) issue(ctx, [k], 'must_be_null', `${k} must be null when ${r.status}`);
      }
      if (r.detail === null || r.detail.trim() === '') {
        issue(ctx, ['detail'], 'detail_required', `a ${r.status} review needs a non-empty detail`);
      }
      return;
    }
    if (r.mode === 'batch') {
      if (r.output === null)
        issue(ctx, ['output'], 'output_required', 'a completed batch review needs output');
      else if (r.output.error !== null)
        issue(ctx, ['output', 'error'], 'output_error', 'output.error is set: record the review as failed');
      if (r.triage !== null) issue(ctx, ['triage'], 'must_be_null', 'a batch review has no triage');
      if (r.mapped_handoff !== null)
        issue(ctx, ['mapped_handoff'], 'must_be_null', 'a batch review has no mapped_handoff');
      return;
    }
    // completed stuck
    if (r.triage === null) issue(ctx, ['triage'], 'triage_required', 'a completed stuck review needs triage');
    if (r.mapped_handoff === null) {
      issue(
        ctx,
        ['mapped_handoff'],
        'mapped_handoff_required',
        'a completed stuck review needs mapped_handoff',
      );
      return;
    }
    const h = validateHandoff(r.mapped_handoff);
    if (!h.ok) {
      for (const i of h.issues) {
        issue(ctx, ['mapped_handoff', ...(i.path === '' ? [] : i.path.split('.'))], i.code, i.message);
      }
      return;
    }
    const mh = h.value;
    if (!isBlockerDriven(mh))
      issue(ctx, ['mapped_handoff', 'status'], 'not_blocker_driven', 'mapped_handoff must be blocker-driven');
    if (mh.target !== r.target)
      issue(
        ctx,
        ['mapped_handoff', 'target'],
        'target_mismatch',
        'mapped_handoff.target differs from the review',
      );
    if (r.triage !== null) {
      const t = r.triage;
      const pairs: [keyof Triage & keyof typeof mh, unknown, unknown][] = [
        ['next_action', mh.next_action, t.next_action],
        ['blocker_kind', mh.blocker_kind, t.blocker_kind],
        ['blocker_class', mh.blocker_class, t.blocker_class],
        ['blocker_signature', mh.blocker_signature, t.blocker_signature],
      ];
      for (const [k, a, b] of pairs) {
        if (a !== b)
          issue(
            ctx,
            ['mapped_handoff', k],
            'triage_mismatch',
            `mapped_handoff.${k} differs from triage.${k}`,
          );
      }
    }
  });
/** A review record. */
export type ReviewRecord = Omit<z.infer<typeof ReviewRecordSchema>, 'mapped_handoff'> & {
  mapped_handoff: z.infer<typeof HandoffSchema> | null;
};

/** One blocker of a replan summary (exact keys). */
export const ReplanBlockerSchema = z.strictObject({
  file: z.string(),
  line: z.number().int().nullable(),
  blocker_class: BlockerClassSchema.nullable(),
  blocker_signature: z.string().nullable(),
});

/**
 * replan-summary/v1 (exact keys). The shape check only; that every cite names this run and an
 * earlier seq is checked against the journal at append (see `checkReplanCites`).
 */
export const ReplanSummarySchema = z.strictObject({
  schema: z.literal(REPLAN_SUMMARY_SCHEMA),
  cycle: z.number().int().min(1),
  plan: z.string(),
  failed_approaches: z.array(z.string()),
  blockers: z.array(ReplanBlockerSchema),
  next_steps: z.array(z.string()),
  cites: z.array(z.string().regex(SEQ_CITE_PATTERN, 'must be a cite <run-id>#<seq>')),
});
/** A replan summary. */
export type ReplanSummary = z.infer<typeof ReplanSummarySchema>;

/** A journal event line (exact keys). The payload is checked per kind by `validateEventPayload`. */
export const EventLineSchema = z.strictObject({
  schema: z.enum([EVENT_V1_SCHEMA, EVENT_V2_SCHEMA]),
  seq: z.number().int().min(1),
  ts: TimestampSchema,
  kind: EventKindSchema,
  payload: z.unknown(),
});

/** One journal event. */
export interface StoreEvent {
  readonly schema: EventSchemaId;
  readonly seq: number;
  readonly ts: string;
  readonly kind: EventKind;
  readonly payload: unknown;
}

/** The handoff cache file `handoff.json`: the last set-handoff's seq and payload. */
export const HandoffCacheSchema = z.strictObject({
  schema: z.literal(CACHE_SCHEMA),
  seq: z.number().int().min(1),
  payload: HandoffSchema,
});
/** A handoff cache record. */
export type HandoffCache = z.infer<typeof HandoffCacheSchema>;
