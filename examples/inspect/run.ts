/**
 * `node dist/examples/inspect/run.js [DIR]` — creates the demo project in DIR (default: a new
 * temporary directory), runs one cycle there and prints each state transition of the cycle
 * machine as it happens.
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInspectProject, runInspectExample } from './inspect-example.js';

/**
 * Runs the example in `dir` and writes one line per transition to `out`, then the run's status.
 *
 * @example
 * ```ts
 * await main([], (line) => process.stdout.write(`${line}\n`));
 * ```
 */
export async function main(argv: readonly string[], out: (line: string) => void): Promise<string> {
  const given = argv[0];
  if (given !== undefined) await mkdir(resolve(given), { recursive: true });
  const dir = await realpath(
    given === undefined ? await mkdtemp(join(tmpdir(), 'inspect-demo-')) : resolve(given),
  );
  await createInspectProject(dir);
  out(`project: ${dir}`);
  const r = await runInspectExample(dir, (t) => out(`${t.from ?? '(start)'} → ${t.to}  [${t.event}]`));
  out(`handoff: ${r.status}`);
  return r.status;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
