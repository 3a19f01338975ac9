/**
 * The sandbox's command line (layer 1, pure): util-linux `unshare` makes a user and mount
 * namespace and mounts the writable layer (overlayfs: the project read-only below, a private upper
 * directory on top), then bubblewrap runs nested inside it with the rest of the isolation (a
 * read-only root, a private writable view of `/tmp` and a private `$HOME`, PID/network/IPC/UTS
 * namespaces, a new session).
 * Bubblewrap 0.8 (Debian 12) has no `--overlay`, hence the two steps (docs/sandbox.md).
 *
 * The shell script is a fixed constant: every path and the worker's argv are positional
 * arguments — data, never interpolated into the script.
 */

import { isAbsolute, normalize } from 'node:path';

/**
 * Where the writable layer of one sandboxed run lives (absolute host paths).
 *
 * @example
 * ```ts
 * const l: SandboxLayout = {
 *   project: '/repo', upper: '/tmp/s/upper', work: '/tmp/s/work', merged: '/tmp/s/merged', home: '/tmp/s/home',
 *   root: '/tmp/s', tmpUpper: '/tmp/s/tmp-upper', tmpWork: '/tmp/s/tmp-work', tmpMerged: '/tmp/s/tmp-merged',
 * };
 * ```
 */
export interface SandboxLayout {
  /** The project root (a realpath): the overlay's lower layer, and the path the worker sees it at. */
  readonly project: string;
  /** The overlay's upper directory: everything the worker wrote lands here. */
  readonly upper: string;
  /** The overlay's work directory (same file system as `upper`). */
  readonly work: string;
  /** The mount point of the merged view (bound over `project` inside the sandbox). */
  readonly merged: string;
  /** A host directory bound writable at {@link SANDBOX_HOME}: the worker's private `$HOME`, listed after. */
  readonly home: string;
  /**
   * The folder holding every sandboxed run's layer directories (this run's among them): hidden
   * from the worker by an empty tmpfs, so it can read no layer through `/tmp`.
   */
  readonly root: string;
  /** The upper directory of `/tmp`'s overlay: the worker's `/tmp` writes land here and are dropped. */
  readonly tmpUpper: string;
  /** The work directory of `/tmp`'s overlay (same file system as `tmpUpper`). */
  readonly tmpWork: string;
  /** The mount point of `/tmp`'s merged view (bound over `/tmp` inside the sandbox). */
  readonly tmpMerged: string;
}

/**
 * Options of {@link sandboxArgv}.
 *
 * @example
 * ```ts
 * const o: SandboxArgvOptions = { network: 'allow', privateDirs: ['/tmp/scratch-1'] };
 * ```
 */
export interface SandboxArgvOptions {
  /** `deny` (default): no network namespace shared; `allow`: the host network (`--share-net`). */
  readonly network?: 'deny' | 'allow';
  /**
   * Host paths the worker sees as empty private directories (a tmpfs each), e.g. the dispatch's
   * scratch directory: writes there vanish with the sandbox.
   */
  readonly privateDirs?: readonly string[];
  /** Extra environment set inside the sandbox (after `HOME` and `TMPDIR`). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Where the worker's private `$HOME` is seen inside the sandbox (under its private `/tmp`).
 *
 * @example
 * ```ts
 * sandboxArgv(layout, ['w']).includes(SANDBOX_HOME); // true
 * ```
 */
export const SANDBOX_HOME = '/tmp/.handoff-home';

/**
 * The script `sh` runs inside the new namespaces: mount the project's overlay and `/tmp`'s, then
 * become bubblewrap. `$1..$4` are the project's lowerdir, upperdir, workdir and mount point,
 * `$5..$7` `/tmp`'s upperdir, workdir and mount point; the rest is bubblewrap's argv. `/tmp` is an
 * overlay rather than an empty tmpfs so a worker, drafter or evaluator script kept under the
 * host's `/tmp` (or a checkout there) still runs, while nothing it writes there reaches the host.
 *
 * @example
 * ```ts
 * sandboxArgv(layout, ['w'])[9] === MOUNT_SCRIPT; // true
 * ```
 */
export const MOUNT_SCRIPT =
  'mount -t overlay overlay -o userxattr,lowerdir="$1",upperdir="$2",workdir="$3" "$4" && ' +
  'mount -t overlay overlay -o userxattr,lowerdir=/tmp,upperdir="$5",workdir="$6" "$7" && ' +
  'shift 7 && exec bwrap "$@"';

/**
 * The start of every command that mounts something in the sandbox (pure): util-linux `unshare`
 * makes a user namespace (the runner mapped to root) and a private mount namespace, and `sh` runs
 * `script` (a constant: its data follow as positional arguments, `$0` being `sh`).
 *
 * @example
 * ```ts
 * namespaceShell('mount …')[0]; // 'unshare'
 * namespaceShell('mount …').at(-1); // 'sh'
 * ```
 */
export function namespaceShell(script: string): string[] {
  return [
    'unshare',
    '--user',
    '--map-root-user',
    '--mount',
    '--propagation',
    'private',
    '--',
    'sh',
    '-c',
    script,
    'sh',
  ];
}

/**
 * Why a path cannot be an overlay layer (the mount options are split on `,` and `:` and take `\`
 * as an escape), or null when it can (pure).
 *
 * @example
 * ```ts
 * overlayPathDefect('/work/a,b'); // "the path /work/a,b contains ',', which overlay mount options cannot carry"
 * ```
 */
export function overlayPathDefect(path: string): string | null {
  const bad = [',', ':', '\\'].find((c) => path.includes(c));
  return bad === undefined
    ? null
    : `the path ${path} contains '${bad}', which overlay mount options cannot carry`;
}

/**
 * The private directories that can be given a tmpfs (pure): absolute, not `/` or `/tmp` (already
 * private), and neither the project nor one of its ancestors (that would hide it).
 *
 * @example
 * ```ts
 * privateDirsFor('/repo', ['/scratch/1', '/', '/repo', 'rel']); // ['/scratch/1']
 * ```
 */
export function privateDirsFor(project: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of dirs) {
    if (!isAbsolute(raw)) continue;
    const d = normalize(raw).replace(/\/+$/, '');
    if (d === '' || d === '/tmp' || project === d || project.startsWith(`${d}/`)) continue;
    if (!out.includes(d)) out.push(d);
  }
  return out;
}

/**
 * The full argv of one sandboxed worker (pure). `/tmp`'s overlay is bound, and the run's own temp
 * layers' folder hidden, before the project's bind, so a project under `/tmp` stays visible.
 *
 * @example
 * ```ts
 * const argv = sandboxArgv(
 *   { project: '/repo', upper: '/tmp/s/upper', work: '/tmp/s/work', merged: '/tmp/s/merged', home: '/tmp/s/home',
 *     root: '/tmp/s', tmpUpper: '/tmp/s/tmp-upper', tmpWork: '/tmp/s/tmp-work', tmpMerged: '/tmp/s/tmp-merged' },
 *   ['python3', 'worker.py'],
 *   { network: 'deny' },
 * );
 * argv[0]; // 'unshare'
 * argv.slice(-3); // ['--', 'python3', 'worker.py']
 * ```
 */
export function sandboxArgv(
  layout: SandboxLayout,
  workerArgv: readonly string[],
  o: SandboxArgvOptions = {},
): string[] {
  const env = Object.entries(o.env ?? {}).flatMap(([k, v]) => ['--setenv', k, v]);
  return [
    ...namespaceShell(MOUNT_SCRIPT),
    layout.project,
    layout.upper,
    layout.work,
    layout.merged,
    layout.tmpUpper,
    layout.tmpWork,
    layout.tmpMerged,
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    layout.tmpMerged,
    '/tmp',
    '--tmpfs',
    layout.root,
    ...privateDirsFor(layout.project, o.privateDirs ?? []).flatMap((d) => ['--tmpfs', d]),
    '--bind',
    layout.merged,
    layout.project,
    '--bind',
    layout.home,
    SANDBOX_HOME,
    '--unshare-all',
    ...(o.network === 'allow' ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--chdir',
    layout.project,
    '--setenv',
    'HOME',
    SANDBOX_HOME,
    '--setenv',
    'TMPDIR',
    '/tmp',
    ...env,
    '--',
    ...workerArgv,
  ];
}
