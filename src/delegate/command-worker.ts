/**
 * A subprocess worker for `delegate` (layer 3, effects): a command speaking the worker protocol
 * (the dispatch as JSON on stdin; progress lines, then one handoff on stdout —
 * docs/worker-protocol.md), run contained and, where the machine allows it, sandboxed
 * (src/sandbox): the project read-only under a private writable layer, private `/tmp` and `$HOME`,
 * no network, its own PID namespace. Only its owned files' changes reach the host; anything else
 * it wrote is discarded and becomes `delegate`'s `outside_owned` violation, path by path. An
 * in-process function worker cannot be sandboxed: it runs inside the host's own process.
 */
import type { Dispatch } from '../contract/index.js';
import { subprocessTransport } from '../runtime/transports.js';
import { probeSandbox, type SandboxMode, type SandboxNetwork, sandboxDecision } from '../sandbox/index.js';
import { resolveProjectRoot } from './project-root.js';
import type { DelegateContext } from './run-worker.js';
import { SANDBOXED_ANSWER, type SandboxedAnswer } from './sandboxed-answer.js';

/**
 * Options of {@link commandWorker}.
 *
 * @example
 * ```ts
 * const o: CommandWorkerOptions = { sandbox: 'on', sandboxNetwork: 'deny', timeoutMs: 120_000 };
 * ```
 */
export interface CommandWorkerOptions {
  /** `auto` (default): sandboxed where possible; `on`: refuse without it; `off`: contained only. */
  readonly sandbox?: SandboxMode;
  /** `deny` (default) or `allow` the host's network inside the sandbox. */
  readonly sandboxNetwork?: SandboxNetwork;
  /** The command's own time budget in milliseconds (default 600,000; `delegate`'s `timeoutMs` also applies). */
  readonly timeoutMs?: number;
  /** The project root (default: found from the owned files, as `delegate` finds it). */
  readonly projectRoot?: string;
  /** Extra environment for the command. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Receives `sandbox unavailable: <reason>; running with custody only` when `auto` falls back. */
  readonly onSandboxNote?: (line: string) => void;
}

/**
 * A worker `delegate` runs as a child process.
 *
 * @example
 * ```ts
 * const w: CommandWorker = commandWorker(['python3', 'worker.py']); w.argv; // ['python3', 'worker.py']
 * ```
 */
export interface CommandWorker {
  readonly argv: readonly string[];
  run(dispatch: Dispatch, context: DelegateContext): Promise<SandboxedAnswer>;
}

/**
 * A command worker for `delegate`. Its `run` resolves to the branded answer `delegate` reads (the
 * handoff plus what the sandbox discarded) and rejects when the command failed (cannot start, timed
 * out, no handoff, `--sandbox on` where it cannot run) — `delegate` reports that as an
 * operational-error stop.
 *
 * @example
 * ```ts
 * const r = await delegate(dispatch, commandWorker(['python3', 'worker.py'], { timeoutMs: 120_000 }), { store });
 * r.violations; // [{ check: 'outside_owned', detail: 'files outside the owned set were written and discarded: notes.md' }]
 * ```
 */
export function commandWorker(argv: readonly string[], o: CommandWorkerOptions = {}): CommandWorker {
  const command = [...argv];
  return {
    argv: command,
    async run(dispatch, context) {
      const root = await resolveProjectRoot(dispatch.owned_files, o.projectRoot);
      const mode = o.sandbox ?? 'auto';
      const decision =
        mode === 'off'
          ? { sandbox: false, note: null }
          : sandboxDecision(mode, await probeSandbox(root, dispatch.owned_files));
      if ('refuse' in decision) throw new Error(decision.refuse);
      if (decision.note !== null) o.onSandboxNote?.(decision.note);
      const transport = subprocessTransport(command, {
        cwd: root,
        timeoutMs: o.timeoutMs ?? 600_000,
        ...(o.env === undefined ? {} : { env: o.env }),
        sandbox: decision.sandbox ? { network: o.sandboxNetwork ?? 'deny' } : null,
      });
      const r = await transport.run(dispatch, context.signal);
      const discarded = r.discarded ?? null;
      if (r.kind !== 'output')
        throw new Error(discarded === null ? r.detail : `${r.detail}; and ${discarded}`);
      return { [SANDBOXED_ANSWER]: true, handoff: r.handoff, discarded };
    },
  };
}
