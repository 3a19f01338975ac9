/**
 * The generic code profile end to end: a real git repository, a real worker process (a tiny Node
 * script that replaces a `TODO(agent)` line) and a real test command as the profile's
 * diagnostics; and a worker's capability blocker surviving the built-in stuck review.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import { codeProfile } from '../../src/profile/index.js';
import { createPersistRecorder } from '../../src/runtime/persist-recorder.js';
import { runProject } from '../../src/runtime/project-run.js';
import { createMemoryStore } from '../../src/store/index.js';
import { runCli } from '../helpers/cli.js';

const WORKER = join(import.meta.dirname, 'fixtures', 'todo-worker.mjs');
const TEST = [
  "import { answer } from './src/answer.mjs';",
  "if (answer() !== 42) { console.error('answer() is ' + answer()); process.exit(1); }",
  '',
].join('\n');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-code-profile-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  await writeFile(join(dir, 'check.mjs'), TEST);
  await mkdir(join(dir, 'src'));
  await writeFile(
    join(dir, 'src', 'answer.mjs'),
    'export function answer() {\n  return 0; // TODO(agent): return 42;\n}\n',
  );
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
    cwd: dir,
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const gitLog = () => execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' });

describe('the code profile on a real repository with a real worker process', () => {
  it('replaces TODO(agent), passes the test command, ends solved and checkpointed', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: 'src', scope: 'file', mode: 'autoprove' },
      worker: { argv: [process.execPath, WORKER] },
      profile: codeProfile({ diagnosticsCommand: [process.execPath, 'check.mjs'] }),
      env: { WORKER_MODE: 'solve' },
      workerTimeoutMs: 30_000,
    });
    expect(r.handoff.status).toBe('solved');
    expect(validateHandoff(r.handoff).ok).toBe(true);
    expect(await readFile(join(dir, 'src', 'answer.mjs'), 'utf8')).toContain('  return 42;\n');
    expect(r.context.checkpoints).toHaveLength(1);
    expect(gitLog()).toMatch(/^checkpoint: cycle 1: src\/answer\.mjs:2 solved/);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })).toBe('');
  }, 60_000);

  it('a failing test command keeps the target open: the marker alone is not the work', async () => {
    await writeFile(join(dir, 'check.mjs'), 'process.exit(1);\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-am', 'red'], {
      cwd: dir,
    });
    const r = await runProject({
      projectRoot: dir,
      flags: { target: 'src', scope: 'file', mode: 'autoprove', maxCycles: 3, maxStuck: 1 },
      worker: { argv: [process.execPath, WORKER] },
      profile: codeProfile({ diagnosticsCommand: [process.execPath, 'check.mjs'] }),
      env: { WORKER_MODE: 'solve' },
      workerTimeoutMs: 30_000,
    });
    expect(r.handoff.status).not.toBe('solved');
    expect(r.context.checkpoints).toHaveLength(0);
    expect(gitLog().split('\n')[0]).toBe('red');
  }, 60_000);

  it("a worker's capability blocker comes back capability, not proof/needs-helper-lemma", async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: 'src', scope: 'file', mode: 'autoprove', maxCycles: 4, maxStuck: 1 },
      worker: { argv: [process.execPath, WORKER] },
      profile: codeProfile({ diagnosticsCommand: [process.execPath, 'check.mjs'] }),
      env: { WORKER_MODE: 'capability' },
      workerTimeoutMs: 30_000,
    });
    expect(validateHandoff(r.handoff).ok).toBe(true);
    expect(['stuck', 'stopped']).toContain(r.handoff.status);
    expect(r.handoff.blocker_kind).toBe('capability');
    expect(r.handoff.blocker_class).toBeNull();
    expect(r.handoff.blocker_signature).toBe('src/answer.mjs:2:no network tool');
    const wrapped = r.context.stuckHandoff;
    expect(wrapped?.blocker_kind).toBe('capability');
    expect(wrapped?.blocker_class).toBeNull();
  }, 60_000);

  it('persisted, the stuck review record maps the capability blocker unchanged too', async () => {
    const store = createMemoryStore();
    const profile = codeProfile({ diagnosticsCommand: [process.execPath, 'check.mjs'] });
    const recorder = await createPersistRecorder({
      projectRoot: dir,
      store,
      blockerClasses: profile.blockerClasses,
    });
    try {
      const r = await runProject({
        projectRoot: dir,
        flags: { target: 'src', scope: 'file', mode: 'autoprove', maxCycles: 4, maxStuck: 1 },
        worker: { argv: [process.execPath, WORKER] },
        profile,
        recorder,
        env: { WORKER_MODE: 'capability' },
        workerTimeoutMs: 30_000,
      });
      expect(r.handoff.blocker_kind).toBe('capability');
      const loaded = await store.load(recorder.cites[0]?.split('#')[0] ?? '');
      expect(loaded.ok).toBe(true);
      const reviews = loaded.ok
        ? loaded.value.events
            .filter((e) => e.kind === 'review')
            .map((e) => e.payload as Record<string, unknown>)
        : [];
      const stuck = reviews.find((p) => p.mode === 'stuck');
      expect(stuck?.triage).toMatchObject({ blocker_kind: 'capability', blocker_class: null });
      expect(stuck?.mapped_handoff).toMatchObject({ blocker_kind: 'capability', blocker_class: null });
    } finally {
      await recorder.dispose();
    }
  }, 60_000);
});

describe('handoff run --profile code (the built CLI)', () => {
  it('--profile code --diagnostics-cmd runs the same repository to solved, exit 0', async () => {
    const r = await runCli(
      [
        'run',
        '--project',
        dir,
        '--target',
        'src',
        '--scope',
        'file',
        '--mode',
        'autoprove',
        '--profile',
        'code',
        '--diagnostics-cmd',
        `'${process.execPath}' check.mjs`,
        '--worker',
        `'${process.execPath}' '${WORKER}'`,
        '--json',
      ],
      { env: { WORKER_MODE: 'solve' }, timeoutMs: 60_000 },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('solved');
    expect(gitLog()).toMatch(/^checkpoint: cycle 1: src\/answer\.mjs:2 solved/);
  }, 90_000);

  it('an unknown profile is a usage error (exit 2)', async () => {
    const r = await runCli(
      [
        'run',
        '--project',
        dir,
        '--target',
        'src',
        '--scope',
        'file',
        '--mode',
        'autoprove',
        '--profile',
        'rust',
        '--worker',
        'true',
      ],
      { timeoutMs: 30_000 },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown profile 'rust'");
  }, 60_000);
});

describe('the code profile judges a target by its declaration (issue 27)', () => {
  it('a TODO(agent) moved inside the same function is not solved: refuted, put back, nothing committed', async () => {
    const before = await readFile(join(dir, 'src', 'answer.mjs'), 'utf8');
    const r = await runProject({
      projectRoot: dir,
      flags: { target: 'src', scope: 'file', mode: 'autoprove', maxCycles: 1 },
      worker: { argv: [process.execPath, WORKER] },
      profile: codeProfile(),
      env: { WORKER_MODE: 'move' },
      workerTimeoutMs: 30_000,
    });
    expect(r.handoff.status).not.toBe('solved');
    expect(r.context.log.join('\n')).toMatch(
      /src\/answer\.mjs:2 not confirmed — .*`TODO\(agent\)` still in function answer \(line 3\)/,
    );
    expect(r.context.checkpoints).toHaveLength(0);
    expect(gitLog().trim()).toBe('init');
    expect(await readFile(join(dir, 'src', 'answer.mjs'), 'utf8')).toBe(before);
    expect(r.handoff.failed_avenues).toContainEqual(
      expect.stringMatching(/^restored src\/answer\.mjs: the claim 'solved' did not hold/),
    );
  }, 60_000);
});
