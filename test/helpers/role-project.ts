/**
 * The project a role-worker test runs in (test/hostile/engine2-workers, test/runtime/worker-roles,
 * test/runtime/batch-worker): a real temporary git repository holding the given files, one commit,
 * a scratch folder beside it holding the test's `worker.mjs`, the `WorkerInput` the cycle would
 * hand the delegating worker for one target, and the delegating worker itself running
 * `node worker.mjs <argv…>` as a real child process in the project.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { recordBaseline } from '../../src/baseline/index.js';
import { EMPTY_LEDGER } from '../../src/cycle/search-budget.js';
import type { TargetInfo, WorkerInput } from '../../src/cycle/types.js';
import { createDelegatingWorker, type DelegatingWorkerPort } from '../../src/runtime/delegating-worker.js';
import { subprocessTransport } from '../../src/runtime/transports.js';
import type { VerifiedCustody } from '../../src/runtime/verified-custody.js';

/**
 * The `file:` URL of a built module under `dist/src` (a worker script imports the runtime from
 * there; run `npm run build` first).
 *
 * @example
 * ```ts
 * const WORKER = `import { handoffFor } from '${distUrl('contract/index.js')}';`;
 * ```
 */
export const distUrl = (p: string): string => pathToFileURL(join(process.cwd(), 'dist/src', p)).href;

/**
 * A role-worker test's project (see {@link createRoleProject}).
 *
 * @example
 * ```ts
 * let project: RoleProject;
 * beforeEach(async () => { project = await createRoleProject({ name: 'x', files: {}, worker: '' }); });
 * ```
 */
export interface RoleProject {
  /** The project root: a real path, a git repository with every file committed once. */
  readonly dir: string;
  /** A scratch folder outside the project, holding `worker.mjs`. */
  readonly aside: string;
  /** The absolute path of the worker script (`<aside>/worker.mjs`). */
  readonly worker: string;
  /** Runs git in the project with argv `args` and returns its stdout. */
  git(...args: string[]): string;
  /** Removes the project and the scratch folder. */
  cleanup(): Promise<void>;
}

/**
 * Lays out a fresh project: `files` (project-relative paths, folders created) committed in a new
 * git repository (identity given with `-c`), and `worker` written to `<aside>/worker.mjs`.
 *
 * @example
 * ```ts
 * const p = await createRoleProject({ name: 'roles', files: { 'A.lean': THEOREM }, worker: WORKER });
 * p.git('log', '--oneline'); // one commit
 * await p.cleanup();
 * ```
 */
export async function createRoleProject(o: {
  name: string;
  files: Readonly<Record<string, string>>;
  worker: string;
}): Promise<RoleProject> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), `handoff-${o.name}-`)));
  const aside = await realpath(await mkdtemp(join(tmpdir(), `handoff-${o.name}-aside-`)));
  const worker = join(aside, 'worker.mjs');
  await writeFile(worker, o.worker);
  for (const [path, text] of Object.entries(o.files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
  return {
    dir,
    aside,
    worker,
    git,
    cleanup: async () => {
      await rm(dir, { recursive: true, force: true });
      await rm(aside, { recursive: true, force: true });
    },
  };
}

/**
 * The `WorkerInput` of an autoprove cycle 1 for `target` (its id `file:line`), with a real
 * baseline of the target's file; `over` replaces members (a role, its parameters, the baseline…).
 *
 * @example
 * ```ts
 * const i = await roleWorkerInput(p.dir, { file: 'A.lean', line: 2, goal: 'n + 0 = n' }, { role: 'repair' });
 * ```
 */
export async function roleWorkerInput(
  dir: string,
  target: Omit<TargetInfo, 'id'>,
  over: Partial<WorkerInput> = {},
): Promise<WorkerInput> {
  return {
    target: { id: `${target.file}:${target.line}`, ...target },
    cycle: 1,
    mode: 'autoprove',
    priorBlocker: null,
    evidenceDelta: [],
    priorFailure: null,
    searchResults: [],
    searchBudget: 2,
    searchLedger: EMPTY_LEDGER,
    trivial: false,
    inline: false,
    budget: { max_cycles: 3, max_stuck_cycles: 2, runtime: null },
    baseline: await recordBaseline([join(dir, target.file)]),
    ...over,
  };
}

/**
 * The delegating worker of `project` running `node <project.worker> <argv…>` in the project (30 s
 * time box), under `custody` when given.
 *
 * @example
 * ```ts
 * const out = await roleWorker(p, ['repair-diff']).work(i, new AbortController().signal);
 * ```
 */
export function roleWorker(
  project: RoleProject,
  argv: readonly string[],
  custody?: VerifiedCustody,
): DelegatingWorkerPort {
  return createDelegatingWorker({
    projectRoot: project.dir,
    scratch: project.aside,
    ...(custody === undefined ? {} : { custody }),
    transport: subprocessTransport(['node', project.worker, ...argv], {
      cwd: project.dir,
      timeoutMs: 30_000,
    }),
  });
}
