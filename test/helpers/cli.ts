/**
 * Runs the built `handoff` binary (dist/) as a real child process, with an argument array.
 * Tests that use it need `npm run build` first (`npm test` builds before running vitest).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Absolute path of the built CLI entry. */
export const CLI_BIN = fileURLToPath(new URL('../../dist/src/cli/bin.js', import.meta.url));

/** Result of one CLI invocation. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  input?: string | Buffer;
  cwd?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

/**
 * Spawns `node dist/src/cli/bin.js ...args` and collects its output.
 *
 * @example
 * ```ts
 * const r = await runCli(['validate', '--kind', 'dispatch', '-'], { input: JSON.stringify(d) });
 * expect(r.code).toBe(0);
 * ```
 */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Parses a CLI run's stdout as JSON, failing with the whole output when it is not JSON.
 *
 * @example
 * ```ts
 * const body = stdoutJson<{ ok: boolean }>(await runCli(['validate', …]));
 * ```
 */
export function stdoutJson<T = unknown>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${run.code}):\n${run.stdout}\n--- stderr ---\n${run.stderr}`);
  }
}
