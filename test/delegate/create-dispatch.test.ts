/**
 * createDispatch on real files: the owned paths made absolute through their folder's real path,
 * a fresh baseline of the bytes on disk, a validated and frozen record; and what it refuses.
 */
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/canonical/index.js';
import { validateDispatch } from '../../src/contract/index.js';
import { createDispatch } from '../../src/delegate/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { GREETING, makeProject, type Project } from './fixtures.js';

let p: Project;
beforeEach(async () => {
  p = await makeProject();
});
afterEach(async () => {
  await p.cleanup();
});

const task = { target: 'src/greeting.ts:1', scope: 'file', mode: 'autoprove' } as const;

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const e = await promise.then(
    () => null,
    (x: unknown) => x,
  );
  if (!isHandoffError(e)) throw new Error(`expected a HandoffError, got ${String(e)}`);
  return { code: e.code, message: e.message };
}

describe('createDispatch', () => {
  it('records the owned files’ baseline and fills a complete, valid dispatch', async () => {
    const d = await createDispatch({ ...task, ownedFiles: ['src/greeting.ts'], cwd: p.dir });
    expect(validateDispatch(d).ok).toBe(true);
    expect(d).toMatchObject({
      schema: 'run-contract/v1',
      record: 'dispatch',
      target: 'src/greeting.ts:1',
      scope: 'file',
      mode: 'autoprove',
      worker: null,
      parameters: {},
      capabilities: [],
      owned_files: [p.owned],
      prior_blocker: null,
      evidence_delta: [],
      budget: { max_cycles: null, max_stuck_cycles: null, runtime: null },
    });
    expect(d.file_baseline.files).toEqual([
      {
        path: p.owned,
        realpath: p.owned,
        exists: true,
        sha256: sha256Hex(Buffer.from(GREETING)),
        size: Buffer.byteLength(GREETING),
      },
    ]);
    expect(d.context.scratch_location).not.toBe('');
  });

  it('is deep-frozen: neither the host nor a worker can widen its custody', async () => {
    const d = await createDispatch({ ...task, ownedFiles: [p.owned] });
    expect(Object.isFrozen(d)).toBe(true);
    expect(() => (d.owned_files as string[]).push('/etc/passwd')).toThrow(TypeError);
  });

  it('carries the optional members: worker parameters, capabilities, budget, context, relaunch fields', async () => {
    const d = await createDispatch({
      ...task,
      ownedFiles: [p.owned],
      capabilities: ['search-budget:2'],
      budget: { max_cycles: 3 },
      context: { goal_state: 'greet the user', scratch_location: '/tmp/scratch' },
      priorBlocker: 'src/greeting.ts:1:no translation',
      evidenceDelta: ['a translation table was added'],
    });
    expect(d.capabilities).toEqual(['search-budget:2']);
    expect(d.budget).toEqual({ max_cycles: 3, max_stuck_cycles: null, runtime: null });
    expect(d.context).toMatchObject({
      goal_state: 'greet the user',
      scratch_location: '/tmp/scratch',
      diagnostics: [],
    });
    expect(d.prior_blocker).toBe('src/greeting.ts:1:no translation');
    expect(d.evidence_delta).toEqual(['a translation table was added']);
  });

  it('an absent owned file listed in createFiles is custody too (a file the worker creates)', async () => {
    const d = await createDispatch({
      ...task,
      ownedFiles: ['src/new.ts'],
      createFiles: ['src/new.ts'],
      cwd: p.dir,
    });
    expect(d.file_baseline.files[0]).toMatchObject({
      path: join(p.dir, 'src', 'new.ts'),
      exists: false,
      sha256: null,
    });
  });

  it('names an owned file through its folder’s real path', async () => {
    await symlink(join(p.dir, 'src'), join(p.dir, 'alias'));
    const d = await createDispatch({ ...task, ownedFiles: ['alias/greeting.ts'], cwd: p.dir });
    expect(d.owned_files).toEqual([await realpath(p.owned)]);
  });

  it.each([
    ['no owned file', { ownedFiles: [] }, 'usage', /at least one path/],
    ['an empty path', { ownedFiles: [''] }, 'usage', /not an owned path/],
    ['a missing folder', { ownedFiles: ['nowhere/x.ts'] }, 'invalid_input', /does not exist/],
    [
      'a missing owned file not in createFiles (a typo)',
      { ownedFiles: ['src/greting.ts'] },
      'invalid_input',
      /owned file .*src\/greting\.ts does not exist; if the worker is to create it, list it in createFiles/,
    ],
    [
      'a createFiles path that is not owned',
      { createFiles: ['src/other.ts'] },
      'usage',
      /createFiles names a file that is not in ownedFiles: .*src\/other\.ts/,
    ],
    ['a directory', { ownedFiles: ['src'] }, 'invalid_input', /is a directory/],
    [
      'the same file twice',
      { ownedFiles: ['src/greeting.ts', './src/greeting.ts'] },
      'duplicate_path',
      /duplicate/,
    ],
    ['an empty target', { target: '' }, 'invalid_record', /not a valid dispatch: target/],
    ['an unknown scope', { scope: 'galaxy' }, 'invalid_record', /not a valid dispatch: scope/],
    [
      'parameters an inline pass does not take',
      { parameters: { x: 1 } },
      'invalid_record',
      /inline pass takes \{\}/,
    ],
    [
      'a budget that cannot be enforced',
      { budget: { runtime: 'soon' } },
      'invalid_record',
      /budget\.runtime/,
    ],
  ])('refuses %s', async (_name, change, code, message) => {
    const r = await refusal(
      createDispatch({ ...task, ownedFiles: ['src/greeting.ts'], cwd: p.dir, ...(change as object) }),
    );
    expect(r.code).toBe(code);
    expect(r.message).toMatch(message);
  });

  it('refuses an owned path that is a symbolic link', async () => {
    await writeFile(join(p.dir, 'target.ts'), 'x\n');
    await mkdir(join(p.dir, 'lnk'));
    await symlink(join(p.dir, 'target.ts'), join(p.dir, 'lnk', 'a.ts'));
    const r = await refusal(createDispatch({ ...task, ownedFiles: ['lnk/a.ts'], cwd: p.dir }));
    expect(r).toEqual({
      code: 'invalid_input',
      message: 'owned file lnk/a.ts is a symbolic link; name the regular file itself',
    });
  });
});
