/**
 * The sandbox option (layer 1, pure): `auto` (default) sandboxes where the probe says it can and
 * otherwise runs with custody only, saying why in one line; `on` refuses to start without it;
 * `off` runs with custody only.
 */

/**
 * The sandbox option of `handoff run`, `runProject` and `commandWorker`.
 *
 * @example
 * ```ts
 * const mode: SandboxMode = 'auto';
 * ```
 */
export type SandboxMode = 'auto' | 'on' | 'off';

/**
 * The allowed values of {@link SandboxMode}.
 *
 * @example
 * ```ts
 * SANDBOX_MODES.includes('on'); // true
 * ```
 */
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'on', 'off'];

/**
 * Network policy of a sandbox: `deny` (default, no network at all) or `allow` (the host's).
 *
 * @example
 * ```ts
 * const network: SandboxNetwork = 'deny';
 * ```
 */
export type SandboxNetwork = 'deny' | 'allow';

/**
 * The allowed values of {@link SandboxNetwork}.
 *
 * @example
 * ```ts
 * SANDBOX_NETWORKS.join('|'); // 'deny|allow'
 * ```
 */
export const SANDBOX_NETWORKS: readonly SandboxNetwork[] = ['deny', 'allow'];

/**
 * What a run does about the sandbox.
 *
 * @example
 * ```ts
 * const d: SandboxDecision = sandboxDecision('auto', await probeSandbox('/repo'));
 * ```
 */
export type SandboxDecision =
  | { readonly sandbox: true; readonly note: null }
  | { readonly sandbox: false; readonly note: string | null }
  | { readonly refuse: string };

/**
 * Decides from the mode and the probe's answer (pure).
 *
 * @example
 * ```ts
 * sandboxDecision('auto', { available: false, reason: 'bwrap not found on PATH' });
 * // { sandbox: false, note: 'sandbox unavailable: bwrap not found on PATH; running with custody only' }
 * sandboxDecision('on', { available: false, reason: 'bwrap not found on PATH' });
 * // { refuse: '--sandbox on: the sandbox cannot run here: bwrap not found on PATH' }
 * ```
 */
export function sandboxDecision(
  mode: SandboxMode,
  probe: { readonly available: true } | { readonly available: false; readonly reason: string },
): SandboxDecision {
  if (mode === 'off') return { sandbox: false, note: null };
  if (probe.available) return { sandbox: true, note: null };
  if (mode === 'on') return { refuse: `--sandbox on: the sandbox cannot run here: ${probe.reason}` };
  return { sandbox: false, note: `sandbox unavailable: ${probe.reason}; running with custody only` };
}
