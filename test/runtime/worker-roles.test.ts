/**
 * Worker roles in the delegating worker (src/runtime/delegating-worker.ts, dispatch-builder.ts)
 * with real child-process workers (a node script per behaviour) on real files: what each role's
 * dispatch carries (worker, parameters, pre-flight context, owned files), and what each must
 * return — a deep worker owns exactly its declared set, a repair worker is patch-only, a falsify
 * pass may not prove the negation of a target whose sorry stays; `linesChanged` is the line diff
 * of the accepted files.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordBaseline } from '../../src/baseline/index.js';
import { emptyContext } from '../../src/contract/dispatch-schema.js';
import { type Dispatch, validateDispatch } from '../../src/contract/index.js';
import { deepParameters } from '../../src/cycle/deep-rules.js';
import { falsificationParameters } from '../../src/cycle/falsification.js';
import { changedLineCount } from '../../src/cycle/line-diff.js';
import type { WorkerInput, WorkOutcome } from '../../src/cycle/types.js';
import { resolveCycleOptions } from '../../src/runtime/cycle-options.js';
import { ownedPathsOf, resolveUnder, roleFields } from '../../src/runtime/dispatch-builder.js';
import {
  createRoleProject,
  distUrl,
  type RoleProject,
  roleWorker,
  roleWorkerInput,
} from '../helpers/role-project.js';

const dist = distUrl;

/** A worker per behaviour: reads the dispatch, records it, then does `argv[2]`. */
const WORKER = `
import { readFileSync, writeFileSync } from 'node:fs';
import { advanceBaseline } from '${dist('baseline/index.js')}';
import { handoffFor } from '${dist('contract/index.js')}';
const [what, record] = process.argv.slice(2);
const d = JSON.parse(readFileSync(0, 'utf8'));
writeFileSync(record, JSON.stringify(d));
const emit = (v) => process.stdout.write(JSON.stringify(v) + '\\n');
const edit = (f, fn) => writeFileSync(f, fn(readFileSync(f, 'utf8')));
const changed = async (files, extra = {}) =>
  emit({ ...handoffFor(d), files_changed: files, file_baseline: await advanceBaseline(d.file_baseline, files), ...extra });
const [a, b] = d.owned_files;
const DIFF = '--- a/A.lean\\n+++ b/A.lean\\n@@ -1,2 +1,2 @@\\n theorem t (n : Nat) : n + 0 = n := by\\n-  sorry\\n+  rfl\\n';
switch (what) {
  case 'fill':
    edit(a, (t) => t.replace('sorry', 'rfl'));
    await changed([a]);
    break;
  case 'deep-two':
    edit(a, (t) => t.replace('sorry', 'exact helper n'));
    writeFileSync(b, 'theorem helper (n : Nat) : n + 0 = n := rfl\\n');
    await changed([a, b]);
    break;
  case 'deep-outside':
    edit(a, (t) => t.replace('sorry', 'rfl'));
    writeFileSync(d.owned_files[0].replace(/[^/]*$/, 'Extra.lean'), 'theorem sneaky : True := trivial\\n');
    await changed([a]);
    break;
  case 'repair-diff':
    emit({ ...handoffFor(d), artifacts: [{ kind: 'unified-diff', content: DIFF }] });
    break;
  case 'repair-edits':
    edit(a, (t) => t.replace('sorry', 'rfl'));
    await changed([a], { artifacts: [{ kind: 'unified-diff', content: DIFF }] });
    break;
  case 'repair-two-diffs':
    emit({ ...handoffFor(d), artifacts: [{ kind: 'unified-diff', content: DIFF }, { kind: 'unified-diff', content: DIFF }] });
    break;
  case 'repair-claims-change':
    emit({ ...handoffFor(d), files_changed: [a], artifacts: [{ kind: 'unified-diff', content: DIFF }] });
    break;
  case 'falsify-negation':
    edit(a, (t) => t + '\\ntheorem t_false (n : Nat) : ¬ (n + 0 = n) := by\\n  sorry\\n');
    await changed([a]);
    break;
  case 'falsify-counterexample':
    edit(a, (t) => t + '\\ntheorem t_counterexample : ∃ n : Nat, ¬ (n + 1 = n) := ⟨0, by decide⟩\\n');
    await changed([a]);
    break;
}
`;

const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
let project: RoleProject;
let dir: string;

beforeEach(async () => {
  project = await createRoleProject({
    name: 'roles',
    files: { 'A.lean': THEOREM, 'notes.txt': 'unrelated\n' },
    worker: WORKER,
  });
  dir = project.dir;
});
afterEach(async () => {
  await project.cleanup();
});

const input = (over: Partial<WorkerInput> = {}): Promise<WorkerInput> =>
  roleWorkerInput(dir, { file: 'A.lean', line: 2, goal: 'n + 0 = n' }, over);

async function work(behaviour: string, i: WorkerInput): Promise<{ out: WorkOutcome; sent: Dispatch }> {
  const record = join(project.aside, 'dispatch.json');
  const worker = roleWorker(project, [behaviour, record]);
  const out = (await worker.work(i, new AbortController().signal)) as WorkOutcome;
  const sent = JSON.parse(await readFile(record, 'utf8').catch(() => 'null')) as Dispatch;
  return { out, sent };
}

const DEEP_PARAMS = {
  fast_pass_error: 'omega failed',
  deep_budget: { scope: 'cross-file', max_files: 2, max_lines: 200 },
};
const REPAIR_PARAMS = {
  error: {
    errorType: 'type mismatch',
    message: 'type mismatch',
    file: 'A.lean',
    line: 2,
    goal: 'n + 0 = n',
    localContext: ['n : Nat'],
  },
};
const PREFLIGHT = {
  diagnostics: ['A.lean:2:declaration uses sorry'],
  candidatesTested: [{ snippet: 'simp', result: 'failed: no progress' }],
  codeActions: ['Try this: exact Nat.add_zero n'],
};

describe('dispatch per role (pure)', () => {
  const T = { id: 'A.lean:2', file: 'A.lean', line: 2, goal: 'n + 0 = n' };
  const valid = async (f: ReturnType<typeof roleFields>) =>
    validateDispatch({
      schema: 'run-contract/v1',
      record: 'dispatch',
      target: T.id,
      scope: 'sorry',
      mode: 'autoprove',
      worker: f.worker,
      parameters: f.parameters,
      capabilities: [],
      owned_files: [],
      file_baseline: await recordBaseline([join(process.cwd(), 'package.json')]),
      prior_blocker: null,
      evidence_delta: [],
      budget: { max_cycles: null, max_stuck_cycles: null, runtime: null },
      context: { ...emptyContext('/tmp'), ...f.context },
    });

  it('each role maps the cycle parameters into the exact worker shapes of the contract', async () => {
    const fill = roleFields({ target: T, priorFailure: null });
    expect(fill).toEqual({ worker: null, parameters: {}, context: {} });
    expect((await valid(fill)).ok).toBe(true);
    // the cycle's deep parameters (src/cycle/deep-rules.ts) carry more than sorry-filler-deep takes
    const resolved = resolveCycleOptions({ target: '.', scope: 'project', mode: 'autoprove' });
    if (!resolved.ok) throw new Error(resolved.error);
    const cycleDeep = deepParameters(resolved.options, ['A.lean']);
    const deep = roleFields({ target: T, priorFailure: 'omega failed', role: 'deep', parameters: cycleDeep });
    expect(deep.worker).toBe('sorry-filler-deep');
    expect(deep.parameters).toEqual({
      fast_pass_error: 'omega failed',
      permission_level: 'edit',
      deep_budget: { scope: 'target', max_files: 2, max_lines: 200 },
    });
    expect(deep.context).toEqual({ role: 'deep', role_parameters: cycleDeep });
    expect((await valid(deep)).ok).toBe(true);
    // the cycle's repair error is `file:line:text`
    const cycleRepair = {
      repair: { error: 'A.lean:2:type mismatch: Nat vs Int', signature: 's', trigger: 't' },
    };
    const repair = roleFields({ target: T, priorFailure: null, role: 'repair', parameters: cycleRepair });
    expect(repair.parameters).toEqual({
      error: {
        errorType: 'type mismatch',
        message: 'type mismatch: Nat vs Int',
        file: 'A.lean',
        line: 2,
        goal: 'n + 0 = n',
        localContext: [],
      },
    });
    expect((await valid(repair)).ok).toBe(true);
    expect(
      roleFields({ target: T, priorFailure: null, role: 'repair', parameters: REPAIR_PARAMS }).parameters,
    ).toEqual(REPAIR_PARAMS);
    // hostile or missing values still give a valid record
    const junk = roleFields({ target: T, priorFailure: null, role: 'repair', parameters: { error: 42 } });
    expect((await valid(junk)).ok).toBe(true);
    const falsify = roleFields({
      target: T,
      priorFailure: null,
      role: 'falsify',
      parameters: falsificationParameters('salvage', T, 't'),
    });
    expect(falsify.worker).toBeNull();
    expect(falsify.parameters).toEqual({});
    expect(falsify.context.role).toBe('falsify');
    expect((await valid(falsify)).ok).toBe(true);
  });

  it('owned paths resolve under the root; anything outside is refused with the reason', () => {
    const t = { id: 'A.lean:2', file: 'A.lean', line: 2, goal: '' };
    expect(ownedPathsOf('/r', { target: t })).toEqual({ ok: true, owned: ['/r/A.lean'] });
    expect(ownedPathsOf('/r', { target: t, ownedFiles: ['B.lean', 'sub/../A.lean', 'B.lean'] })).toEqual({
      ok: true,
      owned: ['/r/A.lean', '/r/B.lean'],
    });
    expect(ownedPathsOf('/r', { target: t, ownedFiles: ['../x.lean'] })).toEqual({
      ok: false,
      detail: 'owned file ../x.lean is outside the project root /r',
    });
    expect(ownedPathsOf('/r', { target: t, ownedFiles: [] })).toEqual({
      ok: false,
      detail: 'the dispatch owns no files',
    });
    expect(resolveUnder('/r', '/etc/passwd')).toBeNull();
    expect(resolveUnder('/r', '.')).toBeNull();
    expect(resolveUnder('/r', 'a\0b')).toBeNull();
  });
});

describe('fill (child process)', () => {
  it('carries the pre-flight context instead of empty lists and reports the lines changed', async () => {
    const { out, sent } = await work('fill', await input({ preflight: PREFLIGHT }));
    expect(out.kind).toBe('handoff');
    expect(sent.worker).toBeNull();
    expect(sent.parameters).toEqual({});
    expect(sent.context.diagnostics).toEqual(PREFLIGHT.diagnostics);
    expect(sent.context.candidates_tested).toEqual([{ snippet: 'simp', result: 'failed: no progress' }]);
    expect(sent.context.code_actions).toEqual(PREFLIGHT.codeActions);
    expect(validateDispatch(sent).ok).toBe(true);
    expect(out.kind === 'handoff' && out.linesChanged).toBe(2);
  });
});

describe('deep (child process)', () => {
  it('owns the declared cross-file set, sends sorry-filler-deep with permission_level edit, sums the lines of both files', async () => {
    const i = await input({ role: 'deep', ownedFiles: ['A.lean', 'Helper.lean'], parameters: DEEP_PARAMS });
    const { out, sent } = await work('deep-two', i);
    expect(out.kind, JSON.stringify(out)).toBe('handoff');
    expect(sent.worker).toBe('sorry-filler-deep');
    expect(sent.parameters).toEqual({ ...DEEP_PARAMS, permission_level: 'edit' });
    expect(sent.owned_files).toEqual([join(dir, 'A.lean'), join(dir, 'Helper.lean')]);
    expect(validateDispatch(sent).ok).toBe(true);
    // the sum over both accepted files of their line diffs against the pre-dispatch bytes
    const a = changedLineCount(THEOREM, await readFile(join(dir, 'A.lean'), 'utf8'));
    const helper = changedLineCount('', await readFile(join(dir, 'Helper.lean'), 'utf8'));
    expect(a).toBe(2);
    expect(helper).toBeGreaterThan(0);
    expect(out.kind === 'handoff' && out.linesChanged).toBe(a + helper);
    expect(out.kind === 'handoff' && [...out.accepted].sort()).toEqual([
      join(dir, 'A.lean'),
      join(dir, 'Helper.lean'),
    ]);
  });

  it('a declared file outside the project root is an operational error before anything is dispatched', async () => {
    const i = await input({
      role: 'deep',
      ownedFiles: ['A.lean', '../elsewhere.lean'],
      parameters: DEEP_PARAMS,
    });
    const { out, sent } = await work('deep-two', i);
    expect(out).toEqual({
      kind: 'operational-error',
      detail: `owned file ../elsewhere.lean is outside the project root ${dir}`,
      dispatch: null,
    });
    expect(sent).toBeNull();
  });
});

describe('repair (child process)', () => {
  it('a patch-only handoff is accepted with nothing changed; the diff rides in artifacts', async () => {
    const { out, sent } = await work(
      'repair-diff',
      await input({ role: 'repair', parameters: REPAIR_PARAMS }),
    );
    expect(out.kind, JSON.stringify(out)).toBe('handoff');
    expect(sent.worker).toBe('proof-repair');
    expect(sent.parameters).toEqual(REPAIR_PARAMS);
    expect(out.kind === 'handoff' && out.accepted).toEqual([]);
    expect(out.kind === 'handoff' && out.linesChanged).toBe(0);
    expect(out.kind === 'handoff' && out.handoff.artifacts[0]?.kind).toBe('unified-diff');
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toBe(THEOREM);
  });

  it('two diffs, or files_changed claimed, are protocol errors', async () => {
    const two = await work('repair-two-diffs', await input({ role: 'repair', parameters: REPAIR_PARAMS }));
    expect(two.out.kind).toBe('protocol-error');
    expect((two.out as { detail: string }).detail).toMatch(
      /exactly one unified-diff artifact \(got 0 changed file\(s\), 2 diff\(s\)\)/,
    );
    const claims = await work(
      'repair-claims-change',
      await input({ role: 'repair', parameters: REPAIR_PARAMS }),
    );
    expect(claims.out.kind).toBe('protocol-error');
  });
});

describe('falsify (child process)', () => {
  const falsify = (policy: string) => input({ role: 'falsify', parameters: { falsification: { policy } } });

  it('a counterexample beside the open target is accepted; the dispatch stays a valid inline pass', async () => {
    const { out, sent } = await work('falsify-counterexample', await falsify('salvage'));
    expect(out.kind, JSON.stringify(out)).toBe('handoff');
    expect(sent.worker).toBeNull();
    expect(sent.parameters).toEqual({});
    expect((sent.context as Record<string, unknown>).role).toBe('falsify');
    expect(validateDispatch(sent).ok).toBe(true);
  });

  it('proving the negation is allowed under the negate policy', async () => {
    const { out } = await work('falsify-negation', await falsify('negate'));
    expect(out.kind, JSON.stringify(out)).toBe('handoff');
  });
});
