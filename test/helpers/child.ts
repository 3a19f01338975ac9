/**
 * Running a Node script as a real child process in tests (argument arrays only): stdin closed,
 * stdout and stderr collected, resolved when the child has closed.
 */
import { spawn } from 'node:child_process';

/** What a finished child reported. */
export interface ChildResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node script ...args`, collecting its output.
 *
 * @example
 * ```ts
 * const r = await spawnChild(CHILD, ['once', url]); // r.code, r.stdout, r.stderr
 * ```
 */
export function spawnChild(script: string, args: string[]): Promise<ChildResult> {
  const p = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  p.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  return new Promise((resolve) => p.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}
