/**
 * The fix hints of the usual worker mistakes: nothing returned, a string returned, files edited
 * without advancing the baseline — as pure rules, and through `delegate` on a real project.
 */
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { handoffFor } from '../../src/contract/index.js';
import { notARecordDetail, withFixHint } from '../../src/delegate/fix-hints.js';
import { createDispatch, delegate } from '../../src/delegate/index.js';
import { withGitProject } from '../e2e/helpers.js';

describe('fix hints (pure)', () => {
  it('names nothing and a string, and leaves other answers to validation', () => {
    expect(notARecordDetail(undefined)).toMatch(
      /^the worker returned nothing \(undefined\); fix: return handoffFor\(/,
    );
    expect(notARecordDetail('Done! I fixed it.')).toMatch(
      /^the worker returned a string \("Done! I fixed it\."\), not a handoff record; fix: return handoffFor/,
    );
    expect(notARecordDetail({ status: 'solved' })).toBeNull();
  });

  it('appends the fix to a baseline nobody advanced, once', () => {
    const v = {
      check: 'baseline' as const,
      detail: 'owned file(s) differ from the returned baseline (drift nobody advanced): /r/a.ts (modified)',
    };
    const hinted = withFixHint(v);
    expect(hinted.detail).toContain('; fix: after editing, advance the baseline');
    expect(withFixHint(hinted)).toEqual(hinted);
    expect(withFixHint({ check: 'schema', detail: 'x' })).toEqual({ check: 'schema', detail: 'x' });
  });
});

describe('delegate says what to do', () => {
  it('for a worker that returns a string, and one that forgets advanceBaseline', async () => {
    await withGitProject({ 'a.ts': 'export const a = 1;\n' }, async (p) => {
      const task = {
        target: 'a.ts:1',
        scope: 'file',
        mode: 'autoprove',
        ownedFiles: ['a.ts'],
        cwd: p.dir,
      } as const;
      const s = await delegate(await createDispatch(task), async () => 'Done! I fixed it.');
      expect(s.outcome).toBe('refused');
      expect(s.handoff.stop_detail).toContain('the worker returned a string');
      const f = await delegate(await createDispatch(task), async (d) => {
        await writeFile(d.owned_files[0] ?? '', 'export const a = 2;\n');
        return handoffFor(d, { files_changed: [...d.owned_files] });
      });
      expect(f.outcome).toBe('refused');
      expect(f.handoff.stop_detail).toContain('fix: after editing, advance the baseline');
    });
  });
});
