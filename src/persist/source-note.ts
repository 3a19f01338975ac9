/**
 * run-persist-source-note/v1 (layer 0): the local source-note a reuse start records as the new
 * run's event #1, listing the selected prior material with its original `<prior_run>#<seq>`
 * cites. Recognized in a later reuse only when it validates in shape; anything else (a user's
 * JSON-shaped note, a malformed record) stays ordinary text.
 */
import { z } from 'zod';

/** Schema id of the helper-generated source note. */
export const SOURCE_NOTE_SCHEMA = 'run-persist-source-note/v1';

/** One historical item (failed avenue, candidate, review, note, snippet) with its original cite. */
export const SourceItemSchema = z
  .looseObject({ cite: z.string(), inherited_via: z.string().optional() })
  .refine((x) => /#(manifest|[1-9][0-9]*)$/.test(x.cite), { message: 'cite must be <run_id>#<seq>' });
/** A historical item. */
export type SourceItem = z.infer<typeof SourceItemSchema>;

/** The carried blocker and stop fields of the selected handoff (+ the last replan's blockers). */
export const CarrySchema = z.strictObject({
  prior_blocker: z.string().nullable(),
  blocker_kind: z.string().nullable(),
  blocker_class: z.string().nullable(),
  status: z.string().nullable(),
  stop_reason: z.string().nullable(),
  stop_detail: z.string().nullable(),
  new_evidence_required_for_rerun: z.string().nullable(),
  replan_blockers: z.strictObject({ blockers: z.array(z.unknown()), cite: z.string() }).nullable(),
});
/** Carried fields. */
export type Carry = z.infer<typeof CarrySchema>;

/** A provenance link to an ancestor run (historical only; never drives the current guard). */
export const InheritedLinkSchema = z.strictObject({
  prior_run: z.string(),
  via: z.string(),
  dispatch_cite: z.string(),
  handoff_cite: z.string().nullable(),
  plan: z.strictObject({ text: z.string(), cite: z.string() }).nullable(),
  next_steps: z.strictObject({ steps: z.array(z.string()), cite: z.string() }).nullable(),
  carry: CarrySchema,
});
/** A provenance link. */
export type InheritedLink = z.infer<typeof InheritedLinkSchema>;

/** Historical evidence of a prior run: evidence, not prohibitions; nothing certified. */
export const HistoricalSchema = z.strictObject({
  plan: z.strictObject({ text: z.string(), cite: z.string() }).nullable(),
  next_steps: z.strictObject({ steps: z.array(z.string()), cite: z.string() }).nullable(),
  failed_avenues: z.array(SourceItemSchema),
  candidates: z.array(SourceItemSchema),
  reviews: z.array(SourceItemSchema),
  notes: z.array(SourceItemSchema),
  snippets: z.array(SourceItemSchema),
  inherited: z.array(InheritedLinkSchema),
});
/** Historical evidence. */
export type Historical = z.infer<typeof HistoricalSchema>;

/** The source note record (the note's `text` is its JSON). */
export const SourceNoteSchema = z.strictObject({
  schema: z.literal(SOURCE_NOTE_SCHEMA),
  prior_run: z.string(),
  observed_seq: z.number().int().min(0),
  prefix_digest: z.string(),
  dispatch_cite: z.string(),
  handoff_cite: z.string().nullable(),
  carry: CarrySchema,
  historical: HistoricalSchema,
});
/** A source note. */
export type SourceNote = z.infer<typeof SourceNoteSchema>;

/**
 * Parses a note text as a helper-generated source note; null when it is not one (then it stays
 * ordinary text).
 *
 * @example
 * ```ts
 * parseSourceNote('{"schema":"something/else"}'); // null
 * ```
 */
export function parseSourceNote(text: string): SourceNote | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const r = SourceNoteSchema.safeParse(v);
  return r.success ? r.data : null;
}
