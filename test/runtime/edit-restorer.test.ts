/**
 * The edit restorer on real files (no process): a failed edit goes back to the bytes and mode
 * captured before its dispatch, the run's custody holds the restored bytes (rolled back, never
 * staged), a file never captured or one that cannot be put back is named, never thrown.
 */
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TargetInfo } from '../../src/cycle/types.js';
import { createEditRestorer } from '../../src/runtime/edit-restorer.js';
import { createVerifiedCustody } from '../../src/runtime/verified-custody.js';

const T: TargetInfo = { id: 'src/A.lean:2', file: 'src/A.lean', line: 2, goal: 'sorry' };
const BEFORE = 'theorem t : True := by\n  sorry\n';
let root = '';
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'edit-restorer-')));
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'src/A.lean'), BEFORE, { mode: 0o640 });
  await chmod(join(root, 'src/A.lean'), 0o640);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});
const edit = (files: string[]) => ({ cycle: 1, edits: [{ target: T.id, files, reason: 'r' }] });

describe('createEditRestorer', () => {
  it('puts the captured bytes and mode back and hands custody the restored bytes', async () => {
    const custody = createVerifiedCustody({ projectRoot: root, gitDirs: [], storeRoot: null });
    const r = createEditRestorer({ projectRoot: root, custody });
    await r.capture({ target: T });
    const abs = join(root, 'src/A.lean');
    await writeFile(abs, '\ntheorem t : True := by\n  sorry\n');
    await chmod(abs, 0o755);
    const out = await r.restore(edit([abs]));
    expect(out).toEqual({ restored: [abs], failed: [], detail: null });
    expect(await readFile(abs, 'utf8')).toBe(BEFORE);
    expect((await stat(abs)).mode & 0o777).toBe(0o640);
    expect(custody.verified(abs)?.bytes?.toString('utf8')).toBe(BEFORE);
    expect(custody.rolledBack(abs)).toBe(true);
  });

  it('a file that did not exist before the dispatch is removed; a project-relative name resolves', async () => {
    const r = createEditRestorer({ projectRoot: root });
    await r.capture({ target: T, ownedFiles: ['src/New.lean'] });
    await writeFile(join(root, 'src/New.lean'), 'new\n');
    const out = await r.restore(edit(['src/New.lean']));
    expect(out.restored).toEqual(['src/New.lean']);
    await expect(stat(join(root, 'src/New.lean'))).rejects.toThrow();
  });

  it('a file never captured, or behind a folder swapped for a link, is named and left alone', async () => {
    const r = createEditRestorer({ projectRoot: root });
    const never = await r.restore(edit([join(root, 'src/B.lean')]));
    expect(never).toEqual({
      restored: [],
      failed: [join(root, 'src/B.lean')],
      detail: `${join(root, 'src/B.lean')}: no pre-dispatch capture`,
    });
    await r.capture({ target: T });
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'edit-restorer-outside-')));
    try {
      await writeFile(join(outside, 'A.lean'), 'outside\n');
      await rm(join(root, 'src'), { recursive: true });
      await symlink(outside, join(root, 'src'));
      const out = await r.restore(edit([join(root, 'src/A.lean')]));
      expect(out.restored).toEqual([]);
      expect(out.failed).toEqual([join(root, 'src/A.lean')]);
      expect(out.detail).toMatch(/could not be written/);
      expect(await readFile(join(outside, 'A.lean'), 'utf8')).toBe('outside\n');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
