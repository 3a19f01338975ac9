/**
 * A failed edit is restored (pure side, issue 27 §1): which edits go back (a refuted `solved`
 * claim's files, still as returned, covered by the dispatch's pre-dispatch baseline; a batch's
 * siblings that held stay), the baseline that results (the pre-dispatch entries: no drift on the
 * next dispatch), and the words the final record carries.
 */
import { describe, expect, it } from 'vitest';
import type { FileBaseline } from '../../src/baseline/schema.js';
import { checkpointInput } from '../../src/cycle/actor-inputs.js';
import { nextCycle } from '../../src/cycle/boundary-reducers.js';
import { finalHandoff } from '../../src/cycle/final-handoff.js';
import {
  absorbEditRestore,
  absorbStopRestore,
  dropRefutedEdits,
  editRestoreDue,
  editRestoreInput,
  editsToRestore,
  noteRefutedEdits,
  refutedWhy,
  stopEditsToRestore,
  stopRestoreDue,
  stopRestoreFailed,
  stopRestoreInput,
} from '../../src/cycle/restore-edits.js';
import type { AttemptRecord, CycleContext, TargetInfo, WorkOutcome } from '../../src/cycle/types.js';
import { absorbWork } from '../../src/cycle/work-reducers.js';
import { cycleContext, FILE, handoffOutcome, T1, workerHandoff } from './fixture.js';

const FILE_B = '/p/B.lean';
const T2: TargetInfo = { id: 'B.lean:4', file: 'B.lean', line: 4, goal: 'sorry' };
const entry = (path: string, c: string) => ({
  path,
  realpath: path,
  exists: true,
  sha256: c.repeat(64),
  size: 3,
});
const baseline = (...files: ReturnType<typeof entry>[]): FileBaseline => ({
  schema: 'file-baseline/v1',
  files,
});
/** Before the dispatch: A 'b', B 'c'; returned (and now held): A 'a', B 'd'. */
const PRE = baseline(entry(FILE, 'b'), entry(FILE_B, 'c'));
const NOW = baseline(entry(FILE, 'a'), entry(FILE_B, 'd'));
const attempt = (solved: boolean): AttemptRecord => ({
  cycle: 1,
  solved,
  signature: solved ? null : 'A.lean:2:not verified',
  snippets: [],
  emptySearch: false,
});
const dispatch = (target: string) =>
  ({ schema: 'run-contract/v1', record: 'dispatch', target, file_baseline: PRE }) as never;
const solvedA = (over: Partial<WorkOutcome & { kind: 'handoff' }> = {}) =>
  handoffOutcome(workerHandoff('solved'), {
    dispatch: dispatch(T1.id),
    baseline: baseline(entry(FILE, 'a')),
    ...over,
  });
const solvedB = handoffOutcome(workerHandoff('solved', { target: T2.id, files_changed: [FILE_B] }), {
  dispatch: dispatch(T2.id),
  accepted: [FILE_B],
  baseline: baseline(entry(FILE_B, 'd')),
});
const VERIFY_LINE =
  'verify (file-fast): A.lean:2 not confirmed — A.lean:2 still open (`sorry` still in theorem t (line 3))';
const ctx = (over: Partial<CycleContext> = {}): CycleContext =>
  cycleContext({
    targets: [T1, T2],
    lastWork: solvedA(),
    accepted: [FILE],
    baseline: NOW,
    attempts: { [T1.id]: [attempt(false)] },
    log: [VERIFY_LINE],
    available: { deep: false, repair: false, restore: true },
    ...over,
  });
const REASON = "the claim 'solved' did not hold — A.lean:2 still open (`sorry` still in theorem t (line 3))";

describe('editsToRestore', () => {
  it('a refuted solved claim: its returned files go back, with the verify line as the reason', () => {
    const edit = { target: T1.id, files: [FILE], reason: REASON, to: { [FILE]: 'b'.repeat(64) } };
    expect(editsToRestore(ctx())).toEqual([edit]);
    expect(editRestoreInput(ctx())).toEqual({ cycle: 1, edits: [edit] });
  });

  it('a claim that held, a stuck answer, a falsify pass or an earlier cycle’s failure: nothing goes back', () => {
    expect(editsToRestore(ctx({ attempts: { [T1.id]: [attempt(true)] } }))).toEqual([]);
    expect(
      editsToRestore(
        ctx({ lastWork: handoffOutcome(workerHandoff('stuck'), { dispatch: dispatch(T1.id) }) }),
      ),
    ).toEqual([]);
    const falsify = solvedA({
      dispatch: { ...(dispatch(T1.id) as object), context: { role: 'falsify' } } as never,
    });
    expect(editsToRestore(ctx({ lastWork: falsify }))).toEqual([]);
    expect(editsToRestore(ctx({ attempts: { [T1.id]: [{ ...attempt(false), cycle: 0 }] } }))).toEqual([]);
  });

  it('a file changed after the worker returned it (a repair patch) or not in the pre-dispatch baseline stays', () => {
    expect(editsToRestore(ctx({ baseline: baseline(entry(FILE, 'e'), entry(FILE_B, 'd')) }))).toEqual([]);
    const uncovered = solvedA({
      dispatch: { ...(dispatch(T1.id) as object), file_baseline: baseline() } as never,
    });
    expect(editsToRestore(ctx({ lastWork: uncovered }))).toEqual([]);
  });

  it('a batch: only the sibling whose claim was refuted goes back with the primary', () => {
    const batch = ctx({ lastWork: solvedA({ batch: [solvedB] }), accepted: [FILE, FILE_B] });
    // B held: only A
    expect(editsToRestore({ ...batch, attempts: { ...batch.attempts, [T2.id]: [attempt(true)] } })).toEqual([
      { target: T1.id, files: [FILE], reason: REASON, to: { [FILE]: 'b'.repeat(64) } },
    ]);
    // A held, B did not: only B
    const onlyB = editsToRestore({
      ...batch,
      attempts: { [T1.id]: [attempt(true)], [T2.id]: [attempt(false)] },
    });
    expect(onlyB.map((e) => [e.target, e.files])).toEqual([[T2.id, [FILE_B]]]);
    expect(onlyB[0]?.reason).toBe("the claim 'solved' did not hold — not verified");
  });

  it('is due only when the host provides the edit restorer', () => {
    expect(editRestoreDue(ctx())).toBe(true);
    expect(editRestoreDue(ctx({ available: { deep: false, repair: false } }))).toBe(false);
    expect(editRestoreDue(ctx({ attempts: { [T1.id]: [attempt(true)] } }))).toBe(false);
  });
});

describe('refutedWhy', () => {
  it('reads the last verify line of the target, else says not verified', () => {
    const log = [
      'verify (file-fast): A.lean:2 not confirmed — old',
      'work: x',
      'verify (project): A.lean:2 not confirmed — new',
    ];
    expect(refutedWhy(log, 'A.lean:2')).toBe('new');
    expect(refutedWhy(log, 'B.lean:4')).toBe('not verified');
    expect(refutedWhy(['plan: A.lean:2 not confirmed — prose'], 'A.lean:2')).toBe('not verified');
  });
});

describe('absorbEditRestore', () => {
  it('the baseline goes back to the pre-dispatch entry, the file leaves the checkpoint, the record says why', () => {
    const c = ctx();
    const u = absorbEditRestore(c, { now: 5, restored: [FILE], failed: [], detail: null });
    expect(u.baseline?.files.find((e) => e.path === FILE)?.sha256).toBe('b'.repeat(64));
    expect(u.baseline?.files.find((e) => e.path === FILE_B)?.sha256).toBe('d'.repeat(64));
    expect(u.accepted).toEqual([]);
    expect(u.restoredEdits).toEqual([`restored A.lean: ${REASON}`]);
    expect(u.log?.at(-1)).toBe(`checkpoint: restored A.lean: ${REASON}`);
    const next = { ...c, ...u };
    expect(checkpointInput(next).files).toEqual([]);
    expect(finalHandoff(next, { status: 'stopped', stopReason: 'max-cycles' }).failed_avenues).toContain(
      `restored A.lean: ${REASON}`,
    );
  });

  it('a file that could not be put back keeps its returned entry and is named with the reason', () => {
    const u = absorbEditRestore(ctx(), { now: 5, restored: [], failed: [FILE], detail: '/p/A.lean: EACCES' });
    expect(u.baseline?.files.find((e) => e.path === FILE)?.sha256).toBe('a'.repeat(64));
    expect(u.restoredEdits).toEqual([`could not restore A.lean (${REASON}): /p/A.lean: EACCES`]);
    // still never committed: its claim was refuted
    expect(checkpointInput({ ...ctx(), ...u }).files).toEqual([]);
  });

  it('a batch: the refuted primary goes back, the sibling that held keeps its checkpoint', () => {
    const c = ctx({
      lastWork: solvedA({ batch: [solvedB] }),
      accepted: [FILE, FILE_B],
      attempts: { [T1.id]: [attempt(false)], [T2.id]: [attempt(true)] },
    });
    const u = absorbEditRestore(c, { now: 5, restored: [FILE], failed: [], detail: null });
    expect(u.accepted).toEqual([FILE_B]);
    const cp = checkpointInput({ ...c, ...u });
    expect(cp.files).toEqual([FILE_B]);
    expect(cp.summary).toBe('cycle 1: A.lean:2 not verified, B.lean:4 solved');
    expect(u.baseline?.files.map((e) => e.sha256?.[0])).toEqual(['b', 'd']);
  });
});

describe('a refuted edit waits until the checkpoint or the stop (issue 27 §1: every stop path restores)', () => {
  /** After verification refuted A's claim: the edit is recorded as waiting. */
  const refuted = () => {
    const c = ctx();
    return { ...c, ...noteRefutedEdits(c) };
  };

  it('verification records the refuted edit with its pre-dispatch and returned entries', () => {
    const c = refuted();
    expect(c.refutedEdits).toEqual([
      {
        target: T1.id,
        files: [FILE],
        reason: REASON,
        before: [entry(FILE, 'b')],
        returned: [entry(FILE, 'a')],
      },
    ]);
    // a claim that held records nothing
    expect(noteRefutedEdits(ctx({ attempts: { [T1.id]: [attempt(true)] } }))).toEqual({});
  });

  it('a stop after a later pass wrote over the edit (a repair patch) still puts back the pre-dispatch bytes', () => {
    const patched = {
      ...refuted(),
      lastWork: null,
      baseline: baseline(entry(FILE, 'e'), entry(FILE_B, 'd')),
    };
    // the checkpoint leaves a file a later pass changed (that pass is judged on its own) …
    expect(editsToRestore(patched)).toEqual([]);
    // … a stop does not: nothing of this cycle was verified
    expect(stopEditsToRestore(patched)).toEqual([
      { target: T1.id, files: [FILE], reason: REASON, to: { [FILE]: 'b'.repeat(64) } },
    ]);
    expect(stopRestoreDue(patched)).toBe(true);
    expect(stopRestoreDue({ ...patched, available: { deep: false, repair: false } })).toBe(false);
    expect(stopRestoreInput(patched).edits.map((e) => e.files)).toEqual([[FILE]]);
    const u = absorbStopRestore(patched, { now: 9, restored: [FILE], failed: [], detail: null });
    expect(u.baseline?.files.find((e) => e.path === FILE)?.sha256).toBe('b'.repeat(64));
    expect(u.refutedEdits).toEqual([]);
    expect(u.log?.at(-1)).toBe(`stop: restored A.lean: ${REASON}`);
    const final = finalHandoff({ ...patched, ...u }, { status: 'stopped', stopReason: 'protocol-error' });
    expect(final.failed_avenues).toContain(`restored A.lean: ${REASON}`);
    expect(final.file_baseline?.files.find((e) => e.path === FILE)?.sha256).toBe('b'.repeat(64));
  });

  it('a stop whose restore fails names the edit it could not put back', () => {
    const u = stopRestoreFailed(refuted(), new Error('EIO'));
    expect(u.restoredEdits).toEqual([
      `could not restore A.lean (${REASON}): the edit restorer failed: Error: EIO`,
    ]);
    expect(u.baseline?.files.find((e) => e.path === FILE)?.sha256).toBe('a'.repeat(64));
  });

  it('nothing waits after the checkpoint restored or dropped it, nor in the next cycle', () => {
    const c = refuted();
    const afterRestore = {
      ...c,
      ...absorbEditRestore(c, { now: 5, restored: [FILE], failed: [], detail: null }),
    };
    expect(stopEditsToRestore(afterRestore)).toEqual([]);
    expect(stopEditsToRestore({ ...c, ...dropRefutedEdits() })).toEqual([]);
    expect(stopEditsToRestore({ ...c, ...nextCycle() })).toEqual([]);
    // a file already back to its pre-dispatch bytes is not restored twice
    expect(stopEditsToRestore({ ...c, baseline: PRE })).toEqual([]);
  });

  it('the checkpoint puts back a waiting edit even when the last outcome is a later pass (a deep rollback)', () => {
    const c = {
      ...refuted(),
      lastWork: { kind: 'custody-violation', now: 0, detail: 'x', dispatch: null } as WorkOutcome,
    };
    expect(editsToRestore(c).map((e) => e.files)).toEqual([[FILE]]);
    // and once per file: the waiting edit and the last outcome's are the same edit
    expect(editsToRestore(refuted())).toHaveLength(1);
  });
});

describe('batch siblings under a refused primary are counted as refuted (issue 27)', () => {
  const fence = (
    batch: WorkOutcome[],
    kind: 'fence-violation' | 'permission-denied' = 'fence-violation',
  ): WorkOutcome => ({
    kind,
    now: 1,
    detail: 'header fence: A.lean: theorem t: statement changed',
    dispatch: null,
    batch,
  });
  const stuckB = handoffOutcome(workerHandoff('stuck', { target: T2.id, files_changed: [FILE_B] }), {
    dispatch: dispatch(T2.id),
    accepted: [FILE_B],
    baseline: baseline(entry(FILE_B, 'd')),
  });
  const start = () => ctx({ lastWork: null, accepted: [], baseline: PRE, attempts: {}, log: [] });
  const WHY = `the claim 'solved' was not verified — the batch's primary ${T1.id} was refused (fence-violation)`;

  it('a solved sibling: its claim is not verified, its edit waits and the checkpoint puts it back', () => {
    const c = start();
    const u = absorbWork(c, fence([solvedB]));
    expect(u.attempts?.[T2.id]?.at(-1)?.solved).toBe(false);
    expect(u.refutedEdits).toEqual([
      {
        target: T2.id,
        files: [FILE_B],
        reason: WHY,
        before: [entry(FILE_B, 'c')],
        returned: [entry(FILE_B, 'd')],
      },
    ]);
    const next = { ...c, ...u };
    expect(editRestoreDue(next)).toBe(true);
    expect(editsToRestore(next)).toEqual([
      { target: T2.id, files: [FILE_B], reason: WHY, to: { [FILE_B]: 'c'.repeat(64) } },
    ]);
    const r = absorbEditRestore(next, { now: 5, restored: [FILE_B], failed: [], detail: null });
    expect(r.accepted).toEqual([]);
    expect(r.restoredEdits).toEqual([`restored B.lean: ${WHY}`]);
    expect(checkpointInput({ ...next, ...r }).files).toEqual([]);
  });

  it('a stuck sibling claims nothing: its edit stays in custody and is not put back', () => {
    const u = absorbWork(start(), fence([stuckB]));
    expect(u.refutedEdits).toBeUndefined();
    expect(u.accepted).toEqual([FILE_B]);
  });

  it('a permission denial with an inline retry: the sibling still waits (the last outcome no longer names it)', () => {
    const c = start();
    const denied = { ...c, ...absorbWork(c, fence([solvedB], 'permission-denied')) };
    expect(denied.refutedEdits?.[0]?.reason).toContain('(permission-denied)');
    const inline = {
      ...denied,
      ...absorbWork(denied, handoffOutcome(workerHandoff('stuck'), { dispatch: dispatch(T1.id) })),
    };
    expect(stopEditsToRestore(inline).map((e) => e.target)).toEqual([T2.id]);
    expect(editsToRestore(inline).map((e) => e.target)).toEqual([T2.id]);
  });
});
