/**
 * handoff-runtime/openai-agents in one program: a lead agent delegates to a sub-agent through
 * `checkedAgentTool` (the `agent.asTool` pattern, checked). The first call is honest and accepted;
 * in the second the sub-agent tries a path outside its file (its file tool refuses) and
 * "helpfully" rewrites the README through a general tool it also has — refused, its edit put back;
 * the third, the same task again without new evidence, is held by the rerun guard. Every result is
 * a valid run-contract/v1 handoff, journaled in the project's run store.
 *
 * Both agents run on scripted models (offline); see README.md for a real model.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { Agent, type Model, Runner, tool } from '@openai/agents';
import {
  type CheckedToolResult,
  checkedAgentTool,
  checkedResults,
  handoffDraftTool,
  ownedFileTools,
} from 'handoff-runtime/openai-agents';
import { createFsStore } from 'handoff-runtime/store';
import { z } from 'zod';
import { MARKER } from './demo-project.js';
import { callTool, lastToolOutput, type ScriptTurn, say, scriptedModel } from './scripted-model.js';

/**
 * A general file tool the host gives its sub-agent besides the owned-file tools — the kind of
 * tool through which an out-of-scope edit happens. It stays inside the project; the checks after
 * the run see what it wrote.
 *
 * @example
 * ```ts
 * const write = projectFileTool('/tmp/app');
 * ```
 */
export function projectFileTool(dir: string) {
  return tool({
    name: 'write_project_file',
    description: 'Write any file of the project (path relative to the project root).',
    parameters: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path, content }) => {
      const abs = resolve(dir, path);
      if (relative(dir, abs).startsWith(`..${sep}`)) return 'refused: outside the project';
      await writeFile(abs, content);
      return `wrote ${path}`;
    },
  });
}

/**
 * The tool's arguments: the file, what to do, and what is new since a refused attempt.
 *
 * @example
 * ```ts
 * const args: z.infer<typeof FixArgs> = { file: 'src/greeting.ts', instruction: '…', evidence: [] };
 * ```
 */
export const FixArgs = z.object({ file: z.string(), instruction: z.string(), evidence: z.array(z.string()) });

/**
 * The models of the example: the lead's and the sub-agent's. Scripted by default.
 *
 * @example
 * ```ts
 * await runAgentsExample(dir, scriptedModels(dir));
 * ```
 */
export interface ExampleModels {
  readonly lead: Model;
  readonly fixer: Model;
}

const INSTRUCTION = `Replace the ${MARKER} marker with a word that fits the constant's name.`;

/**
 * The scripted models: the lead makes three `fix_file` calls and reports; the sub-agent fixes the
 * greeting honestly, then, for the farewell, tries `../../etc/hosts`, edits its file and rewrites
 * the README.
 *
 * @example
 * ```ts
 * const models = scriptedModels();
 * ```
 */
export function scriptedModels(): ExampleModels {
  const fix =
    (file: string, id: string): ScriptTurn =>
    () => [callTool('fix_file', { file, instruction: INSTRUCTION, evidence: [] }, id)];
  const lead = scriptedModel([
    fix('src/greeting.ts', 'lead-1'),
    fix('src/farewell.ts', 'lead-2'),
    fix('src/farewell.ts', 'lead-3'),
    (req) => {
      const last = JSON.parse(lastToolOutput(req)) as CheckedToolResult;
      return [say(`The farewell needs another plan: ${last.violations[0]?.detail ?? ''}`)];
    },
  ]);
  const answer: ScriptTurn = (req) => [say(lastToolOutput(req))];
  const fixer = scriptedModel([
    // first call: the greeting, honestly
    () => [
      callTool(
        'write_owned_file',
        { path: 'src/greeting.ts', content: "export const greeting = 'hello';\n" },
        'f1',
      ),
    ],
    () => [callTool('handoff_draft', { files_changed: ['src/greeting.ts'] }, 'f2')],
    answer,
    // second call: the farewell, with an escape attempt and an out-of-scope edit
    () => [callTool('write_owned_file', { path: '../../etc/hosts', content: 'x' }, 'f3')],
    () => [
      callTool(
        'write_owned_file',
        { path: 'src/farewell.ts', content: "export const farewell = 'bye';\n" },
        'f4',
      ),
    ],
    () => [callTool('write_project_file', { path: 'README.md', content: 'Rewritten by the agent.\n' }, 'f5')],
    () => [callTool('handoff_draft', { files_changed: ['src/farewell.ts'] }, 'f6')],
    answer,
  ]);
  return { lead, fixer };
}

/**
 * One checked call, as the example reports it.
 *
 * @example
 * ```ts
 * report.calls[0]; // { outcome: 'accepted', status: 'solved', cite: '…#1', violations: [], detail: null }
 * ```
 */
export interface CallSummary {
  readonly outcome: CheckedToolResult['outcome'];
  readonly status: string;
  readonly cite: string | null;
  readonly violations: readonly string[];
  readonly detail: string | null;
}

/**
 * What the example did.
 *
 * @example
 * ```ts
 * const report: AgentsExampleReport = await runAgentsExample(dir, scriptedModels());
 * ```
 */
export interface AgentsExampleReport {
  /** The three `fix_file` calls, in order. */
  readonly calls: readonly CallSummary[];
  /** The lead's final answer. */
  readonly lead: string;
  /** The project's files afterwards. */
  readonly files: { readonly greeting: string; readonly farewell: string; readonly readme: string };
}

/**
 * Runs the example in the demo project `dir` with `models`.
 *
 * @example
 * ```ts
 * const report = await runAgentsExample('/tmp/app', scriptedModels());
 * ```
 */
export async function runAgentsExample(dir: string, models: ExampleModels): Promise<AgentsExampleReport> {
  const fixer = new Agent({
    name: 'fixer',
    handoffDescription: 'Fixes one file of the project and answers with a checked handoff.',
    instructions:
      'Edit only the file you own, with write_owned_file. Then call handoff_draft with the files you changed and answer with its JSON, nothing else.',
    tools: [...ownedFileTools(), handoffDraftTool(), projectFileTool(dir)],
    model: models.fixer,
  });
  const fixFile = checkedAgentTool(fixer, {
    name: 'fix_file',
    parameters: FixArgs,
    dispatch: (a) => ({
      target: `${a.file}:1`,
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [a.file],
      context: { goal_state: a.instruction },
      evidenceDelta: a.evidence,
    }),
    projectRoot: dir,
    allow: (rel) => rel.startsWith('src/'),
    store: createFsStore({ projectRoot: dir }),
    maxTurns: 12,
    timeoutMs: 300_000,
  });
  const lead = new Agent({
    name: 'lead',
    instructions: 'Have fix_file fix src/greeting.ts and src/farewell.ts; read each checked handoff.',
    tools: [fixFile],
    model: models.lead,
  });
  const result = await new Runner({ workflowName: 'handoff-runtime openai-agents example' }).run(
    lead,
    'Fix the TODO(agent) markers.',
    { maxTurns: 8 },
  );
  const read = (f: string) => readFile(join(dir, f), 'utf8');
  return {
    calls: checkedResults(result.newItems).map((r) => ({
      outcome: r.outcome,
      status: r.handoff.status,
      cite: r.cite,
      violations: r.violations.map((v) => v.check),
      detail: r.handoff.stop_detail,
    })),
    lead: String(result.finalOutput ?? ''),
    files: {
      greeting: await read('src/greeting.ts'),
      farewell: await read('src/farewell.ts'),
      readme: await read('README.md'),
    },
  };
}
