/**
 * The other two framework adapters go through `delegate`, so their runs are delegation-machine
 * runs too: an openai-agents `delegateTool` call (the SDK's real Runner on a scripted model) and a
 * claude-agent-sdk `claudeWorker` (a scripted SDK query) each journal a run on the project's fs
 * store that `handoff audit` passes (exit 0) and `handoff inspect` draws over the delegation
 * machine. Offline; the CLI runs in process. (The LangGraph node: test/audit/audit-delegate.test.ts.)
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claudeWorker } from '../../src/adapters/claude-agent-sdk/index.js';
import { delegateTool } from '../../src/adapters/openai-agents/index.js';
import { createDispatch, delegate } from '../../src/delegate/index.js';
import { fsStore, makeProject, type Project, RUN_ID, solve } from '../delegate/fixtures.js';
import { cliMain } from '../helpers/cli-main.js';
import { edit } from './claude-agent-sdk/project.js';
import {
  initMessage,
  scriptedQuery,
  successResult,
  toolResult,
  toolUse,
} from './claude-agent-sdk/sdk-script.js';
import { leadCalls } from './openai-agents/helpers.js';

let p: Project;
beforeEach(async () => {
  p = await makeProject();
});
afterEach(async () => {
  await p.cleanup();
});

/** audit and inspect of the run: exit codes and the drawn path. */
async function auditAndDraw(): Promise<{ audit: number; ok: boolean; states: string[]; text: string }> {
  const root = join(p.dir, '.handoff');
  const a = await cliMain(['audit', RUN_ID, '--root', root, '--json'], p.dir);
  const i = await cliMain(['inspect', RUN_ID, '--root', root, '--format', 'json'], p.dir);
  expect(i.code).toBe(0);
  const t = await cliMain(['inspect', RUN_ID, '--root', root], p.dir);
  const steps = (JSON.parse(i.out) as { path: { steps: { state: string }[] } }).path.steps;
  return {
    audit: a.code,
    ok: (JSON.parse(a.out) as { ok: boolean }).ok,
    states: steps.map((s) => s.state),
    text: t.out,
  };
}

const ACCEPTED = ['dispatch', 'prepare', 'work', 'check', 'journal.accepted'];

describe('adapter runs audit over the delegation machine', () => {
  it('openai-agents delegateTool: the tool call journals a run that audits and draws over delegation', async () => {
    const store = fsStore(p.dir);
    try {
      const tool = delegateTool({
        name: 'edit_file',
        description: 'Edit one file; answers with a checked handoff.',
        parameters: z.object({ file: z.string() }),
        dispatch: (a) => ({ target: `${a.file}:1`, scope: 'file', mode: 'autoprove', ownedFiles: [a.file] }),
        worker: solve,
        projectRoot: p.dir,
        store,
      });
      const run = await leadCalls(tool, { file: 'src/greeting.ts' });
      expect(run.results[0]).toMatchObject({ outcome: 'accepted', cite: `${RUN_ID}#1` });
    } finally {
      store.close();
    }
    const r = await auditAndDraw();
    expect(r).toMatchObject({ audit: 0, ok: true, states: ACCEPTED });
    expect(r.text).toContain('path over the delegation machine');
  });

  it('claude-agent-sdk claudeWorker under delegate: a refused subagent (prose answer) audits and draws over delegation', async () => {
    const d = await createDispatch({
      target: 'src/greeting.ts:1',
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [p.owned],
    });
    const s = scriptedQuery([
      initMessage(p.dir),
      toolUse('Edit', { file_path: p.owned, old_string: 'TODO(agent)', new_string: 'hello' }),
      async () => {
        await edit(p.owned, 'TODO(agent)', 'hello');
        return undefined;
      },
      toolResult('The file has been updated.'),
      async () => successResult('Done! I changed the greeting.'),
    ]);
    const store = fsStore(p.dir);
    try {
      const r = await delegate(d, claudeWorker({ query: s.query }), { store, timeoutMs: 10_000 });
      expect(r.outcome).toBe('refused');
    } finally {
      store.close();
    }
    const r = await auditAndDraw();
    expect(r).toMatchObject({ audit: 0, ok: true });
    expect(r.states).toEqual(['dispatch', 'prepare', 'work', 'check', 'journal.refused']);
  });
});
