/**
 * `gate-evidence/v1` — the evidence packet the collector builds from the real changeset,
 * independent of the worker's narrative. Frozen: its `packet_id` is derived from its content.
 */
import { z } from 'zod';
import { CandidateBindingSchema, ProblemIdSchema, Sha256Schema, StageSchema } from './contract-schema.js';

/** Schema id of the evidence packet. */
export const GATE_EVIDENCE_SCHEMA = 'gate-evidence/v1';

/** One changed path relative to the base candidate. */
export const ChangeEntrySchema = z.strictObject({
  path: z.string().min(1),
  change: z.enum(['added', 'removed', 'renamed', 'modified']),
  from: z.string().min(1).nullable(),
  staged: z.boolean(),
  unstaged: z.boolean(),
  untracked: z.boolean(),
  sha256: Sha256Schema.nullable(),
});

/** A resolved artifact: a reference whose permitted bytes were read. */
export const ArtifactSchema = z.strictObject({
  ref: z.string().min(1),
  role: z.enum(['required', 'changed', 'extra']),
  resolved: z.literal(true),
  sha256: Sha256Schema,
  bytes: z.number().int().min(0),
  /** UTF-8 text of the artifact, or null for binary content (its digest still binds it). */
  content: z.string().nullable(),
});

/** Material the collector did not supply, with the reason. */
export const OmittedSchema = z.strictObject({
  ref: z.string().min(1),
  reason: z.enum(['truncated', 'too-large', 'not-permitted', 'unresolved']),
  detail: z.string(),
});

/** Where an execution result came from. */
export const ProvenanceSchema = z.strictObject({
  runner_id: z.string().min(1),
  trusted: z.boolean(),
  candidate_digest: Sha256Schema.nullable(),
});

/** An execution result offered as evidence. */
export const ExecutionInputSchema = z.strictObject({
  runner: z.string().min(1),
  command: z.array(z.string()),
  exit_code: z.number().int().nullable(),
  operations: z.array(z.string()).default([]),
  output_sha256: Sha256Schema.nullable().default(null),
  provenance: ProvenanceSchema,
});

/** An execution as recorded in the packet: `counted` only when bound to this candidate by a trusted runner. */
export const ExecutionSchema = z.strictObject({
  runner: z.string().min(1),
  command: z.array(z.string()),
  exit_code: z.number().int().nullable(),
  operations: z.array(z.string()),
  output_sha256: Sha256Schema.nullable(),
  provenance: ProvenanceSchema,
  counted: z.boolean(),
  reason: z.string().nullable(),
});

/** A worker claim: kept as a claim, never promoted to a fact. */
export const WorkerClaimSchema = z.strictObject({
  criterion_id: z.string().nullable(),
  text: z.string(),
  verified: z.literal(false),
});

/** The evidence packet. */
export const EvidencePacketSchema = z.strictObject({
  schema: z.literal(GATE_EVIDENCE_SCHEMA),
  packet_id: z.string().regex(/^pkt_[0-9a-f]{32}$/),
  contract: z.strictObject({ problem_id: ProblemIdSchema, revision: z.number().int().min(1) }),
  stage: StageSchema,
  base: CandidateBindingSchema,
  candidate: CandidateBindingSchema,
  changeset: z.array(ChangeEntrySchema),
  artifacts: z.array(ArtifactSchema),
  omitted: z.array(OmittedSchema),
  executions: z.array(ExecutionSchema),
  operations_observed: z.array(z.string()),
  worker_claims: z.array(WorkerClaimSchema),
  collected_at: z.string(),
});

/** One change entry. */
export type ChangeEntry = z.infer<typeof ChangeEntrySchema>;
/** One resolved artifact. */
export type Artifact = z.infer<typeof ArtifactSchema>;
/** One omitted entry. */
export type Omitted = z.infer<typeof OmittedSchema>;
/** An execution offered as evidence (input form). */
export type ExecutionInput = z.input<typeof ExecutionInputSchema>;
/** An execution as recorded. */
export type Execution = z.infer<typeof ExecutionSchema>;
/** A worker claim. */
export type WorkerClaim = z.infer<typeof WorkerClaimSchema>;
/** The evidence packet. */
export type EvidencePacket = z.infer<typeof EvidencePacketSchema>;
