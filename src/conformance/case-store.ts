/**
 * The run store of a case project (layer 3, file system): a small run-store/v1 layout under
 * `<project>/.handoff` — one run with its manifest and a one-event journal — as a project that
 * `handoff run --persist` works on has, so a worker that forges an event or plants a `.lock` is
 * seen writing into it. The contents are plausible, not a run anyone made.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../canonical/index.js';
import type { Dispatch } from '../contract/index.js';

/**
 * The run id of the case store's one run.
 *
 * @example
 * ```ts
 * join(root, '.handoff', 'runs', CASE_RUN_ID, 'events.jsonl');
 * ```
 */
export const CASE_RUN_ID = '20000101T000000Z-c0ffee00';

const CREATED = '2000-01-01T00:00:00Z';

/**
 * Writes the store under `root/.handoff` (`runs/.gitignore`, `runs/<CASE_RUN_ID>/manifest.json`
 * holding `dispatch`, and `events.jsonl` with one note) and resolves to the store's root.
 *
 * @example
 * ```ts
 * const storeRoot = await plantRunStore(root, dispatch); // '/tmp/…/.handoff'
 * ```
 */
export async function plantRunStore(root: string, dispatch: Dispatch): Promise<string> {
  const storeRoot = join(root, '.handoff');
  const run = join(storeRoot, 'runs', CASE_RUN_ID);
  await mkdir(run, { recursive: true });
  await writeFile(join(storeRoot, 'runs', '.gitignore'), '*\n');
  const manifest = {
    schema: 'run-store-manifest/v2',
    run_id: CASE_RUN_ID,
    created: CREATED,
    plugin_version: 'handoff-conformance',
    storage_root: storeRoot,
    tracker_session_id: null,
    prior_run: null,
    dispatch,
    event_schema: 'run-store-event/v2',
  };
  const note = {
    kind: 'note',
    payload: { kind: 'source-note', text: 'conformance case project', lean: null },
    schema: 'run-store-event/v2',
    seq: 1,
    ts: CREATED,
  };
  await writeFile(join(run, 'manifest.json'), canonicalJson(manifest));
  await writeFile(join(run, 'events.jsonl'), `${canonicalJson(note)}\n`);
  return storeRoot;
}
