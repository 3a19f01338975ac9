/**
 * The edit restorer's pre-dispatch states and the stop's restore (issue 27 §1): after a later pass
 * captured a file again, an edit naming the refuted dispatch's sha256 goes back to those bytes, not
 * the latest capture; bytes never captured are named; and `restoreOnStop` puts a waiting refuted
 * edit back when the run stopped, remaking the final record — and leaves any other run alone.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finalHandoff } from '../../src/cycle/final-handoff.js';
import type { CycleContext, TargetInfo } from '../../src/cycle/types.js';
import { createEditRestorer, restoreOnStop } from '../../src/runtime/edit-restorer.js';
import { cycleContext } from '../cycle/fixture.js';

const T: TargetInfo = { id: 'A.lean:2', file: 'A.lean', line: 2, goal: 'sorry' };
const ORIGINAL = 'theorem t : True := by\n  sorry\n';
const REFUTED = 'theorem t : True := by\n\n  sorry\n';
const PATCHED = 'theorem t : True := by\n\n  trivial -- half a repair\n  sorry\n';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
let root = '';
let abs = '';
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'edit-restorer-states-')));
  abs = join(root, 'A.lean');
  await writeFile(abs, ORIGINAL);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});
const entry = (text: string) => ({
  path: abs,
  realpath: abs,
  exists: true,
  sha256: sha(text),
  size: text.length,
});

describe('pre-dispatch states', () => {
  it('an edit names the state it goes back to: the earlier dispatch’s bytes, not the latest capture', async () => {
    const r = createEditRestorer({ projectRoot: root });
    await r.capture({ target: T }); // the fill dispatch: the original bytes
    await writeFile(abs, REFUTED);
    await r.capture({ target: T }); // a later repair/deep dispatch: the refuted bytes
    await writeFile(abs, PATCHED);
    const out = await r.restore({
      cycle: 1,
      edits: [{ target: T.id, files: [abs], reason: 'r', to: { [abs]: sha(ORIGINAL) } }],
    });
    expect(out).toEqual({ restored: [abs], failed: [], detail: null });
    expect(await readFile(abs, 'utf8')).toBe(ORIGINAL);
    // without `to`: the latest capture
    await writeFile(abs, PATCHED);
    await r.restore({ cycle: 1, edits: [{ target: T.id, files: [abs], reason: 'r' }] });
    expect(await readFile(abs, 'utf8')).toBe(REFUTED);
    // a state never captured is named, nothing written
    await writeFile(abs, PATCHED);
    const none = await r.restore({
      cycle: 1,
      edits: [{ target: T.id, files: [abs], reason: 'r', to: { [abs]: sha('other') } }],
    });
    expect(none.failed).toEqual([abs]);
    expect(none.detail).toMatch(/no pre-dispatch capture of those bytes/);
    expect(await readFile(abs, 'utf8')).toBe(PATCHED);
  });
});

describe('restoreOnStop', () => {
  const waiting = (over: Partial<CycleContext> = {}): CycleContext =>
    cycleContext({
      available: { deep: false, repair: false, restore: true },
      baseline: { schema: 'file-baseline/v1', files: [entry(PATCHED)] },
      refutedEdits: [
        {
          target: T.id,
          files: [abs],
          reason: "the claim 'solved' did not hold — x",
          before: [entry(ORIGINAL)],
          returned: [entry(REFUTED)],
        },
      ],
      pendingStop: { reason: 'protocol-error', detail: 'worker protocol error' },
      ...over,
    });
  const stopped = (c: CycleContext) =>
    finalHandoff(c, { status: 'stopped', stopReason: 'protocol-error', detail: 'worker protocol error' });

  it('a stopped run with a waiting refuted edit: put back, the record remade and naming it', async () => {
    const r = createEditRestorer({ projectRoot: root });
    await r.capture({ target: T });
    await writeFile(abs, PATCHED);
    const c = waiting();
    const end = await restoreOnStop(c, stopped(c), r, () => 7);
    expect(await readFile(abs, 'utf8')).toBe(ORIGINAL);
    expect(end.handoff.status).toBe('stopped');
    expect(end.handoff.stop_detail).toBe('worker protocol error');
    expect(end.handoff.failed_avenues).toContain("restored A.lean: the claim 'solved' did not hold — x");
    expect(end.handoff.file_baseline?.files[0]?.sha256).toBe(sha(ORIGINAL));
    expect(end.context.refutedEdits).toEqual([]);
    expect(end.context.final).toEqual(end.handoff);
  });

  it('a restorer that throws: the record names the edit it could not put back', async () => {
    const c = waiting();
    const broken = { capture: async () => {}, restore: async () => Promise.reject(new Error('EIO')) };
    const end = await restoreOnStop(c, stopped(c), broken, () => 7);
    expect(end.handoff.failed_avenues).toContainEqual(
      expect.stringMatching(/^could not restore A\.lean .*EIO/),
    );
  });

  it('stuck on a failed deep rollback: the waiting edit goes back too, the stuck record remade', async () => {
    const r = createEditRestorer({ projectRoot: root });
    await r.capture({ target: T });
    await writeFile(abs, PATCHED);
    const c = waiting({ pendingStop: null });
    const stuck = finalHandoff(c, { status: 'stuck', stuck: null });
    const end = await restoreOnStop(c, stuck, r, () => 7);
    expect(await readFile(abs, 'utf8')).toBe(ORIGINAL);
    expect(end.handoff.status).toBe('stuck');
    expect(end.handoff.failed_avenues).toContain("restored A.lean: the claim 'solved' did not hold — x");
  });

  it('a solved run, or one with nothing waiting, comes back unchanged', async () => {
    const r = createEditRestorer({ projectRoot: root });
    const c = waiting();
    const solved = finalHandoff(c, { status: 'solved' });
    expect((await restoreOnStop(c, solved, r, () => 7)).handoff).toBe(solved);
    const none = waiting({ refutedEdits: [] });
    const h = stopped(none);
    expect((await restoreOnStop(none, h, r, () => 7)).handoff).toBe(h);
    expect((await restoreOnStop(c, stopped(c), undefined, () => 7)).handoff.failed_avenues).toEqual([]);
  });
});
