/**
 * Loading a run from the fs store (no lock): the manifest, the journal read up to the size seen at
 * open and parsed into its valid prefix and damage, and — for run-contract runs — the handoff
 * cache. A load never repairs or rewrites anything.
 */
import { errnoOf, O, readFileNoFollow, readRange } from '../durable/index.js';
import { parseChainJournal } from './chain-rules.js';
import { isChainManifest } from './chain-schema.js';
import { type FsContext, locateRun, recordedRoot } from './fs-context.js';
import { readManifest } from './fs-manifest.js';
import { parseJournal } from './journal-parse.js';
import { quoteValue } from './quote-value.js';
import { isRunId } from './run-id.js';
import { assembleChainLoad, assembleLoad, storageRootWarnings } from './run-load.js';
import { eventSchemaOf, type HandoffCache } from './schema.js';
import type { AnyLoadResult } from './store.js';
import { validateHandoffCache } from './validate-payload.js';

/**
 * Loads a run of either kind (`loadRun`): `{ok: true, value}` with the valid prefix and its damage,
 * or a refusal (`bad_run_id`, `no_such_run`, `incomplete_run`, `integrity_failure`,
 * `containment`, `journal_unreadable`…).
 *
 * @example
 * ```ts
 * const r = loadSync(ctx, runId);
 * if (r.ok) r.value.events.length;
 * ```
 */
export function loadSync(ctx: FsContext, runId: string): AnyLoadResult {
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
  const manifest = m.manifest;
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
  let bytes: Buffer;
  try {
    const st = fsl.fstat(fd);
    if (!st.isFile())
      return {
        ok: false,
        code: 'containment',
        run_id: runId,
        detail: 'events.jsonl is not a regular file',
      };
    bytes = readRange(fsl, fd, 0, st.size);
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
  if (isChainManifest(manifest)) {
    const parsed = parseChainJournal(bytes, manifest);
    const warnings = storageRootWarnings(manifest.storage_root, recordedRoot(ctx));
    return { ok: true, value: assembleChainLoad(manifest, parsed.events, parsed.damage, warnings) };
  }
  const parsed = parseJournal(bytes, runId, eventSchemaOf(manifest));
  let cache: HandoffCache | null | 'invalid' = null;
  try {
    const c = readFileNoFollow(fsl, p.cache);
    if (c !== null) {
      const v = validateHandoffCache(JSON.parse(c.toString('utf8')));
      cache = v.ok ? v.value : 'invalid';
    }
  } catch {
    cache = 'invalid';
  }
  const warnings = storageRootWarnings(manifest.storage_root, recordedRoot(ctx));
  return { ok: true, value: assembleLoad(manifest, parsed.events, parsed.damage, cache, warnings) };
}
