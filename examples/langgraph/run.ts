/**
 * `node dist/examples/langgraph/run.js [DIR]` — creates the demo project in DIR (default: a new
 * temporary directory), runs the LangGraph example there and prints what happened. Afterwards,
 * `npx handoff inspect <run-id> --project DIR` draws a journaled run.
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDemoProject } from './demo-project.js';
import { type LangGraphExampleReport, runLangGraphExample } from './langgraph-example.js';
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
export async function main(
  argv: readonly string[],
  out: (line: string) => void,
): Promise<LangGraphExampleReport> {
  const given = argv[0];
  if (given !== undefined) await mkdir(resolve(given), { recursive: true });
  const dir = await realpath(
    given === undefined ? await mkdtemp(join(tmpdir(), 'langgraph-demo-')) : resolve(given),
  );
  await createDemoProject(dir);
  const report = await runLangGraphExample(dir, {
    honest: markerSubagent('hello'),
    overreaching: overreachingSubagent('goodbye', dir),
  });
  const { honest, overreach, trip } = report;
  out(`project: ${dir}`);
  out(
    `fix graph, honest subagent:       ${honest.verdict} → ${honest.path.join(' → ')} (${honest.cite ?? 'no cite'})`,
  );
  out(
    `fix graph, overreaching subagent: ${overreach.verdict} → ${overreach.path.join(' → ')} [${overreach.violations.join(', ')}] ${overreach.detail ?? ''}`,
  );
  out(`trip graph: ${trip.outcome.status}, trace ${trip.outcome.baton?.trace.join(' → ') ?? '-'}`);
  for (const r of trip.retried) out(`  retried ${r}`);
  for (const c of trip.outcome.commits) out(`  ${c.cite ?? '-'}  ${c.stage ?? 'start'}  r${c.revision}`);
  out(`inspect it: npx handoff inspect ${trip.run_id ?? '-'} --project ${dir}`);
  return report;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
