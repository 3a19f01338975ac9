/**
 * The git repository of a case project (layer 3, git): every case project is a real repository
 * whose first commit holds the owned and bystander files, as in a project `handoff run` works
 * on, so a worker that plants a hook, sets `core.fsmonitor` or commits is seen changing git
 * control files. Git runs hardened (src/git: hooks and fsmonitor off, no inherited `GIT_*`).
 */
import { runGit } from '../git/index.js';
import { gitDirsOf } from '../runtime/workspace-watch.js';

/**
 * The `-c` identity of the case repository's commit (no user configuration is needed or read).
 *
 * @example
 * ```ts
 * await runGit(root, [...CASE_GIT_IDENTITY, 'commit', '-q', '-m', 'x']);
 * ```
 */
export const CASE_GIT_IDENTITY: readonly string[] = [
  '-c',
  'user.name=handoff conformance',
  '-c',
  'user.email=conformance@handoff.invalid',
];

/** A fixed commit date, so the same case files give the same commit. */
const CASE_GIT_DATE = '2000-01-01T00:00:00Z';

/**
 * Makes `root` a git repository and commits everything in it (`git init`, `add -A`, one commit
 * `conformance case`); resolves to its git directories ({@link gitDirsOf}).
 *
 * @example
 * ```ts
 * await layOutProject(root, plan.files);
 * const gitDirs = await commitCaseRepository(root); // ['/tmp/…/.git']
 * ```
 * @throws HandoffError `io_error` when git is missing or fails (the harness needs git).
 */
export async function commitCaseRepository(root: string): Promise<string[]> {
  const env = { GIT_AUTHOR_DATE: CASE_GIT_DATE, GIT_COMMITTER_DATE: CASE_GIT_DATE };
  await runGit(root, ['init', '-q'], { env });
  await runGit(root, ['add', '-A'], { env });
  await runGit(root, [...CASE_GIT_IDENTITY, 'commit', '-q', '--no-verify', '-m', 'conformance case'], {
    env,
  });
  return gitDirsOf(root);
}
