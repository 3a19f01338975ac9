/**
 * Runs untrusted code as a contained child process (layer 3, effects): an argument array and never
 * a shell, its own process group, a session token in its environment, bounded output, and an
 * end that never waits on the child's descendants.
 *
 * The run resolves when the child exits (plus a short drain grace for its pipes), when its time
 * budget runs out, when its output exceeds the limit, or when the caller aborts. In every case the
 * whole process group is killed and every process still carrying the session token is swept
 * ({@link sweepSession}), so a descendant that holds stdout open, or one that detached into its own
 * session to write late, neither delays the result nor outlives it. If this process exits while
 * the child runs, the group is killed and the session swept at exit (exit-reaper.ts).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { reapOnExit } from './exit-reaper.js';
import { SESSION_ENV, sweepSession } from './session-sweep.js';

/** Options of {@link runContained}. */
export interface ContainedOptions {
  readonly cwd: string;
  /** Extra environment on top of `process.env` (`undefined` removes a variable). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether `env` is layered on `process.env` (default `true`) or is the whole environment
   * (`false`, for ports whose caller hands over a complete environment). The session token is
   * added either way.
   */
  readonly inheritEnv?: boolean;
  /** Wall-clock budget; at its end the group gets SIGTERM, then SIGKILL after `killGraceMs`. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Called with each complete stdout line as it arrives (live progress). */
  readonly onLine?: (line: string) => void;
  /** Stdout cap in characters (default 16 MiB); beyond it the child is stopped and `truncated` set. */
  readonly maxOutputBytes?: number;
  /** How long a SIGTERMed group may take before SIGKILL (default 2,000 ms). */
  readonly killGraceMs?: number;
  /** How long the pipes may stay open after the child exited (default 250 ms). */
  readonly drainGraceMs?: number;
}

/** What a contained process did. */
export interface ContainedResult {
  /** Exit code of the child itself (null when killed by a signal or never started). */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The budget ran out before the child exited. */
  readonly timedOut: boolean;
  readonly spawnError: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly truncated: boolean;
  /** A descendant kept the output pipes open after the child exited (they were cut). */
  readonly pipesHeld: boolean;
  /** Processes outside the group that still carried the session token and were killed. */
  readonly swept: number;
  /** Wall-clock milliseconds from spawn to resolution. */
  readonly elapsedMs: number;
}

let starts = 0;

/**
 * How many processes {@link runContained} has started in this process so far. The workspace watch
 * carries a snapshot over to the next dispatch only while this has not moved (a process the
 * runtime started may have written anywhere; src/runtime/workspace-watch.ts `snapshotForDispatch`).
 *
 * @example
 * ```ts
 * const n = containedStarts();
 * await runContained(['true'], '', { cwd });
 * containedStarts() === n + 1; // true
 * ```
 */
export function containedStarts(): number {
  return starts;
}

/**
 * Spawns `argv[0]` with `argv.slice(1)` in a fresh process group, writes `stdin`, and resolves
 * (never rejects) once the child and everything it started are gone or killed.
 *
 * @example
 * ```ts
 * const r = await runContained(['python3', 'w.py'], JSON.stringify(dispatch), { cwd, timeoutMs: 60_000 });
 * if (r.timedOut) …
 * ```
 */
export function runContained(
  argv: readonly string[],
  stdin: string,
  o: ContainedOptions,
): Promise<ContainedResult> {
  const max = o.maxOutputBytes ?? 16 * 1024 * 1024;
  const killGrace = o.killGraceMs ?? 2000;
  const drainGrace = o.drainGraceMs ?? 250;
  const token = randomBytes(12).toString('hex');
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const [cmd, ...args] = argv;
    let stdout = '';
    let stderr = '';
    let truncated = false;
    let timedOut = false;
    let pipesHeld = false;
    let done = false;
    let pending = '';
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, f: () => void) => timers.push(setTimeout(f, ms));
    if (cmd === undefined || cmd === '') {
      resolvePromise(result(null, null, 'empty command', 0));
      return;
    }
    const env: Record<string, string | undefined> = {
      ...(o.inheritEnv === false ? {} : process.env),
      ...(o.env ?? {}),
      [SESSION_ENV]: token,
    };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    starts++;
    const child = spawn(cmd, args, {
      cwd: o.cwd,
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    function result(
      code: number | null,
      signal: NodeJS.Signals | null,
      spawnError: string | null,
      swept: number,
    ): ContainedResult {
      return {
        code,
        signal,
        timedOut,
        spawnError,
        stdout,
        stderr,
        truncated,
        pipesHeld,
        swept,
        elapsedMs: Date.now() - started,
      };
    }
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig);
      } catch {
        // the group is gone (or never formed): nothing to signal
      }
    };
    // this process exiting while the child runs (a signal, a caller's exit) takes the child along
    const release = reapOnExit(() => {
      killGroup('SIGKILL');
      sweepSession(token, child.pid);
    });
    const finish = (spawnError: string | null) => {
      if (done) return;
      done = true;
      release();
      for (const t of timers) clearTimeout(t);
      o.signal?.removeEventListener('abort', onAbort);
      killGroup('SIGKILL');
      const swept = spawnError === null ? sweepSession(token, child.pid) : 0;
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      if (pending !== '') o.onLine?.(pending);
      resolvePromise(result(exitCode, exitSignal, spawnError, swept));
    };
    // stop: SIGTERM the group; whatever still runs after the grace is killed and the run ends
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      killGroup('SIGTERM');
      later(killGrace, () => finish(null));
    };
    later(o.timeoutMs, () => {
      if (exitCode !== null || exitSignal !== null) return;
      timedOut = true;
      stop();
    });
    const onAbort = () => stop();
    if (o.signal?.aborted) stop();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (truncated) return;
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
    child.on('error', (e) => {
      if (child.pid === undefined) finish(e.message);
    });
    child.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      // the child is gone; its pipes get a short grace to drain, then the group is killed
      later(drainGrace, () => {
        pipesHeld = true;
        finish(null);
      });
    });
    child.on('close', () => finish(null));
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  });
}
