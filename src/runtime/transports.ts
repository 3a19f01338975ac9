/**
 * Worker transports: a child process speaking the worker protocol (CLI) — contained, or sandboxed
 * (src/sandbox: the owned files' changes taken from its writable layer, everything else discarded
 * and reported) — and an in-process function (tests, embedding; never sandboxed).
 */
import { isAbsolute } from 'node:path';
import type { Dispatch } from '../contract/index.js';
import { type ContainedResult, runContained } from '../process/index.js';
import { applyLayerFiles, runSandboxed, type SandboxNetwork } from '../sandbox/index.js';
import type { ProgressSink, TransportResult, WorkerTransport } from './delegating-worker.js';
import { PROGRESS_SCHEMA, parseWorkerOutput, WORKER_PROTOCOL_VERSION } from './worker-framing.js';
import { UNWATCHED_DIRS } from './workspace-watch.js';

/** Exit code by which a worker reports a permission denial (the delegation must stop). */
export const EXIT_PERMISSION_DENIED = 77;

/** Options of {@link subprocessTransport}. */
export interface SubprocessTransportOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Run each dispatch in the sandbox (src/sandbox; decide with `probeSandbox` first): the worker
   * sees the project read-only under a private writable layer; after it exits with a handoff, its
   * owned files' changes are applied to the host and everything else it wrote is discarded and
   * reported in {@link TransportResult}'s `discarded`. Omitted or null: contained only.
   */
  readonly sandbox?: { readonly network: SandboxNetwork } | null;
}

/**
 * A transport that runs `argv` per dispatch (see docs/worker-protocol.md).
 *
 * @example
 * ```ts
 * const t = subprocessTransport(['python3', 'worker.py'], { cwd: projectRoot, timeoutMs: 600_000 });
 * ```
 */
export function subprocessTransport(argv: readonly string[], o: SubprocessTransportOptions): WorkerTransport {
  const sandbox = o.sandbox ?? null;
  return {
    sandboxed: sandbox !== null,
    async run(dispatch: Dispatch, signal: AbortSignal, onProgress?: ProgressSink): Promise<TransportResult> {
      let handoffSeen = false;
      const contained = {
        timeoutMs: o.timeoutMs,
        signal,
        env: {
          ...(o.env ?? {}),
          HANDOFF_WORKER_PROTOCOL: WORKER_PROTOCOL_VERSION,
          HANDOFF_PROJECT_ROOT: o.cwd,
        },
        onLine: (line: string) => {
          // progress lines precede the handoff (framing); anything after a non-progress line is not progress
          if (!onProgress || handoffSeen || line.trim() === '') return;
          const v = progressObject(line);
          if (v === null) handoffSeen = true;
          else onProgress(v);
        },
      };
      const stdin = `${JSON.stringify(dispatch)}\n`;
      if (sandbox === null)
        return transportResult(await runContained(argv, stdin, { ...contained, cwd: o.cwd }), o);
      const scratch = dispatch.context.scratch_location;
      const r = await runSandboxed(argv, stdin, {
        ...contained,
        projectRoot: o.cwd,
        owned: dispatch.owned_files,
        network: sandbox.network,
        // custody decides whether a deleted owned file was reported; the layer only carries it
        allowDelete: true,
        // what a toolchain writes under node_modules, dist, .lake vanishes with the layer, unreported
        buildDirs: UNWATCHED_DIRS,
        ...(isAbsolute(scratch) ? { privateDirs: [scratch] } : {}),
      });
      if (r.layerError !== null) return { kind: 'operational-error', detail: r.layerError };
      const out = transportResult(r, o);
      // only a worker that answered, in a dispatch nobody gave up on, gets its owned files' changes
      // onto the host (after an abort the caller may already be restoring them)
      if (out.kind === 'output' && signal.aborted) {
        return {
          kind: 'operational-error',
          detail: 'the dispatch was aborted before its owned files were applied',
          discarded: r.violation,
        };
      }
      if (out.kind === 'output') {
        const failed = await applyLayerFiles(r.files);
        if (failed.length > 0)
          return {
            kind: 'operational-error',
            detail: `cannot apply the sandbox's owned files: ${failed.join(', ')}`,
            discarded: r.violation,
          };
      }
      return { ...out, discarded: r.violation };
    },
  };
}

/** A contained run's result as a transport result (the worker protocol's exit codes and framing). */
function transportResult(r: ContainedResult, o: SubprocessTransportOptions): TransportResult {
  const tail = r.stderr.trim().split('\n').slice(-3).join(' | ');
  if (r.spawnError !== null)
    return { kind: 'operational-error', detail: `cannot start worker: ${r.spawnError}` };
  if (r.timedOut) {
    return {
      kind: 'operational-error',
      detail: `worker exceeded its ${Math.round(o.timeoutMs / 1000)}s budget and was killed`,
    };
  }
  if (r.truncated) return { kind: 'protocol-error', detail: 'worker output exceeded the size limit' };
  if (r.code === EXIT_PERMISSION_DENIED) {
    return {
      kind: 'permission-denied',
      detail: `worker reported a permission denial${tail ? `: ${tail}` : ''}`,
    };
  }
  const f = parseWorkerOutput(r.stdout);
  if (!f.ok) {
    if (r.code !== 0) {
      return {
        kind: 'operational-error',
        detail: `worker exited with ${r.code ?? r.signal} and no handoff${tail ? `: ${tail}` : ''}`,
      };
    }
    return { kind: 'protocol-error', detail: f.defect };
  }
  return { kind: 'output', progress: f.progress, handoff: f.handoff };
}

function progressObject(line: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      (v as { schema?: unknown }).schema === PROGRESS_SCHEMA
      ? (v as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** An in-process worker: receives the dispatch and returns its handoff (and optional progress). */
export type InProcessWorker = (
  dispatch: Dispatch,
  signal: AbortSignal,
) => Promise<{ handoff: unknown; progress?: readonly Record<string, unknown>[] }>;

/**
 * A transport that calls a function. A thrown error becomes an operational-error result.
 *
 * @example
 * ```ts
 * const t = inProcessTransport(async (d) => ({ handoff: solve(d) }));
 * ```
 */
export function inProcessTransport(fn: InProcessWorker): WorkerTransport {
  return {
    async run(dispatch, signal, onProgress): Promise<TransportResult> {
      try {
        const r = await fn(dispatch, signal);
        for (const p of r.progress ?? []) onProgress?.(p);
        return { kind: 'output', progress: r.progress ?? [], handoff: r.handoff };
      } catch (e) {
        return {
          kind: 'operational-error',
          detail: `in-process worker threw: ${(e as Error)?.message ?? String(e)}`,
        };
      }
    },
  };
}
