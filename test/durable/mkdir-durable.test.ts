/**
 * Durable directory creation: every directory `makeDirsDurable` creates has its entry fsync'd
 * into its parent; existing directories are left alone; a file in the way, an EIO on the parent
 * fsync and (without best effort) a refused fsync are step failures; `dirFsyncUnsupported` tells
 * a file system's refusal from an I/O failure.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dirFsyncUnsupported, makeDirsDurable, StepFailure } from '../../src/durable/index.js';
import { faultyFs } from '../store/faulty-fs.js';
import { tempDir } from '../store/tmp.js';

function stepOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return e instanceof StepFailure ? e.step : `not a StepFailure: ${String(e)}`;
  }
  return 'no failure';
}

describe('makeDirsDurable', () => {
  it('creates the missing chain outermost first and fsyncs each new entry into its parent', () => {
    const root = tempDir('mkdir-durable-');
    const f = faultyFs();
    const leaf = join(root, 'a', 'b', 'c');
    expect(makeDirsDurable(f, leaf, 'x_mkdir')).toEqual([join(root, 'a'), join(root, 'a', 'b'), leaf]);
    expect(existsSync(leaf)).toBe(true);
    const fsynced = f.trace.filter((c) => c.startsWith('fsync '));
    expect(fsynced).toEqual([`fsync ${root}`, `fsync ${join(root, 'a')}`, `fsync ${join(root, 'a', 'b')}`]);
    // a second call finds everything: nothing created, nothing fsync'd
    const g = faultyFs();
    expect(makeDirsDurable(g, leaf, 'x_mkdir')).toEqual([]);
    expect(g.trace.filter((c) => !c.startsWith('lstat '))).toEqual([]);
  });

  it('a file in the way, an EIO on a parent fsync, and a refused fsync without best effort are step failures', () => {
    const root = tempDir('mkdir-durable-');
    writeFileSync(join(root, 'file'), 'x');
    expect(stepOf(() => makeDirsDurable(faultyFs(), join(root, 'file', 'sub'), 'x_mkdir'))).toBe('x_mkdir');

    const probe = faultyFs();
    makeDirsDurable(probe, join(root, 'p', 'q'), 'x_mkdir');
    const at = probe.trace.indexOf(`fsync ${join(root, 'p')}`);
    expect(at).toBeGreaterThan(0);
    for (const [mode, best, expected] of [
      ['eio', true, 'x_mkdir'],
      ['einval', false, 'x_mkdir'],
      ['einval', true, 'no failure'],
    ] as const) {
      const dir = join(root, `${mode}-${best}`);
      mkdirSync(dir);
      const clean = faultyFs();
      makeDirsDurable(clean, join(dir, 'p', 'q'), 'x_mkdir');
      const i = clean.trace.indexOf(`fsync ${join(dir, 'p')}`);
      const f = faultyFs();
      f.mode = mode;
      f.failAt = i;
      expect(
        stepOf(() => makeDirsDurable(f, join(dir, 'p2', 'q'), 'x_mkdir', { bestEffort: best })),
        `${mode} ${best}`,
      ).toBe(expected);
    }
  });

  it('dirFsyncUnsupported: refusals yes, I/O failures no, also through a StepFailure', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    for (const c of ['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EACCES', 'EPERM'])
      expect(dirFsyncUnsupported(err(c)), c).toBe(true);
    for (const c of ['EIO', 'ENOSPC', 'EROFS', 'EDQUOT', ''])
      expect(dirFsyncUnsupported(err(c)), c).toBe(false);
    expect(dirFsyncUnsupported(new StepFailure('s', err('EINVAL')))).toBe(true);
    expect(dirFsyncUnsupported(new StepFailure('s', err('EIO')))).toBe(false);
    expect(dirFsyncUnsupported('not an error')).toBe(false);
  });
});
