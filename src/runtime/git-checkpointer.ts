/**
 * The git checkpointer (layer 3): commits `checkpoint: <summary>` holding exactly the verified
 * bytes of the accepted files — blobs are written from the bytes the runtime verified (never
 * re-read from a working tree a leftover process may still write to), the tree is built in a
 * private index on top of HEAD, and the commit is made with plumbing (`commit-tree`,
 * `update-ref` with the old HEAD as a compare-and-swap), so no hook, filter or other staged change
 * of the user takes part. Never creates an empty commit; never runs a blocked git command (seed
 * 002 § Safety). Every git call goes through the hardened runner of src/git.
 */
import { lstat, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { isBlockedGit, runGit } from '../git/index.js';
import type { CheckpointerPort } from './ports.js';
import type { VerifiedCustody, VerifiedFile } from './verified-custody.js';

/** Message of a skipped checkpoint (seed 002 § Checkpoint Logic). */
export const NO_CHANGES_MESSAGE = 'No changes this cycle — skipping checkpoint';

export { isBlockedGit };

/**
 * Runs hardened git with an argument array in `cwd` and resolves to stdout as text.
 *
 * @example
 * ```ts
 * await git('/repo', ['status', '--porcelain']);
 * ```
 * @throws HandoffError `blocked_git` for a blocked command; `io_error` when git fails.
 */
export async function git(cwd: string, args: readonly string[]): Promise<string> {
  return (await runGit(cwd, args)).toString('utf8');
}

async function identityArgs(cwd: string): Promise<string[]> {
  const email = await runGit(cwd, ['config', 'user.email'], { allowFail: true });
  return email.length > 0
    ? []
    : ['-c', 'user.name=handoff-runtime', '-c', 'user.email=handoff-runtime@localhost'];
}

/**
 * True when `dir` is inside a git work tree.
 *
 * @example
 * ```ts
 * await isGitRepo('/repo'); // true
 * ```
 */
export async function isGitRepo(dir: string): Promise<boolean> {
  try {
    return (await git(dir, ['rev-parse', '--is-inside-work-tree'])).trim() === 'true';
  } catch {
    return false;
  }
}

/** One file of an exact commit: its path relative to the work tree and its bytes (null: delete it). */
export interface ExactEntry {
  readonly rel: string;
  readonly file: VerifiedFile;
}

/**
 * Commits exactly `entries` on top of HEAD (plumbing: private index, `hash-object --no-filters`,
 * `commit-tree`, `update-ref` against the old HEAD) and mirrors the entries into the user's index.
 * Resolves to the new commit, or null when the tree would not change.
 *
 * @example
 * ```ts
 * await commitExact('/repo', [{ rel: 'A.lean', file: { bytes, mode: 0o644 } }], 'checkpoint: A.lean solved');
 * ```
 * @throws HandoffError `io_error` when git fails (including HEAD moving under the commit).
 */
export async function commitExact(
  root: string,
  entries: readonly ExactEntry[],
  message: string,
): Promise<string | null> {
  const head = (await runGit(root, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { allowFail: true }))
    .toString('utf8')
    .trim();
  const dir = await mkdtemp(join(tmpdir(), 'handoff-index-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    await runGit(root, head === '' ? ['read-tree', '--empty'] : ['read-tree', head], { env });
    const cacheinfo: string[] = [];
    const removed: string[] = [];
    for (const e of entries) {
      if (e.file.bytes === null) {
        removed.push(e.rel);
        continue;
      }
      const blob = (
        await runGit(root, ['hash-object', '-w', '--no-filters', '--stdin'], { input: e.file.bytes })
      )
        .toString('utf8')
        .trim();
      cacheinfo.push(`${e.file.mode & 0o111 ? '100755' : '100644'},${blob},${e.rel}`);
    }
    const update = async (extra: Record<string, string>) => {
      for (const c of cacheinfo)
        await runGit(root, ['update-index', '--add', '--cacheinfo', c], { env: extra });
      if (removed.length > 0)
        await runGit(root, ['update-index', '--force-remove', '--', ...removed], { env: extra });
    };
    await update(env);
    const tree = (await runGit(root, ['write-tree'], { env })).toString('utf8').trim();
    const before =
      head === '' ? null : (await runGit(root, ['rev-parse', `${head}^{tree}`])).toString('utf8').trim();
    if (tree === before) return null;
    const commit = (
      await runGit(root, [
        ...(await identityArgs(root)),
        'commit-tree',
        tree,
        ...(head === '' ? [] : ['-p', head]),
        '-m',
        message,
      ])
    )
      .toString('utf8')
      .trim();
    await runGit(root, ['update-ref', '-m', message, 'HEAD', commit, head === '' ? '0'.repeat(40) : head]);
    await update({});
    return commit;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function diskFile(abs: string): Promise<VerifiedFile> {
  const st = await lstat(abs).catch(() => null);
  if (st === null) return { bytes: null, mode: 0o644 };
  if (!st.isFile()) throw new Error(`${abs} is not a regular file`);
  return { bytes: await readFile(abs), mode: st.mode & 0o777 };
}

/**
 * The git checkpointer for `projectRoot`. With `custody`, it re-checks the disk against what the
 * runtime verified (a mismatch refuses the checkpoint and restores the verified bytes) and commits
 * the verified bytes; without it (a host committing its own files) it commits the files' bytes as
 * read once.
 *
 * @example
 * ```ts
 * const cp = createGitCheckpointer('/repo', custody);
 * await cp.checkpoint({ cycle: 1, files: ['/repo/A.lean'], summary: 'A.lean:3 solved', commit: 'auto' });
 * ```
 */
export function createGitCheckpointer(projectRoot: string, custody?: VerifiedCustody): CheckpointerPort {
  return {
    async checkpoint(input) {
      const abs = input.files.map((f) => resolve(projectRoot, f));
      if (input.commit === 'never' || abs.length === 0) {
        return { committed: false, commit: null, message: NO_CHANGES_MESSAGE };
      }
      if (custody !== undefined) {
        const late = await custody.recheck(abs);
        if (late !== null) {
          const r = await custody.restore(abs);
          const fix =
            r.failed.length > 0
              ? `; could not restore ${r.failed.join(', ')}`
              : '; owned files restored to the verified bytes';
          return { committed: false, commit: null, message: 'checkpoint refused', refused: `${late}${fix}` };
        }
      }
      // index paths are relative to the work tree's top, which may lie above the project root
      const top = await realpath((await git(projectRoot, ['rev-parse', '--show-toplevel'])).trim());
      const entries: ExactEntry[] = [];
      for (const a of abs) {
        const file = custody?.verified(a) ?? (await diskFile(a));
        entries.push({ rel: relative(top, a).split(sep).join('/'), file });
      }
      const message = `checkpoint: ${input.summary}`;
      const sha = await commitExact(projectRoot, entries, message);
      if (sha === null) return { committed: false, commit: null, message: NO_CHANGES_MESSAGE };
      return { committed: true, commit: sha, message };
    },
  };
}
