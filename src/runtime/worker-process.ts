/**
 * Runs a worker command as a child process (layer 3): argument array, no shell; the dispatch
 * goes to stdin; stdout and stderr are collected (bounded); a worker that outlives its budget is
 * killed (SIGTERM to its process group, SIGKILL two seconds later).
 */
import { spawn } from 'node:child_process';

/** Options of {@link runWorkerProcess}. */
export interface WorkerProcessOptions {
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Called with each complete stdout line as it arrives (live progress). */
  readonly onLine?: (line: string) => void;
  readonly maxOutputBytes?: number;
}

/** What a worker process did. */
export interface WorkerProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly spawnError: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly truncated: boolean;
}

/**
 * Spawns `argv[0]` with `argv.slice(1)`, writes `stdin`, and resolves when the process exits
 * (never rejects).
 *
 * @example
 * ```ts
 * const r = await runWorkerProcess(['python3', 'w.py'], JSON.stringify(dispatch), { cwd, timeoutMs: 60_000 });
 * ```
 */
export function runWorkerProcess(
  argv: readonly string[],
  stdin: string,
  o: WorkerProcessOptions,
): Promise<WorkerProcessResult> {
  const max = o.maxOutputBytes ?? 16 * 1024 * 1024;
  return new Promise((resolvePromise) => {
    const [cmd, ...args] = argv;
    let stdout = '';
    let stderr = '';
    let truncated = false;
    let timedOut = false;
    let done = false;
    let pending = '';
    const child = spawn(cmd as string, args, {
      cwd: o.cwd,
      env: { ...process.env, ...(o.env ?? {}) } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig);
      } catch {
        child.kill(sig);
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), 2000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, o.timeoutMs);
    const onAbort = () => stop();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (code: number | null, signal: NodeJS.Signals | null, spawnError: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      o.signal?.removeEventListener('abort', onAbort);
      if (pending !== '') o.onLine?.(pending);
      resolvePromise({ code, signal, timedOut, spawnError, stdout, stderr, truncated });
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length + d.length > max) {
        truncated = true;
        stop();
        return;
      }
      stdout += d;
      if (o.onLine) {
        pending += d;
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const p of parts) o.onLine(p);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 64 * 1024) stderr += d;
    });
    child.on('error', (e) => finish(null, null, e.message));
    child.on('close', (code, signal) => finish(code, signal, null));
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  });
}
