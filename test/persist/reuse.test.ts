/**
 * Prior-run reuse: selection and merged baseline, the content-bound drift report, custody
 * (approval token, custody_mismatch after approval), unusable prior runs, the start checks
 * (blocker_cleared, rerun_forbidden, baseline_mismatch, justification) and the source-note event,
 * flattened across chained reuse. Real files in a temp project; the in-memory store.
 */
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordBaseline } from '../../src/baseline/record.js';
import type { Dispatch, Handoff } from '../../src/contract/index.js';
import { PersistController } from '../../src/persist/controller.js';
import { deriveCustody, preparePriorStart, reusePreview } from '../../src/persist/reuse.js';
import type { ReuseReport } from '../../src/persist/reuse-report.js';
import { parseSourceNote } from '../../src/persist/source-note.js';
import { createFsStore } from '../../src/store/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/store/memory-store.js';
import {
  dispatch as baseDispatch,
  faultyStateFs,
  faultyStore,
  fixedClock,
  type Scripted,
  stuckHandoff,
  tempDir,
} from './fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
let project: string;
let A: string;
let B: string;
let store: MemoryStore;
let clockTick = 0;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  project = await realpath(dir);
  await mkdir(join(project, 'src'));
  A = join(project, 'src', 'Foo.lean');
  B = join(project, 'src', 'Bar.lean');
  await writeFile(A, 'theorem foo : True := sorry\n');
  await writeFile(B, 'theorem bar : True := sorry\n');
  clockTick = 0;
  store = createMemoryStore({ now: () => new Date(Date.UTC(2026, 10, 30, 10, 0, clockTick++)) });
});
afterEach(async () => {
  await cleanup();
});

async function task(owned: string[], over: Partial<Dispatch> = {}): Promise<Dispatch> {
  return {
    ...baseDispatch(),
    target: 'src/Foo.lean:42',
    owned_files: owned,
    file_baseline: await recordBaseline(owned, { cwd: project }),
    ...over,
  };
}

function stuck(d: Dispatch): Handoff {
  return { ...stuckHandoff(), target: d.target, files_owned: d.owned_files, file_baseline: d.file_baseline };
}

/** A prior run: dispatch, note, replan, stuck handoff. */
async function priorRun(): Promise<{ runId: string; d: Dispatch }> {
  const d = await task([A]);
  const c = await store.createRun({ dispatch: d, now: '2026-11-29T10:00:00Z' });
  const runId = c.run_id as string;
  await store.append(runId, 'note', { kind: 'failed-avenue', text: 'simp loops', lean: 'simp [foo]' });
  await store.append(runId, 'replan', {
    schema: 'replan-summary/v1',
    cycle: 1,
    plan: 'prove a helper lemma',
    failed_approaches: ['direct simp'],
    blockers: [{ file: 'src/Foo.lean', line: 42, blocker_class: null, blocker_signature: 'x' }],
    next_steps: ['state helper'],
    cites: [`${runId}#1`],
  });
  await store.append(runId, 'handoff', stuck(d));
  return { runId, d };
}

const env = () => ({ store, projectRoot: project });
const inv = (priorRunId: string, owned = [A], over: Record<string, string> = {}) => ({
  priorRun: priorRunId,
  target: 'src/Foo.lean:42',
  scope: 'sorry',
  mode: 'prove',
  ownedFiles: owned,
  ...over,
});

async function preview(runId: string, owned = [A], over: Record<string, string> = {}): Promise<ReuseReport> {
  const r = await reusePreview(env(), inv(runId, owned, over));
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.value;
}

describe('reuse preview', () => {
  it('selects the last dispatch, latest handoff, carries the blocker and the historical evidence with cites', async () => {
    const { runId } = await priorRun();
    const p = await preview(runId);
    expect(p.observed_seq).toBe(3);
    expect(p.selection).toMatchObject({
      dispatch_cite: `${runId}#manifest`,
      handoff_cite: `${runId}#3`,
      handoff_finality: 'unknown',
      guard_evaluable: true,
    });
    expect(p.selection.baseline_origins).toEqual([{ path: A, origin: `${runId}#3` }]);
    expect(p.carry.prior_blocker).toBe(stuckHandoff().blocker_signature);
    expect(p.carry.replan_blockers?.cite).toBe(`${runId}#2`);
    expect(p.historical.plan).toEqual({ text: 'prove a helper lemma', cite: `${runId}#2` });
    expect(p.historical.failed_avenues).toEqual(
      expect.arrayContaining([
        { text: 'simp loops', cite: `${runId}#1`, source: 'note' },
        { text: 'direct simp', cite: `${runId}#2`, source: 'replan' },
      ]),
    );
    expect(p.historical.snippets).toEqual([{ lean: 'simp [foo]', cite: `${runId}#1`, verified: false }]);
    expect(p.historical.candidates[0]).toMatchObject({ verified: false, cite: `${runId}#3` });
    expect(p.drift.result).toBe('match');
  });

  it('a redispatch newer than the handoff wins per path; older records fill the rest', async () => {
    const d = await task([A, B]);
    const c = await store.createRun({ dispatch: d, now: '2026-11-29T10:00:00Z' });
    const id = c.run_id as string;
    // handoff covers both; a later redispatch covers only A
    await store.append(id, 'handoff', stuck(d));
    await store.append(id, 'dispatch', await task([A]));
    const p = await preview(id, [A, B]);
    expect(p.selection.dispatch_cite).toBe(`${id}#2`);
    expect(Object.fromEntries(p.selection.baseline_origins.map((o) => [o.path, o.origin]))).toEqual({
      [A]: `${id}#2`,
      [B]: `${id}#1`,
    });
  });

  it('an owned file no prior record covers is uncovered, never an implicit match', async () => {
    const { runId } = await priorRun();
    const p = await preview(runId, [A, B]);
    expect(p.drift.result).toBe('uncovered');
    expect(p.drift.uncovered).toEqual([B]);
    expect(p.drift.entries.find((e) => e.path === B)?.prior_status).toBe('uncovered');
  });

  it('reports drift with a content-bound token that changes with the bytes', async () => {
    const { runId } = await priorRun();
    const t0 = (await preview(runId)).drift.approval_token;
    await writeFile(A, 'changed\n');
    const p1 = await preview(runId);
    expect(p1.drift.result).toBe('drift');
    expect(p1.drift.entries[0]?.prior_status).toBe('modified');
    await writeFile(A, 'changed again\n');
    const p2 = await preview(runId);
    expect(p2.drift.approval_token).not.toBe(p1.drift.approval_token);
    expect(p1.drift.approval_token).not.toBe(t0);
    // a missing owned file is drift (deleted), with its absence recorded and its own token
    await rm(A);
    const p3 = await preview(runId);
    expect(p3.drift.result).toBe('drift');
    expect(p3.drift.entries[0]?.prior_status).toBe('deleted');
    expect(p3.drift.current_baseline.files[0]).toMatchObject({ path: A, exists: false, sha256: null });
    expect(p3.drift.approval_token).not.toBe(p2.drift.approval_token);
  });

  it('refuses unusable prior runs and incompatible invocations', async () => {
    const { runId } = await priorRun();
    const code = async (i: ReturnType<typeof inv>) => {
      const r = await reusePreview(env(), i);
      return r.ok ? 'ok' : r.code;
    };
    expect(await code(inv('latest'))).toBe('bad_prior_run');
    expect(await code(inv('20261129T100000Z-00000000'))).toBe('bad_prior_run');
    expect(await code(inv(runId, [A], { mode: 'golf' }))).toBe('incompatible_mode');
    expect(await code(inv(runId, [A], { mode: 'autoprove' }))).toBe('ok');
    expect(await code(inv(runId, [A], { target: 'src/Foo.lean:43' }))).toBe('incompatible_target');
    expect(await code(inv(runId, [A], { target: 'src/Foo.lean', scope: 'file' }))).toBe('ok');
    expect(await code(inv(runId, [A], { target: 'src/Foo2.lean', scope: 'file' }))).toBe(
      'incompatible_target',
    );
    expect(await code(inv(runId, [A], { target: 'src', scope: 'project' }))).toBe('ok');
    expect(await code(inv(runId, [A], { target: 'sr', scope: 'project' }))).toBe('incompatible_target');
    expect(await code(inv(runId, ['/elsewhere/X.lean']))).toBe('incompatible_owned_files');
    expect(await code(inv(runId, []))).toBe('incompatible_owned_files');
    store.holdLock(runId, true);
    expect(await code(inv(runId))).toBe('prior_run_active');
    store.holdLock(runId, false);
    store.damage(runId);
    expect(await code(inv(runId))).toBe('prior_run_damaged');
    // a store that does not exist holds no such run: an unknown id, not an unreadable run
    const none = createFsStore({ root: join(dir, 'no-store') });
    const r = await reusePreview({ store: none, projectRoot: project }, inv(runId));
    expect(!r.ok && [r.code, r.details?.store_code]).toEqual(['bad_prior_run', 'no_storage_root']);
  });
});

describe('custody', () => {
  it('match needs no approval and returns the fresh baseline', async () => {
    const { runId } = await priorRun();
    const report = await preview(runId);
    const c = await deriveCustody(env(), { report, ownedFiles: [A] });
    expect(c.ok && c.value.custody).toMatchObject({ schema: 'run-persist-custody/v1', result: 'match' });
    expect(c.ok && c.value.custody.fresh_baseline).toEqual(await recordBaseline([A], { cwd: project }));
  });

  it('drift: unapproved, approval mismatch, approved, then custody_mismatch after the file changes again', async () => {
    const { runId } = await priorRun();
    await writeFile(A, 'edited outside\n');
    const report = await preview(runId);
    const codeOf = async (approve?: string) => {
      const r = await deriveCustody(env(), { report, ownedFiles: [A], approve });
      return r.ok ? r.value.custody.result : r.code;
    };
    expect(await codeOf()).toBe('drift_unapproved');
    expect(await codeOf('0'.repeat(64))).toBe('approval_mismatch');
    expect(await codeOf(report.drift.approval_token)).toBe('drift');
    await writeFile(A, 'edited again, same list\n');
    expect(await codeOf(report.drift.approval_token)).toBe('custody_mismatch');
  });

  it('binds to the report: other ownership set, changed prior run, bad report shape', async () => {
    const { runId } = await priorRun();
    const report = await preview(runId);
    const other = await deriveCustody(env(), { report, ownedFiles: [A, B] });
    expect(!other.ok && other.code).toBe('reuse_report_mismatch');
    const bad = await deriveCustody(env(), { report: { ...report, schema: 'x' }, ownedFiles: [A] });
    expect(!bad.ok && bad.code).toBe('bad_reuse_report');
    await store.append(runId, 'note', { kind: 'candidate', text: 'late', lean: null });
    const changed = await deriveCustody(env(), { report, ownedFiles: [A] });
    expect(!changed.ok && changed.code).toBe('prior_run_changed');
  });

  it('autoprove never accepts drift: drift_unreconciled with an operational-error handoff', async () => {
    const { runId } = await priorRun();
    await writeFile(A, 'edited\n');
    const report = await preview(runId, [A], { mode: 'autoprove' });
    const r = await deriveCustody(env(), { report, ownedFiles: [A], approve: report.drift.approval_token });
    expect(!r.ok && r.code).toBe('drift_unreconciled');
    expect(!r.ok && r.handoff?.stop_reason).toBe('operational-error');
    expect(!r.ok && r.handoff?.stop_detail).toContain(A);
  });
});

describe('start --prior-run', () => {
  async function setup() {
    const prior = await priorRun();
    const report = await preview(prior.runId);
    const fresh = await deriveCustody(env(), { report, ownedFiles: [A] });
    if (!fresh.ok) throw new Error(fresh.code);
    const d: Dispatch = {
      ...(await task([A])),
      file_baseline: fresh.value.custody.fresh_baseline,
      prior_blocker: stuckHandoff().blocker_signature,
      evidence_delta: ['a verified helper lemma Foo.helper now exists'],
    };
    return { ...prior, report, d };
  }
  const prep = (runId: string, report: unknown, d: Dispatch, extra: Record<string, string> = {}) =>
    preparePriorStart(env(), { priorRun: runId, report, dispatch: d, ...extra });

  it('refuses blocker_cleared, rerun_forbidden (echoing the required evidence), baseline_mismatch, report mismatch', async () => {
    const { runId, report, d } = await setup();
    const cleared = await prep(runId, report, { ...d, prior_blocker: null });
    expect(!cleared.ok && cleared.code).toBe('blocker_cleared');
    const forbidden = await prep(runId, report, { ...d, evidence_delta: [] });
    expect(!forbidden.ok && forbidden.code).toBe('rerun_forbidden');
    expect(!forbidden.ok && forbidden.details?.new_evidence_required_for_rerun).toBe(
      stuckHandoff().new_evidence_required_for_rerun,
    );
    const stale = {
      ...d,
      file_baseline: {
        ...d.file_baseline,
        files: d.file_baseline.files.map((f) => ({ ...f, realpath: join(project, 'src', 'Other.lean') })),
      },
    };
    const mismatch = await prep(runId, report, stale);
    expect(!mismatch.ok && mismatch.code).toBe('baseline_mismatch');
    const wrongScope = await prep(runId, report, { ...d, scope: 'file' });
    expect(!wrongScope.ok && wrongScope.code).toBe('reuse_report_mismatch');
    const otherRun = await prep('20261129T100000Z-00000000', report, d);
    expect(!otherRun.ok && otherRun.code).toBe('reuse_report_mismatch');
  });

  it('an operational prior stop needs a specific --evidence-justification', async () => {
    const d0 = await task([A]);
    const c = await store.createRun({ dispatch: d0, now: '2026-11-29T10:00:00Z' });
    const id = c.run_id as string;
    const op: Handoff = {
      ...stuck(d0),
      status: 'stopped',
      stop_reason: 'operational-error',
      stop_detail: 'run-store busy: locked',
      blocker_kind: null,
      blocker_class: null,
      blocker_signature: null,
      new_evidence_required_for_rerun: null,
    };
    await store.append(id, 'handoff', op);
    const report = await preview(id);
    const d = { ...d0, evidence_delta: ['lock released'] };
    const generic = await prep(id, report, d, { evidenceJustification: 'retry' });
    expect(!generic.ok && generic.code).toBe('justification_required');
    const good = await prep(id, report, d, {
      evidenceJustification: 'the concurrent writer finished; the store lock is released',
    });
    expect(good.ok).toBe(true);
  });

  it('the source-note append is an ordinary mutation: refused, uncertain, or committed with failed bookkeeping', async () => {
    const { runId, report, d } = await setup();
    const p = await prep(runId, report, d);
    if (!p.ok) throw new Error(p.code);
    let minute = 10;
    const startWith = async (script: Scripted[], failSaves: number[] = []) => {
      const fs = faultyStore(store);
      fs.script('pass', ...script);
      const c = new PersistController({
        statePath: join(project, `state-${minute}.json`),
        openStore: () => fs,
        storageRoot: store.root,
        clock: fixedClock,
        stateFs: faultyStateFs(failSaves),
      });
      const r = await c.startPrepared({ dispatch: d, now: `2026-11-30T10:${minute++}:00Z` }, p.value);
      return { r, c, fs };
    };
    const result = (outcome: string, extra: Record<string, unknown>): Scripted => ({
      rawFor: (id) => ({ schema: 'run-store-result/v1', outcome, run_id: id, ...extra }),
    });
    // refused before writing: the run exists, the note is not stored, stop with the handoff
    const refused = await startWith([result('nothing_written', { code: 'write_failed' })]);
    expect(refused.r).toMatchObject({
      action: 'stop',
      outcome: 'refused:write_failed',
      run_created: true,
      prior_run: runId,
      unpersisted: { kind: 'note', seq: null, status: 'not-stored' },
    });
    expect(refused.r.handoff?.stop_reason).toBe('operational-error');
    expect(refused.r.source_note_cite).toBeUndefined();
    // indeterminate: unconfirmed, no cite
    const uncertain = await startWith([result('indeterminate', { seq: 1, step: 'fsync' })]);
    expect(uncertain.r).toMatchObject({
      action: 'stop',
      outcome: 'indeterminate',
      run_created: true,
      unpersisted: { status: 'unconfirmed' },
    });
    expect(uncertain.r.cite).toBeUndefined();
    // committed, but the resolution cannot be saved (saves: 1 start, 2 in-flight, 3 resolution):
    // the citation is returned and the invocation stops now
    const unsaved = await startWith([], [3]);
    const id = unsaved.r.run_id as string;
    expect(unsaved.r).toMatchObject({
      action: 'stop',
      outcome: 'state_unwritable',
      run_created: true,
      committed: { seq: 1, cite: `${id}#1` },
      source_note_cite: `${id}#1`,
    });
    expect((await unsaved.c.note({ kind: 'candidate', text: 'x', lean: null })).action).toBe('stop');
    // committed and saved: the cite is recorded in the same state save as the resolution
    const ok = await startWith([], [4]);
    expect(ok.r).toMatchObject({ action: 'continue', source_note_cite: `${ok.r.run_id as string}#1` });
    expect((await ok.c.status()).source_note_cite).toBe(`${ok.r.run_id as string}#1`);
  });

  it('creates the run naming the prior run with a source-note at #1; chained reuse stays flat', async () => {
    const { runId, report, d } = await setup();
    const p = await prep(runId, report, d);
    if (!p.ok) throw new Error(p.code);
    const c2 = new PersistController({
      statePath: join(project, 'state2.json'),
      openStore: () => store,
      storageRoot: store.root,
      clock: fixedClock,
    });
    const r = await c2.startPrepared({ dispatch: d }, p.value);
    expect(r).toMatchObject({ action: 'continue', prior_run: runId, run_created: true });
    const run2 = r.run_id as string;
    expect(r.source_note_cite).toBe(`${run2}#1`);
    const l2 = await store.load(run2);
    if (!l2.ok) throw new Error('load');
    expect(l2.value.manifest.prior_run).toBe(runId);
    const sn = parseSourceNote((l2.value.events[0]?.payload as { text: string } | undefined)?.text ?? '');
    expect(sn?.prior_run).toBe(runId);
    expect(sn?.historical.failed_avenues.map((x) => x.cite)).toContain(`${runId}#1`);

    // chain: run 3 reuses run 2 — run 1's evidence is inherited flat, with original cites
    await store.append(run2, 'note', { kind: 'source-note', text: '{"schema":"user/notes"}', lean: null });
    const rep3 = await preview(run2);
    expect(rep3.historical.inherited).toHaveLength(1);
    expect(rep3.historical.inherited[0]).toMatchObject({ prior_run: runId, via: `${run2}#1` });
    const inheritedAvenue = rep3.historical.failed_avenues.find((x) => x.cite === `${runId}#1`);
    expect(inheritedAvenue?.inherited_via).toBe(`${run2}#1`);
    // a user-written JSON-shaped source-note stays ordinary text
    expect(rep3.historical.notes).toContainEqual({
      kind: 'source-note',
      text: '{"schema":"user/notes"}',
      cite: `${run2}#2`,
    });
    // inherited blockers never drive the guard: run 2 has no handoff
    expect(rep3.selection.guard_evaluable).toBe(false);
    expect(rep3.carry.prior_blocker).toBeNull();
    expect(JSON.stringify(rep3.historical)).not.toContain('\\"schema\\":\\"run-persist-source-note/v1');
  });
});
