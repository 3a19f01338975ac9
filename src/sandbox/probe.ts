/**
 * Whether the sandbox can run here (layer 3, effects): {@link probeSandbox} runs a real, tiny
 * sandbox once per process (and once per project, whose ownership and path the overlay must
 * accept) and answers with one plain line of reason when it cannot.
 */
import { lstat, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { overlayPathDefect } from './argv.js';
import { findExecutable } from './executables.js';
import { runSandboxed } from './run-sandboxed.js';

/**
 * The answer of {@link probeSandbox}.
 *
 * @example
 * ```ts
 * const p: SandboxProbe = await probeSandbox('/repo'); // { available: false, reason: 'bwrap not found on PATH …' }
 * ```
 */
export type SandboxProbe =
  | { readonly available: true }
  | { readonly available: false; readonly reason: string };

/** The name of the file a probe writes in its (discarded) layer. */
const PROBE_FILE = '.handoff-sandbox-probe';

/**
 * One plain line from a failed probe's stderr (pure): the known refusals get their cause named.
 *
 * @example
 * ```ts
 * probeFailureReason('sh: 1: cannot create x: Value too large for defined data type', 1);
 * // "the project's files belong to a user or group other than the runner's (overlay writes fail with EOVERFLOW)"
 * ```
 */
export function probeFailureReason(stderr: string, code: number | null): string {
  const line =
    stderr
      .trim()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .pop() ?? '';
  if (/Value too large|EOVERFLOW/i.test(stderr))
    return "the project's files belong to a user or group other than the runner's (overlay writes fail with EOVERFLOW)";
  if (
    /uid_map|gid_map|unshare failed|setgroups|No space left on device/i.test(stderr) &&
    /unshare/.test(stderr)
  )
    return `user namespaces are refused here (${line})`;
  if (/mount/i.test(line)) return `the overlay mount is refused here (${line})`;
  if (/bwrap/i.test(line)) return `bubblewrap cannot start here (${line})`;
  return line === '' ? `the probe sandbox exited with ${code}` : line;
}

async function runProbe(project: string): Promise<SandboxProbe> {
  const r = await runSandboxed(['sh', '-c', ': > "$1"', 'sh', join(project, PROBE_FILE)], '', {
    projectRoot: project,
    owned: [join(project, PROBE_FILE)],
    timeoutMs: 15_000,
    killGraceMs: 500,
  });
  if (r.spawnError !== null) return { available: false, reason: `cannot start unshare: ${r.spawnError}` };
  if (r.timedOut) return { available: false, reason: 'the probe sandbox did not finish within 15 s' };
  if (r.code !== 0) return { available: false, reason: probeFailureReason(r.stderr, r.code) };
  if (r.layerError !== null) return { available: false, reason: r.layerError };
  if (!r.plan.take.includes(PROBE_FILE))
    return { available: false, reason: "the probe's write did not land in the writable layer" };
  return { available: true };
}

let machine: Promise<SandboxProbe> | null = null;
const perProject = new Map<string, Promise<SandboxProbe>>();

async function probeMachine(): Promise<SandboxProbe> {
  if (process.platform !== 'linux') return { available: false, reason: 'the sandbox needs Linux namespaces' };
  if (findExecutable('bwrap') === null)
    return { available: false, reason: 'bwrap not found on PATH (install the package bubblewrap)' };
  if (findExecutable('unshare') === null)
    return { available: false, reason: 'unshare not found on PATH (install util-linux)' };
  const dir = await mkdtemp(join(tmpdir(), 'handoff-sandbox-probe-'));
  try {
    await writeFile(join(dir, 'lower'), 'x');
    const p = await runProbe(dir);
    // the host directory must be exactly as it was
    if (p.available && (await readdir(dir)).join() !== 'lower')
      return { available: false, reason: 'the probe wrote through to the host' };
    return p;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Why the worker could not write `owned` through the overlay, or null (lstat only, O(owned)): the
 * user namespace maps only the runner's own user and group, so an owned file — or, for one still to
 * be created, its nearest existing folder — that belongs to another user (seen as `nobody`:
 * permission denied) or another group (EOVERFLOW on every copy-up) cannot be written in the layer.
 *
 * @example
 * ```ts
 * await ownershipDefect('/repo', ['/repo/A.lean']);
 * // "A.lean belongs to 1000:1000, not to the runner (0:0): the sandbox's layer cannot write it"
 * ```
 */
export async function ownershipDefect(projectRoot: string, owned: readonly string[]): Promise<string | null> {
  const uid = process.getuid?.() ?? -1;
  const gid = process.getgid?.() ?? -1;
  for (const file of owned) {
    let p = file;
    for (;;) {
      const st = await lstat(p).catch(() => null);
      if (st !== null) {
        if (st.uid !== uid || st.gid !== gid) {
          const name = relative(projectRoot, p) || '.';
          return `${name} belongs to ${st.uid}:${st.gid}, not to the runner (${uid}:${gid}): the sandbox's layer cannot write it`;
        }
        break;
      }
      const up = dirname(p);
      if (up === p || !`${up}/`.startsWith(`${projectRoot}/`)) break;
      p = up;
    }
  }
  return null;
}

/**
 * Whether a sandbox can run: on this machine (bwrap and unshare present, user namespaces and an
 * overlay mount allowed — probed once per process) and, given `projectRoot` (a realpath), over
 * that project (a path the overlay options can carry, files the runner's user and group own —
 * probed once per project) and, given `owned`, for those files ({@link ownershipDefect}: not
 * cached). Never throws.
 *
 * @example
 * ```ts
 * const p = await probeSandbox('/repo');
 * if (!p.available) console.error(`sandbox unavailable: ${p.reason}`);
 * ```
 */
export async function probeSandbox(projectRoot?: string, owned?: readonly string[]): Promise<SandboxProbe> {
  machine ??= probeMachine().catch((e: unknown) => ({
    available: false as const,
    reason: `the probe failed: ${(e as Error)?.message ?? String(e)}`,
  }));
  const m = await machine;
  if (!m.available || projectRoot === undefined) return m;
  const defect = overlayPathDefect(projectRoot);
  if (defect !== null) return { available: false, reason: defect };
  let p = perProject.get(projectRoot);
  if (p === undefined) {
    p = runProbe(projectRoot).catch((e: unknown) => ({
      available: false as const,
      reason: `the probe failed: ${(e as Error)?.message ?? String(e)}`,
    }));
    perProject.set(projectRoot, p);
  }
  const project = await p;
  if (!project.available || owned === undefined) return project;
  const owner = await ownershipDefect(projectRoot, owned).catch((e: unknown) => `cannot check ${String(e)}`);
  return owner === null ? project : { available: false, reason: owner };
}
