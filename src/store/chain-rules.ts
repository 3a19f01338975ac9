/**
 * The chain run kind's rules (pure, shared by every backend): the run id, building a chain
 * manifest from a create request, validating a `baton-commit` against the manifest and the
 * previous commit, and parsing a chain run's journal bytes into its valid prefix.
 */
import { fingerprintOf } from '../canonical/index.js';
import type { Baton } from '../chain/baton.js';
import { ChainTaskContractSchema, contractDigest } from '../chain/task-contract.js';
import type { IdSource } from '../ids/index.js';
import { MAX_RECORD_DEPTH, memberDepthIssue, safeValidate } from '../validation/index.js';
import { unwritableIn } from './canonical-fast.js';
import {
  BATON_COMMIT_KIND,
  type BatonCommitPayload,
  BatonCommitPayloadSchema,
  CHAIN_EVENT_SCHEMA,
  CHAIN_MANIFEST_SCHEMA,
  type ChainManifest,
  ChainManifestSchema,
  type ChainStoreEvent,
} from './chain-schema.js';
import { isCanonicalLine, NOT_CANONICAL, type ParsedJournal, scanLines } from './journal-parse.js';
import { quoteValue } from './quote-value.js';
import { formatTimestamp, isRunId, isTimestamp, makeRunId } from './run-id.js';
import { TIMESTAMP_PATTERN } from './schema.js';
import type { StoreCode } from './store-types.js';
import { describeIssues } from './validate-payload.js';

/** Input of `createChainRun`: the chain's identity, its contract and the baton the run starts from. */
export interface CreateChainRunInput {
  readonly chainId: string;
  /** The canonical task contract (`ChainTaskContract`); its digest binds every baton of the run. */
  readonly contract: unknown;
  /** The chain's stage names in order. */
  readonly stages: readonly string[];
  /** The baton the run starts from (revision 0, or a checkpoint). */
  readonly startBaton: unknown;
  /** A run this one continues (e.g. a run whose journal was damaged), or null. */
  readonly priorRun?: string | null;
  /** Creation time `YYYY-MM-DDTHH:MM:SSZ`; defaults to the store clock. */
  readonly now?: string;
}

/**
 * What a chain journal's tail is: the last committed baton's revision, fingerprint and a digest of
 * its receipts (receipts are outside the fingerprint, so the receipts a commit carries forward are
 * pinned by this digest).
 */
export interface ChainTail {
  readonly revision: number;
  readonly fingerprint: string;
  readonly receipts: string;
}

/**
 * The tail of a committed baton.
 *
 * @example
 * ```ts
 * tailOf(baton).revision === baton.revision; // true
 * ```
 */
export function tailOf(baton: Pick<Baton, 'revision' | 'fingerprint' | 'stage_receipts'>): ChainTail {
  return {
    revision: baton.revision,
    fingerprint: baton.fingerprint,
    receipts: fingerprintOf(baton.stage_receipts),
  };
}

/** Outcome of {@link buildChainManifest}. */
export type ChainManifestBuild =
  | { readonly ok: true; readonly manifest: ChainManifest }
  | { readonly ok: false; readonly code: StoreCode; readonly run_id: string | null; readonly detail: string };

/**
 * Validates a chain create request and builds the manifest it would publish. Never throws.
 *
 * @example
 * ```ts
 * const b = buildChainManifest({ chainId, contract, stages, startBaton: b0, now: '2026-11-30T10:00:00Z' },
 *   { storageRoot: '/p/.handoff', pluginVersion: '0.1.0', now: () => new Date() });
 * if (b.ok) b.manifest.run_id;
 * ```
 */
export function buildChainManifest(
  input: CreateChainRunInput,
  env: {
    readonly storageRoot: string;
    readonly pluginVersion: string;
    readonly now: () => Date;
    /** The source of the run id's 8 hex digits (default: random). */
    readonly runIdSuffix?: IdSource | undefined;
  },
): ChainManifestBuild {
  const fail = (code: StoreCode, detail: string): ChainManifestBuild => ({
    ok: false,
    code,
    run_id: null,
    detail,
  });
  if (typeof input !== 'object' || input === null) return fail('invalid_payload', 'no chain run input');
  const created = input.now ?? formatTimestamp(env.now());
  if (typeof created !== 'string' || !isTimestamp(created))
    return fail('bad_timestamp', `not YYYY-MM-DDTHH:MM:SSZ: ${quoteValue(created)}`);
  const prior = input.priorRun ?? null;
  if (prior !== null && !isRunId(prior))
    return fail('bad_run_id', `prior run is not a run id: ${quoteValue(prior)}`);
  if (typeof input.chainId !== 'string' || input.chainId.trim() === '')
    return fail('invalid_payload', 'chain id must be a non-empty string');
  const c = safeValidate(ChainTaskContractSchema, input.contract, { maxDepth: MAX_RECORD_DEPTH });
  if (!c.ok) return fail('invalid_payload', `invalid contract: ${describeIssues(c.issues)}`);
  const startBaton = input.startBaton as Partial<Baton> | null;
  const batonId = typeof startBaton?.baton_id === 'string' ? startBaton.baton_id : '';
  const digest = contractDigest(c.value);
  if (batonId === '') return fail('invalid_payload', 'invalid start baton: no baton_id');
  const runId = makeRunId(created, env.runIdSuffix);
  const candidate = {
    schema: CHAIN_MANIFEST_SCHEMA,
    run_id: runId,
    created,
    plugin_version: env.pluginVersion,
    storage_root: env.storageRoot,
    prior_run: prior,
    chain_id: input.chainId,
    baton_id: batonId,
    contract_digest: digest,
    contract: c.value,
    stages: Array.isArray(input.stages) ? [...input.stages] : input.stages,
    start_baton: input.startBaton,
    event_schema: CHAIN_EVENT_SCHEMA,
  };
  // the manifest wraps the start baton: one level more than a record (see validateStoredManifest)
  const deep = memberDepthIssue(candidate);
  if (deep !== null) return fail('invalid_payload', describeIssues([deep]));
  const m = safeValidate(ChainManifestSchema, candidate);
  if (!m.ok) return { ok: false, code: 'invalid_payload', run_id: null, detail: describeIssues(m.issues) };
  const unwritable = unwritableIn(m.value);
  if (unwritable !== null) return fail('invalid_payload', unwritable);
  return { ok: true, manifest: m.value };
}

/**
 * The tail a chain run starts with: its start baton's revision and fingerprint.
 *
 * @example
 * ```ts
 * startTail(manifest); // { revision: 0, fingerprint: manifest.start_baton.fingerprint }
 * ```
 */
export function startTail(manifest: ChainManifest): ChainTail {
  return tailOf(manifest.start_baton);
}

/**
 * The journal rules of a shape-valid `baton-commit` payload: the manifest's baton and contract,
 * a trace following the manifest's stages, revision = previous + 1, input fingerprint = previous
 * fingerprint, and the earlier receipts carried forward unchanged. Returns null when the commit
 * may follow `prev`, else a problem.
 *
 * @example
 * ```ts
 * batonCommitProblem(manifest, startTail(manifest), payload); // null | 'revision 3 does not follow 1'
 * ```
 */
export function batonCommitProblem(
  manifest: ChainManifest,
  prev: ChainTail,
  payload: BatonCommitPayload,
): { code: 'invalid_payload' | 'baton_out_of_sequence'; detail: string } | null {
  const { baton, receipt } = payload;
  if (baton.baton_id !== manifest.baton_id)
    return {
      code: 'invalid_payload',
      detail: `baton ${baton.baton_id} is not this run's ${manifest.baton_id}`,
    };
  if (baton.contract_digest !== manifest.contract_digest)
    return {
      code: 'invalid_payload',
      detail: `baton contract ${baton.contract_digest} is not this run's ${manifest.contract_digest}`,
    };
  if (baton.trace.length > manifest.stages.length || baton.trace.some((s, i) => s !== manifest.stages[i]))
    return { code: 'invalid_payload', detail: 'the baton’s trace does not follow the run’s stages' };
  if (baton.revision !== prev.revision + 1)
    return {
      code: 'baton_out_of_sequence',
      detail: `revision ${baton.revision} does not follow the last committed revision ${prev.revision}`,
    };
  if (receipt.input_fingerprint !== prev.fingerprint)
    return {
      code: 'baton_out_of_sequence',
      detail: `receipt.input_fingerprint ${receipt.input_fingerprint} is not the last committed fingerprint ${prev.fingerprint}`,
    };
  if (fingerprintOf(baton.stage_receipts.slice(0, -1)) !== prev.receipts)
    return {
      code: 'baton_out_of_sequence',
      detail: 'the baton’s earlier receipts are not the ones committed before it',
    };
  return null;
}

/**
 * Validates a `baton-commit` payload's shape (no journal context); a payload nested deeper than
 * `MAX_RECORD_DEPTH` is refused (`too_deep`) before anything walks it. Never throws.
 *
 * @example
 * ```ts
 * const r = checkBatonCommit({ baton, receipt }); // { ok: true, value } | { ok: false, detail }
 * ```
 */
export function checkBatonCommit(
  payload: unknown,
): { ok: true; value: BatonCommitPayload } | { ok: false; detail: string } {
  const r = safeValidate(BatonCommitPayloadSchema, payload, { maxDepth: MAX_RECORD_DEPTH });
  return r.ok
    ? { ok: true, value: r.value }
    : { ok: false, detail: `invalid baton-commit payload: ${describeIssues(r.issues)}` };
}

const ENVELOPE_KEYS = ['kind', 'payload', 'schema', 'seq', 'ts'];

/**
 * Validates one chain journal line as the event with `expectedSeq` following `prev`.
 *
 * @example
 * ```ts
 * checkChainEventLine(text, manifest, 1, startTail(manifest)); // { ok: true, event, tail } | { ok: false, detail }
 * ```
 */
export function checkChainEventLine(
  text: string,
  manifest: ChainManifest,
  expectedSeq: number,
  prev: ChainTail,
): { ok: true; event: ChainStoreEvent; tail: ChainTail } | { ok: false; detail: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, detail: `not JSON: ${(e as Error).message}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return { ok: false, detail: 'not a JSON object' };
  const keys = Object.keys(v).sort();
  if (keys.length !== 5 || keys.some((k, i) => k !== ENVELOPE_KEYS[i]))
    return { ok: false, detail: `keys must be exactly ${ENVELOPE_KEYS.join(',')}` };
  const e = v as Record<string, unknown>;
  if (e.schema !== CHAIN_EVENT_SCHEMA)
    return {
      ok: false,
      detail: `schema ${quoteValue(e.schema)} is not this run's ${CHAIN_EVENT_SCHEMA}`,
    };
  if (typeof e.seq !== 'number' || !Number.isInteger(e.seq))
    return { ok: false, detail: 'seq is not an integer' };
  if (e.seq !== expectedSeq)
    return {
      ok: false,
      detail:
        e.seq < expectedSeq
          ? `duplicate seq ${e.seq} (expected ${expectedSeq})`
          : `seq gap: ${e.seq} (expected ${expectedSeq})`,
    };
  if (typeof e.ts !== 'string' || !TIMESTAMP_PATTERN.test(e.ts))
    return { ok: false, detail: 'ts is not a timestamp' };
  if (e.kind !== BATON_COMMIT_KIND) return { ok: false, detail: `kind ${quoteValue(e.kind)} not allowed` };
  const p = checkBatonCommit(e.payload);
  if (!p.ok) return { ok: false, detail: p.detail };
  const problem = batonCommitProblem(manifest, prev, p.value);
  if (problem !== null) return { ok: false, detail: problem.detail };
  if (!isCanonicalLine(text, v)) return { ok: false, detail: NOT_CANONICAL };
  const event: ChainStoreEvent = {
    schema: CHAIN_EVENT_SCHEMA,
    seq: expectedSeq,
    ts: e.ts,
    kind: BATON_COMMIT_KIND,
    payload: e.payload as BatonCommitPayload,
  };
  return {
    ok: true,
    event,
    tail: tailOf(p.value.baton),
  };
}

/** Result of {@link parseChainJournal}: the valid prefix, the first defect, and the prefix's tail. */
export interface ParsedChainJournal extends Omit<ParsedJournal, 'events'> {
  readonly events: ChainStoreEvent[];
  readonly tail: ChainTail;
}

/**
 * Parses a chain run's journal bytes (from `startSeq`, after a validated prefix ending at `prev`).
 * An unterminated last line is `truncated_tail`; any other defect — including a commit out of
 * sequence — is `corrupt` with its line.
 *
 * @example
 * ```ts
 * const p = parseChainJournal(bytes, manifest); p.tail.revision; // last committed revision
 * ```
 */
export function parseChainJournal(
  bytes: Uint8Array,
  manifest: ChainManifest,
  startSeq = 1,
  startLine = 1,
  prev: ChainTail = startTail(manifest),
): ParsedChainJournal {
  const events: ChainStoreEvent[] = [];
  let tail = prev;
  const scan = scanLines(bytes, startLine, (text, i) => {
    const r = checkChainEventLine(text, manifest, startSeq + i, tail);
    if (!r.ok) return r.detail;
    events.push(r.event);
    tail = r.tail;
    return null;
  });
  return { events, validBytes: scan.validBytes, damage: scan.damage, tail };
}
