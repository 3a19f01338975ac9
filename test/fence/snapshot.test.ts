/**
 * Snapshots of real files and the fence over them: missing files, unfenced file types, custom
 * extractors, unreadable and unparseable files.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeViolation,
  extractionFailures,
  extractorResolver,
  type FenceViolation,
  fenceCheck,
  functionHeaderExtractor,
  type HeaderExtraction,
  type HeaderSnapshot,
  snapshotHeaders,
} from '../../src/fence/index.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fence-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by sorry\n';

describe('snapshotHeaders', () => {
  it('extracts .lean files, leaves other types unfenced (null) and reads a missing file as empty', async () => {
    const lean = join(dir, 'A.lean');
    const notes = join(dir, 'notes.md');
    const missing = join(dir, 'Missing.lean');
    await writeFile(lean, THEOREM);
    await writeFile(notes, '# theorem t : True');
    const snap = await snapshotHeaders([lean, notes, missing, lean]);
    expect([...snap.keys()]).toEqual([lean, notes, missing]);
    expect(snap.get(lean)).toEqual({
      ok: true,
      headers: [{ name: 't', kind: 'theorem', signature: '(n : Nat) : n + 0 = n', line: 1 }],
      commands: [],
    });
    expect(snap.get(notes)).toBeNull();
    expect(snap.get(missing)).toEqual({ ok: true, headers: [] });
  });

  it('records an unreadable path and an unparseable file as failures', async () => {
    const sub = join(dir, 'Dir.lean');
    await mkdir(sub);
    const broken = join(dir, 'Broken.lean');
    await writeFile(broken, '/- never closed\n');
    const snap = await snapshotHeaders([sub, broken]);
    expect(extractionFailures(snap)).toEqual([
      { file: broken, error: 'unterminated block comment opened at line 1' },
      { file: sub, error: 'cannot read file: not a regular file' },
    ]);
  });

  it('does not block on a FIFO put in place of a file', async () => {
    const fifo = join(dir, 'Pipe.lean');
    const made = spawnSync('mkfifo', [fifo]);
    expect(made.status).toBe(0);
    expect((await snapshotHeaders([fifo])).get(fifo)).toEqual({
      ok: false,
      error: 'cannot read file: not a regular file',
    });
  });

  it('uses a custom resolver, and turns a throwing extractor into a failure', async () => {
    const py = join(dir, 'm.py');
    await writeFile(py, 'def f(x):\n    return x\n');
    const fake = functionHeaderExtractor((_file, text) =>
      [...text.matchAll(/^def (\w+)(\(.*\)):/gm)].map((m) => ({
        name: m[1] ?? '',
        kind: 'def',
        signature: m[2] ?? '',
        line: 1,
      })),
    );
    const snap = await snapshotHeaders([py, join(dir, 'A.lean')], extractorResolver({ '.py': fake }));
    expect(snap.get(py)).toEqual({
      ok: true,
      headers: [{ name: 'f', kind: 'def', signature: '(x)', line: 1 }],
    });
    expect(snap.get(join(dir, 'A.lean'))).toEqual({ ok: true, headers: [] });
    const throwing = functionHeaderExtractor(() => {
      throw new Error('no parser');
    });
    expect((await snapshotHeaders([py], throwing)).get(py)).toEqual({
      ok: false,
      error: 'extractor failed: no parser',
    });
  });
});

describe('fenceCheck', () => {
  it('holds for proof edits and catches a weakened statement, naming the file', async () => {
    const a = join(dir, 'A.lean');
    const b = join(dir, 'B.lean');
    await writeFile(a, THEOREM);
    await writeFile(b, 'theorem u : 1 + 1 = 2 := by sorry\n');
    const before = await snapshotHeaders([a, b]);
    await writeFile(a, THEOREM.replace('sorry', 'simp'));
    expect(fenceCheck(before, await snapshotHeaders([a, b]))).toEqual([]);
    await writeFile(b, 'theorem u : True := trivial\n');
    const result = fenceCheck(before, await snapshotHeaders([a, b]));
    expect(result.map((r) => [r.file, r.violations.map((v) => [v.declaration, v.change])])).toEqual([
      [b, [['u', 'changed']]],
    ]);
  });

  it('reports a file deleted by the worker as deleted declarations', async () => {
    const a = join(dir, 'A.lean');
    await writeFile(a, THEOREM);
    const before = await snapshotHeaders([a]);
    await rm(a);
    const [r] = fenceCheck(before, await snapshotHeaders([a]));
    expect(r?.violations.map((v) => [v.declaration, v.change])).toEqual([['t', 'deleted']]);
  });

  it('reports a file that no longer parses as unparseable', async () => {
    const a = join(dir, 'A.lean');
    await writeFile(a, THEOREM);
    const before = await snapshotHeaders([a]);
    await writeFile(a, `${THEOREM}/- unterminated`);
    const result = fenceCheck(before, await snapshotHeaders([a]));
    expect(result).toEqual([
      {
        file: a,
        violations: [
          {
            declaration: '',
            kind: '',
            change: 'unparseable',
            before: null,
            after: null,
            line: 0,
            detail: 'unterminated block comment opened at line 2',
          },
        ],
      },
    ]);
    expect(describeViolation('A.lean', result[0]?.violations[0] as FenceViolation)).toBe(
      'header fence: A.lean: headers unreadable after the worker returned (unterminated block comment opened at line 2)',
    );
  });

  it('skips files unfenced or failed before, compares a file missing from after with nothing', () => {
    const ok: HeaderExtraction = {
      ok: true,
      headers: [{ name: 't', kind: 'theorem', signature: ': P', line: 1 }],
    };
    const before: HeaderSnapshot = new Map<string, HeaderExtraction | null>([
      ['/p/x.md', null],
      ['/p/Bad.lean', { ok: false, error: 'e' }],
      ['/p/B.lean', ok],
      ['/p/A.lean', ok],
    ]);
    const after: HeaderSnapshot = new Map<string, HeaderExtraction | null>([
      ['/p/x.md', null],
      ['/p/Bad.lean', ok],
      ['/p/A.lean', ok],
      ['/p/New.lean', { ok: true, headers: [{ name: 'ax', kind: 'axiom', signature: ': False', line: 1 }] }],
    ]);
    expect(fenceCheck(before, after).map((r) => [r.file, r.violations.map((v) => v.change)])).toEqual([
      ['/p/B.lean', ['deleted']],
    ]);
  });
});
