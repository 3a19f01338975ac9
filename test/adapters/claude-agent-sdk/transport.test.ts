/**
 * claudeTransport as the cycle runtime's worker: through createDelegatingWorker (the WorkerPort)
 * a subagent's handoff is checked like a subprocess worker's — accepted with its custody, a
 * custody violation for an outside write, a protocol error for prose, an operational error for a
 * run without an answer; and a whole runProject cycle with claudeWorker as its in-process worker
 * solves the target and commits a checkpoint.
 */
import { execFileSync } from 'node:child_process';
import { appendFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeTransport, claudeWorker } from '../../../src/adapters/claude-agent-sdk/index.js';
import { advanceBaseline } from '../../../src/baseline/index.js';
import type { Handoff } from '../../../src/contract/index.js';
import type { WorkerInput } from '../../../src/cycle/types.js';
import { createDelegatingWorker, runProject } from '../../../src/runtime/index.js';
import { roleWorkerInput } from '../../helpers/role-project.js';
import { createProject, edit, LEAN } from './project.js';
import { errorResult, initMessage, type ScriptStep, scriptedQuery, successResult } from './sdk-script.js';

let dir: string;
let lean: string;
beforeEach(async () => {
  dir = await createProject('claude-transport-');
  lean = join(dir, 'A.lean');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The first autoprove cycle's worker input for A.lean:2, its baseline recorded now. */
const input = (): Promise<WorkerInput> => roleWorkerInput(dir, { file: 'A.lean', line: 2, goal: 'sorry' });

/** A subagent that proves the target (replaces `sorry`) and answers with its handoff. */
function proving(extra: ScriptStep[] = []): ScriptStep[] {
  let template: Handoff | undefined;
  return [
    initMessage(dir),
    async (_options, prompt) => {
      // the default prompt ends with the answer template: the dispatch's handoffFor record
      template = JSON.parse(prompt.slice(prompt.indexOf('\n{') + 1)) as Handoff;
      await edit(lean, 'sorry', 'rfl');
      return undefined;
    },
    ...extra,
    async () => {
      const h = template as Handoff;
      const file_baseline = await advanceBaseline(
        h.file_baseline ?? { schema: 'file-baseline/v1', files: [] },
        [lean],
      );
      return successResult(JSON.stringify({ ...h, files_changed: [lean], file_baseline }));
    },
  ];
}

function port(steps: ScriptStep[]) {
  const s = scriptedQuery(steps);
  const worker = createDelegatingWorker({
    projectRoot: dir,
    scratch: dir,
    transport: claudeTransport({ query: s.query, options: { cwd: dir } }),
  });
  return { s, worker };
}

describe('claudeTransport behind createDelegatingWorker', () => {
  it('an honest subagent: the handoff is accepted with its changed file', async () => {
    const { s, worker } = port(proving());
    const out = await worker.work(await input(), new AbortController().signal);
    expect(out).toMatchObject({ kind: 'handoff', accepted: [lean], progressLines: 0 });
    expect(await readFile(lean, 'utf8')).toBe(LEAN.replace('sorry', 'rfl'));
    expect(s.calls[0]?.options?.cwd).toBe(dir);
    expect(s.calls[0]?.prompt).toContain('Task: work on A.lean:2 (scope sorry, mode autoprove).');
    expect(s.calls[0]?.prompt).toContain('Goal: sorry');
  });

  it('an outside write is a custody violation and the proof is put back', async () => {
    const { worker } = port(
      proving([
        async () => {
          await appendFile(join(dir, 'README.md'), 'by the agent\n');
          return undefined;
        },
      ]),
    );
    const out = await worker.work(await input(), new AbortController().signal);
    expect(out.kind).toBe('custody-violation');
    expect((out as { detail: string }).detail).toMatch(
      /^the worker wrote outside its owned files: README\.md/,
    );
    expect(await readFile(lean, 'utf8')).toBe(LEAN);
  });

  it('prose is a protocol error; a run without an answer an operational error naming why', async () => {
    const prose = port([successResult('I proved it!')]);
    const p = await prose.worker.work(await input(), new AbortController().signal);
    expect(p.kind).toBe('protocol-error');
    expect((p as { detail: string }).detail).toMatch(/^invalid handoff record: /);
    const failing = port([initMessage(dir), errorResult('error_during_execution', ['tool crashed'])]);
    const f = await failing.worker.work(await input(), new AbortController().signal);
    expect(f).toMatchObject({
      kind: 'operational-error',
      detail: 'the subagent ended with error_during_execution after 5 turn(s): tool crashed',
    });
    const throwing = createDelegatingWorker({
      projectRoot: dir,
      scratch: dir,
      transport: claudeTransport({
        query: scriptedQuery([]).query,
        prompt: () => {
          throw new Error('no template');
        },
      }),
    });
    const t = await throwing.work(await input(), new AbortController().signal);
    expect(t).toMatchObject({ kind: 'operational-error', detail: 'the prompt function threw: no template' });
  });
});

describe('a whole cycle', () => {
  it('runProject with claudeWorker as its in-process worker solves the target and commits a checkpoint', async () => {
    const s = scriptedQuery(proving());
    const worker = claudeWorker({ query: s.query, options: { cwd: dir } });
    let t = 0;
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: async (d, signal) => ({ handoff: await worker(d, { signal }) }) },
      runId: 'run-claude-1',
      clock: () => (t += 1000),
    });
    expect(r.handoff.status).toBe('solved');
    expect(r.context.checkpoints).toHaveLength(1);
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd: dir, encoding: 'utf8' })).toMatch(
      /^checkpoint: cycle 1: A\.lean:2 solved/,
    );
  });
});
