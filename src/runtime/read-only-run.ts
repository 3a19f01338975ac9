/**
 * A command that should only read the project (a planner, a reviewer): run contained, or in the
 * sandbox (src/sandbox) with nothing owned — the project read-only under a layer that is thrown
 * away — and told what it wrote there (layer 3, effects). Writes left in its private `$HOME` are
 * not counted: they never reach the host and tools keep caches there.
 */
import { type ContainedOptions, type ContainedResult, runContained } from '../process/index.js';
import { runSandboxed, type SandboxNetwork } from '../sandbox/index.js';

/** What {@link runReadOnly} returns. */
export interface ReadOnlyRun {
  readonly result: ContainedResult;
  /** Project paths it wrote (as the layer plan names them), all discarded; empty when not sandboxed. */
  readonly wrote: readonly string[];
}

/**
 * Runs `argv` over `o.cwd` (a realpath when sandboxed) contained, or sandboxed when `sandbox` is
 * given.
 *
 * @example
 * ```ts
 * const { result, wrote } = await runReadOnly(['python3', 'plan.py'], '{}', { cwd: '/repo', timeoutMs: 30_000 }, { network: 'deny' });
 * wrote; // ['notes.txt'] — discarded, the host never saw it
 * ```
 */
export async function runReadOnly(
  argv: readonly string[],
  stdin: string,
  o: ContainedOptions,
  sandbox: { readonly network: SandboxNetwork } | null | undefined,
): Promise<ReadOnlyRun> {
  if (sandbox == null) return { result: await runContained(argv, stdin, o), wrote: [] };
  const { cwd, ...rest } = o;
  const r = await runSandboxed(argv, stdin, {
    ...rest,
    projectRoot: cwd,
    owned: [],
    network: sandbox.network,
  });
  const wrote = r.plan.discarded.filter((n) => !n.startsWith('~/'));
  return { result: r, wrote: r.layerError === null ? wrote : [...wrote, `(${r.layerError})`] };
}
