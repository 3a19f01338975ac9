/**
 * The Lean JSON diagnostics port (src/runtime/lean-json-diagnostics.ts) with a fake `lake`
 * (test/fixtures/lean-json/fake-lake.mjs: a node script that prints a recorded fixture): one run
 * per file, sorry warnings as targets named from the accepted bytes, errors as errors, a failing
 * command without Lean errors never a pass, and the snapshot plumbing of commandDiagnostics.
 */
import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isHandoffError } from '../../src/errors/index.js';
import { leanJsonDiagnostics } from '../../src/runtime/index.js';

const fixtures = fileURLToPath(new URL('../fixtures/lean-json/', import.meta.url));
const fakeLake = join(fixtures, 'fake-lake.mjs');
const root = realpathSync(mkdtempSync(join(tmpdir(), 'lean-json-')));
cpSync(join(fixtures, 'Demo'), join(root, 'Demo'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** argv of the fake: prints `fixture`, writes `stderr` (or nothing: `-`), exits with `code`. */
const lake = (fixture: string, code = 0, stderr = '-') => [
  process.execPath,
  fakeLake,
  fixture === '-' ? '-' : join(fixtures, fixture),
  String(code),
  stderr,
];
const ask = { question: 'discover', tier: 'file-fast', files: [] } as const;

describe('leanJsonDiagnostics', () => {
  it('runs the command on every file of the scope: sorry targets named by declaration, errors', async () => {
    const d = leanJsonDiagnostics(lake('basic.jsonl', 1), root, 30_000, {
      allFiles: () => ['Demo/Basic.lean'],
    });
    const out = await d.diagnose(ask);
    expect(out.targets).toEqual([
      { id: 'Demo/Basic.lean:3', file: 'Demo/Basic.lean', line: 3, goal: "add_zero'" },
      { id: 'Demo/Basic.lean:9', file: 'Demo/Basic.lean', line: 9, goal: 'half' },
    ]);
    // Lean exits 1 on an error: that error is the report, not the exit status
    expect(out.errors).toEqual(['Demo/Basic.lean:7:Tactic `decide` proved that the proposition']);
    expect(out.ok).toBe(false);
    expect(out.tier).toBe('file-fast');
  });

  it('sorry-only output is ok with open targets (the older wording too)', async () => {
    const d = leanJsonDiagnostics(lake('legacy-quotes.jsonl'), root, 30_000);
    const out = await d.diagnose({ question: 'edit', tier: 'file-fast', files: ['Demo/Basic.lean'] });
    expect(out.targets.map((t) => [t.id, t.goal])).toEqual([
      ['Demo/Basic.lean:3', "add_zero'"],
      ['Demo/Basic.lean:9', 'half'],
    ]);
    expect(out.errors).toEqual([]);
    expect(out.ok).toBe(true);
  });

  it('a command that fails without a Lean error is an error on the file, never a pass', async () => {
    const d = leanJsonDiagnostics(lake('-', 1, "error: unknown package 'Mathlib'"), root, 30_000);
    const out = await d.diagnose({ question: 'edit', tier: 'file-fast', files: ['Demo/Basic.lean'] });
    expect(out.ok).toBe(false);
    expect(out.targets).toEqual([]);
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]).toMatch(/^Demo\/Basic\.lean:0:.* exited with 1: error: unknown package 'Mathlib'/);
    expect(out.errors[0]).toContain('checked: Demo/Basic.lean');
  });

  it('with no file named and no allFiles it runs the command once, without a file argument', async () => {
    const d = leanJsonDiagnostics(lake('-', 2), root, 30_000);
    const out = await d.diagnose(ask);
    expect(out.errors).toEqual([`.:0:${process.execPath} exited with 2`]);
  });

  it('judges the runtime snapshot: the declaration is named from the accepted bytes, and live drift is an error', async () => {
    const abs = join(root, 'Demo/Basic.lean');
    const accepted = Buffer.from('import Std\n\ntheorem add_zer0 (n : Nat) : n + 0 = n := by\n  sorry\n');
    const d = leanJsonDiagnostics(lake('legacy-quotes.jsonl'), root, 30_000, {
      sandbox: null,
      bytesOf: (p) => (p === abs ? { bytes: accepted } : undefined),
    });
    const out = await d.diagnose({ question: 'checkpoint', tier: 'project', files: ['Demo/Basic.lean'] });
    expect(out.targets[0]?.goal).toBe('add_zer0');
    // the live file is not the accepted bytes: the check may have judged other bytes
    expect(out.errors).toEqual([
      'Demo/Basic.lean:0:the check did not judge the accepted bytes: changed on disk around it',
    ]);
    expect(out.ok).toBe(false);
  });

  it('a command that cannot start is an io_error', async () => {
    const missing = join(root, 'no-such-lake');
    const d = leanJsonDiagnostics([missing, 'env', 'lean', '--json'], root, 30_000);
    const err = await d.diagnose(ask).catch((e: unknown) => e);
    expect(isHandoffError(err) && err.code).toBe('io_error');
  });
});
