/**
 * `node dist/examples/openai-agents/run.js [DIR]` — creates the demo project in DIR (default: a new
 * temporary directory), runs the example there on scripted models (offline, no API key) and prints
 * what happened. With `--real-model NAME` (and `OPENAI_API_KEY` set) both agents use that OpenAI
 * model instead; the checks are the same.
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OpenAIProvider, setTracingDisabled } from '@openai/agents';
import {
  type AgentsExampleReport,
  type ExampleModels,
  runAgentsExample,
  scriptedModels,
} from './agents-example.js';
import { createDemoProject } from './demo-project.js';

async function realModels(name: string): Promise<ExampleModels> {
  // the SDK's OpenAI provider reads OPENAI_API_KEY; the scripted run never creates it
  const model = await new OpenAIProvider().getModel(name);
  return { lead: model, fixer: model };
}

/**
 * Runs the example in a new demo project (DIR from the arguments, else a temporary directory) and
 * writes the report lines to `out`; resolves to the report.
 *
 * @example
 * ```ts
 * await main([], (line) => process.stdout.write(`${line}\n`));
 * ```
 */
export async function main(
  argv: readonly string[],
  out: (line: string) => void,
): Promise<AgentsExampleReport> {
  const args = [...argv];
  const real = args.indexOf('--real-model');
  const modelName = real === -1 ? undefined : args.splice(real, 2)[1];
  const given = args[0];
  if (given !== undefined) await mkdir(resolve(given), { recursive: true });
  const dir = await realpath(
    given === undefined ? await mkdtemp(join(tmpdir(), 'openai-agents-demo-')) : resolve(given),
  );
  await createDemoProject(dir);
  // the scripted run is offline: no trace is exported (a real model's run is traced as usual)
  if (modelName === undefined) setTracingDisabled(true);
  const models = modelName === undefined ? scriptedModels() : await realModels(modelName);
  const report = await runAgentsExample(dir, models);
  out(`project: ${dir}`);
  for (const [i, c] of report.calls.entries()) {
    const why = c.violations.length === 0 ? '' : ` [${c.violations.join(', ')}] ${c.detail ?? ''}`;
    out(`fix_file call ${i + 1}: ${c.outcome} (${c.status}) ${c.cite ?? '(not journaled)'}${why}`);
  }
  out(`lead: ${report.lead}`);
  out(
    `README.md ${report.files.readme.includes('Rewritten') ? 'was rewritten' : 'is unchanged'}; src/farewell.ts ${report.files.farewell.includes('TODO(agent)') ? 'holds its marker again' : 'was changed'}`,
  );
  const first = report.calls.find((c) => c.cite !== null)?.cite?.split('#')[0];
  if (first !== undefined) out(`inspect it: npx handoff inspect ${first} --project ${dir}`);
  return report;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
