/**
 * Runs the `handoff` CLI in this process (`main` from src/, no build needed) with a
 * non-interactive io: empty stdin, empty environment, no TTY, `cwd` as the working directory, and
 * standard output and error captured. The setup of the tests that drive store verbs (`audit`,
 * `inspect`) against a store they wrote themselves.
 */
import { main } from '../../src/cli/main.js';

/** What one in-process CLI invocation returned and printed. */
export interface CliMainRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs `handoff ...args` in this process with working directory `cwd` (and environment `env`, default empty).
 *
 * @example
 * ```ts
 * const r = await cliMain(['audit', runId, '--root', root, '--json'], dir);
 * r.code; // 0
 * JSON.parse(r.out).ok; // true
 * ```
 */
export async function cliMain(
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>> = {},
): Promise<CliMainRun> {
  let out = '';
  let err = '';
  const code = await main([...args], {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    readStdin: async () => Buffer.alloc(0),
    env: { ...env },
    cwd,
    isTTY: false,
  });
  return { code, out, err };
}
