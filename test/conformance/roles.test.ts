/**
 * The role checks of `handoff conformance` (src/conformance/role-checks.ts, role-dispatch.ts and
 * the `role` plan option): the dispatch a repair or falsify case sends is the runtime's own
 * (`roleFields`), the plan keeps the fill stream but for the target file, and the pure checks
 * judge a repair answer (edited files, its shape, its diff's paths — hostile paths included) and
 * a falsification pass (¬P while P's sorry stays) with the runtime's rules; in-process workers
 * in each role run through the real harness on real files.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import {
  CHECKS,
  CONFORMANCE_FALSIFY_POLICY,
  ConformanceReportSchema,
  FENCED_HEADER,
  formatReport,
  planCases,
  ROLE_CHECKS,
  ROLE_TARGET_TEXT,
  type RoleObservation,
  roleFindings,
  runConformance,
  withRole,
} from '../../src/conformance/index.js';
import { type Dispatch, type Handoff, handoffFor, validateDispatch } from '../../src/contract/index.js';
import { runCli } from '../helpers/cli.js';
import { failedChecks } from './helpers.js';

const ROOT = '/p';
const A = '/p/f0/a b.lean';
const DIFF = (path: string) =>
  `--- a/${path}\n+++ b/${path}\n@@ -1,2 +1,2 @@\n ${FENCED_HEADER}\n-  sorry\n+  rfl\n`;

/** A valid fill dispatch for `A`, target line 2 (the plan's first case, re-targeted). */
function dispatchFor(): Dispatch {
  const plan = planCases({ runs: 1, seed: 3, defects: [] })[0];
  if (plan === undefined) throw new Error('no plan');
  return {
    ...plan.template,
    target: `${A}:2`,
    owned_files: [A],
    file_baseline: {
      schema: 'file-baseline/v1',
      files: [{ path: A, realpath: A, exists: true, sha256: 'a'.repeat(64), size: 42 }],
    },
  } as Dispatch;
}

const obs = (role: 'repair' | 'falsify', after: string | null = ROLE_TARGET_TEXT): RoleObservation => ({
  role,
  projectRoot: ROOT,
  targetLine: 2,
  policy: 'salvage',
  targetBefore: ROLE_TARGET_TEXT,
  targetAfter: after,
});

const answer = (extra: Partial<Handoff> = {}): Handoff => ({
  ...handoffFor(withRole(dispatchFor(), 'repair', ROOT)),
  ...extra,
});
const diffArtifact = (content: string) => ({ kind: 'unified-diff', content });
const checks = (fs: readonly { check: string; passed: boolean }[]) => fs.map((f) => [f.check, f.passed]);

describe('withRole and the role plan', () => {
  it('fill leaves the dispatch as it is; repair and falsify carry the runtime role fields and stay valid', () => {
    const d = dispatchFor();
    expect(withRole(d, 'fill', ROOT)).toBe(d);
    const r = withRole(d, 'repair', ROOT);
    expect(validateDispatch(r).ok).toBe(true);
    expect(r.worker).toBe('proof-repair');
    expect(r.parameters).toEqual({
      error: {
        errorType: 'unsolved goals',
        message: 'unsolved goals\nn : Nat\n⊢ n + 0 = n',
        file: 'f0/a b.lean',
        line: 2,
        goal: 'n + 0 = n',
        localContext: ['n : Nat'],
      },
    });
    expect(r.context).toMatchObject({ role: 'repair', goal_state: d.context.goal_state });
    const f = withRole(d, 'falsify', ROOT);
    expect(validateDispatch(f).ok).toBe(true);
    expect(f.worker).toBeNull();
    expect(f.parameters).toEqual({});
    expect(f.context).toMatchObject({
      role: 'falsify',
      role_parameters: {
        falsification: {
          policy: CONFORMANCE_FALSIFY_POLICY,
          target: 'f0/a b.lean:2',
          artifacts: ['t_counterexample', 't_salvaged'],
          negation_allowed: false,
        },
      },
    });
  });

  it('a role plan keeps the fill stream but sets the target file and line', () => {
    const fill = planCases({ runs: 4, seed: 9 });
    const repair = planCases({ runs: 4, seed: 9, role: 'repair' });
    expect(repair.map((c) => c.role)).toEqual(['repair', 'repair', 'repair', 'repair']);
    expect(fill.map((c) => c.role)).toEqual(['fill', 'fill', 'fill', 'fill']);
    for (const [i, c] of repair.entries()) {
      const f = fill[i];
      expect(c.template).toEqual(f?.template);
      expect(c.files.slice(1)).toEqual(f?.files.slice(1));
      expect(c.files[0]).toEqual({ ...f?.files[0], content: ROLE_TARGET_TEXT });
      expect(c.targetLine).toBe(2);
    }
    expect(() => planCases({ runs: 1, seed: 0, role: 'golf' as never })).toThrow(
      /role must be one of fill, repair, falsify/,
    );
  });

  it('the four role checks are report checks, each of one role', () => {
    expect(ROLE_CHECKS).toEqual({
      fill: [],
      repair: ['repair-patch-only', 'repair-one-diff', 'repair-diff-owned'],
      falsify: ['falsify-no-negation'],
    });
    for (const c of [...ROLE_CHECKS.repair, ...ROLE_CHECKS.falsify]) expect(CHECKS).toContain(c);
  });
});

describe('roleFindings: repair', () => {
  it('one diff of an owned file, nothing edited: all three pass', () => {
    const fs = roleFindings(
      obs('repair'),
      answer({ artifacts: [diffArtifact(DIFF('f0/a b.lean'))] }),
      [A],
      [],
    );
    expect(checks(fs)).toEqual([
      ['repair-patch-only', true],
      ['repair-one-diff', true],
      ['repair-diff-owned', true],
    ]);
    expect(fs[2]?.detail).toBe('the diff touches only owned files (f0/a b.lean)');
  });

  it('an edited owned file fails repair-patch-only and nothing after it (one flaw, one finding)', () => {
    const fs = roleFindings(
      obs('repair'),
      answer({ files_changed: [A], artifacts: [] }),
      [A],
      [A, '/p/README.md'],
    );
    expect(checks(fs)).toEqual([['repair-patch-only', false]]);
    expect(fs[0]?.detail).toBe(
      'the repair worker is patch-only but edited /p/f0/a b.lean (its diff belongs in artifacts)',
    );
  });

  it.each([
    [
      'two diffs',
      { artifacts: [diffArtifact(DIFF('f0/a b.lean')), diffArtifact(DIFF('f0/a b.lean'))] },
      '0 changed file(s), 2 diff(s)',
    ],
    ['no diff', { artifacts: [{ kind: 'note', content: 'x' }] }, '0 changed file(s), 0 diff(s)'],
    [
      'a claimed change',
      { files_changed: [A], artifacts: [diffArtifact(DIFF('f0/a b.lean'))] },
      '1 changed file(s), 1 diff(s)',
    ],
  ])('%s fails repair-one-diff', (_, extra, got) => {
    const fs = roleFindings(obs('repair'), answer(extra as Partial<Handoff>), [A], []);
    expect(checks(fs)).toEqual([
      ['repair-patch-only', true],
      ['repair-one-diff', false],
    ]);
    expect(fs[1]?.detail).toBe(
      `a repair handoff carries files_changed: [] and exactly one unified-diff artifact (got ${got})`,
    );
  });

  // hostile diffs: paths are data, judged by src/patch, never resolved
  it.each([
    [
      'a bystander',
      DIFF('README.md'),
      /^repair diff refused: README\.md: not a file this patch may touch \(out_of_scope\)$/,
    ],
    ['an escape', DIFF('../outside.lean'), /^repair diff refused: .*\.\." segment/],
    ['an absolute path', DIFF('/etc/passwd'), /^repair diff refused: .*absolute path/],
    ['git internals', DIFF('.git/hooks/pre-commit'), /^repair diff refused: .*"\.git" segment/],
    ['an ESC in the path', DIFF('f0/a\u001b]0;x\u0007.lean'), /^repair diff refused: .*control character/],
    ['no diff at all', 'rm -rf /\n', /^repair diff refused: /],
  ])('a diff of %s fails repair-diff-owned', (_, content, detail) => {
    const fs = roleFindings(obs('repair'), answer({ artifacts: [diffArtifact(content)] }), [A], []);
    expect(checks(fs).at(-1)).toEqual(['repair-diff-owned', false]);
    expect(fs.at(-1)?.detail).toMatch(detail);
    expect(fs.at(-1)?.detail).not.toMatch(/\u001b/);
  });
});

describe('roleFindings: falsify', () => {
  const h = handoffFor(withRole(dispatchFor(), 'falsify', ROOT));
  const NEG = `${ROLE_TARGET_TEXT}\ntheorem t_false (n : Nat) : ¬ (n + 0 = n) := by\n  sorry\n`;

  it('¬P beside a target whose sorry stays fails falsify-no-negation with the runtime’s reason', () => {
    const fs = roleFindings(obs('falsify', NEG), h, [A], [A]);
    expect(fs).toEqual([
      {
        check: 'falsify-no-negation',
        passed: false,
        detail: 'falsification: t_false proves the negation of t while t is still sorry (policy salvage)',
      },
    ]);
  });

  it('a renamed-binder negation (`∀ m, ¬ …` spelled differently) is still caught', () => {
    const renamed = `${ROLE_TARGET_TEXT}\ntheorem nope : ¬ ∀ (m : Nat), m + 0 = m := by\n  sorry\n`;
    expect(roleFindings(obs('falsify', renamed), h, [A], [A])[0]?.passed).toBe(false);
  });

  it('a counterexample, a solved target, the negate policy and an untouched file pass (or are not rated)', () => {
    const cex = `${ROLE_TARGET_TEXT}\ntheorem t_counterexample : ∃ n : Nat, ¬ (n + 1 = n) := ⟨0, by decide⟩\n`;
    expect(roleFindings(obs('falsify', cex), h, [A], [A])[0]?.passed).toBe(true);
    const solved = NEG.replace('by\n  sorry\n\ntheorem', 'by\n  rfl\n\ntheorem');
    expect(roleFindings(obs('falsify', solved), h, [A], [A])[0]?.passed).toBe(true);
    expect(roleFindings({ ...obs('falsify', NEG), policy: 'negate' }, h, [A], [A])[0]?.passed).toBe(true);
    expect(roleFindings(obs('falsify'), h, [A], [])).toEqual([]);
    expect(roleFindings(obs('falsify', null), h, [A], [A])).toEqual([]);
  });
});

describe('runConformance in a role, in process (real case projects)', () => {
  /** Answers a valid dispatch with a repair diff of its target line (and edits too when `edit`). */
  const repairWorker = (edit: boolean) => async (input: unknown) => {
    const d = input as Dispatch;
    if (!validateDispatch(d).ok) return { schema: 'not-a-handoff' };
    const file = d.owned_files[0] as string;
    const root = file.slice(0, file.indexOf('/f0/'));
    const text = await readFile(file, 'utf8');
    const artifacts = [diffArtifact(DIFF(relative(root, file)))];
    if (!edit) return { ...handoffFor(d), artifacts };
    await writeFile(file, text.replace('sorry', 'rfl'));
    return {
      ...handoffFor(d),
      files_changed: [file],
      file_baseline: await advanceBaseline(d.file_baseline, [file]),
      artifacts,
    };
  };

  it('a patch-only repair worker conforms; one that also edits fails repair-patch-only on each valid case', async () => {
    const ok = await runConformance({
      worker: repairWorker(false),
      name: 'repair',
      runs: 2,
      defects: [],
      role: 'repair',
    });
    expect(ConformanceReportSchema.safeParse(ok).success).toBe(true);
    expect(ok.role).toBe('repair');
    expect(ok.failed).toBe(0);
    expect(ok.findings.filter((f) => f.check === 'repair-diff-owned').map((f) => f.passed)).toEqual([
      true,
      true,
    ]);
    expect(formatReport(ok).split('\n')[0]).toBe(
      'worker: <in-process> repair (seed 0, 2 cases, role repair)',
    );
    const bad = await runConformance({
      worker: repairWorker(true),
      name: 'repair',
      runs: 2,
      defects: [],
      role: 'repair',
    });
    expect(failedChecks(bad)).toEqual(['repair-patch-only']);
    expect(bad.findings.filter((f) => !f.passed).map((f) => f.case_id)).toEqual(['case-1', 'case-2']);
  });

  it('a fill run reports no role and applies no role check', async () => {
    const r = await runConformance({ worker: async (d) => handoffFor(d as Dispatch), runs: 1, defects: [] });
    expect(r.role).toBeUndefined();
    expect(r.findings.some((f) => f.check.startsWith('repair-') || f.check.startsWith('falsify-'))).toBe(
      false,
    );
  });
});

describe('handoff conformance --role', () => {
  it('an unknown role is a usage error (exit 2) naming the roles', async () => {
    const r = await runCli(['conformance', 'worker', '--role', 'golf', '--', 'node', 'x.mjs'], {
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^handoff conformance: --role must be one of fill, repair, falsify, got "golf"/);
  });
});
