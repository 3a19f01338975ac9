/**
 * Worker transports: a child process speaking the worker protocol (CLI), and an in-process
 * function (tests, embedding).
 */
import type { Dispatch } from '../contract/index.js';
import { runContained } from '../process/index.js';
import type { ProgressSink, TransportResult, WorkerTransport } from './delegating-worker.js';
import { PROGRESS_SCHEMA, parseWorkerOutput, WORKER_PROTOCOL_VERSION } from './worker-framing.js';

/** Exit code by which a worker reports a permission denial (the delegation must stop). */
export const EXIT_PERMISSION_DENIED = 77;

/** Options of {@link subprocessTransport}. */
export interface SubprocessTransportOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly env?: Readonly<Record<string, string | undefined>>;
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
  return {
    async run(dispatch: Dispatch, signal: AbortSignal, onProgress?: ProgressSink): Promise<TransportResult> {
      let handoffSeen = false;
      const r = await runContained(argv, `${JSON.stringify(dispatch)}\n`, {
        cwd: o.cwd,
        timeoutMs: o.timeoutMs,
        signal,
        env: {
          ...(o.env ?? {}),
          HANDOFF_WORKER_PROTOCOL: WORKER_PROTOCOL_VERSION,
          HANDOFF_PROJECT_ROOT: o.cwd,
        },
        onLine: (line) => {
          // progress lines precede the handoff (framing); anything after a non-progress line is not progress
          if (!onProgress || handoffSeen || line.trim() === '') return;
          const v = progressObject(line);
          if (v === null) handoffSeen = true;
          else onProgress(v);
        },
      });
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
    },
  };
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
