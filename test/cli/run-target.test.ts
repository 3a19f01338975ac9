/**
 * No silent success (issue 28, item 1): a `--target` that names nothing in the project is a
 * usage error (exit 2, one line naming it) before any worker runs, and a run that finds no target
 * at all ends `stopped`/`queue-empty` saying "no targets found", with exit 5 — not solved's 0 —
 * unless `--allow-empty`. In-process through the CLI's `main`; the pure rule beside it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_EXIT } from '../../src/cli/run.js';
import { validateHandoff } from '../../src/contract/index.js';
import { emptyRunHandoff, isEmptyRun, targetVerdict } from '../../src/cycle/target-exists.js';
import { cliMain } from '../helpers/cli-main.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-target-'));
  await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n\ntheorem b : 2 = 2 := rfl\n');
  await writeFile(join(dir, 'Done.lean'), 'theorem d : 1 = 1 := rfl\n');
  await mkdir(join(dir, 'ts'));
  await writeFile(join(dir, 'ts', 'index.ts'), 'export const x = 1; // sorry\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A run whose worker would fail loudly if it were ever started. */
function run(...extra: string[]): ReturnType<typeof cliMain> {
  return cliMain(
    [
      'run',
      '--scope',
      'project',
      '--mode',
      'autoprove',
      '--commit',
      'never',
      '--worker',
      'no-such-worker-binary',
      ...extra,
    ],
    dir,
  );
}

describe('handoff run: a target that names nothing is a usage error', () => {
  it('a missing file: exit 2, one line naming the target and the project, nothing on stdout', async () => {
    const r = await run('--target', 'nosuch');
    expect(r.code).toBe(RUN_EXIT.usage);
    expect(r.out).toBe('');
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(r.err).toContain(`no target "nosuch" in ${dir}: no such file or directory`);
  });

  it('a file:line without a marker names the marked lines; a line past the end says so', async () => {
    const r = await run('--target', 'A.lean:4', '--scope', 'sorry');
    expect(r.code).toBe(2);
    expect(r.err).toContain('line 4 of A.lean carries no sorry marker (marked lines: 2)');
    const past = await run('--target', 'A.lean:40', '--scope', 'sorry');
    expect(past.code).toBe(2);
    expect(past.err).toContain('A.lean has 5 lines, no line 40');
  });

  it('a file:line in a file over 1 MiB is checked too, up to the size the scan reads', async () => {
    const big = `theorem a : 1 = 1 := by\n  sorry\n${'-- padding line\n'.repeat(100_000)}`;
    expect(big.length).toBeGreaterThan(1 << 20);
    await writeFile(join(dir, 'Big.lean'), big);
    const r = await run('--target', 'Big.lean:5', '--scope', 'sorry');
    expect(r.code).toBe(2);
    expect(r.err).toContain('line 5 of Big.lean carries no sorry marker (marked lines: 2)');
  });

  it('a marked file:line under another scope is a usage error (the runtime reads it as a path), not an empty run', async () => {
    const r = await run('--target', 'A.lean:2', '--scope', 'file');
    expect(r.code).toBe(RUN_EXIT.usage);
    expect(r.err).toContain(
      `no target "A.lean:2" in ${dir}: no such file or directory (a FILE:LINE target needs --scope sorry)`,
    );
  });

  it('a TypeScript file or directory under the lean profile names the profile and --profile code', async () => {
    const file = await run('--target', 'ts/index.ts');
    expect(file.code).toBe(2);
    expect(file.err).toContain(
      'ts/index.ts is not a source file of the lean profile (it reads .lean; a TypeScript, JavaScript or Python project wants --profile code)',
    );
    const folder = await run('--target', 'ts');
    expect(folder.code).toBe(2);
    expect(folder.err).toMatch(
      /names no files in .*\(the lean profile reads only \.lean files; .*--profile code\)/,
    );
  });

  it('with --json the refusal is the machine line', async () => {
    const r = await run('--target', 'nosuch', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.err)).toMatchObject({ error: 'usage', details: { target: 'nosuch' } });
  });
});

describe('handoff run: a run that finds no target says so', () => {
  it('a solved Lean file: stopped/queue-empty, "no targets found", exit 5', async () => {
    const r = await run('--target', 'Done.lean', '--json');
    expect(r.code).toBe(RUN_EXIT.empty);
    expect(r.code).not.toBe(RUN_EXIT.solved);
    const h = JSON.parse(r.out) as Record<string, unknown>;
    expect(validateHandoff(h).ok).toBe(true);
    expect(h).toMatchObject({ status: 'stopped', stop_reason: 'queue-empty' });
    expect((h.failed_avenues as string[])[0]).toBe(
      'no targets found: the lean profile found no sorry marker under Done.lean (--allow-empty accepts an empty run)',
    );
  });

  it('the summary line says it in words', async () => {
    const r = await run('--target', 'Done.lean');
    expect(r.code).toBe(5);
    expect(r.out).toMatch(/^run unpersisted: stopped \(queue-empty\)$/m);
    expect(r.out).toMatch(/^no targets found: the lean profile found no sorry marker under Done\.lean/m);
  });

  it('--allow-empty: solved and exit 0, with a note that nothing was found', async () => {
    const r = await run('--target', 'Done.lean', '--json', '--allow-empty');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ status: 'solved' });
    expect(r.err).toContain('no targets found');
  });
});

describe('target-exists rules (pure)', () => {
  it('an existing path is a target; a missing one names why', () => {
    expect(targetVerdict({ target: 'src', whole: 'directory', markers: ['sorry'] })).toEqual({ ok: true });
    expect(targetVerdict({ target: 'x', whole: 'missing', markers: ['sorry'] })).toEqual({
      ok: false,
      reason: 'no such file or directory',
    });
    const split = { file: 'A.lean', line: 2, kind: 'file' as const, lineCount: 5, markerLines: [2] };
    expect(targetVerdict({ target: 'A.lean:2', whole: 'missing', markers: ['sorry'], split }).ok).toBe(true);
    expect(
      targetVerdict({
        target: 'A.lean:2',
        whole: 'missing',
        markers: ['sorry'],
        split: { ...split, markerLines: null },
      }).ok,
    ).toBe(true);
    expect(
      targetVerdict({
        target: 'B:2',
        whole: 'missing',
        markers: ['sorry'],
        split: { ...split, kind: 'missing', file: 'B' },
      }),
    ).toEqual({ ok: false, reason: 'no such file: B' });
    expect(
      targetVerdict({
        target: 'A.lean:3',
        whole: 'missing',
        markers: ['sorry'],
        split: { ...split, line: 3, markerLines: [] },
      }),
    ).toEqual({ ok: false, reason: 'line 3 of A.lean carries no sorry marker (A.lean has none)' });
    const scan = { profile: 'lean', sourceExtensions: ['.lean'] };
    expect(targetVerdict({ target: 'A.lean', whole: 'file', markers: ['sorry'], scan }).ok).toBe(true);
    expect(targetVerdict({ target: 'a.py', whole: 'file', markers: ['sorry'], scan })).toEqual({
      ok: false,
      reason:
        'a.py is not a source file of the lean profile (it reads .lean; a TypeScript, JavaScript or Python project wants --profile code)',
    });
  });

  it('empty: solved with no handoff and nothing counted; the record it becomes is a valid stop', () => {
    expect(isEmptyRun({ status: 'solved' }, { initialCount: 0, handoffs: [] })).toBe(true);
    expect(isEmptyRun({ status: 'solved' }, { initialCount: null, handoffs: [] })).toBe(true);
    expect(isEmptyRun({ status: 'solved' }, { initialCount: 1, handoffs: [{}] })).toBe(false);
    expect(isEmptyRun({ status: 'stuck' }, { initialCount: 0, handoffs: [] })).toBe(false);
    const h = emptyRunHandoff(
      { status: 'solved', stop_reason: null, next_action: 'stop', failed_avenues: ['x'] },
      'why',
    );
    expect(h).toEqual({
      status: 'stopped',
      stop_reason: 'queue-empty',
      next_action: 'stop',
      failed_avenues: ['no targets found: why', 'x'],
    });
  });
});
