/**
 * Owned files over the size limit (real files; sparse, so 3 GiB costs no disk): never read whole,
 * named as a custody violation, and put back to their pre-dispatch bytes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHandoffError } from '../../src/errors/index.js';
import {
  byteSize,
  captureOwned,
  OWNED_FILE_LIMIT_BYTES,
  oversizeViolation,
  ownedSizeViolation,
  ownedTypeViolation,
  restoreOwned,
} from '../../src/runtime/owned-files.js';
import { runProject } from '../../src/runtime/project-run.js';

const GIB3 = 3 * 2 ** 30;
const ORIGINAL = 'theorem a : 1 = 1 := by\n  sorry\n';
let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-big-')));
  await writeFile(join(dir, 'A.lean'), ORIGINAL);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the owned-file limit', () => {
  it('names a size over the limit (pure)', () => {
    expect(OWNED_FILE_LIMIT_BYTES).toBe(64 * 2 ** 20);
    expect(byteSize(GIB3)).toBe('3.0 GiB');
    expect(byteSize(700 * 2 ** 20)).toBe('700.0 MiB');
    expect(oversizeViolation('/p/A.lean', GIB3)).toBe(
      'owned file /p/A.lean is 3.0 GiB, over the 64.0 MiB owned-file limit: not read',
    );
    expect(oversizeViolation('/p/A.lean', OWNED_FILE_LIMIT_BYTES)).toBeNull();
  });

  it('refuses to capture a 3 GiB owned file, names it, and a restore puts the kept bytes back', async () => {
    const a = join(dir, 'A.lean');
    const before = await captureOwned([a]);
    await truncate(a, GIB3);
    expect(await ownedTypeViolation([a])).toMatch(/^owned file .*A\.lean is 3\.0 GiB, over the 64\.0 MiB/);
    const err = await captureOwned([a]).catch((e: unknown) => e);
    expect(isHandoffError(err) && err.code).toBe('custody_violation');
    expect((err as { details: unknown }).details).toMatchObject({ path: a, size: GIB3 });
    expect(await restoreOwned(before)).toEqual({ restored: [a], failed: [] });
    expect(await readFile(a, 'utf8')).toBe(ORIGINAL);
  });

  it('reads a file within the limit exactly, and bounds a small limit', async () => {
    const a = join(dir, 'A.lean');
    expect((await captureOwned([a])).get(a)?.bytes?.toString('utf8')).toBe(ORIGINAL);
    await expect(captureOwned([a], 4)).rejects.toMatchObject({ code: 'custody_violation' });
  });

  it('a run whose worker grows the owned file to 3 GiB ends in a named custody violation, the file restored', async () => {
    const sh = (args: string[]) =>
      execFileSync('git', args, { cwd: dir, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
    sh(['init', '-q']);
    sh(['add', '-A']);
    sh(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init']);
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: {
        inProcess: async (d) => {
          await truncate(d.owned_files[0] as string, GIB3);
          throw new Error('the worker gave up');
        },
      },
    });
    expect(r.handoff.stop_detail).toMatch(
      /owned file .*A\.lean is 3\.0 GiB, over the 64\.0 MiB owned-file limit: not read; owned files restored to their pre-dispatch bytes/,
    );
    expect((await stat(join(dir, 'A.lean'))).size).toBe(ORIGINAL.length);
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toBe(ORIGINAL);
  });

  it('a run whose owned file is already over the limit is refused before anything hashes it', async () => {
    await writeFile(join(dir, 'B.lean'), '');
    await truncate(join(dir, 'B.lean'), GIB3);
    expect(await ownedSizeViolation([join(dir, 'A.lean'), join(dir, 'B.lean')])).toMatch(
      /B\.lean is 3\.0 GiB/,
    );
    await expect(
      runProject({
        projectRoot: dir,
        flags: { target: 'B.lean', scope: 'file', mode: 'autoprove', commit: 'never' },
        worker: { inProcess: async () => Promise.reject(new Error('never dispatched')) },
      }),
    ).rejects.toMatchObject({
      code: 'custody_violation',
      message: expect.stringMatching(/B\.lean is 3\.0 GiB/),
    });
  });
});
