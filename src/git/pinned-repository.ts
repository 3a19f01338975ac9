/**
 * The repository a run commits into, pinned once before the first dispatch (layer 3, effects):
 * its git directory, common directory and work tree's top (found the way git finds them, with the
 * user's configuration), the author/committer identity of the user's configuration as it was then,
 * and the repository's objects at that moment (see ./loose-objects.ts). Every later git command of
 * the runtime that writes to the repository runs with `--git-dir`/`--work-tree` pinned to it, with
 * no global or system configuration, and with this identity passed explicitly: a `.git` a worker
 * creates below the project, or a `~/.gitconfig` it rewrites, changes nothing the runtime does.
 */

import { realpath } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { looseObjectsSnapshot } from './loose-objects.js';
import { type GitLocation, runGit } from './run-git.js';

/** The identity a checkpoint is authored and committed as. */
export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/** The identity of a checkpoint when the user's configuration names none. */
export const FALLBACK_IDENTITY: GitIdentity = {
  name: 'handoff-runtime',
  email: 'handoff-runtime@localhost',
};

/** A repository pinned before the first dispatch. */
export interface PinnedRepository extends GitLocation {
  /** The common git directory (objects, refs), a realpath; the git directory itself for a main work tree. */
  readonly commonDir: string;
  /** The author and committer of the runtime's commits, read once from the user's configuration. */
  readonly identity: GitIdentity;
  /** The object names present when the repository was pinned (see {@link looseObjectsSnapshot}). */
  readonly objects: ReadonlySet<string>;
}

/**
 * The environment that makes `identity` the author and committer of a git command (passed to
 * `commit-tree`, so no configuration read later decides who committed).
 *
 * @example
 * ```ts
 * identityEnv({ name: 'Ada', email: 'ada@example.org' }).GIT_COMMITTER_EMAIL; // 'ada@example.org'
 * ```
 */
export function identityEnv(identity: GitIdentity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
}

async function configValue(repo: GitLocation, key: string): Promise<string> {
  const out = await runGit(repo.workTree, ['config', '--get', key], {
    repo,
    userConfig: true,
    allowFail: true,
  });
  return out.toString('utf8').trim();
}

function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    return FALLBACK_IDENTITY.name;
  }
}

/**
 * Pins the repository that contains `dir` (a realpath): resolved once, with the user's
 * configuration (so a `safe.directory` of `~/.gitconfig` still counts), together with the user's
 * identity (`user.name`, `user.email`; {@link FALLBACK_IDENTITY} when no email is configured)
 * and the repository's object names. Resolves to null when `dir` is not inside a work tree.
 * Call it before the first dispatch: what a worker writes later cannot change the answer.
 *
 * @example
 * ```ts
 * const repo = await pinRepository('/repo/sub'); // { gitDir: '/repo/.git', workTree: '/repo', … }
 * ```
 */
export async function pinRepository(dir: string): Promise<PinnedRepository | null> {
  const out = await runGit(dir, ['rev-parse', '--absolute-git-dir', '--git-common-dir', '--show-toplevel'], {
    userConfig: true,
    allowFail: true,
  });
  const lines = out.toString('utf8').split('\n');
  const [gitDirLine, commonLine, topLine] = lines;
  if (gitDirLine === undefined || commonLine === undefined || topLine === undefined || topLine === '')
    return null;
  const abs = (p: string) => (isAbsolute(p) ? p : join(dir, p));
  const gitDir = await realpath(abs(gitDirLine)).catch(() => null);
  const commonDir = await realpath(abs(commonLine)).catch(() => null);
  const workTree = await realpath(abs(topLine)).catch(() => null);
  if (gitDir === null || commonDir === null || workTree === null) return null;
  const location = { gitDir, workTree };
  const email = await configValue(location, 'user.email');
  const name = await configValue(location, 'user.name');
  const identity = email === '' ? FALLBACK_IDENTITY : { name: name === '' ? loginName() : name, email };
  return { gitDir, commonDir, workTree, identity, objects: await looseObjectsSnapshot(commonDir) };
}
