/** Fixtures for the run-persistence tests: records, a scriptable faulty store, temp dirs. */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Handoff } from '../../src/contract/index.js';
import { PersistController, type PersistControllerOptions } from '../../src/persist/controller.js';
import { knowledgeFromDispatch } from '../../src/persist/knowledge.js';
import type { StateFs } from '../../src/persist/state-file.js';
import { nodeStateFs } from '../../src/persist/state-file.js';
import { type PersistState, STATE_SCHEMA } from '../../src/persist/state-schema.js';
import { fileStateStore } from '../../src/persist/state-store.js';
import { createMemoryStore, type MemoryStore } from '../../src/store/memory-store.js';
import type { Store, StoreResult } from '../../src/store/store.js';
import { canonicalDispatch, stuckHandoff } from '../contract/fixtures.js';

export { canonicalDispatch as dispatch, stuckHandoff } from '../contract/fixtures.js';
export { note } from '../store/fixtures.js';

/** A worker handoff that changed the owned file. */
export function workerHandoff(): Handoff {
  const h = stuckHandoff();
  return {
    ...h,
    files_changed: ['/repo/Mathlib/Foo.lean'],
    file_baseline: {
      schema: 'file-baseline/v1',
      files: [
        {
          path: '/repo/Mathlib/Foo.lean',
          realpath: '/repo/Mathlib/Foo.lean',
          exists: true,
          sha256: '1'.repeat(64),
          size: 1300,
        },
      ],
    },
    artifacts: [{ kind: 'unified-diff', content: '--- a\n+++ b\n' }],
  };
}

/** A completed batch review. */
export function batchReview(): Record<string, unknown> {
  return {
    schema: 'review-record/v1',
    cycle: 0,
    mode: 'batch',
    target: 'Mathlib/Foo.lean:42',
    scope: 'sorry',
    line: null,
    source: 'internal',
    status: 'completed',
    output: { schema: 'lean4-review-output/v2', error: null, suggestions: ['try simp'] },
    triage: null,
    mapped_handoff: null,
    detail: null,
  };
}

/** A replan summary citing `cites`. */
export function replan(cites: string[]): Record<string, unknown> {
  return {
    schema: 'replan-summary/v1',
    cycle: 1,
    plan: 'prove the helper lemma first',
    failed_approaches: ['exact foo'],
    blockers: [{ file: 'Mathlib/Foo.lean', line: 42, blocker_class: null, blocker_signature: null }],
    next_steps: ['state helper'],
    cites,
  };
}

/** A fixed clock. */
export const fixedClock = (): Date => new Date('2026-11-30T10:00:00Z');

/**
 * A scripted response for {@link FaultyStore}: a raw result, a raw result built from the run id
 * the mutation addressed, a throw, or pass-through.
 */
export type Scripted = { raw: unknown } | { rawFor: (runId: string) => unknown } | { throws: Error } | 'pass';

/** A store wrapper whose next mutation responses can be scripted (any raw value, even malformed). */
export interface FaultyStore extends Store {
  readonly inner: MemoryStore;
  script(...s: Scripted[]): void;
  readonly mutations: string[];
}

/**
 * Wraps a memory store; scripted responses replace the next mutation results (the inner store is
 * not called for them unless `'pass'`).
 */
export function faultyStore(inner: MemoryStore = createMemoryStore({ now: fixedClock })): FaultyStore {
  const queue: Scripted[] = [];
  const mutations: string[] = [];
  async function run(op: string, fn: () => Promise<StoreResult>, runId = ''): Promise<StoreResult> {
    mutations.push(op);
    const s = queue.shift() ?? 'pass';
    if (s === 'pass') return fn();
    if ('throws' in s) throw s.throws;
    if ('rawFor' in s) return s.rawFor(runId) as StoreResult;
    return s.raw as StoreResult;
  }
  return {
    inner,
    mutations,
    backend: 'faulty',
    root: inner.root,
    script: (...s) => queue.push(...s),
    createRun: (i) => run('create', () => inner.createRun(i)),
    append: (id, k, p) => run(`append:${k}`, () => inner.append(id, k, p), id),
    setHandoff: (id, p) => run('set-handoff', () => inner.setHandoff(id, p), id),
    load: (id) => inner.load(id),
    listRuns: () => inner.listRuns(),
    isLocked: (id) => inner.isLocked(id),
  };
}

/**
 * A state fs whose saves fail on the listed (1-based) call numbers: a save is one `replace` (a
 * whole rewrite, or the log's creation) or one `append` (a delta), so the numbering is the
 * controller's save count whichever form a save takes.
 */
export function faultyStateFs(
  failReplaceCalls: number[],
  base: StateFs = nodeStateFs,
): StateFs & { calls: number } {
  const failing = () => {
    fs.calls++;
    if (failReplaceCalls.includes(fs.calls)) throw Object.assign(new Error('EIO'), { code: 'EIO' });
  };
  const fs = {
    calls: 0,
    createExclusive: base.createExclusive.bind(base),
    read: base.read.bind(base),
    async replace(path: string, text: string) {
      failing();
      return base.replace(path, text);
    },
    async append(path: string, text: string) {
      failing();
      return (base.append as NonNullable<StateFs['append']>).call(base, path, text);
    },
    fingerprint: (base.fingerprint as NonNullable<StateFs['fingerprint']>).bind(base),
    remove: (base.remove as NonNullable<StateFs['remove']>).bind(base),
  };
  return fs;
}

/** The controller's current state in the state file at `statePath` (the file and its log). */
export async function readStateFile(statePath: string): Promise<PersistState> {
  const r = await fileStateStore(nodeStateFs, statePath).load();
  if (!r.ok) throw new Error(`state: ${r.detail}`);
  return r.state;
}

/** A temp dir for one test, removed by the returned cleanup. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'persist-test-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A controller over `store` with the state file in `dir`; sleeps are recorded, never waited. */
export function controller(
  dir: string,
  store: Store,
  extra: Partial<PersistControllerOptions> = {},
): { c: PersistController; sleeps: number[]; statePath: string } {
  const sleeps: number[] = [];
  const statePath = join(dir, 'state.json');
  const c = new PersistController({
    statePath,
    openStore: () => store,
    storageRoot: store.root,
    projectRoot: '/repo',
    clock: fixedClock,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });
  return { c, sleeps, statePath };
}

/** A run id in the run-id format, for the pure-rule tests. */
export const RULES_RUN_ID = '20261130T100000Z-0123abcd';

/** An invocation state of a created run with `last_seq` 1 and nothing in flight (pure-rule tests). */
export function runningState(extra: Partial<PersistState> = {}): PersistState {
  const d = canonicalDispatch();
  return {
    schema: STATE_SCHEMA,
    storage_root: '/repo/.handoff',
    project_root: '/repo',
    run_id: RULES_RUN_ID,
    run_directory: `/repo/.handoff/runs/${RULES_RUN_ID}`,
    prior_run: null,
    knowledge: knowledgeFromDispatch(d),
    last_seq: 1,
    history: [{ seq: 1, kind: 'note', cite: `${RULES_RUN_ID}#1` }],
    inflight: null,
    unpersisted: [],
    stopped: null,
    finished: null,
    final_handoff: null,
    source_note_cite: null,
    ...extra,
  };
}
