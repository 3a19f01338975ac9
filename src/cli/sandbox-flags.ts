/**
 * `--sandbox auto|on|off` and `--sandbox-network deny|allow` for the verbs that run commands
 * besides `handoff run` (gate run, conformance worker, formalize/autoformalize): the flags are
 * validated by `resolveSandboxFlags` (runtime/cycle-options.ts), the machine and the directory are
 * probed by `probeSandbox`, and `sandboxDecision` (src/sandbox/mode.ts) decides — the one home of
 * the rule. `auto` without a sandbox says so in one stderr line; `on` without one is a usage error
 * naming what is missing. (`handoff run` decides the same way in runtime/project-run.ts.)
 */

import { HandoffError } from '../errors/index.js';
import { resolveSandboxFlags } from '../runtime/cycle-options.js';
import { probeSandbox, type SandboxNetwork, sandboxDecision } from '../sandbox/index.js';
import type { OptionSpec, ParsedArgs } from './args.js';
import { escapeLine } from './terminal-text.js';

/** The two options, to spread into a verb's option table. */
export const SANDBOX_OPTIONS = {
  sandbox: { type: 'string' },
  'sandbox-network': { type: 'string' },
} as const satisfies OptionSpec;

/** The help lines of the two options (two spaces of indent, as the verb helps have them). */
export const SANDBOX_HELP = `  --sandbox auto|on|off     run the commands in the sandbox (default auto: where the machine
                            allows it, else one stderr line says why; on: refuse without it)
  --sandbox-network deny|allow   network inside the sandbox (default deny)`;

/** A resolved sandbox: the option the runners take (`null`: contained only). */
export type SandboxChoice = { readonly network: SandboxNetwork } | null;

/** The validated flags, before any probe. */
export interface SandboxFlags {
  readonly mode: 'auto' | 'on' | 'off';
  readonly network: SandboxNetwork;
}

/**
 * Validates the two flags (pure).
 *
 * @example
 * ```ts
 * sandboxFlags({ sandbox: 'on' }); // { mode: 'on', network: 'deny' }
 * ```
 * @throws HandoffError `usage` for a value outside auto|on|off or deny|allow.
 */
export function sandboxFlags(values: ParsedArgs['values']): SandboxFlags {
  const r = resolveSandboxFlags({ sandbox: values.sandbox, sandboxNetwork: values['sandbox-network'] });
  if (!r.ok) throw new HandoffError('usage', r.error);
  return { mode: r.sandbox, network: r.network };
}

/**
 * Decides the sandbox for commands run over `dir` (a realpath; undefined: over fresh temp
 * directories, as the machine probe makes them): probes (once per process and directory), applies {@link sandboxDecision}, writes the one `auto` note through `note`.
 *
 * @example
 * ```ts
 * const sandbox = await chooseSandbox(sandboxFlags(values), repo, (l) => io.err(`${l}\n`));
 * await runGate({ ...o, sandbox });
 * ```
 * @throws HandoffError `usage` under `--sandbox on` when the sandbox cannot run (the reason named).
 */
export async function chooseSandbox(
  flags: SandboxFlags,
  dir: string | undefined,
  note: (line: string) => void,
): Promise<SandboxChoice> {
  const d = sandboxDecision(
    flags.mode,
    flags.mode === 'off' ? { available: false, reason: 'off' } : await probeSandbox(dir),
  );
  if ('refuse' in d) throw new HandoffError('usage', d.refuse);
  if (d.note !== null) note(escapeLine(d.note));
  return d.sandbox ? { network: flags.network } : null;
}
