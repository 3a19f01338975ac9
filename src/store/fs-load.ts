/**
 * Loading a run from the fs store (no lock): the manifest, the journal read up to the size seen at
 * open and parsed into its valid prefix and damage, and — for run-contract runs — the handoff
 * cache; the batch sidecar, when the run has one, cuts the prefix back to the last whole batch.
 * A load never repairs or rewrites anything.
 */
import { errnoOf, O, readFileNoFollow, readRange } from '../durable/index.js';
import { assembleBatches, batchWarnings, judgeBatches, type LinedRecord } from './batch-rules.js';
import { parseChainJournal } from './chain-rules.js';
import { type ChainStoreEvent, isChainManifest, type StoredManifest } from './chain-schema.js';
import { readSidecar } from './fs-batch-sidecar.js';
import { type FsContext, locateRun, recordedRoot } from './fs-context.js';
import type { RunPaths } from './fs-layout.js';
import { readManifest } from './fs-manifest.js';
import { parseJournal } from './journal-parse.js';
import { quoteValue } from './quote-value.js';
import { isRunId } from './run-id.js';
import { assembleChainLoad, assembleLoad, storageRootWarnings } from './run-load.js';
import { eventSchemaOf, type HandoffCache, type StoreEvent } from './schema.js';
import type {
  AnyLoadResult,
  BatchesLoadResult,
  BatchStatus,
  JournalDamage,
  LoadWarning,
  StoreCode,
} from './store.js';
import { validateHandoffCache } from './validate-payload.js';

/** A run read from disk (no lock): its manifest, paths and journal bytes, or the refusal. */
type ReadRun =
  | {
      readonly ok: true;
      readonly manifest: StoredManifest;
      readonly paths: RunPaths;
      readonly bytes: Buffer;
    }
  | { readonly ok: false; readonly code: StoreCode; readonly run_id: string | null; readonly detail: string };

/** Locates the run, reads its manifest and its journal up to the size seen at open. */
function readRun(ctx: FsContext, runId: string): ReadRun {
  const { fsl } = ctx;
  if (!isRunId(runId))
    return {
      ok: false,
      code: 'bad_run_id',
      run_id: null,
      detail: `not a run id: ${quoteValue(runId)}`,
    };
  const loc = locateRun(ctx, runId);
  if (!loc.ok) return { ok: false, code: loc.code, run_id: runId, detail: loc.detail };
  const p = loc.paths;
  const m = readManifest(fsl, ctx.manifests, runId, p);
  if (!m.ok) return { ok: false, code: m.code, run_id: runId, detail: m.detail };
  let fd: number;
  try {
    fd = fsl.open(p.events, O.O_RDONLY | O.O_NOFOLLOW);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT')
      return { ok: false, code: 'integrity_failure', run_id: runId, detail: 'events.jsonl is missing' };
    if (code === 'ELOOP')
      return { ok: false, code: 'containment', run_id: runId, detail: 'events.jsonl is a symlink' };
    return {
      ok: false,
      code: 'journal_unreadable',
      run_id: runId,
      detail: `cannot open events.jsonl: ${code}`,
    };
  }
  try {
    const st = fsl.fstat(fd);
    if (!st.isFile())
      return {
        ok: false,
        code: 'containment',
        run_id: runId,
        detail: 'events.jsonl is not a regular file',
      };
    return { ok: true, manifest: m.manifest, paths: p, bytes: readRange(fsl, fd, 0, st.size) };
  } catch (e) {
    return {
      ok: false,
      code: 'journal_unreadable',
      run_id: runId,
      detail: `cannot read events.jsonl: ${errnoOf(e) || String(e)}`,
    };
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // read-only
    }
  }
}

/** A journal judged with its batch records: the all-or-nothing valid prefix and its damage. */
interface JudgedRun {
  readonly ok: true;
  readonly manifest: StoredManifest;
  readonly paths: RunPaths;
  readonly events: readonly (StoreEvent | ChainStoreEvent)[];
  readonly damage: JournalDamage | null;
  readonly records: readonly LinedRecord[];
  readonly statuses: readonly BatchStatus[];
  readonly batchWarnings: readonly LoadWarning[];
}

/**
 * Reads and judges a run: the journal's valid prefix cut back to the last whole batch (the
 * sidecar's records), the damage (a torn batch is a torn tail), the sidecar's warnings. The
 * sidecar is read after the journal: a batch committed in between has its record in it, so its
 * events are judged (a record whose events the journal read does not hold yet is `aborted`).
 */
function judgeRun(ctx: FsContext, runId: string): JudgedRun | Exclude<ReadRun, { ok: true }> {
  const r = readRun(ctx, runId);
  if (!r.ok) return r;
  const { manifest, bytes } = r;
  const parsed = isChainManifest(manifest)
    ? parseChainJournal(bytes, manifest)
    : parseJournal(bytes, runId, eventSchemaOf(manifest));
  const side = readSidecar(ctx, r.paths);
  if (!side.ok) return { ok: false, code: side.code, run_id: runId, detail: side.detail };
  if (side.parsed === null)
    return {
      ok: true,
      manifest,
      paths: r.paths,
      events: parsed.events,
      damage: parsed.damage,
      records: [],
      statuses: [],
      batchWarnings: [],
    };
  const j = judgeBatches(side.parsed.records, {
    bytes,
    fromSeq: 1,
    lastSeq: parsed.events.length,
    validBytes: parsed.validBytes,
    damage: parsed.damage,
  });
  return {
    ok: true,
    manifest,
    paths: r.paths,
    events: parsed.events.slice(0, j.lastSeq),
    damage: j.damage,
    records: side.parsed.records,
    statuses: j.statuses,
    batchWarnings: batchWarnings(side.parsed),
  };
}

/**
 * Loads a run of either kind (`loadRun`): `{ok: true, value}` with the valid prefix and its damage,
 * or a refusal (`bad_run_id`, `no_such_run`, `incomplete_run`, `integrity_failure`,
 * `containment`, `journal_unreadable`…). The prefix is all-or-nothing per batch: it ends before a
 * batch the sidecar shows torn.
 *
 * @example
 * ```ts
 * const r = loadSync(ctx, runId);
 * if (r.ok) r.value.events.length;
 * ```
 */
export function loadSync(ctx: FsContext, runId: string): AnyLoadResult {
  const j = judgeRun(ctx, runId);
  if (!j.ok) return j;
  const { manifest } = j;
  const warnings = [...storageRootWarnings(manifest.storage_root, recordedRoot(ctx)), ...j.batchWarnings];
  if (isChainManifest(manifest))
    return {
      ok: true,
      value: assembleChainLoad(manifest, j.events as ChainStoreEvent[], j.damage, warnings),
    };
  let cache: HandoffCache | null | 'invalid' = null;
  try {
    const c = readFileNoFollow(ctx.fsl, j.paths.cache);
    if (c !== null) {
      const v = validateHandoffCache(JSON.parse(c.toString('utf8')));
      cache = v.ok ? v.value : 'invalid';
    }
  } catch {
    cache = 'invalid';
  }
  return { ok: true, value: assembleLoad(manifest, j.events as StoreEvent[], j.damage, cache, warnings) };
}

/**
 * Reads a run's batch records (`readBatches`): each with its status against the valid prefix,
 * and the damaged sidecar lines as warnings; a run without a sidecar has none.
 *
 * @example
 * ```ts
 * const b = loadBatchesSync(ctx, runId);
 * if (b.ok) b.value.batches.filter((x) => x.status === 'complete');
 * ```
 */
export function loadBatchesSync(ctx: FsContext, runId: string): BatchesLoadResult {
  const j = judgeRun(ctx, runId);
  if (!j.ok) return j;
  return {
    ok: true,
    value: assembleBatches(j.manifest.run_id, j.records, j.statuses, j.batchWarnings),
  };
}
