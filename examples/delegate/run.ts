/**
 * `node dist/examples/delegate/run.js [DIR]` — creates the demo project in DIR (default: a new
 * temporary directory), runs the delegate example there and prints what happened. Afterwards,
 * `npx handoff inspect <run-id> --project DIR` draws the journaled run.
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ExampleReport, runDelegateExample } from './delegate-example.js';
import { createDemoProject } from './demo-project.js';
import { markerSubagent, overreachingSubagent } from './subagent.js';

/**
 * Runs the example in `dir` (created when absent from the arguments) and writes the report lines
 * to `out`; resolves to the report.
 *
 * @example
 * ```ts
 * await main([], (line) => process.stdout.write(`${line}\n`));
 * ```
 */
export async function main(argv: readonly string[], out: (line: string) => void): Promise<ExampleReport> {
  const given = argv[0];
  if (given !== undefined) await mkdir(resolve(given), { recursive: true });
  const dir = await realpath(
    given === undefined ? await mkdtemp(join(tmpdir(), 'delegate-demo-')) : resolve(given),
  );
  await createDemoProject(dir);
  const report = await runDelegateExample(dir, {
    honest: markerSubagent('hello'),
    overreaching: overreachingSubagent('goodbye', dir),
  });
  out(`project: ${dir}`);
  out(
    `honest subagent:       ${report.honest.outcome} (${report.honest.status}) ${report.honest.cite ?? ''}`,
  );
  out(`overreaching subagent: ${report.overreach.outcome} — ${report.overreach.detail ?? ''}`);
  out("  (README.md is named and put back: without a sandbox, a refused worker's writes are undone)");
  out(
    `relaunch without new evidence: ${report.relaunch.allowed ? 'allowed' : 'forbidden'} (${report.relaunch.reason})`,
  );
  out(
    `run ${report.inspected.run_id}: ${report.inspected.events.join(', ')}; cite → ${report.inspected.cited}`,
  );
  out(`inspect it: npx handoff inspect ${report.inspected.run_id} --project ${dir}`);
  return report;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
