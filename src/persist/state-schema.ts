/**
 * run-persist-state/v1 (layer 0): the invocation-private control state of one run-persist
 * invocation. It binds the storage root and run id, holds parent knowledge, the committed
 * history the helper confirmed, the in-flight operation (recorded before the store is called,
 * resolved after), the stop and finish markers and the stored final handoff.
 */
import { z } from 'zod';
import { HandoffSchema } from '../contract/handoff-schema.js';
import { KnowledgeSchema } from './knowledge.js';

/** Schema id of the state file. */
export const STATE_SCHEMA = 'run-persist-state/v1';

/** An operation recorded before the store is called. */
export const InflightSchema = z.strictObject({
  /** `create`, `append`, `set-handoff` or `progress`. */
  op: z.enum(['create', 'append', 'set-handoff', 'progress']),
  /** Event kind (append), `finish` (set-handoff), `progress`, or `start` (create). */
  kind: z.string(),
  /** When it was recorded. */
  at: z.string(),
  /** The validated submission, folded into knowledge once if the operation stays unresolved. */
  pending: z.unknown(),
});
/** An in-flight record. */
export type Inflight = z.infer<typeof InflightSchema>;

/** Something parent knowledge holds but committed history does not. */
export const UnpersistedSchema = z.strictObject({
  kind: z.string(),
  seq: z.null(),
  status: z.enum(['not-stored', 'unconfirmed', 'control-state-unsaved', 'control-state-saved']),
  note: z.string(),
});
/** An unpersisted item. */
export type Unpersisted = z.infer<typeof UnpersistedSchema>;

/** One event the helper confirmed as committed. */
export const CommittedEventSchema = z.strictObject({
  seq: z.number().int().min(1),
  kind: z.string(),
  cite: z.string(),
});

/** The control state. */
export const PersistStateSchema = z.strictObject({
  schema: z.literal(STATE_SCHEMA),
  storage_root: z.string(),
  project_root: z.string(),
  run_id: z.string().nullable(),
  run_directory: z.string().nullable(),
  prior_run: z.string().nullable(),
  knowledge: KnowledgeSchema.nullable(),
  last_seq: z.number().int().min(0),
  history: z.array(CommittedEventSchema),
  inflight: InflightSchema.nullable(),
  unpersisted: z.array(UnpersistedSchema),
  stopped: z.strictObject({ outcome: z.string(), detail: z.string(), at: z.string() }).nullable(),
  finished: z.enum(['stored', 'not-stored']).nullable(),
  final_handoff: z
    .strictObject({
      cite: z.string(),
      handoff: HandoffSchema,
      outcome: z.enum(['committed', 'journal_only']),
    })
    .nullable(),
  source_note_cite: z.string().nullable(),
});
/** The control state record. */
export type PersistState = z.infer<typeof PersistStateSchema>;
