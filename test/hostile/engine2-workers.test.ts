/**
 * Hostile workers against cycle engine II's runtime side (real child processes, real files, real
 * git): a repair worker that edits instead of returning a diff, a diff aimed outside its dispatch,
 * a deep worker writing outside its declared set, a falsify worker proving ¬P while P's sorry
 * stays, a deep worker that sabotages its own rollback, and a patch against a stale baseline. Each
 * is refused with the exact reason and nothing unverified stays on disk or in a commit.
 */
import { lstat, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkerInput, WorkOutcome } from '../../src/cycle/types.js';
import { createDeepSnapshots } from '../../src/runtime/deep-snapshots.js';
import { createDelegatingWorker } from '../../src/runtime/delegating-worker.js';
import { createPatcher } from '../../src/runtime/patcher-port.js';
import { subprocessTransport } from '../../src/runtime/transports.js';
import { createVerifiedCustody, type VerifiedCustody } from '../../src/runtime/verified-custody.js';
import { gitDirsOf } from '../../src/runtime/workspace-watch.js';
import { probeSandbox } from '../../src/sandbox/index.js';
import {
  createRoleProject,
  distUrl,
  type RoleProject,
  roleWorker,
  roleWorkerInput,
} from '../helpers/role-project.js';

const dist = distUrl;

const WORKER = `
import { readFileSync, renameSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { advanceBaseline } from '${dist('baseline/index.js')}';
import { handoffFor } from '${dist('contract/index.js')}';
const [what, outside] = process.argv.slice(2);
const d = JSON.parse(readFileSync(0, 'utf8'));
const emit = (v) => process.stdout.write(JSON.stringify(v) + '\\n');
const a = d.owned_files[0];
const edit = (f, fn) => writeFileSync(f, fn(readFileSync(f, 'utf8')));
const changed = async (files, extra = {}) =>
  emit({ ...handoffFor(d), files_changed: files, file_baseline: await advanceBaseline(d.file_baseline, files), ...extra });
const diff = (path) => '--- a/' + path + '\\n+++ b/' + path + '\\n@@ -1,2 +1,2 @@\\n theorem t (n : Nat) : n + 0 = n := by\\n-  sorry\\n+  rfl\\n';
switch (what) {
  case 'repair-edits':
    // told to return a diff, it edits the file and reports the edit with an advanced baseline
    edit(a, (t) => t.replace('sorry', 'rfl'));
    await changed([a], { artifacts: [{ kind: 'unified-diff', content: diff('src/T.lean') }] });
    break;
  case 'repair-edits-quietly':
    // edits, then returns the dispatch's baseline unchanged, as a patch-only worker would
    edit(a, (t) => t.replace('sorry', 'rfl'));
    emit({ ...handoffFor(d), artifacts: [{ kind: 'unified-diff', content: diff('src/T.lean') }] });
    break;
  case 'repair-diff-elsewhere':
    emit({ ...handoffFor(d), artifacts: [{ kind: 'unified-diff', content: diff('notes/Other.lean') }] });
    break;
  case 'repair-diff-escape':
    emit({ ...handoffFor(d), artifacts: [{ kind: 'unified-diff', content: diff('../outside.lean') }] });
    break;
  case 'repair-diff':
    emit({ ...handoffFor(d), artifacts: [{ kind: 'unified-diff', content: diff('src/T.lean') }] });
    break;
  case 'deep-outside':
    edit(a, (t) => t.replace('sorry', 'exact helper n'));
    writeFileSync(join(dirname(a), 'Undeclared.lean'), 'theorem helper (n : Nat) : n + 0 = n := rfl\\n');
    await changed([a]);
    break;
  case 'deep-sabotage':
    // edits its file, then swaps the file's folder for a link out of the project
    edit(a, (t) => t.replace('sorry', 'rfl'));
    const h = await advanceBaseline(d.file_baseline, [a]);
    renameSync(dirname(a), dirname(a) + '.moved');
    symlinkSync(outside, dirname(a));
    emit({ ...handoffFor(d), files_changed: [a], file_baseline: h });
    break;
  case 'falsify-negation':
    edit(a, (t) => t + '\\ntheorem t_false (n : Nat) : ¬ (n + 0 = n) := by\\n  sorry\\n');
    await changed([a]);
    break;
}
`;

const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
let project: RoleProject;
let dir: string;
let custody: VerifiedCustody;
const T = () => join(dir, 'src', 'T.lean');

beforeEach(async () => {
  project = await createRoleProject({
    name: 'engine2',
    files: { 'src/T.lean': THEOREM, 'notes/Other.lean': THEOREM },
    worker: WORKER,
  });
  dir = project.dir;
  custody = createVerifiedCustody({ projectRoot: dir, gitDirs: await gitDirsOf(dir), storeRoot: null });
});
afterEach(async () => {
  await project.cleanup();
});

const input = (over: Partial<WorkerInput> = {}): Promise<WorkerInput> =>
  roleWorkerInput(dir, { file: 'src/T.lean', line: 2, goal: 'n + 0 = n' }, over);

async function work(behaviour: string, i: WorkerInput, ...more: string[]): Promise<WorkOutcome> {
  return (await roleWorker(project, [behaviour, ...more], custody).work(
    i,
    new AbortController().signal,
  )) as WorkOutcome;
}

const REPAIR = {
  role: 'repair' as const,
  parameters: {
    error: {
      errorType: 'unsolved goals',
      message: 'unsolved goals',
      file: 'src/T.lean',
      line: 2,
      goal: 'n + 0 = n',
      localContext: [],
    },
  },
};

describe('hostile repair workers', () => {
  it('editing the file instead of returning a diff is a custody violation; the file is put back', async () => {
    for (const how of ['repair-edits', 'repair-edits-quietly']) {
      const out = await work(how, await input(REPAIR));
      expect(out.kind, how).toBe('custody-violation');
      expect((out as { detail: string }).detail).toMatch(
        /^the repair worker is patch-only but edited .*src\/T\.lean \(its diff belongs in artifacts\); owned files restored/,
      );
      expect(await readFile(T(), 'utf8')).toBe(THEOREM);
    }
  });

  it('a diff aimed at a file outside the dispatch, or out of the project, is refused; nothing is written', async () => {
    const patcher = createPatcher({ projectRoot: dir, custody });
    for (const how of ['repair-diff-elsewhere', 'repair-diff-escape']) {
      const i = await input(REPAIR);
      const out = await work(how, i);
      expect(out.kind, how).toBe('handoff');
      if (out.kind !== 'handoff') return;
      const diff = out.handoff.artifacts[0]?.content as string;
      const r = await patcher.apply({ patch: diff, files: ['src/T.lean'], baseline: out.baseline });
      expect(r.kind, how).toBe('refused');
      expect(await readFile(join(dir, 'notes', 'Other.lean'), 'utf8')).toBe(THEOREM);
      expect(await readFile(T(), 'utf8')).toBe(THEOREM);
    }
    expect(await lstat(join(dir, '..', 'outside.lean')).catch(() => null)).toBeNull();
  });

  it('a patch against a stale baseline (the file drifted after the worker returned) is refused as stale', async () => {
    const out = await work('repair-diff', await input(REPAIR));
    expect(out.kind).toBe('handoff');
    if (out.kind !== 'handoff') return;
    const drifted = THEOREM.replace('sorry', 'simp');
    await writeFile(T(), drifted);
    const r = await createPatcher({ projectRoot: dir, custody }).apply({
      patch: out.handoff.artifacts[0]?.content as string,
      files: ['src/T.lean'],
      baseline: out.baseline,
    });
    expect(r.kind).toBe('stale');
    expect(await readFile(T(), 'utf8')).toBe(drifted);
    // and the honest path: the same diff on the baseline it was made for is applied and verified
    await writeFile(T(), THEOREM);
    const ok = await createPatcher({ projectRoot: dir, custody }).apply({
      patch: out.handoff.artifacts[0]?.content as string,
      files: ['src/T.lean'],
      baseline: out.baseline,
    });
    expect(ok.kind).toBe('applied');
    expect(custody.verified(T())?.bytes?.toString('utf8')).toBe(THEOREM.replace('sorry', 'rfl'));
  });
});

describe('hostile deep workers', () => {
  const DEEP = {
    role: 'deep' as const,
    ownedFiles: ['src/T.lean'],
    parameters: {
      fast_pass_error: 'omega failed',
      deep_budget: { scope: 'target', max_files: 1, max_lines: 120 },
    },
  };

  it('writing outside the declared set is a custody violation naming the file; the owned file is put back', async () => {
    const out = await work('deep-outside', await input(DEEP));
    expect(out.kind).toBe('custody-violation');
    expect((out as { detail: string }).detail).toMatch(
      /the worker wrote outside its owned files: src\/Undeclared\.lean/,
    );
    expect(await readFile(T(), 'utf8')).toBe(THEOREM);
  });

  it('sabotaging its own rollback (folder swapped for a link): the refusal undoes the swap, so the rollback succeeds; nothing is written through the link', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'handoff-engine2-outside-')));
    try {
      await writeFile(join(outside, 'T.lean'), 'outside\n');
      const snaps = createDeepSnapshots({ projectRoot: dir, custody });
      const s = await snaps.take({ files: ['src/T.lean'], label: 'deep-snapshot: src/T.lean:2' });
      const out = await work('deep-sabotage', await input(DEEP), outside);
      expect(out.kind).toBe('custody-violation');
      const r = await snaps.restore({
        snapshotId: s.id,
        files: s.files,
        reason: 'deep: regression — new errors',
      });
      // without a sandbox the refusal undid what the worker wrote outside its owned files: the
      // link is gone and the folder is a real one again, so the rollback has a path to write to
      expect((out as { detail: string }).detail).toMatch(/restored outside the owned files: .*src/);
      expect((await lstat(join(dir, 'src'))).isDirectory()).toBe(true);
      expect(r.ok).toBe(true);
      expect(await readFile(join(outside, 'T.lean'), 'utf8')).toBe('outside\n');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('hostile falsify worker', () => {
  it('proving ¬P while P stays sorry is refused as a fence violation (policy salvage); the file is put back', async () => {
    const i = await input({ role: 'falsify', parameters: { falsification: { policy: 'salvage' } } });
    const out = await work('falsify-negation', i);
    expect(out.kind).toBe('fence-violation');
    expect((out as { detail: string }).detail).toMatch(
      /^falsification: t_false proves the negation of t while t is still sorry \(policy salvage\); owned files restored/,
    );
    expect(await readFile(T(), 'utf8')).toBe(THEOREM);
    expect(project.git('status', '--porcelain')).toBe('');
  });
});

describe('hostile deep workers with the sandbox on (prevented, not restored)', () => {
  // the custody attacks above whose outcome depends on the mode: a write outside the declared set
  // and a sabotaged folder never reach the host at all. The repair, patcher and falsify cases stay
  // unsandboxed only: the runtime itself applies the diff, and the fence judges the owned bytes,
  // which are the same in both modes.
  const DEEP = {
    role: 'deep' as const,
    ownedFiles: ['src/T.lean'],
    parameters: {
      fast_pass_error: 'omega failed',
      deep_budget: { scope: 'target', max_files: 1, max_lines: 120 },
    },
  };
  const sandboxed = async (behaviour: string, i: WorkerInput, ...more: string[]): Promise<WorkOutcome> => {
    expect(await probeSandbox(dir)).toEqual({ available: true });
    // the scratch folder is a private tmpfs in the sandbox: not the folder holding worker.mjs
    const worker = createDelegatingWorker({
      projectRoot: dir,
      scratch: join(project.aside, 'scratch'),
      custody,
      transport: subprocessTransport(['node', project.worker, behaviour, ...more], {
        cwd: dir,
        timeoutMs: 30_000,
        sandbox: { network: 'deny' },
      }),
    });
    return (await worker.work(i, new AbortController().signal)) as WorkOutcome;
  };

  it('writing outside the declared set: discarded and named; the owned file is put back', async () => {
    const out = await sandboxed('deep-outside', await input(DEEP));
    expect(out.kind, JSON.stringify(out)).toBe('custody-violation');
    expect((out as { detail: string }).detail).toMatch(
      /files outside the owned set were written and discarded: src\/Undeclared\.lean/,
    );
    expect(await lstat(join(dir, 'src', 'Undeclared.lean')).catch(() => null)).toBeNull();
    expect(await readFile(T(), 'utf8')).toBe(THEOREM);
    expect(project.git('status', '--porcelain')).toBe('');
  });

  it('swapping its folder for a link: refused by the layer (EXDEV); the host folder is never swapped, nothing written through a link', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'handoff-engine2-outside-')));
    try {
      await writeFile(join(outside, 'T.lean'), 'outside\n');
      const out = await sandboxed('deep-sabotage', await input(DEEP), outside);
      // the overlay cannot rename a folder the project has (EXDEV, no redirect_dir without
      // privileges): the worker's rename throws, it ends without a handoff
      expect(out.kind).toBe('operational-error');
      expect((out as { detail: string }).detail).toMatch(/exited with 1 and no handoff/);
      expect((await lstat(join(dir, 'src'))).isDirectory()).toBe(true);
      expect(await lstat(join(dir, 'src.moved')).catch(() => null)).toBeNull();
      expect(await readFile(T(), 'utf8')).toBe(THEOREM);
      expect(await readFile(join(outside, 'T.lean'), 'utf8')).toBe('outside\n');
      expect(project.git('status', '--porcelain')).toBe('');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
