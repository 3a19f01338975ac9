/**
 * `node dist/examples/claude-agent-sdk/run.js [DIR]` — the Claude Agent SDK adapters on scripted
 * subagents (offline): a chain whose route stage is a subagent (refused at the seam, then
 * accepted on retry), and two delegations to an editing subagent in a demo project created in
 * DIR (default: a new temporary directory) — one accepted and journaled, one refused.
 *
 * For real subagents, replace each `scriptedQuery(...)` below with the SDK's `query`
 * (`import { query } from '@anthropic-ai/claude-agent-sdk'`, which needs its platform binary and
 * an API key), or leave `query` out of the adapter options and they import it themselves.
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ChainReport, runChainExample } from './chain-example.js';
import { type Attempt, createDemoProject, delegateEdit } from './delegate-example.js';
import { scriptedQuery } from './scripted-sdk.js';
import { editor, routePlanner } from './subagents.js';

/**
 * What the example did.
 *
 * @example
 * ```ts
 * const { chain, honest, overreach } = await main([], () => {});
 * ```
 */
export interface ExampleReport {
  readonly dir: string;
  readonly chain: ChainReport;
  readonly honest: Attempt;
  readonly overreach: Attempt;
}

/**
 * Runs the example in `dir` (created when absent from the arguments) and writes the report
 * lines to `out`; resolves to the report.
 *
 * @example
 * ```ts
 * await main(['/tmp/claude-demo'], (line) => process.stdout.write(`${line}\n`));
 * ```
 */
export async function main(argv: readonly string[], out: (line: string) => void): Promise<ExampleReport> {
  const given = argv[0];
  if (given !== undefined) await mkdir(resolve(given), { recursive: true });
  const dir = await realpath(
    given === undefined ? await mkdtemp(join(tmpdir(), 'claude-agent-sdk-demo-')) : resolve(given),
  );

  const chain = await runChainExample((attempt) =>
    scriptedQuery(routePlanner(attempt === 0 ? '21:00' : '18:00')),
  );
  out(`chain, first run: stopped at '${chain.first.stage}' [${chain.first.code}] ${chain.first.detail}`);
  out(
    `chain, retry from revision ${chain.first.revision}: ${chain.retry.decision}, revision ${chain.retry.revision}, depart_by ${String(chain.retry.depart_by)}`,
  );
  out(`  both attempts ran as ${chain.stage_run_ids[0] ?? '?'}`);

  await createDemoProject(dir);
  out(`project: ${dir}`);
  const honest = await delegateEdit(dir, 'greeting', scriptedQuery(editor('hello', { projectRoot: dir })));
  out(`honest subagent:       ${honest.outcome} (${honest.status}) ${honest.cite ?? ''}`);
  const overreach = await delegateEdit(
    dir,
    'farewell',
    scriptedQuery(editor('goodbye', { projectRoot: dir, overreach: true })),
  );
  out(
    `overreaching subagent: ${overreach.outcome} [${overreach.violations.join(', ')}] ${overreach.detail ?? ''}`,
  );
  out('real subagents: pass the SDK query (see examples/claude-agent-sdk/README.md)');
  return { dir, chain, honest, overreach };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
