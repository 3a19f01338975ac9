/**
 * A check command that must judge the bytes the runtime will commit (layer 3, effects): the
 * profile's check command and a `--diagnostics` checker run contained — or, when the run's worker is
 * sandboxed, in the same sandbox (src/sandbox) with nothing owned: the project read-only under a
 * throwaway layer, so nothing the check writes reaches the host. The runtime's snapshot of the
 * accepted files (the verified bytes a checkpoint commits) is placed in that layer before the check
 * starts, so the check reads exactly them, whatever a process left behind by the worker does to the
 * live tree meanwhile (issue 27 item 2). Without the sandbox the check can only read the live tree:
 * the snapshot's files are compared with it before and after the check, and any difference is
 * reported (`drift`) so the caller refuses the check's verdict.
 */
import { lstat, readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { type ContainedOptions, type ContainedResult, runContained } from '../process/index.js';
import { runSandboxed, type SandboxNetwork } from '../sandbox/index.js';

/**
 * Where a check runs: in the sandbox with this network policy, or contained only (null). A getter
 * is read at each check (a run decides its sandbox after it made its diagnostics port).
 *
 * @example
 * ```ts
 * const s: CheckSandbox = { network: 'deny' };
 * const later: CheckSandbox = () => held.sandbox ?? null;
 * ```
 */
export type CheckSandbox =
  | { readonly network: SandboxNetwork }
  | null
  | (() => { readonly network: SandboxNetwork } | null);

/**
 * The sandbox a {@link CheckSandbox} names now (pure).
 *
 * @example
 * ```ts
 * checkSandboxNow(() => ({ network: 'deny' })); // { network: 'deny' }
 * checkSandboxNow(undefined); // null
 * ```
 */
export function checkSandboxNow(s: CheckSandbox | undefined): { readonly network: SandboxNetwork } | null {
  return typeof s === 'function' ? s() : (s ?? null);
}

/**
 * Options of {@link runOnSnapshot}.
 *
 * @example
 * ```ts
 * const o: SnapshotCheckOptions = { cwd: '/repo', timeoutMs: 60_000, sandbox: null, snapshot: new Map() };
 * ```
 */
export interface SnapshotCheckOptions extends ContainedOptions {
  /** Run in the sandbox (the project root `cwd` a realpath), or null: contained only. */
  readonly sandbox: { readonly network: SandboxNetwork } | null;
  /** The bytes the check must judge (absolute path → bytes; null: the file must not exist). */
  readonly snapshot: ReadonlyMap<string, Buffer | null>;
}

/**
 * What {@link runOnSnapshot} saw.
 *
 * @example
 * ```ts
 * const r: SnapshotCheckRun = await runOnSnapshot(['npm', 'test'], '', o);
 * r.drift; // ['A.lean'] — the live file was not the snapshot's bytes around the check
 * ```
 */
export interface SnapshotCheckRun {
  readonly result: ContainedResult;
  /**
   * Snapshot files (project-relative) whose live bytes differed from the snapshot before or after
   * an unsandboxed check — the check may have judged other bytes — or, sandboxed, a file the
   * snapshot says is deleted that the host still holds. Empty: the check judged the snapshot.
   */
  readonly drift: readonly string[];
  /** Project paths the check wrote (sandboxed: all discarded, never on the host); empty unsandboxed. */
  readonly wrote: readonly string[];
}

const toRel = (root: string, p: string) => relative(root, p).split(sep).join('/');

/** The snapshot files whose live bytes (or existence) differ from the snapshot. */
async function liveDrift(root: string, snapshot: ReadonlyMap<string, Buffer | null>): Promise<string[]> {
  const out: string[] = [];
  for (const [abs, bytes] of snapshot) {
    const st = await lstat(abs).catch(() => null);
    if (bytes === null) {
      if (st !== null) out.push(toRel(root, abs));
      continue;
    }
    if (st === null || !st.isFile() || st.size !== bytes.length) {
      out.push(toRel(root, abs));
      continue;
    }
    const now = await readFile(abs).catch(() => null);
    if (now === null || !now.equals(bytes)) out.push(toRel(root, abs));
  }
  return out;
}

/**
 * Runs the check `argv` over the project `o.cwd`, judging `o.snapshot`'s bytes: sandboxed, they
 * are placed in the check's layer (it reads exactly them; everything it writes is discarded);
 * contained, the live files are compared with the snapshot before and after (`drift`).
 *
 * @example
 * ```ts
 * const { result, drift } = await runOnSnapshot(['npm', 'test'], '', {
 *   cwd: '/repo', timeoutMs: 600_000, sandbox: { network: 'deny' },
 *   snapshot: new Map([['/repo/A.ts', Buffer.from('export const a = 1;\n')]]),
 * });
 * if (drift.length > 0) throw new Error(`changed during the check: ${drift.join(', ')}`);
 * ```
 */
export async function runOnSnapshot(
  argv: readonly string[],
  stdin: string,
  o: SnapshotCheckOptions,
): Promise<SnapshotCheckRun> {
  const { sandbox, snapshot, cwd, ...contained } = o;
  if (sandbox === null) {
    const before = await liveDrift(cwd, snapshot);
    const result = await runContained(argv, stdin, { ...contained, cwd });
    const after = await liveDrift(cwd, snapshot);
    return { result, drift: [...new Set([...before, ...after])].sort(), wrote: [] };
  }
  const seed = new Map<string, Buffer>();
  const gone = new Map<string, null>();
  for (const [abs, bytes] of snapshot) {
    if (bytes === null) gone.set(abs, null);
    else seed.set(abs, bytes);
  }
  const r = await runSandboxed(argv, stdin, {
    ...contained,
    projectRoot: cwd,
    // the seeded files come back as "owned" so a seeded file left as seeded is no write
    owned: [...seed.keys()],
    network: sandbox.network,
    seed,
  });
  const wrote = r.plan.discarded.filter((n) => !n.startsWith('~/'));
  for (const [abs, f] of r.files) {
    const seeded = seed.get(abs);
    if (f === null || seeded === undefined || !f.bytes.equals(seeded)) wrote.push(toRel(cwd, abs));
  }
  if (r.layerError !== null) wrote.push(`(${r.layerError})`);
  // a file the snapshot says is deleted cannot be hidden from the check (no whiteout outside the
  // namespace): the host must not hold it
  return { result: r, drift: await liveDrift(cwd, gone), wrote };
}
