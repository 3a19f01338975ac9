/**
 * The one way the runtime runs git (layer 3, effects). A worker may have written to the
 * repository it works in, so git is run as if its configuration were hostile: argument arrays only
 * (paths are data), hooks and fsmonitor off, no pager, no global or system configuration (a worker
 * can rewrite `~/.gitconfig`: its attributes file, filters or identity must not reach the runtime's
 * git), no system attributes, no replace objects, no inherited `GIT_*` variables, optional locks
 * off; diff-like commands get `--no-ext-diff --no-textconv` from the caller, and blobs are hashed
 * with `--no-filters`. A command can be pinned to one repository (`repo`: `--git-dir` and
 * `--work-tree`, so a `.git` that appeared later is never discovered). The seed's blocked commands
 * (push, commit --amend, checkout --, restore, reset --hard, clean) are refused here.
 */
import { execFile, execFileSync } from 'node:child_process';
import { HandoffError, type HandoffErrorCode } from '../errors/index.js';

/**
 * Configuration every runtime git command runs under (`-c` pairs, before the subcommand). The
 * values are the ones a planted `.git/config` or a configured hook path would otherwise choose.
 */
export const HARDENED_GIT_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.untrackedCache=false',
  'core.attributesFile=/dev/null',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'protocol.allow=never',
].flatMap((c) => ['-c', c]);

/**
 * True when `args` is one of the seed's blocked git commands: push, commit --amend,
 * checkout --, restore, reset --hard, clean (and `gh pr create` is never run by this runtime).
 *
 * @example
 * ```ts
 * isBlockedGit(['commit', '--amend']); // true
 * isBlockedGit(['commit', '-m', 'checkpoint: x']); // false
 * ```
 */
export function isBlockedGit(args: readonly string[]): boolean {
  const sub = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '-c' && args[i - 1] !== '-C');
  if (sub === undefined) return false;
  const after = args.slice(args.indexOf(sub) + 1);
  switch (sub) {
    case 'push':
    case 'restore':
    case 'clean':
      return true;
    case 'commit':
      return after.includes('--amend');
    case 'checkout':
      return after.includes('--');
    case 'reset':
      return after.includes('--hard');
    default:
      return false;
  }
}

let safeDirectories: readonly string[] | null = null;

/**
 * The user's `safe.directory` values (system and global configuration), read once per process
 * with the user's configuration — the first runtime git command of a run comes before its first
 * dispatch. The hardened environment no longer reads the global configuration, so these are passed
 * on as command-scope configuration ({@link hardenedGitEnv}): a repository the user declared safe
 * (as CI does for a checkout owned by another user) stays usable by every runtime git command.
 *
 * @example
 * ```ts
 * userSafeDirectories(); // ['/__w/project/project'] after `git config --global --add safe.directory …`
 * ```
 */
export function userSafeDirectories(): readonly string[] {
  if (safeDirectories !== null) return safeDirectories;
  try {
    const out = execFileSync('git', ['config', '--get-all', 'safe.directory'], {
      cwd: '/',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 30_000,
      env: hardenedGitEnv({}, true),
    });
    safeDirectories = out
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '');
  } catch {
    safeDirectories = [];
  }
  return safeDirectories;
}

/** `GIT_CONFIG_COUNT`/`KEY`/`VALUE` variables for command-scope `safe.directory` entries. */
function safeDirectoryEnv(dirs: readonly string[]): Record<string, string> {
  if (dirs.length === 0) return {};
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(dirs.length) };
  dirs.forEach((d, i) => {
    env[`GIT_CONFIG_KEY_${i}`] = 'safe.directory';
    env[`GIT_CONFIG_VALUE_${i}`] = d;
  });
  return env;
}

/**
 * The environment of a runtime git command: the process environment without any `GIT_*`
 * variable, plus a fixed set (no global or system config, no system attributes, no prompt, no
 * pager, no replace objects, C locale, no optional locks) and the caller's `extra` (e.g.
 * `GIT_INDEX_FILE` for a private index). The user's `safe.directory` entries are carried over
 * ({@link userSafeDirectories}). With `userConfig`, the user's global and system
 * configuration are read as git normally does: only for reading the user's settings (identity)
 * once, before the first dispatch (see src/git/pinned-repository.ts).
 *
 * @example
 * ```ts
 * hardenedGitEnv({ GIT_INDEX_FILE: '/tmp/idx' }).GIT_CONFIG_GLOBAL; // '/dev/null'
 * ```
 */
export function hardenedGitEnv(
  extra: Readonly<Record<string, string>> = {},
  userConfig = false,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_') && v !== undefined) env[k] = v;
  return {
    ...env,
    ...(userConfig
      ? {}
      : {
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_CONFIG_SYSTEM: '/dev/null',
          GIT_ATTR_NOSYSTEM: '1',
          ...safeDirectoryEnv(userSafeDirectories()),
        }),
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    ...extra,
  };
}

/** Options of {@link runGit}. */
export interface RunGitOptions {
  /** Bytes for git's stdin (e.g. `hash-object --stdin`). */
  readonly input?: Buffer | string;
  /** Extra environment (on top of {@link hardenedGitEnv}). */
  readonly env?: Readonly<Record<string, string>>;
  /** Error code of a failure (default `io_error`). */
  readonly code?: HandoffErrorCode;
  /** Extra details of a failure (e.g. `{ problem_id }`). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Resolve to an empty buffer instead of rejecting when git fails. */
  readonly allowFail?: boolean;
  /**
   * The repository to run in, pinned (`--git-dir`, `--work-tree`): git does not discover one from
   * `cwd`, so a repository a worker created below the project is never used.
   */
  readonly repo?: GitLocation;
  /** Read the user's global and system configuration (see {@link hardenedGitEnv}); default false. */
  readonly userConfig?: boolean;
}

/** Where a pinned repository is: its git directory and its work tree's top (realpaths). */
export interface GitLocation {
  readonly gitDir: string;
  readonly workTree: string;
}

/**
 * The global options that pin a git command to `repo`: `--git-dir=…`, `--work-tree=…`, and the
 * work tree as a `safe.directory` (the user's global `safe.directory` is no longer read; the
 * repository was found with the user's configuration when it was pinned).
 *
 * @example
 * ```ts
 * pinnedGitArgs({ gitDir: '/repo/.git', workTree: '/repo' });
 * // ['--git-dir=/repo/.git', '--work-tree=/repo', '-c', 'safe.directory=/repo']
 * ```
 */
export function pinnedGitArgs(repo: GitLocation | undefined): string[] {
  if (repo === undefined) return [];
  return [
    `--git-dir=${repo.gitDir}`,
    `--work-tree=${repo.workTree}`,
    '-c',
    `safe.directory=${repo.workTree}`,
  ];
}

/**
 * Runs `git <hardened config> <args>` in `cwd` and resolves to stdout as bytes.
 *
 * @example
 * ```ts
 * const out = (await runGit('/repo', ['status', '--porcelain', '-z'])).toString('utf8');
 * ```
 * @throws HandoffError `blocked_git` for a blocked command; `o.code` (default `io_error`) when git
 * fails, with git's stderr and `details.args`.
 */
export function runGit(cwd: string, args: readonly string[], o: RunGitOptions = {}): Promise<Buffer> {
  if (isBlockedGit(args)) {
    return Promise.reject(
      new HandoffError('blocked_git', `refusing blocked git command: git ${args.join(' ')}`),
    );
  }
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      [...HARDENED_GIT_CONFIG, ...pinnedGitArgs(o.repo), ...args],
      {
        cwd,
        encoding: 'buffer',
        maxBuffer: 512 * 1024 * 1024,
        timeout: 300_000,
        env: hardenedGitEnv(o.env, o.userConfig === true),
      },
      (err, stdout, stderr) => {
        if (err === null) {
          resolve(stdout);
          return;
        }
        if (o.allowFail === true) {
          resolve(Buffer.alloc(0));
          return;
        }
        reject(
          new HandoffError(
            o.code ?? 'io_error',
            `git ${args[0] ?? ''} failed: ${stderr.toString('utf8').trim() || err.message}`,
            { details: { args: [...args], cwd, ...(o.details ?? {}) }, cause: err },
          ),
        );
      },
    );
    child.stdin?.on('error', () => {});
    child.stdin?.end(o.input ?? '');
  });
}

/**
 * The synchronous form of {@link runGit} for callers that cannot await (null when git fails or
 * is absent).
 *
 * @example
 * ```ts
 * runGitSync('/repo', ['ls-files', '-z']); // Buffer | null
 * ```
 */
export function runGitSync(cwd: string, args: readonly string[]): Buffer | null {
  if (isBlockedGit(args)) return null;
  try {
    return execFileSync('git', [...HARDENED_GIT_CONFIG, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 30_000,
      maxBuffer: 64 << 20,
      env: hardenedGitEnv(),
    });
  } catch {
    return null;
  }
}
