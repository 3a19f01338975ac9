/**
 * delegateTool through the SDK's real Runner and a scripted lead model: the model's tool call runs
 * the worker under delegate, and the tool's result — what the model reads next, and what the run
 * records — is a valid run-contract/v1 handoff with its violations and cite, however the call or
 * the worker misbehaves.
 */
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, Runner } from '@openai/agents';
import { type Dispatch, handoffFor, validateHandoff } from 'handoff-runtime/contract';
import {
  type CheckedToolResult,
  checkedResults,
  type DelegateToolOptions,
  delegateTool,
  isCheckedToolResult,
} from 'handoff-runtime/openai-agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callTool, say, scriptedModel } from '../../../examples/openai-agents/scripted-model.js';
import {
  fsStore,
  GREETING,
  makeProject,
  memoryStore,
  type Project,
  SOLVED,
  solve,
} from '../../delegate/fixtures.js';
import { leadCalls } from './helpers.js';

const params = z.object({ file: z.string(), evidence: z.array(z.string()) });

let p: Project;
beforeEach(async () => {
  p = await makeProject();
});
afterEach(async () => {
  await p.cleanup();
});

function editTool(worker: (d: Dispatch) => unknown, extra: Partial<DelegateToolOptions<typeof params>> = {}) {
  return delegateTool({
    name: 'edit_file',
    description: 'Edit one file; answers with a checked handoff.',
    parameters: params,
    dispatch: (a) => ({
      target: `${a.file}:1`,
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [a.file],
      evidenceDelta: a.evidence,
    }),
    worker,
    projectRoot: p.dir,
    ...extra,
  });
}

function only(results: readonly CheckedToolResult[]): CheckedToolResult {
  expect(results).toHaveLength(1);
  const r = results[0] as CheckedToolResult;
  expect(validateHandoff(r.handoff).ok).toBe(true);
  return r;
}

describe('delegateTool', () => {
  it('an honest worker: accepted, journaled, and the model reads the checked handoff', async () => {
    const store = memoryStore();
    const run = await leadCalls(editTool(solve, { store }), { file: 'src/greeting.ts', evidence: [] });
    const r = only(run.results);
    expect(r).toMatchObject({ outcome: 'accepted', violations: [], cite: '20261130T100000Z-0a1b2c3d#1' });
    expect(r.handoff).toMatchObject({
      status: 'solved',
      target: 'src/greeting.ts:1',
      files_changed: [p.owned],
    });
    expect(await readFile(p.owned, 'utf8')).toBe(SOLVED);
    expect(JSON.parse(run.seen)).toEqual(JSON.parse(JSON.stringify(r)));
    expect(run.final).toBe(run.seen);
    expect(isCheckedToolResult(r)).toBe(true);
    expect(isCheckedToolResult(JSON.parse(run.seen))).toBe(false); // a copy is not an issued result
  });

  it('a worker that writes outside its file is refused and its edit put back', async () => {
    const run = await leadCalls(
      editTool(async (d) => {
        await writeFile(join(p.dir, 'README.md'), 'rewritten\n');
        return solve(d);
      }),
      { file: 'src/greeting.ts', evidence: [] },
    );
    const r = only(run.results);
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['outside_owned']);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
    expect(JSON.parse(run.seen).outcome).toBe('refused');
  });

  it('a handoff for another task is refused (task_echo)', async () => {
    const r = only(
      (
        await leadCalls(
          editTool(async (d) => ({ ...handoffFor(d), target: 'src/other.ts:1' })),
          { file: 'src/greeting.ts', evidence: [] },
        )
      ).results,
    );
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['task_echo']);
  });

  it('a worker that claims a change it did not report is refused (baseline)', async () => {
    const r = only(
      (
        await leadCalls(
          editTool(async (d) => {
            await writeFile(d.owned_files[0] as string, SOLVED);
            return handoffFor(d); // files_changed: [], the old baseline
          }),
          { file: 'src/greeting.ts', evidence: [] },
        )
      ).results,
    );
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['baseline']);
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });

  it('a failed worker is an operational error; the rerun guard holds the same call until there is evidence', async () => {
    let calls = 0;
    const tool = editTool(async (d) => {
      calls += 1;
      if (calls === 1) throw new Error('the model provider answered 503');
      return solve(d);
    });
    const first = only((await leadCalls(tool, { file: 'src/greeting.ts', evidence: [] })).results);
    expect(first).toMatchObject({ outcome: 'failed', violations: [] });
    expect(first.handoff).toMatchObject({ stop_reason: 'operational-error' });
    expect(first.handoff.stop_detail).toContain('the model provider answered 503');

    const blind = only((await leadCalls(tool, { file: 'src/greeting.ts', evidence: [] })).results);
    expect(blind.outcome).toBe('refused');
    expect(blind.violations.map((v) => v.check)).toEqual(['rerun_guard']);
    expect(blind.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
    expect(calls).toBe(1);

    const informed = only(
      (await leadCalls(tool, { file: 'src/greeting.ts', evidence: ['the provider is back up'] })).results,
    );
    expect(informed.outcome).toBe('accepted');
    expect(calls).toBe(2);
  });

  it('two calls in one model turn take turns: neither sees the other as an outside write', async () => {
    await writeFile(join(p.dir, 'src', 'farewell.ts'), GREETING);
    const tool = editTool(async (d) => {
      await new Promise((r) => setTimeout(r, 20));
      return solve(d);
    });
    const model = scriptedModel([
      () => [
        callTool('edit_file', { file: 'src/greeting.ts', evidence: [] }, 'a'),
        callTool('edit_file', { file: 'src/farewell.ts', evidence: [] }, 'b'),
      ],
      () => [say('both done')],
    ]);
    const lead = new Agent({ name: 'lead', instructions: 'x', tools: [tool], model });
    const run = await new Runner({ tracingDisabled: true }).run(lead, 'go');
    const results = checkedResults(run.newItems);
    expect(results.map((r) => [r.outcome, r.handoff.target])).toEqual([
      ['accepted', 'src/greeting.ts:1'],
      ['accepted', 'src/farewell.ts:1'],
    ]);
    expect(await readFile(join(p.dir, 'src', 'farewell.ts'), 'utf8')).toBe(SOLVED);
  });

  it('a worker past timeoutMs fails without hanging the run', async () => {
    const tool = editTool(() => new Promise(() => {}), { timeoutMs: 50 });
    const r = only((await leadCalls(tool, { file: 'src/greeting.ts', evidence: [] })).results);
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toContain('did not return within 50 ms');
  });
});

describe('delegateTool: hostile arguments are refused before anything runs', () => {
  let ran = false;
  const watched = (d: Dispatch) => {
    ran = true;
    return solve(d);
  };
  beforeEach(() => {
    ran = false;
  });

  async function refusedCall(args: unknown, extra: Partial<DelegateToolOptions<typeof params>> = {}) {
    const before = await readFile(join(p.dir, 'README.md'), 'utf8');
    const r = only((await leadCalls(editTool(watched, extra), args)).results);
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['arguments']);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error', files_changed: [] });
    expect(r.cite).toBeNull();
    expect(ran).toBe(false);
    expect(await readFile(join(p.dir, 'README.md'), 'utf8')).toBe(before);
    return r;
  }

  it('a path that climbs out of the project', async () => {
    const r = await refusedCall({ file: '../../etc/passwd', evidence: [] });
    expect(r.violations[0]?.detail).toBe(`owned file "../../etc/passwd" is outside ${p.dir}`);
    expect(r.handoff.target).toBe('../../etc/passwd:1'); // the task is echoed; nothing was dispatched
  });

  it('an absolute path elsewhere', async () => {
    const r = await refusedCall({ file: '/etc/passwd', evidence: [] });
    expect(r.violations[0]?.detail).toContain('is outside');
  });

  it('a folder that is a symbolic link out of the project', async () => {
    await symlink('/tmp', join(p.dir, 'src', 'out'));
    const r = await refusedCall({ file: 'src/out/x.ts', evidence: [] });
    expect(r.violations[0]?.detail).toBe(
      'owned file "src/out/x.ts" goes through a symbolic link ("src/out")',
    );
  });

  it('a file that is a symbolic link', async () => {
    await symlink(join(p.dir, 'README.md'), join(p.dir, 'src', 'alias.ts'));
    const r = await refusedCall({ file: 'src/alias.ts', evidence: [] });
    expect(r.violations[0]?.detail).toContain('goes through a symbolic link');
  });

  it("git's control files and the run store", async () => {
    expect((await refusedCall({ file: '.git/config', evidence: [] })).violations[0]?.detail).toContain(
      "git's control folder",
    );
    await mkdir(join(p.dir, '.handoff'), { recursive: true });
    await writeFile(join(p.dir, '.handoff', 'x.json'), '{}');
    const r = await refusedCall({ file: '.handoff/x.json', evidence: [] }, { store: fsStore(p.dir) });
    expect(r.violations[0]?.detail).toContain('run store');
  });

  it('a file the host does not allow', async () => {
    const r = await refusedCall(
      { file: 'README.md', evidence: [] },
      { allow: (rel: string) => rel.startsWith('src/') },
    );
    expect(r.violations[0]?.detail).toBe('owned file "README.md" is not one this tool allows');
  });

  it('arguments that do not fit the schema are a refused call', async () => {
    const r = await refusedCall({ file: 'src/greeting.ts' });
    expect(r.violations[0]?.detail).toMatch(/^the arguments are not valid for this tool: evidence: /);
    expect(r.handoff.target).toBeNull();
    await refusedCall({ file: 7, evidence: [] });
  });

  it('arguments that are not JSON are answered by the SDK itself, and nothing runs', async () => {
    const run = await leadCalls(editTool(watched), '{"file": "src/greeting.ts", "evi');
    expect(run.results).toEqual([]);
    expect(run.seen).toMatch(/^An error occurred while parsing tool arguments/);
    expect(ran).toBe(false);
  });

  it('a dispatch mapping that throws, or makes no valid task', async () => {
    const throwing = {
      dispatch: () => {
        throw new Error('no such file in my map');
      },
    };
    const r = await refusedCall({ file: 'x', evidence: [] }, throwing);
    expect(r.violations[0]?.detail).toBe('the arguments do not make a task: no such file in my map');
    const bad = {
      dispatch: () => ({
        target: '',
        scope: 'file' as const,
        mode: 'autoprove' as const,
        ownedFiles: ['src/greeting.ts'],
      }),
    };
    await refusedCall({ file: 'x', evidence: [] }, bad);
  });
});

describe('delegateTool options', () => {
  it('refuses a tool it cannot build', () => {
    const base = {
      name: 'x',
      description: 'x',
      parameters: params,
      dispatch: () => ({
        target: 't',
        scope: 'file' as const,
        mode: 'autoprove' as const,
        ownedFiles: ['a'],
      }),
    };
    expect(() => delegateTool({ ...base, worker: 42 as never })).toThrow(/worker/);
    expect(() => delegateTool({ ...base, name: ' ', worker: solve })).toThrow(/name/);
    expect(() => delegateTool({ ...base, worker: solve, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
