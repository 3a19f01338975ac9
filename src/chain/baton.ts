/**
 * `Baton`: the immutable record a chain hands from stage to stage — identity, intent, committed
 * fact records, artifact references, the trace of stages run and one receipt per commit.
 * Batons are deep-frozen; a new revision is produced with immer, never by mutation.
 */
import { produce } from 'immer';
import { z } from 'zod';
import { deepFreeze, sha256Hex } from '../canonical/index.js';
import { memoCanonicalJson } from './canonical-memo.js';
import { deepCopy, readOnly } from './immutable.js';

const hex16 = z.string().regex(/^[0-9a-f]{16}$/);

/** A committed fact with its provenance. */
export const FactRecordSchema = z.strictObject({
  key: z.string().min(1),
  value: z.unknown(),
  producer_stage: z.string().min(1),
  stage_run_id: z.string().min(1),
  evidence_refs: z.array(z.string()),
});

/** A committed fact (deep-frozen inside a baton). */
export interface FactRecord {
  readonly key: string;
  readonly value: unknown;
  readonly producer_stage: string;
  readonly stage_run_id: string;
  readonly evidence_refs: readonly string[];
}

/** The receipt of one seam commit, bound to the input and output fingerprints. */
export const StageReceiptSchema = z.strictObject({
  receipt_id: z.string().min(1),
  contract_digest: hex16,
  baton_id: z.string().min(1),
  stage_name: z.string().min(1),
  stage_run_id: z.string().min(1),
  input_revision: z.number().int().min(0),
  output_revision: z.number().int().min(1),
  input_fingerprint: hex16,
  output_fingerprint: hex16,
  consumed_keys: z.array(z.string()),
  produced_keys: z.array(z.string()),
  evidence_refs: z.array(z.string()),
});

/** A stage receipt. */
export type StageReceipt = Readonly<z.output<typeof StageReceiptSchema>>;

/** The baton record (`chain-baton/v1`); `fingerprint` and `snapshot_id` are derived and checked. */
export const BatonSchema = z
  .strictObject({
    baton_id: z.string().min(1),
    contract_digest: hex16,
    intent: z.string().min(1),
    revision: z.number().int().min(0),
    records: z.array(FactRecordSchema),
    artifact_refs: z.array(z.string()),
    trace: z.array(z.string()),
    stage_receipts: z.array(StageReceiptSchema),
    fingerprint: hex16,
    snapshot_id: z.string().min(1),
  })
  .superRefine((b, ctx) => {
    for (const p of batonProblems(b as Baton))
      ctx.addIssue({ code: 'custom', message: p, params: { code: 'baton_invariant' } });
  });

/** An immutable baton. */
export interface Baton {
  readonly baton_id: string;
  readonly contract_digest: string;
  readonly intent: string;
  readonly revision: number;
  readonly records: readonly FactRecord[];
  readonly artifact_refs: readonly string[];
  readonly trace: readonly string[];
  readonly stage_receipts: readonly StageReceipt[];
  /** 16-hex fingerprint over everything except the receipts (see {@link batonFingerprint}). */
  readonly fingerprint: string;
  /** `<baton_id>::r<revision>::<fingerprint>`. */
  readonly snapshot_id: string;
}

/**
 * The fingerprint of a baton: first 16 hex of sha256 over the canonical JSON of the identity
 * fields, the revision, every record (all five fields), the artifact refs and the trace. The
 * receipts are excluded (they describe the commit; the fingerprint names the state).
 *
 * @example
 * ```ts
 * batonFingerprint(b) === b.fingerprint; // true for every well-formed baton
 * ```
 * @throws HandoffError `canonical_unsupported` when a fact value is not JSON-representable.
 */
export function batonFingerprint(b: Omit<Baton, 'fingerprint' | 'snapshot_id' | 'stage_receipts'>): string {
  // fingerprintOf's digest, over memoCanonicalJson's text (the same bytes as canonicalJson): the
  // values of earlier revisions' records are not written again, and the journal line reuses them
  return sha256Hex(
    memoCanonicalJson({
      baton_id: b.baton_id,
      contract_digest: b.contract_digest,
      intent: b.intent,
      revision: b.revision,
      records: b.records.map((r) => ({
        key: r.key,
        value: r.value,
        producer_stage: r.producer_stage,
        stage_run_id: r.stage_run_id,
        evidence_refs: r.evidence_refs,
      })),
      artifact_refs: b.artifact_refs,
      trace: b.trace,
    }),
  ).slice(0, 16);
}

/**
 * The snapshot id of a baton state.
 *
 * @example
 * ```ts
 * snapshotId('payroll-2026-06', 2, 'ab12…'); // 'payroll-2026-06::r2::ab12…'
 * ```
 */
export function snapshotId(batonId: string, revision: number, fingerprint: string): string {
  return `${batonId}::r${revision}::${fingerprint}`;
}

/**
 * Lists the invariant violations of a baton (empty when sound): non-empty identity and intent,
 * `revision == trace.length == stage_receipts.length`, unique record keys, and fingerprint and
 * snapshot id matching the content.
 *
 * @example
 * ```ts
 * batonProblems(loaded); // [] or ['fingerprint does not match the content']
 * ```
 */
export function batonProblems(b: Baton): string[] {
  if (SOUND.has(b)) return [];
  const problems = shapeProblems(b);
  if (problems.length === 0) {
    let fp: string | undefined;
    try {
      fp = batonFingerprint(b);
    } catch (e) {
      problems.push(`baton is not canonical-JSON representable: ${(e as Error).message}`);
    }
    if (fp !== undefined && fp !== b.fingerprint) problems.push('fingerprint does not match the content');
    if (fp !== undefined && b.snapshot_id !== snapshotId(b.baton_id, b.revision, fp))
      problems.push('snapshot_id does not match');
  }
  if (problems.length === 0 && isDeepFrozen(b)) SOUND.add(b);
  return problems;
}

/** Batons known to be sound: deep-frozen, so their content (and fingerprint) can never change. */
const SOUND = new WeakSet<object>();

function isDeepFrozen(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return true;
  if (!Object.isFrozen(v)) return false;
  return Object.values(v).every(isDeepFrozen);
}

/** Marks a baton built here (fingerprint computed from its content) as sound when its shape holds. */
function sound(b: Baton): Baton {
  if (shapeProblems(b).length === 0) SOUND.add(b);
  return b;
}

/** The invariants that need no hashing. */
function shapeProblems(b: Baton): string[] {
  const problems: string[] = [];
  if (!b.baton_id?.trim()) problems.push('baton_id is empty');
  if (!b.contract_digest?.trim()) problems.push('contract_digest is empty');
  if (!b.intent?.trim()) problems.push('intent is empty');
  if (b.revision !== b.trace.length || b.revision !== b.stage_receipts.length) {
    problems.push(
      `revision ${b.revision} != trace length ${b.trace.length} / receipt count ${b.stage_receipts.length}`,
    );
  }
  const keys = b.records.map((r) => r.key);
  const dup = keys.filter((k, i) => keys.indexOf(k) !== i);
  if (dup.length > 0) problems.push(`duplicate record keys: ${[...new Set(dup)].join(', ')}`);
  return problems;
}

/** Fields of a revision-0 baton. */
export interface BatonSeed {
  readonly baton_id: string;
  readonly contract_digest: string;
  readonly intent: string;
  readonly records: readonly FactRecord[];
}

/**
 * Builds a deep-frozen revision-0 baton (records are copied in).
 *
 * @example
 * ```ts
 * const b0 = seedBaton({ baton_id: 'b', contract_digest, intent: 'pay June', records: [] });
 * ```
 */
export function seedBaton(seed: BatonSeed): Baton {
  const body = {
    baton_id: seed.baton_id,
    contract_digest: seed.contract_digest,
    intent: seed.intent,
    revision: 0,
    records: deepCopy(seed.records as FactRecord[]),
    artifact_refs: [] as string[],
    trace: [] as string[],
    stage_receipts: [] as StageReceipt[],
  };
  const fingerprint = batonFingerprint(body);
  return sound(deepFreeze({ ...body, fingerprint, snapshot_id: snapshotId(body.baton_id, 0, fingerprint) }));
}

/** What one seam appends to a baton. */
export interface BatonCommit {
  readonly stage_name: string;
  readonly records: readonly FactRecord[];
  readonly artifact_refs: readonly string[];
  /** Builds the receipt once the output fingerprint is known. */
  readonly receipt: (outputFingerprint: string, outputRevision: number) => StageReceipt;
}

/**
 * Produces the next revision with immer: records, artifact refs, trace entry and receipt are
 * appended; the fingerprint and snapshot id are recomputed; the result is deep-frozen.
 *
 * @example
 * ```ts
 * const b1 = commitBaton(b0, { stage_name: 'intent', records, artifact_refs: [], receipt: (fp, r) => … });
 * ```
 */
export function commitBaton(base: Baton, commit: BatonCommit): Baton {
  const added = deepFreeze(deepCopy(commit.records as FactRecord[]));
  const next = produce(base, (draft) => {
    const d = draft as unknown as {
      revision: number;
      records: FactRecord[];
      artifact_refs: string[];
      trace: string[];
      stage_receipts: StageReceipt[];
      fingerprint: string;
      snapshot_id: string;
    };
    d.revision = base.revision + 1;
    d.records.push(...added);
    d.artifact_refs.push(...commit.artifact_refs);
    d.trace.push(commit.stage_name);
    const fingerprint = batonFingerprint({
      ...base,
      revision: d.revision,
      records: [...base.records, ...added],
      artifact_refs: [...base.artifact_refs, ...commit.artifact_refs],
      trace: [...base.trace, commit.stage_name],
    });
    d.stage_receipts.push(deepFreeze(deepCopy(commit.receipt(fingerprint, d.revision))));
    d.fingerprint = fingerprint;
    d.snapshot_id = snapshotId(base.baton_id, d.revision, fingerprint);
  });
  // A sound base is deep-frozen and the added parts were frozen above: freezing the containers
  // completes a deep-frozen result without walking the whole baton again.
  if (SOUND.has(base)) {
    for (const c of [next, next.records, next.artifact_refs, next.trace, next.stage_receipts])
      Object.freeze(c);
    return sound(next);
  }
  return sound(deepFreeze(next));
}

/**
 * The committed facts of a baton as a read-only map of detached deep copies.
 *
 * @example
 * ```ts
 * batonFacts(b).net_total; // 13706097
 * ```
 */
export function batonFacts(b: Baton): Readonly<Record<string, unknown>> {
  const out: Record<string, unknown> = Object.create(null);
  for (const r of b.records) out[r.key] = deepCopy(r.value);
  return readOnly(out);
}

/**
 * A detached deep copy of one record's value (records hand values out as copies).
 *
 * @example
 * ```ts
 * const lines = factValue(b, 'pay_lines') as PayLine[]; lines.length = 0; // b is untouched
 * ```
 */
export function factValue(b: Baton, key: string): unknown {
  const r = b.records.find((x) => x.key === key);
  return r === undefined ? undefined : deepCopy(r.value);
}
