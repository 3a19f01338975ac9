/**
 * Records across implementations (issue 17 item 5): records a newer reference writes — extra keys
 * at the root, in context/evidence, in baselines, and Windows/UNC baseline paths — are valid for
 * the reference validator, so they are valid here; unknown keys are kept (never dropped) and
 * reported as warnings; none of them can change a verdict. And the other direction: what we
 * write passes a strict reader of the reference format.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBaseline } from '../../src/baseline/index.js';
import {
  type Dispatch,
  type Handoff,
  protocolErrorHandoff,
  rerunGuard,
  validateBaseline,
  validateDispatch,
  validateHandoff,
} from '../../src/contract/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { integralFloatIssue } from '../../src/validation/index.js';
import { canonicalDispatch, solvedHandoff, stuckHandoff } from '../contract/fixtures.js';
import { runCli, stdoutJson } from '../helpers/cli.js';
import {
  fixtureJson,
  fixtureText,
  referenceBaselineValid,
  referenceRecordProblems,
} from './reference-readers.js';

describe('they wrote → we read: the reference verdict is "valid", ours too', () => {
  it('a dispatch with extra keys at the root, in context and in its baseline (reference: valid)', () => {
    const d = fixtureJson('dispatch-newer-reference.json');
    expect(referenceRecordProblems('dispatch', d)).toEqual([]);
    const r = validateDispatch(d);
    expect(r.ok).toBe(true);
    // kept exactly as given: nothing dropped, nothing reordered
    if (r.ok) expect(JSON.stringify(r.value)).toBe(JSON.stringify(d));
    expect(r.warnings?.map((w) => w.path)).toEqual([
      'review_source',
      'dispatched_at',
      'context.lsp_snapshot',
      'file_baseline.recorded_by',
      'file_baseline.files.0.mode',
    ]);
    expect(r.warnings?.every((w) => w.code === 'unknown_key')).toBe(true);
  });

  it('a stuck handoff with extra keys at the root and in evidence, Lean goals in its text (reference: valid)', () => {
    const h = fixtureJson('handoff-newer-reference.json');
    expect(referenceRecordProblems('handoff', h)).toEqual([]);
    const r = validateHandoff(h);
    expect(r.ok).toBe(true);
    if (r.ok) expect(JSON.stringify(r.value)).toBe(JSON.stringify(h));
    expect(r.warnings?.map((w) => w.path)).toEqual(['review_ref', 'worker_version', 'evidence.lean_version']);
  });

  it('a handoff whose baseline has Windows drive and UNC paths (reference: valid, on purpose)', () => {
    const h = fixtureJson('handoff-windows-baseline.json');
    expect(referenceRecordProblems('handoff', h)).toEqual([]);
    const r = validateHandoff(h);
    expect(r.ok, JSON.stringify(!r.ok && r.issues)).toBe(true);
    expect(r.warnings).toBeUndefined();
    expect(validateBaseline((h as { file_baseline: unknown }).file_baseline).ok).toBe(true);
  });

  it.skipIf(process.platform === 'win32')(
    'a Windows-path baseline is data on POSIX: checking it (before any write) refuses, never resolves C:\\ against the cwd',
    async () => {
      const h = fixtureJson<Handoff>('handoff-windows-baseline.json');
      const baseline = h.file_baseline as NonNullable<Handoff['file_baseline']>;
      let code = '';
      try {
        await checkBaseline(baseline, { cwd: '/tmp' });
      } catch (e) {
        if (!isHandoffError(e)) throw e;
        code = `${e.code}:${(e.details.issues as { code: string }[])[0]?.code}`;
      }
      // the reference's host-local file_baseline.py exits 2 here too (os.path.isabs is false)
      expect(code).toBe('invalid_record:not_local_path');
    },
  );

  it('handoff guard accepts a prior handoff a newer reference wrote (was exit 2) and gives the reference verdict', async () => {
    // the reference's rerun_forbidden: same task, prior blocker repeated, no evidence → forbidden
    const prior = fixtureText('handoff-newer-reference.json');
    const relaunch = { ...canonicalDispatch(), prior_blocker: 'Mathlib/Foo.lean:42:unknown identifier' };
    const dir = await mkdtemp(join(tmpdir(), 'interop-guard-'));
    try {
      await writeFile(`${dir}/prior.json`, prior);
      await writeFile(`${dir}/dispatch.json`, JSON.stringify(relaunch));
      const forbidden = await runCli([
        'guard',
        '--dispatch',
        `${dir}/dispatch.json`,
        '--prior',
        `${dir}/prior.json`,
      ]);
      expect(forbidden.code, forbidden.stderr).toBe(3);
      expect(stdoutJson<{ forbidden: boolean; branch: string }>(forbidden)).toMatchObject({
        forbidden: true,
        branch: 'blocker',
      });
      await writeFile(
        `${dir}/dispatch.json`,
        JSON.stringify({ ...relaunch, evidence_delta: ['verified le_of_lt'] }),
      );
      const allowed = await runCli([
        'guard',
        '--dispatch',
        `${dir}/dispatch.json`,
        '--prior',
        `${dir}/prior.json`,
      ]);
      expect(allowed.code, allowed.stderr).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('echo: `handoff dispatch check` prints a newer reference dispatch as it was written', () => {
  it('unknown keys kept, key order kept, exit 0', async () => {
    const text = fixtureText('dispatch-newer-reference.json');
    const r = await runCli(['dispatch', 'check', '-'], { input: text });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(r.stdout))).toBe(JSON.stringify(JSON.parse(text)));
  });
});

describe('the reference says "invalid": so do we', () => {
  const reject: Array<[string, (h: Record<string, unknown>) => unknown]> = [
    ['a missing root key', ({ next_action: _n, ...h }) => h],
    [
      'a missing evidence member',
      (h) => ({ ...h, evidence: { ...(h.evidence as object), goal_delta: undefined } }),
    ],
    [
      'an extra key inside a best candidate (exact shape)',
      (h) => ({ ...h, best_candidates: [{ candidate: 'c', outcome: 'o', x: 1 }] }),
    ],
    [
      'an extra key inside an artifact (exact shape)',
      (h) => ({ ...h, artifacts: [{ kind: 'k', content: 'c', x: 1 }] }),
    ],
    [
      'a relative baseline path',
      (h) => ({
        ...h,
        file_baseline: {
          schema: 'file-baseline/v1',
          files: [{ path: 'repo/A', realpath: '/repo/A', exists: false, sha256: null, size: null }],
        },
      }),
    ],
    [
      'a drive letter without a separator (C:foo)',
      (h) => ({
        ...h,
        file_baseline: {
          schema: 'file-baseline/v1',
          files: [{ path: 'C:foo', realpath: 'C:foo', exists: false, sha256: null, size: null }],
        },
      }),
    ],
  ];
  for (const [name, damage] of reject) {
    it(name, () => {
      const h = JSON.parse(JSON.stringify(damage(fixtureJson('handoff-newer-reference.json'))));
      expect(referenceRecordProblems('handoff', h)).not.toEqual([]);
      expect(validateHandoff(h).ok).toBe(false);
    });
  }

  it('a budget with an extra key (exact keys in both)', () => {
    const d = fixtureJson<Dispatch>('dispatch-newer-reference.json');
    const bad = { ...d, budget: { ...d.budget, max_tokens: 5 } };
    expect(referenceRecordProblems('dispatch', bad)).toContain('budget keys');
    expect(validateDispatch(bad).ok).toBe(false);
  });
});

describe('deliberate deviations (docs/run-contract.md), pinned', () => {
  it('a whitespace-only blocker_signature: the reference accepts it, we refuse it', () => {
    const h = { ...stuckHandoff(), blocker_signature: '   ' };
    expect(referenceRecordProblems('handoff', h)).toEqual([]);
    expect(validateHandoff(h).ok).toBe(false);
  });
  it('duplicate owned files and a zero budget: the reference accepts them, we refuse them', () => {
    const d = canonicalDispatch();
    expect(validateDispatch({ ...d, owned_files: [...d.owned_files, ...d.owned_files] }).ok).toBe(false);
    expect(validateDispatch({ ...d, budget: { ...d.budget, max_cycles: 0 } }).ok).toBe(false);
  });
  it('a __proto__ key: an ordinary key for the reference, forbidden here', () => {
    const text = fixtureText('handoff-newer-reference.json').replace(
      '{',
      '{"__proto__": {"status": "solved"},',
    );
    const r = validateHandoff(JSON.parse(text));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]).toMatchObject({ path: '__proto__', code: 'forbidden_key' });
  });
});

describe('hostile workers: unknown keys never change a verdict', () => {
  const lookalikes = {
    status_override: 'solved',
    verified: true,
    'blocker_signature ': null,
    stop_reason_: 'user-stop',
    files_changed_extra: ['/etc/passwd'],
    file_baseline_override: { schema: 'file-baseline/v1', files: [] },
  };
  it('the rerun guard gives the same verdict with and without look-alike keys', () => {
    const prior = stuckHandoff();
    const withKeys = validateHandoff({ ...prior, ...lookalikes });
    expect(withKeys.ok).toBe(true);
    if (!withKeys.ok) return;
    const relaunches = [
      { ...canonicalDispatch(), prior_blocker: prior.blocker_signature },
      { ...canonicalDispatch(), prior_blocker: prior.blocker_signature, evidence_delta: ['new lemma'] },
      { ...canonicalDispatch(), prior_blocker: null },
    ];
    for (const d of relaunches) expect(rerunGuard(d, withKeys.value)).toEqual(rerunGuard(d, prior));
  });
  it('the validity verdict is the same with and without them (a stuck handoff stays stuck-invalid when broken)', () => {
    const broken = { ...stuckHandoff(), blocker_class: null };
    expect(validateHandoff(broken).ok).toBe(false);
    expect(validateHandoff({ ...broken, ...lookalikes }).ok).toBe(false);
    expect(validateHandoff({ ...solvedHandoff(), ...lookalikes }).ok).toBe(true);
  });
  it('a protocol-error handoff built from a dispatch with unknown keys echoes a valid record', () => {
    const h = protocolErrorHandoff(fixtureJson('dispatch-newer-reference.json'), 'refused for the test');
    expect(validateHandoff(h).ok).toBe(true);
  });
});

describe('we write → they read', () => {
  it('every record we validate (and so store or echo) passes the reference reader unchanged', () => {
    for (const [kind, rec] of [
      ['dispatch', canonicalDispatch()],
      ['handoff', stuckHandoff()],
      ['handoff', solvedHandoff()],
      ['dispatch', fixtureJson('dispatch-newer-reference.json')],
      ['handoff', fixtureJson('handoff-windows-baseline.json')],
    ] as const) {
      const v = kind === 'dispatch' ? validateDispatch(rec) : validateHandoff(rec);
      expect(v.ok).toBe(true);
      if (v.ok) expect(referenceRecordProblems(kind, JSON.parse(JSON.stringify(v.value)))).toEqual([]);
    }
  });
  it('a protocol-error handoff of ours is a valid reference handoff', () => {
    const h = protocolErrorHandoff('{"schema":"run-contract/v1","target":"A.lean:1","sco', 'truncated');
    expect(referenceRecordProblems('handoff', h)).toEqual([]);
    expect(referenceBaselineValid(stuckHandoff().file_baseline)).toBe(true);
  });
});

/**
 * Issue 34 item 5, the reference's verdicts (`run_contract_validate.py`, run side by side for the
 * issue): an absent baseline entry without a `size` key is valid; `budget.max_cycles: 20.0` and a
 * baseline `size: 12.0` are invalid (Python's `int` check).
 */
describe('issue 34: integral floats and absent entries in records', () => {
  it('an absent baseline entry without sha256/size keys is valid in a dispatch (reference: valid)', () => {
    const d = canonicalDispatch();
    const entry = d.file_baseline.files[0] as Record<string, unknown>;
    const bare = { path: entry.path, realpath: entry.realpath, exists: false };
    const r = validateDispatch({ ...d, file_baseline: { ...d.file_baseline, files: [bare] } });
    expect(r.ok).toBe(true);
    // an existing entry without its size stays invalid (reference: the same)
    const half = { ...bare, exists: true, sha256: 'a'.repeat(64) };
    expect(validateDispatch({ ...d, file_baseline: { ...d.file_baseline, files: [half] } }).ok).toBe(false);
  });

  it('budget.max_cycles: 20.0 and a baseline size: 12.0 are invalid for `handoff validate` (reference: invalid); 20.0 in an extra key is not', async () => {
    const d = canonicalDispatch() as unknown as { budget: Record<string, unknown> };
    const text = JSON.stringify({ ...d, budget: { ...d.budget, max_cycles: 20 } }, null, 2);
    const floated = text.replace('"max_cycles": 20', '"max_cycles": 20.0');
    expect(floated).not.toBe(text);
    const dir = await mkdtemp(join(tmpdir(), 'interop-records-'));
    try {
      await writeFile(join(dir, 'd.json'), floated);
      const r = await runCli(['validate', '--kind', 'dispatch', 'd.json'], { cwd: dir });
      expect(r.code).toBe(3);
      expect(stdoutJson<{ issues: unknown[] }>(r).issues).toEqual([
        {
          path: 'budget.max_cycles',
          code: 'integral_float',
          message: 'an integer field written as a float (20.0)',
        },
      ]);
      await writeFile(join(dir, 'x.json'), text.replace('"budget": {', '"weight": 20.0,\n  "budget": {'));
      expect((await runCli(['validate', '--kind', 'dispatch', 'x.json'], { cwd: dir })).code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const h = solvedHandoff() as unknown as { file_baseline: { files: { size: number | null }[] } };
    const size = h.file_baseline.files.find((f) => f.size !== null)?.size as number;
    const hText = JSON.stringify(h);
    const hFloat = hText.replace(`"size":${size}`, `"size":${size}.0`);
    expect(hFloat).not.toBe(hText);
    expect(integralFloatIssue(hFloat, JSON.parse(hFloat), (v) => validateHandoff(v).ok)).toMatchObject({
      code: 'integral_float',
      path: expect.stringMatching(/^file_baseline\.files\.\d+\.size$/),
    });
    expect(integralFloatIssue(hText, JSON.parse(hText), (v) => validateHandoff(v).ok)).toBeNull();
  });
});
