/**
 * The chain run kind of the run store (layer 0, no I/O): the `run-store-manifest/chain-v1`
 * manifest of a handoff-chain run and its one event kind, `baton-commit`, whose payload is one
 * seam commit `{ baton, receipt }` validated with the chain's own zod schemas. Exact keys
 * everywhere; cross-field rules are `superRefine`s whose issues carry a `params.code`.
 */
import { z } from 'zod';
import { canonicalJson } from '../canonical/index.js';
import { BatonSchema, StageReceiptSchema } from '../chain/baton.js';
import { ChainTaskContractSchema, contractDigest } from '../chain/task-contract.js';
import { ManifestV1Schema, ManifestV2Schema, RunIdSchema, TimestampSchema } from './schema.js';

/** Schema id of a chain run's manifest. */
export const CHAIN_MANIFEST_SCHEMA = 'run-store-manifest/chain-v1';
/** Schema id of a chain run's event lines. */
export const CHAIN_EVENT_SCHEMA = 'run-store-event/chain-v1';
/** The one event kind of a chain run. */
export const BATON_COMMIT_KIND = 'baton-commit';
/** Event kinds of chain runs. */
export const CHAIN_EVENT_KINDS = [BATON_COMMIT_KIND] as const;
/** A chain event kind. */
export type ChainEventKind = (typeof CHAIN_EVENT_KINDS)[number];

const hex16 = z.string().regex(/^[0-9a-f]{16}$/, 'must be 16 lower-case hex');

function issue(ctx: z.RefinementCtx, path: (string | number)[], code: string, message: string): void {
  ctx.addIssue({ code: 'custom', path, message, params: { code } });
}

/**
 * `run-store-manifest/chain-v1` (exact keys): the identity of a chain run — chain, baton, the
 * canonical task contract and its digest, the stage names in order, and the baton the run starts
 * from (revision 0, or a checkpoint). Immutable once published. Rules: `contract_digest` is the
 * contract's digest; the start baton belongs to `baton_id` and the contract, and its trace is a
 * prefix of `stages`.
 */
export const ChainManifestSchema = z
  .strictObject({
    schema: z.literal(CHAIN_MANIFEST_SCHEMA),
    run_id: RunIdSchema,
    created: TimestampSchema,
    plugin_version: z.string().min(1),
    storage_root: z.string().min(1),
    prior_run: RunIdSchema.nullable(),
    chain_id: z.string().min(1),
    baton_id: z.string().min(1),
    contract_digest: hex16,
    contract: ChainTaskContractSchema,
    stages: z.array(z.string().min(1)).min(1),
    start_baton: BatonSchema,
    event_schema: z.literal(CHAIN_EVENT_SCHEMA),
  })
  .superRefine((m, ctx) => {
    let digest: string | null = null;
    try {
      digest = contractDigest(m.contract);
    } catch {
      digest = null;
    }
    if (digest !== m.contract_digest)
      issue(ctx, ['contract_digest'], 'digest_mismatch', 'contract_digest is not the contract’s digest');
    if (new Set(m.stages).size !== m.stages.length)
      issue(ctx, ['stages'], 'duplicate_stage', 'stage names must be unique');
    const b = m.start_baton;
    if (b.baton_id !== m.baton_id)
      issue(ctx, ['start_baton', 'baton_id'], 'baton_mismatch', 'start_baton belongs to another baton');
    if (b.contract_digest !== m.contract_digest)
      issue(
        ctx,
        ['start_baton', 'contract_digest'],
        'digest_mismatch',
        'start_baton is bound to another contract',
      );
    if (b.trace.length > m.stages.length || b.trace.some((s, i) => s !== m.stages[i]))
      issue(
        ctx,
        ['start_baton', 'trace'],
        'trace_not_prefix',
        'start_baton’s trace is not a prefix of stages',
      );
  });
/** A chain run manifest. */
export type ChainManifest = z.output<typeof ChainManifestSchema>;

/**
 * The `baton-commit` payload (exact keys): one seam commit — the new baton revision and the
 * receipt of the commit that made it. Rules checked without the journal: the receipt is the
 * baton's last receipt, names the baton, its contract and its output revision and fingerprint.
 * Rules checked against the journal (see `batonCommitProblem`): same baton and contract as the
 * manifest, revision = previous + 1, input fingerprint = previous fingerprint.
 */
export const BatonCommitPayloadSchema = z
  .strictObject({
    baton: BatonSchema,
    receipt: StageReceiptSchema,
  })
  .superRefine((p, ctx) => {
    const { baton, receipt } = p;
    const last = baton.stage_receipts[baton.stage_receipts.length - 1];
    if (last === undefined || canonicalJson(last) !== canonicalJson(receipt))
      issue(ctx, ['receipt'], 'receipt_not_last', 'the receipt is not the baton’s last receipt');
    if (receipt.output_fingerprint !== baton.fingerprint)
      issue(
        ctx,
        ['receipt', 'output_fingerprint'],
        'fingerprint_mismatch',
        'receipt.output_fingerprint is not the baton’s fingerprint',
      );
    if (receipt.output_revision !== baton.revision || receipt.input_revision !== baton.revision - 1)
      issue(
        ctx,
        ['receipt', 'output_revision'],
        'revision_mismatch',
        'the receipt’s revision pair is not (baton revision − 1, baton revision)',
      );
    if (receipt.baton_id !== baton.baton_id)
      issue(ctx, ['receipt', 'baton_id'], 'baton_mismatch', 'the receipt names another baton');
    if (receipt.contract_digest !== baton.contract_digest)
      issue(ctx, ['receipt', 'contract_digest'], 'digest_mismatch', 'the receipt names another contract');
  });
/** A `baton-commit` payload. */
export type BatonCommitPayload = z.output<typeof BatonCommitPayloadSchema>;

/** A chain run's journal event line (exact keys). */
export const ChainEventLineSchema = z.strictObject({
  schema: z.literal(CHAIN_EVENT_SCHEMA),
  seq: z.number().int().min(1),
  ts: TimestampSchema,
  kind: z.literal(BATON_COMMIT_KIND),
  payload: z.unknown(),
});

/** One event of a chain run. */
export interface ChainStoreEvent {
  readonly schema: typeof CHAIN_EVENT_SCHEMA;
  readonly seq: number;
  readonly ts: string;
  readonly kind: ChainEventKind;
  readonly payload: BatonCommitPayload;
}

/** Every manifest the store holds: run-contract v1/v2 and chain-v1. */
export const StoredManifestSchema = z.discriminatedUnion('schema', [
  ManifestV1Schema,
  ManifestV2Schema,
  ChainManifestSchema,
]);
/** A stored manifest of any kind. */
export type StoredManifest = z.output<typeof StoredManifestSchema>;

/**
 * True when `m` is a chain run's manifest.
 *
 * @example
 * ```ts
 * isChainManifest({ schema: 'run-store-manifest/chain-v1' }); // true
 * ```
 */
export function isChainManifest(m: { readonly schema: string }): m is ChainManifest {
  return m.schema === CHAIN_MANIFEST_SCHEMA;
}
