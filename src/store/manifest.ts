/**
 * Building a run's manifest from a create request: dispatch validation (depth first), timestamp
 * and prior-run checks, the run id (its suffix from `env.runIdSuffix`), v1/v2 selection, and that
 * the manifest can be written as UTF-8 (no lone surrogate).
 */
import type { Dispatch } from '../contract/dispatch-schema.js';
import { validateDispatch } from '../contract/validate.js';
import type { IdSource } from '../ids/index.js';
import { depthIssue, type ValidationResult } from '../validation/index.js';
import { unwritableIn } from './canonical-fast.js';
import { quoteValue } from './quote-value.js';
import { formatTimestamp, isRunId, isTimestamp, makeRunId } from './run-id.js';
import { EVENT_V2_SCHEMA, MANIFEST_V1_SCHEMA, MANIFEST_V2_SCHEMA, type Manifest } from './schema.js';
import type { CreateRunInput, StoreCode } from './store.js';
import { describeIssues } from './validate-payload.js';

/** The package version recorded as `plugin_version` by default. */
export const RUNTIME_VERSION = '0.1.0';

/** Environment of {@link buildManifest}. */
export interface ManifestEnv {
  /** Recorded as `storage_root`. */
  readonly storageRoot: string;
  /** Recorded as `plugin_version`. */
  readonly pluginVersion: string;
  /** Used when the input has no `now`. */
  readonly now: () => Date;
  /** The source of the run id's 8 hex digits (default: random, `randomRunIdSuffix`). */
  readonly runIdSuffix?: IdSource | undefined;
}

/** Outcome of {@link buildManifest}. */
export type ManifestBuild =
  | { readonly ok: true; readonly manifest: Manifest }
  | { readonly ok: false; readonly code: StoreCode; readonly run_id: string | null; readonly detail: string };

/**
 * Validates a create request and builds the manifest it would publish. A dispatch nested deeper
 * than `MAX_RECORD_DEPTH` is `invalid_dispatch` (`too_deep`), and so is one holding a string with
 * a lone surrogate (not encodable as UTF-8; the reference refuses it too). Never throws for a bad request (an
 * injected `runIdSuffix` returning no 8-hex suffix is a programming error: RangeError).
 *
 * @example
 * ```ts
 * const b = buildManifest({ dispatch, now: '2026-11-30T10:00:00Z' }, { storageRoot: '/p/.handoff', pluginVersion: '0.1.0', now: () => new Date() });
 * if (b.ok) b.manifest.run_id; // '20261130T100000Z-…'
 * ```
 */
export function buildManifest(input: CreateRunInput, env: ManifestEnv): ManifestBuild {
  const version = input.eventSchema ?? 'v2';
  if (version !== 'v1' && version !== 'v2') {
    return {
      ok: false,
      code: 'bad_event_schema',
      run_id: null,
      detail: `unknown event schema ${quoteValue(version)}`,
    };
  }
  const created = input.now ?? formatTimestamp(env.now());
  if (typeof created !== 'string' || !isTimestamp(created)) {
    return {
      ok: false,
      code: 'bad_timestamp',
      run_id: null,
      detail: `not YYYY-MM-DDTHH:MM:SSZ: ${quoteValue(created)}`,
    };
  }
  const tsid = input.trackerSessionId ?? null;
  if (tsid !== null && (typeof tsid !== 'string' || tsid === '')) {
    return {
      ok: false,
      code: 'invalid_payload',
      run_id: null,
      detail: 'tracker session id must be a non-empty string',
    };
  }
  const prior = input.priorRun ?? null;
  if (prior !== null && !isRunId(prior)) {
    return {
      ok: false,
      code: 'bad_run_id',
      run_id: null,
      detail: `prior run is not a run id: ${quoteValue(prior)}`,
    };
  }
  const deep = depthIssue(input.dispatch);
  const d: ValidationResult<Dispatch> =
    deep === null ? validateDispatch(input.dispatch) : { ok: false, issues: [deep] };
  if (!d.ok) {
    return {
      ok: false,
      code: 'invalid_dispatch',
      run_id: null,
      detail: `invalid dispatch: ${describeIssues(d.issues)}`,
    };
  }
  const dispatch = d.value;
  const runId = makeRunId(created, env.runIdSuffix);
  const common = {
    run_id: runId,
    created,
    plugin_version: env.pluginVersion,
    storage_root: env.storageRoot,
    tracker_session_id: tsid,
    prior_run: prior,
    dispatch,
  };
  const manifest: Manifest =
    version === 'v2'
      ? { schema: MANIFEST_V2_SCHEMA, ...common, event_schema: EVENT_V2_SCHEMA }
      : { schema: MANIFEST_V1_SCHEMA, ...common };
  const unwritable = unwritableIn(manifest);
  if (unwritable !== null)
    return { ok: false, code: 'invalid_dispatch', run_id: null, detail: `invalid dispatch: ${unwritable}` };
  return { ok: true, manifest };
}
