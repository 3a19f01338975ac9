/**
 * The records published as JSON Schema files under `schemas/`, generated from their zod schemas.
 * Cross-field rules (conditional nullability, coverage) are enforced by the validators; JSON
 * Schema carries the structure.
 */
import { z } from 'zod';
import { BaselineCheckSchema } from './baseline/check-schema.js';
import { FileBaselineSchema } from './baseline/schema.js';
import {
  AcceptanceReceiptSchema,
  BatonSchema,
  ChainTaskContractSchema,
  StageDeltaSchema,
  StageReceiptSchema,
} from './chain/index.js';
import { ConformanceReportSchema } from './conformance/report-schema.js';
import { DispatchSchema, HandoffSchema } from './contract/index.js';
import { DevLoopsSettingsSchema, HandoffEnvelopeSchema, SanctionedCommandsSchema } from './envelope/index.js';
import { HeaderExtractRequestSchema, HeaderExtractResponseSchema } from './fence/index.js';
import {
  AssessmentSchema,
  AuthoritySchema,
  BlockedReportSchema,
  DirectiveSchema,
  EvidencePacketSchema,
  GrantSchema,
  LeadPacketSchema,
  RouteDecisionSchema,
  TaskContractSchema,
} from './gate/index.js';
import { PersistStateSchema, ProgressSchema, ReuseReportSchema, SourceNoteSchema } from './persist/index.js';
import {
  BatonCommitPayloadSchema,
  ChainEventLineSchema,
  ChainManifestSchema,
  EventLineSchema,
  HandoffCacheSchema,
  ManifestV1Schema,
  ManifestV2Schema,
  NotePayloadSchema,
  RecoverResultSchema,
  ReplanSummarySchema,
  ReviewRecordSchema,
} from './store/index.js';
import { DraftRequestSchema, DraftResponseSchema } from './synthesis/draft-schema.js';
import { TrackerStateSchema } from './tracker/schema.js';
import {
  RoutePolicySchema,
  TransferDecisionSchema,
  TransferJournalLineSchema,
  TransferRequestSchema,
} from './transfer/records.js';

/** File name (without `.json`) → zod schema of every published record. */
export const PUBLISHED_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  'run-contract-dispatch.v1': DispatchSchema,
  'run-contract-handoff.v1': HandoffSchema,
  'file-baseline.v1': FileBaselineSchema,
  'file-baseline-check.v1': BaselineCheckSchema,
  'run-store-manifest.v1': ManifestV1Schema,
  'run-store-manifest.v2': ManifestV2Schema,
  'run-store-event.v1': EventLineSchema,
  'run-store-note.v1': NotePayloadSchema,
  'run-store-handoff.v1': HandoffCacheSchema,
  'run-store-manifest.chain-v1': ChainManifestSchema,
  'run-store-event.chain-v1': ChainEventLineSchema,
  'run-store-baton-commit.v1': BatonCommitPayloadSchema,
  'run-store-recover.v1': RecoverResultSchema,
  'review-record.v1': ReviewRecordSchema,
  'replan-summary.v1': ReplanSummarySchema,
  'run-persist-state.v1': PersistStateSchema,
  'run-persist-reuse.v1': ReuseReportSchema,
  'run-persist-progress.v1': ProgressSchema,
  'run-persist-source-note.v1': SourceNoteSchema,
  'dev-loop-handoff-envelope.v1': HandoffEnvelopeSchema,
  'devloops-settings.v1': DevLoopsSettingsSchema,
  'sanctioned-commands.v1': SanctionedCommandsSchema,
  'chain-task-contract.v1': ChainTaskContractSchema,
  'chain-baton.v1': BatonSchema,
  'chain-stage-receipt.v1': StageReceiptSchema,
  'chain-acceptance-receipt.v1': AcceptanceReceiptSchema,
  'chain-stage-delta.v1': StageDeltaSchema,
  'cycle-tracker.v1': TrackerStateSchema,
  'conformance-report.v1': ConformanceReportSchema,
  'header-extract-request.v1': HeaderExtractRequestSchema,
  'header-extract-response.v1': HeaderExtractResponseSchema,
  'gate-task.v1': TaskContractSchema,
  'gate-directive.v1': DirectiveSchema,
  'gate-evidence.v1': EvidencePacketSchema,
  'gate-assessment.v1': AssessmentSchema,
  'gate-route.v1': RouteDecisionSchema,
  'gate-grant.v1': GrantSchema,
  'gate-blocked.v1': BlockedReportSchema,
  'gate-lead-packet.v1': LeadPacketSchema,
  'gate-authority.v1': AuthoritySchema,
  'draft-request.v1': DraftRequestSchema,
  'draft-response.v1': DraftResponseSchema,
  'handoff-routes.v1': RoutePolicySchema,
  'handoff-transfer.v1': TransferRequestSchema,
  'handoff-transfer-decision.v1': TransferDecisionSchema,
  'handoff-transfer-journal.v1': TransferJournalLineSchema,
};

/**
 * Generates the JSON Schema documents, keyed by file name (`<name>.json`), as formatted text.
 *
 * @example
 * ```ts
 * const files = generateJsonSchemas(); files['file-baseline.v1.json'];
 * ```
 */
export function generateJsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(PUBLISHED_SCHEMAS)) {
    const doc = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' });
    out[`${name}.json`] =
      `${JSON.stringify({ $id: `handoff-runtime/${name}`, title: name, ...doc }, null, 2)}\n`;
  }
  return out;
}
