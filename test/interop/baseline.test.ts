/**
 * file-baseline/v1 across implementations (issue 17 items 3 and 5): the shipped reference's
 * status order (retarget before create and before the absent/absent short-circuit) through the
 * built CLI, baselines the reference wrote (Python `json.dump(indent=2)`, extra keys) read and
 * advanced here, and baselines we write accepted by the reference's loader.
 */
import { mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  advanceBaseline,
  checkBaseline,
  type FileBaseline,
  recordBaseline,
} from '../../src/baseline/index.js';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { referenceLoadBaseline } from './reference-readers.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'interop-baseline-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A baseline as the reference's record prints it: `json.dump(…, indent=2)` plus a newline. */
function pythonIndent2(b: unknown): string {
  return `${JSON.stringify(b, null, 2)}\n`;
}

describe('status order of the shipped reference (v4.6.2+): retarget before create', () => {
  it('ln -s missing1 L; record; ln -sfn missing2 L; check → retargeted, exit 3 (the reference verdict)', async () => {
    await symlink('missing1', join(dir, 'L'));
    const rec = await runCli(['baseline', 'record', '--', 'L'], { cwd: dir });
    expect(rec.code, rec.stderr).toBe(0);
    await writeFile(join(dir, 'b.json'), rec.stdout);
    await unlink(join(dir, 'L'));
    await symlink('missing2', join(dir, 'L'));
    const check = await runCli(['baseline', 'check', '--baseline', 'b.json'], { cwd: dir });
    expect(check.code).toBe(3);
    expect(stdoutJson<{ result: string; entries: { status: string }[] }>(check)).toMatchObject({
      result: 'drift',
      entries: [{ status: 'retargeted' }],
    });
  });

  it('an absent path that becomes a link to another file → retargeted, not created (exit 3 either way, but the status matters)', async () => {
    await writeFile(join(dir, 'other'), 'x');
    const b = await recordBaseline(['absent'], { cwd: dir });
    await symlink('other', join(dir, 'absent'));
    const c = await checkBaseline(b, { cwd: dir });
    expect(c.entries.map((e) => e.status)).toEqual(['retargeted']);
  });

  it('a dangling link whose target appears is still created (same realpath), a deleted link still deleted', async () => {
    await symlink('t', join(dir, 'L'));
    await writeFile(join(dir, 'f'), 'f');
    await symlink('f', join(dir, 'M'));
    const b = await recordBaseline(['L', 'M'], { cwd: dir });
    await writeFile(join(dir, 't'), 'now');
    await unlink(join(dir, 'M'));
    expect((await checkBaseline(b, { cwd: dir })).entries.map((e) => e.status)).toEqual([
      'created',
      'deleted',
    ]);
  });
});

describe('they wrote → we read, check and advance', () => {
  it('a reference baseline with extra keys (root and entry) checks as match and advances with the keys kept', async () => {
    await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := rfl\n');
    const ours = await recordBaseline(['A.lean'], { cwd: dir });
    const theirs = {
      schema: 'file-baseline/v1',
      recorded_by: 'lean4-skills 4.12.0',
      files: [{ ...ours.files[0], inode_hint: 42 }],
    };
    await writeFile(join(dir, 'theirs.json'), pythonIndent2(theirs));
    expect(referenceLoadBaseline(pythonIndent2(theirs))).toBe('ok');
    const check = await runCli(['baseline', 'check', '--baseline', 'theirs.json'], { cwd: dir });
    expect(check.code, check.stderr).toBe(0);
    // advance re-records only the named entry; untouched entries keep their keys, so does the root
    await writeFile(join(dir, 'B.lean'), 'b');
    const two = {
      ...theirs,
      files: [...theirs.files, { ...(await recordBaseline(['B.lean'], { cwd: dir })).files[0], tag: 'x' }],
    };
    const advanced = await advanceBaseline(two as FileBaseline, ['A.lean'], { cwd: dir });
    expect(advanced.recorded_by).toBe('lean4-skills 4.12.0');
    expect(advanced.files[1]).toMatchObject({ tag: 'x' });
  });

  it('a Windows-path baseline: the reference validator accepts the record, the check refuses it with exit 2 like file_baseline.py', async () => {
    const win = {
      schema: 'file-baseline/v1',
      files: [
        { path: 'C:\\proj\\A.lean', realpath: 'C:\\proj\\A.lean', exists: false, sha256: null, size: null },
      ],
    };
    await writeFile(join(dir, 'win.json'), pythonIndent2(win));
    expect(referenceLoadBaseline(pythonIndent2(win))).toBe('path/realpath must be absolute');
    const check = await runCli(['baseline', 'check', '--baseline', 'win.json'], { cwd: dir });
    expect(check.code).toBe(2);
    expect(check.stdout).toBe('');
    expect(check.stderr).toContain('not_local_path');
    const adv = await runCli(['baseline', 'advance', '--baseline', 'win.json', '--', 'C:\\proj\\A.lean'], {
      cwd: dir,
    });
    expect(adv.code).toBe(2);
    // nothing was created in the working directory under the Windows name
    await expect(readFile(join(dir, 'C:\\proj\\A.lean'))).rejects.toThrow();
  });
});

describe('we write → they read', () => {
  it('record and advance output pass the reference loader (absent, present, symlinked, non-ASCII names)', async () => {
    await writeFile(join(dir, 'ünïcødé ⊢.lean'), 'x');
    await writeFile(join(dir, 'target'), 'y');
    await symlink('target', join(dir, 'link'));
    const rec2 = await runCli(['baseline', 'record', '--', 'ünïcødé ⊢.lean', 'link', 'absent'], { cwd: dir });
    expect(rec2.code, rec2.stderr).toBe(0);
    expect(referenceLoadBaseline(rec2.stdout)).toBe('ok');
    await writeFile(join(dir, 'b.json'), rec2.stdout);
    await writeFile(join(dir, 'absent'), 'now here');
    const adv = await runCli(['baseline', 'advance', '--baseline', 'b.json', '--', 'absent'], { cwd: dir });
    expect(adv.code, adv.stderr).toBe(0);
    expect(referenceLoadBaseline(adv.stdout)).toBe('ok');
  });
});

/**
 * Issue 34 item 6, the reference's verdicts (`file_baseline.py`, run side by side for the issue):
 * an absent entry without `sha256`/`size` keys → exit 0; `"size": 1.0` → exit 2 (not an int).
 */
describe('issue 34: what the reference accepts and refuses in a baseline file', () => {
  it('an absent entry without sha256/size keys checks like one with nulls (reference: exit 0); the keys are read as null', async () => {
    const abs = join(dir, 'gone.lean');
    const theirs = { schema: 'file-baseline/v1', files: [{ path: abs, realpath: abs, exists: false }] };
    await writeFile(join(dir, 'theirs.json'), pythonIndent2(theirs));
    const check = await runCli(['baseline', 'check', '--baseline', 'theirs.json'], { cwd: dir });
    expect(check.code, check.stderr).toBe(0);
    // it then appears: created (the entry's missing keys were read as null, not as a mismatch)
    await writeFile(abs, 'now');
    const after = await runCli(['baseline', 'check', '--baseline', 'theirs.json'], { cwd: dir });
    expect(after.code).toBe(3);
    expect(stdoutJson<{ entries: { status: string }[] }>(after).entries.map((e) => e.status)).toEqual([
      'created',
    ]);
    // an existing entry still needs both (reference: the same)
    const half = { schema: 'file-baseline/v1', files: [{ path: abs, realpath: abs, exists: true, size: 3 }] };
    await writeFile(join(dir, 'half.json'), pythonIndent2(half));
    expect((await runCli(['baseline', 'check', '--baseline', 'half.json'], { cwd: dir })).code).toBe(2);
  });

  it('"size": 1.0 is refused with exit 2 (reference: exit 2, not an int); "size": 1 of the same file matches', async () => {
    await writeFile(join(dir, 'A.lean'), 'x');
    const ours = await recordBaseline(['A.lean'], { cwd: dir });
    const text = pythonIndent2(ours);
    expect(text).toContain('"size": 1\n');
    await writeFile(join(dir, 'int.json'), text);
    await writeFile(join(dir, 'float.json'), text.replace('"size": 1\n', '"size": 1.0\n'));
    expect((await runCli(['baseline', 'check', '--baseline', 'int.json'], { cwd: dir })).code).toBe(0);
    const r = await runCli(['baseline', 'check', '--baseline', 'float.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('files.0.size: an integer field written as a float (1.0)');
  });
});
