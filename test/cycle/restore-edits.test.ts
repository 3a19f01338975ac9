/**
 * A failed edit is restored (pure side, issue 27 §1): which edits go back (a refuted `solved`
 * claim's files, still as returned, covered by the dispatch's pre-dispatch baseline; a batch's
 * siblings that held stay), the baseline that results (the pre-dispatch entries: no drift on the
 * next dispatch), and the words the final record carries.
 */
import { describe, expect, it } from 'vitest';
import type { FileBaseline } from '../../src/baseline/schema.js';
import { checkpointInput } from '../../src/cycle/actor-inputs.js';
import { finalHandoff } from '../../src/cycle/final-handoff.js';
import {
  absorbEditRestore,
  editRestoreDue,
  editRestoreInput,
  editsToRestore,
  refutedWhy,
} from '../../src/cycle/restore-edits.js';
import type { AttemptRecord, CycleContext, TargetInfo, WorkOutcome } from '../../src/cycle/types.js';
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
    expect(editsToRestore(ctx())).toEqual([{ target: T1.id, files: [FILE], reason: REASON }]);
    expect(editRestoreInput(ctx())).toEqual({
      cycle: 1,
      edits: [{ target: T1.id, files: [FILE], reason: REASON }],
    });
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
      { target: T1.id, files: [FILE], reason: REASON },
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
