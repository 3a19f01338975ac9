/**
 * checkedAgentTool — the `agent.asTool` pattern with a checked answer — through the SDK's real
 * Runner: a lead agent calls a sub-agent as a tool; the sub-agent (its own scripted model) edits
 * files through its tools and answers; the lead gets the checked handoff. Hostile sub-agents:
 * paths that escape, a link planted over its file, an out-of-scope edit behind a `solved` claim,
 * prose, malformed, huge and deep output, a handoff for another task, a run that never ends.
 */
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, type ModelRequest, tool } from '@openai/agents';
import { validateHandoff } from 'handoff-runtime/contract';
import {
  type CheckedToolResult,
  checkedAgentTool,
  handoffDraftTool,
  ownedFileTools,
} from 'handoff-runtime/openai-agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  callTool,
  lastToolOutput,
  type ScriptTurn,
  say,
  scriptedModel,
} from '../../../examples/openai-agents/scripted-model.js';
import { GREETING, makeProject, memoryStore, type Project, SOLVED } from '../../delegate/fixtures.js';
import { leadCalls } from './helpers.js';

let p: Project;
beforeEach(async () => {
  p = await makeProject();
});
afterEach(async () => {
  await p.cleanup();
});

const params = z.object({ file: z.string(), instruction: z.string() });
const ARGS = { file: 'src/greeting.ts', instruction: "Replace the TODO(agent) marker with 'hello'." };

/** A sub-agent on a scripted model, with the adapter's file tools, the draft tool and `extra`. */
function subAgent(turns: readonly ScriptTurn[], extra: ReturnType<typeof tool>[] = []) {
  return new Agent({
    name: 'fixer',
    handoffDescription: 'Fixes one file and answers with a handoff.',
    instructions: 'Edit your owned file, then answer with the handoff_draft JSON.',
    tools: [...ownedFileTools(), handoffDraftTool(), ...extra],
    model: scriptedModel(turns),
  });
}

async function callSubAgent(
  agent: Agent,
  extra: Partial<Parameters<typeof checkedAgentTool<unknown, never, typeof params>>[1]> = {},
): Promise<CheckedToolResult> {
  const fix = checkedAgentTool(agent, {
    parameters: params,
    dispatch: (a) => ({
      target: `${a.file}:1`,
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [a.file],
      context: { goal_state: a.instruction },
    }),
    projectRoot: p.dir,
    ...extra,
  });
  const run = await leadCalls(fix, ARGS);
  expect(run.results).toHaveLength(1);
  const r = run.results[0] as CheckedToolResult;
  expect(validateHandoff(r.handoff).ok).toBe(true);
  expect(JSON.parse(run.seen)).toEqual(JSON.parse(JSON.stringify(r)));
  return r;
}

const write =
  (path: string, content: string, id: string): ScriptTurn =>
  () => [callTool('write_owned_file', { path, content }, id)];
const draft =
  (files: string[]): ScriptTurn =>
  () => [callTool('handoff_draft', { files_changed: files }, 'draft')];
const answerDraft: ScriptTurn = (req) => [say(lastToolOutput(req))];

describe('checkedAgentTool', () => {
  it('an honest sub-agent: its handoff is accepted and journaled; the tool takes the agent’s name', async () => {
    let firstInput = '';
    const agent = subAgent([
      (req: ModelRequest) => {
        firstInput = typeof req.input === 'string' ? req.input : JSON.stringify(req.input);
        return write('src/greeting.ts', SOLVED, 'w1')(req);
      },
      draft(['src/greeting.ts']),
      answerDraft,
    ]);
    const r = await callSubAgent(agent, { store: memoryStore() });
    expect(r).toMatchObject({ outcome: 'accepted', violations: [], cite: '20261130T100000Z-0a1b2c3d#1' });
    expect(r.handoff).toMatchObject({ status: 'solved', files_changed: [p.owned] });
    expect(await readFile(p.owned, 'utf8')).toBe(SOLVED);
    expect(firstInput).toContain("Instruction: Replace the TODO(agent) marker with 'hello'.");
    expect(firstInput).toContain(p.owned);
  });

  it('paths that escape the owned file are refused by its file tools; nothing outside is touched', async () => {
    const seen: string[] = [];
    const note: ScriptTurn = (req) => {
      seen.push(lastToolOutput(req));
      return [];
    };
    const agent = subAgent([
      write('../../../etc/evil', 'x', 'e1'),
      (req) => [...note(req), callTool('write_owned_file', { path: '/etc/passwd', content: 'x' }, 'e2')],
      (req) => [
        ...note(req),
        callTool('write_owned_file', { path: join(p.dir, 'README.md'), content: 'x' }, 'e3'),
      ],
      (req) => [...note(req), callTool('read_owned_file', { path: 'src/../README.md' }, 'e4')],
      (req) => [...note(req), callTool('handoff_draft', { files_changed: ['README.md'] }, 'e5')],
      (req) => [...note(req), callTool('handoff_draft', { files_changed: [] }, 'e6')],
      answerDraft,
    ]);
    const r = await callSubAgent(agent);
    expect(seen.map((s) => s.split(';')[0])).toEqual([
      'refused: "../../../etc/evil" is not an owned file',
      'refused: "/etc/passwd" is not an owned file',
      `refused: ${JSON.stringify(join(p.dir, 'README.md'))} is not an owned file`,
      'refused: "src/../README.md" is not an owned file',
      'refused: "README.md" is not an owned file',
    ]);
    expect(r.outcome).toBe('accepted'); // it changed nothing, and says so
    expect(await readFile(join(p.dir, 'README.md'), 'utf8')).toBe('bystander\n');
  });

  it('a link planted over the owned file: the file tool will not write through it, and the run is refused', async () => {
    let wrote = '';
    const plant = tool({
      name: 'plant_link',
      description: 'x',
      parameters: z.object({}),
      execute: async () => {
        await rm(p.owned);
        await symlink(join(p.dir, 'README.md'), p.owned);
        return 'planted';
      },
    });
    const agent = subAgent(
      [
        () => [callTool('plant_link', {}, 'l1')],
        write('src/greeting.ts', 'through the link', 'l2'),
        (req) => {
          wrote = lastToolOutput(req);
          return draft([])(req);
        },
        answerDraft,
      ],
      [plant],
    );
    const r = await callSubAgent(agent);
    expect(wrote).toMatch(/^could not write .*ELOOP/);
    expect(await readFile(join(p.dir, 'README.md'), 'utf8')).toBe('bystander\n');
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toContain('owned_type');
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING); // put back as a regular file
  });

  it('a solved claim with an out-of-scope edit made through its own tool is refused, and its edit put back', async () => {
    const anyWrite = tool({
      name: 'write_any_file',
      description: 'x',
      parameters: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path, content }) => {
        await writeFile(join(p.dir, path), content);
        return 'ok';
      },
    });
    const agent = subAgent(
      [
        write('src/greeting.ts', SOLVED, 'o1'),
        () => [callTool('write_any_file', { path: 'README.md', content: 'tidied\n' }, 'o2')],
        draft(['src/greeting.ts']),
        answerDraft,
      ],
      [anyWrite],
    );
    const r = await callSubAgent(agent);
    expect(r.outcome).toBe('refused');
    expect(r.violations).toEqual([
      { check: 'outside_owned', detail: 'the worker wrote outside its owned files: README.md' },
    ]);
    expect(r.handoff.stop_detail).toContain('owned files restored to their pre-dispatch bytes');
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });

  it('a change it does not report is refused (baseline)', async () => {
    const agent = subAgent([write('src/greeting.ts', SOLVED, 'b1'), draft([]), answerDraft]);
    const r = await callSubAgent(agent);
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['baseline']);
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });

  it('a handoff for another task is refused (task_echo)', async () => {
    const agent = subAgent([
      draft([]),
      (req) => [say(JSON.stringify({ ...JSON.parse(lastToolOutput(req)), target: 'src/other.ts:9' }))],
    ]);
    const r = await callSubAgent(agent);
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['task_echo']);
  });

  it.each([
    ['prose', 'Done! I replaced the marker.', "the sub-agent's final output is not JSON: "],
    [
      'malformed JSON',
      '{"schema": "run-contract/v1", "record": "hand',
      "the sub-agent's final output is not JSON: ",
    ],
    ['a JSON list', '[1, 2]', "the sub-agent's final output is JSON but not a handoff object"],
    ['an empty answer', '   ', "the sub-agent's final output is empty"],
  ])('%s as the final output is refused (schema), the owned file put back', async (_name, text, detail) => {
    const agent = subAgent([write('src/greeting.ts', SOLVED, 'm1'), () => [say(text)]]);
    const r = await callSubAgent(agent);
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['schema']);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
    expect(r.handoff.stop_detail).toContain(detail);
    expect(r.handoff.stop_detail).toContain('owned files restored');
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });

  it('a prose answer after handoff_draft refused passes the refusal through', async () => {
    const agent = subAgent([
      write('src/greeting.ts', SOLVED, 'w1'),
      draft(['README.md']),
      () => [say('refused: I could not get a handoff.')],
    ]);
    const r = await callSubAgent(agent);
    expect(r.outcome).toBe('refused');
    expect(r.handoff.stop_detail).toMatch(
      /the sub-agent's final output is not JSON: .*; handoff_draft answered: refused: .*README\.md.*files_changed may name only/,
    );
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });

  it('a huge final output is refused unread', async () => {
    const agent = subAgent([() => [say(`{"pad": "${'x'.repeat(5000)}"}`)]]);
    const r = await callSubAgent(agent, { maxOutputChars: 4096 });
    expect(r.outcome).toBe('refused');
    expect(r.handoff.stop_detail).toContain(
      "the sub-agent's final output is 5011 characters long; the limit is 4096",
    );
  });

  it('a final output nested 100,000 deep is refused, not a crash', async () => {
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const agent = subAgent([() => [say(deep)]]);
    const r = await callSubAgent(agent);
    expect(r.outcome).not.toBe('accepted');
    expect(r.handoff.stop_reason).toBe('protocol-error');
  });

  it('a sub-agent past its turn limit is an operational error', async () => {
    const loop: ScriptTurn = () => [callTool('read_owned_file', { path: 'src/greeting.ts' }, 'r')];
    const agent = subAgent([loop, loop, loop, loop]);
    const r = await callSubAgent(agent, { maxTurns: 2 });
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_reason).toBe('operational-error');
    expect(r.handoff.stop_detail).toMatch(/the worker threw: .*[Mm]ax turns/);
  });
});

describe('the sub-agent tools outside a checked run', () => {
  it('own no file', async () => {
    const [read] = ownedFileTools();
    const out = await read.invoke({} as never, JSON.stringify({ path: p.owned }));
    expect(out).toBe('refused: no checked sub-agent run is current, so no file is owned');
    const d = await handoffDraftTool().invoke({} as never, JSON.stringify({ files_changed: [] }));
    expect(d).toBe('refused: no checked sub-agent run is current');
  });
});
