/**
 * The git checkpointer (layer 3): commits `checkpoint: <summary>` holding exactly the verified
 * bytes of the accepted files — blobs are written from the bytes the runtime verified (never
 * re-read from a working tree a leftover process may still write to), the tree is built in a
 * private index on top of HEAD, and the commit is made with plumbing (`commit-tree`,
 * `update-ref` with the old HEAD as a compare-and-swap), so no hook, filter or other staged change
 * of the user takes part. Every git call goes through the hardened runner of src/git, pinned to
 * the repository resolved before the first dispatch (a `.git` a worker creates later is never
 * used), with no global or system configuration and the identity read then. Before `update-ref`
 * every object the commit's files depend on is read back and checked against the verified bytes
 * (a planted object refuses the checkpoint), and objects that appeared in the repository since
 * the pin or the runtime's previous commit are a violation (those that do not hash to their ids
 * are removed). Never creates an empty commit; never
 * runs a blocked git command (seed 002 § Safety).
 */
import { lstat, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { HandoffError, isHandoffError } from '../errors/index.js';
import {
  type CommittedFile,
  identityEnv,
  isBlockedGit,
  looseObjectsSnapshot,
  newObjects,
  type PinnedRepository,
  pinRepository,
  removePlantedObjects,
  runGit,
  verifyCommitted,
} from '../git/index.js';
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

/**
 * True when `dir` is inside a git work tree (found with the user's configuration, as the user's
 * own git would: this runs before any dispatch).
 *
 * @example
 * ```ts
 * await isGitRepo('/repo'); // true
 * ```
 */
export async function isGitRepo(dir: string): Promise<boolean> {
  return (await pinRepository(dir)) !== null;
}

/** One file of an exact commit: its path relative to the work tree and its bytes (null: delete it). */
export interface ExactEntry {
  readonly rel: string;
  readonly file: VerifiedFile;
}

/**
 * Commits exactly `entries` on top of HEAD (plumbing: private index, `hash-object --no-filters`,
 * `commit-tree`, a read-back of every object the entries depend on, `update-ref` against the old
 * HEAD) and mirrors the entries into the user's index. `repo` is the pinned repository (a path
 * pins the repository containing it now: for callers without a run). Resolves to the new commit,
 * or null when the tree would not change.
 *
 * @example
 * ```ts
 * await commitExact(repo, [{ rel: 'A.lean', file: { bytes, mode: 0o644 } }], 'checkpoint: A.lean solved');
 * ```
 * @throws HandoffError `custody_violation` when an object read back does not hold what was
 * written (`details.path`, `details.object`; nothing is committed); `io_error` when git fails
 * (including HEAD moving under the commit) or `repo` is not in a repository.
 */
export async function commitExact(
  repo: PinnedRepository | string,
  entries: readonly ExactEntry[],
  message: string,
): Promise<string | null> {
  const r = typeof repo === 'string' ? await pinRepository(repo) : repo;
  if (r === null) throw new HandoffError('io_error', `${String(repo)} is not inside a git work tree`);
  const root = r.workTree;
  const head = (
    await runGit(root, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { repo: r, allowFail: true })
  )
    .toString('utf8')
    .trim();
  const dir = await mkdtemp(join(tmpdir(), 'handoff-index-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    await runGit(root, head === '' ? ['read-tree', '--empty'] : ['read-tree', head], { repo: r, env });
    const cacheinfo: string[] = [];
    const removed: string[] = [];
    const written: CommittedFile[] = [];
    for (const e of entries) {
      if (e.file.bytes === null) {
        removed.push(e.rel);
        written.push({ rel: e.rel, blob: null, bytes: null, mode: '100644' });
        continue;
      }
      const blob = (
        await runGit(root, ['hash-object', '-w', '--no-filters', '--stdin'], {
          repo: r,
          input: e.file.bytes,
        })
      )
        .toString('utf8')
        .trim();
      const mode = e.file.mode & 0o111 ? '100755' : '100644';
      cacheinfo.push(`${mode},${blob},${e.rel}`);
      written.push({ rel: e.rel, blob, bytes: e.file.bytes, mode });
    }
    const update = async (extra: Record<string, string>) => {
      for (const c of cacheinfo)
        await runGit(root, ['update-index', '--add', '--cacheinfo', c], { repo: r, env: extra });
      if (removed.length > 0)
        await runGit(root, ['update-index', '--force-remove', '--', ...removed], { repo: r, env: extra });
    };
    await update(env);
    const tree = (await runGit(root, ['write-tree'], { repo: r, env })).toString('utf8').trim();
    const before =
      head === ''
        ? null
        : (await runGit(root, ['rev-parse', `${head}^{tree}`], { repo: r })).toString('utf8').trim();
    if (tree === before) return null;
    const commit = (
      await runGit(root, ['commit-tree', tree, ...(head === '' ? [] : ['-p', head]), '-m', message], {
        repo: r,
        env: identityEnv(r.identity),
      })
    )
      .toString('utf8')
      .trim();
    const problem = await verifyCommitted(r, commit, tree, head === '' ? null : head, written).catch(
      (e: unknown) => ({
        path: '(commit)',
        object: commit,
        detail: `cannot be read back (${e instanceof Error ? e.message : String(e)})`,
      }),
    );
    if (problem !== null) {
      throw new HandoffError(
        'custody_violation',
        `checkpoint refused: object ${problem.object} for ${problem.path}: ${problem.detail}; nothing was committed`,
        { details: { path: problem.path, object: problem.object, problem: problem.detail } },
      );
    }
    await runGit(root, ['update-ref', '-m', message, 'HEAD', commit, head === '' ? '0'.repeat(40) : head], {
      repo: r,
    });
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
 * read once. `repo` is the repository pinned before the first dispatch ({@link pinRepository}; null:
 * there was none, and none is used); without it the repository containing `projectRoot` is pinned
 * at the first checkpoint. Objects
 * that appeared in the repository since the pin (or since this checkpointer's previous commit)
 * refuse the checkpoint once, named (planted ones — bytes that do not hash to their id — are
 * removed); the read-back of {@link commitExact} refuses a commit whose
 * objects do not hold the verified bytes.
 *
 * @example
 * ```ts
 * const cp = createGitCheckpointer('/repo', custody, await pinRepository('/repo') ?? undefined);
 * await cp.checkpoint({ cycle: 1, files: ['/repo/A.lean'], summary: 'A.lean:3 solved', commit: 'auto' });
 * ```
 */
export function createGitCheckpointer(
  projectRoot: string,
  custody?: VerifiedCustody,
  repo?: PinnedRepository | null,
): CheckpointerPort {
  // null: pinned as "no repository" before the run — a repository that appears later is not used
  let pinned: Promise<PinnedRepository | null> | null = repo === undefined ? null : Promise.resolve(repo);
  let known: ReadonlySet<string> | null = repo?.objects ?? null;
  const refused = (why: string) => ({
    committed: false,
    commit: null,
    message: 'checkpoint refused',
    refused: why,
  });
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
          return refused(`${late}${fix}`);
        }
      }
      pinned ??= pinRepository(projectRoot);
      const r = await pinned;
      if (r === null)
        throw new HandoffError(
          'io_error',
          `${projectRoot} was not inside a git work tree when the run started: nothing to commit into`,
        );
      // objects nobody but the runtime may create while the run holds the repository
      const now = await looseObjectsSnapshot(r.commonDir);
      const planted = known === null ? [] : newObjects(known, now);
      known = now;
      if (planted.length > 0) {
        // objects that do not hash to their ids are poison for any later commit: removed
        const purge = await removePlantedObjects(r.commonDir, planted);
        const shown = planted.slice(0, 5).join(', ');
        const more = planted.length > 5 ? ` and ${planted.length - 5} more` : '';
        const removed =
          purge.removed.length > 0
            ? `; removed ${purge.removed.length} that do not hash to their ids: ${purge.removed.slice(0, 5).join(', ')}`
            : '';
        const failed = purge.failed.length > 0 ? `; could not remove ${purge.failed.join(', ')}` : '';
        known = await looseObjectsSnapshot(r.commonDir);
        return refused(
          `objects appeared in the repository ${r.commonDir} during the run that the runtime did not write: ${shown}${more}${removed}${failed}`,
        );
      }
      // index paths are relative to the work tree's top, which may lie above the project root
      const entries: ExactEntry[] = [];
      for (const a of abs) {
        const file = custody?.verified(a) ?? (await diskFile(a));
        entries.push({ rel: relative(r.workTree, a).split(sep).join('/'), file });
      }
      const message = `checkpoint: ${input.summary}`;
      let sha: string | null;
      try {
        sha = await commitExact(r, entries, message);
      } catch (e) {
        if (isHandoffError(e) && e.code === 'custody_violation') return refused(e.message);
        throw e;
      } finally {
        known = await looseObjectsSnapshot(r.commonDir);
      }
      if (sha === null) return { committed: false, commit: null, message: NO_CHANGES_MESSAGE };
      return { committed: true, commit: sha, message };
    },
  };
}
