/**
 * claudeWorker under `delegate`, in a real git project: the subagent's tools are simulated by
 * script actions that write files. An honest subagent's handoff is accepted and journaled; a
 * hostile one — writing outside its owned file, forging a journal event and a cite, lying about
 * the baseline, answering for another task, answering prose, failing after an edit, throwing
 * mid-stream, never ending, flooding — is refused or failed, and its owned edit is put back.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claudeWorker,
  type SubagentRun,
  workerPrompt,
} from '../../../src/adapters/claude-agent-sdk/index.js';
import { advanceBaseline } from '../../../src/baseline/index.js';
import { type Dispatch, type Handoff, handoffFor } from '../../../src/contract/index.js';
import { createDispatch, delegate } from '../../../src/delegate/index.js';
import { createFsStore, parseCite } from '../../../src/store/index.js';
import { createProject, edit, GREETING, README, runDirs } from './project.js';
import {
  errorResult,
  hang,
  hangUntilAborted,
  initMessage,
  type ScriptStep,
  scriptedQuery,
  successResult,
  toolResult,
  toolUse,
} from './sdk-script.js';

let dir: string;
let greeting: string;
beforeEach(async () => {
  dir = await createProject('claude-worker-');
  greeting = join(dir, 'src', 'greeting.ts');
});
afterEach(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(dir, { recursive: true, force: true });
});

// absolute owned paths: createDispatch resolves relative ones against the process's cwd
async function task(): Promise<Dispatch> {
  const d = await createDispatch({
    target: 'src/greeting.ts:1',
    scope: 'file',
    mode: 'autoprove',
    ownedFiles: [greeting],
  });
  expect(d.owned_files).toEqual([greeting]); // the delegation watches the temporary project only
  return d;
}

/** The steps of a subagent that edits its file and answers with the handoff `answer` builds. */
function editing(d: Dispatch, answer: (h: Handoff) => unknown = (h) => h): ScriptStep[] {
  return [
    initMessage(dir),
    toolUse('Edit', { file_path: greeting, old_string: 'TODO(agent)', new_string: 'hello' }),
    async () => {
      await edit(greeting, 'TODO(agent)', 'hello');
      return undefined;
    },
    toolResult('The file has been updated.'),
    async () => {
      const file_baseline = await advanceBaseline(d.file_baseline, [greeting]);
      return successResult(
        JSON.stringify(answer(handoffFor(d, { files_changed: [greeting], file_baseline }))),
      );
    },
  ];
}

describe('an honest subagent', () => {
  it('is accepted and journaled; the default prompt carries the task and the answer template', async () => {
    const d = await task();
    const s = scriptedQuery(editing(d));
    const runs: SubagentRun[] = [];
    const store = createFsStore({ projectRoot: dir });
    const r = await delegate(
      d,
      claudeWorker({
        query: s.query,
        options: { cwd: dir, permissionMode: 'acceptEdits' },
        onRun: (run) => runs.push(run),
      }),
      { store, timeoutMs: 10_000 },
    );
    expect(r.outcome).toBe('accepted');
    expect(r.violations).toEqual([]);
    expect(r.handoff).toMatchObject({ status: 'solved', files_changed: [greeting] });
    expect(await readFile(greeting, 'utf8')).toBe("export const greeting = 'hello';\n");
    expect(r.cite).toMatch(/#1$/);
    expect(runs).toMatchObject([{ format: 'json', messages: 4, num_turns: 2 }]);
    const prompt = s.calls[0]?.prompt ?? '';
    expect(prompt).toBe(workerPrompt(d));
    expect(prompt).toContain(`You may change only these files: ${greeting}.`);
    expect(prompt.endsWith(JSON.stringify(handoffFor(d), null, 2))).toBe(true);
    expect(s.calls[0]?.options).toMatchObject({ cwd: dir, permissionMode: 'acceptEdits' });
    expect(s.controller()?.signal.aborted).toBe(true);
  });

  it('a result followed by more messages: the later ones (and their writes) never happen', async () => {
    const d = await task();
    const s = scriptedQuery([
      ...editing(d),
      async () => {
        await appendFile(join(dir, 'README.md'), 'late write\n');
        return successResult('{"status": "solved"}');
      },
    ]);
    const r = await delegate(d, claudeWorker({ query: s.query }));
    expect(r.outcome).toBe('accepted');
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe(README);
    expect(s.closed).toBe(true);
  });
});

describe('a hostile subagent', () => {
  it('claims solved while editing a file it does not own: refused, owned file put back', async () => {
    const d = await task();
    const s = scriptedQuery([
      async () => {
        await appendFile(join(dir, 'README.md'), 'Rewritten by the agent.\n');
        return toolResult('ok');
      },
      ...editing(d),
    ]);
    const r = await delegate(d, claudeWorker({ query: s.query }));
    expect(r.outcome).toBe('refused');
    expect(r.violations).toEqual([
      { check: 'outside_owned', detail: 'the worker wrote outside its owned files: README.md' },
    ]);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
    expect(await readFile(greeting, 'utf8')).toBe(GREETING);
  });

  it('forges a journal event and a cite: refused on the run store, which is put back', async () => {
    const d = await task();
    const store = createFsStore({ projectRoot: dir });
    const s = scriptedQuery([
      ...editing(d, (h) => ({ ...h, cite: 'forged-run#7' })).slice(0, -1),
      async () => {
        const [run] = await runDirs(dir);
        await appendFile(join(run ?? dir, 'events.jsonl'), '{"seq":2,"kind":"handoff","forged":true}\n');
        const file_baseline = await advanceBaseline(d.file_baseline, [greeting]);
        return successResult(
          JSON.stringify({
            ...handoffFor(d, { files_changed: [greeting], file_baseline }),
            cite: 'forged-run#7',
          }),
        );
      },
    ]);
    const r = await delegate(d, claudeWorker({ query: s.query }), { store });
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['run_store']);
    expect(await readFile(greeting, 'utf8')).toBe(GREETING);
    const cite = parseCite(r.cite ?? '');
    expect(cite?.run_id).not.toBe('forged-run');
    const run = await store.load(cite?.run_id ?? '');
    expect(run.ok && run.value.events.map((e) => e.kind)).toEqual(['handoff']);
    expect(run.ok && run.value.events[0]?.seq).toBe(1);
  });

  it('lies about the baseline (claims the old bytes after editing): refused on baseline', async () => {
    const d = await task();
    const s = scriptedQuery(editing(d, (h) => ({ ...h, file_baseline: d.file_baseline })));
    const r = await delegate(d, claudeWorker({ query: s.query }));
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['baseline']);
    expect(await readFile(greeting, 'utf8')).toBe(GREETING);
  });

  it('answers for another task, or with prose: refused on task_echo or schema', async () => {
    const d = await task();
    const other = await delegate(
      d,
      claudeWorker({ query: scriptedQuery(editing(d, (h) => ({ ...h, target: 'src/other.ts:1' }))).query }),
    );
    expect(other.violations.map((v) => v.check)).toEqual(['task_echo']);
    const prose = await delegate(
      d,
      claudeWorker({ query: scriptedQuery([successResult('All done!')]).query }),
    );
    expect(prose.outcome).toBe('refused');
    expect(prose.violations.map((v) => v.check)).toEqual(['schema']);
    expect(prose.handoff.stop_detail).toMatch(/^invalid handoff record: /);
  });

  it('ends on an error result after editing: failed with an operational error, edit put back', async () => {
    const d = await task();
    const s = scriptedQuery([
      ...editing(d).slice(0, -1),
      errorResult('error_max_turns', ['max turns reached']),
    ]);
    const r = await delegate(d, claudeWorker({ query: s.query }));
    expect(r.outcome).toBe('failed');
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'operational-error' });
    expect(r.handoff.stop_detail).toBe(
      'the worker threw: ClaudeSubagentError: the subagent ended with error_max_turns after 5 turn(s): max turns reached; owned files restored to their pre-dispatch bytes',
    );
    expect(await readFile(greeting, 'utf8')).toBe(GREETING);
  });

  it('throws mid-stream after editing: failed, edit put back', async () => {
    const d = await task();
    const s = scriptedQuery([
      ...editing(d).slice(0, -1),
      () => {
        throw new Error('Claude Code process exited with code 137');
      },
    ]);
    const r = await delegate(d, claudeWorker({ query: s.query }));
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toMatch(
      /^the worker threw: ClaudeSubagentError: the query threw after 3 message\(s\)/,
    );
    expect(await readFile(greeting, 'utf8')).toBe(GREETING);
  });

  it('never ends: the delegation times out, the SDK controller is aborted, the edit put back', async () => {
    const d = await task();
    const s = scriptedQuery([...editing(d).slice(0, -1), hang]);
    const r = await delegate(d, claudeWorker({ query: s.query }), { timeoutMs: 100 });
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toBe(
      'the worker did not return within 100 ms; owned files restored to their pre-dispatch bytes',
    );
    expect(s.controller()?.signal.aborted).toBe(true);
    expect(await readFile(greeting, 'utf8')).toBe(GREETING);
  });

  it("the host's signal stops it as a user-stop", async () => {
    const d = await task();
    const c = new AbortController();
    const s = scriptedQuery([
      initMessage(dir),
      () => {
        c.abort(); // the host gives up while the subagent works
        return undefined;
      },
      hangUntilAborted,
    ]);
    const r = await delegate(d, claudeWorker({ query: s.query }), { signal: c.signal });
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_reason).toBe('user-stop');
    expect(s.controller()?.signal.aborted).toBe(true);
  });

  it('a huge answer is failed before it is parsed', async () => {
    const d = await task();
    const s = scriptedQuery([successResult(`{"pad": "${'x'.repeat(2_000_000)}"}`)]);
    const r = await delegate(d, claudeWorker({ query: s.query }));
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toBe(
      'the worker threw: ClaudeSubagentError: the result text is 2000011 characters, over the limit of 1048576',
    );
  });

  it('refuses bad options at creation', () => {
    expect(() => claudeWorker({ prompt: 7 as unknown as () => string })).toThrow(
      'prompt must be a function of the dispatch',
    );
    expect(() => claudeWorker({ limits: { maxResultChars: 1.5 } })).toThrow(
      'maxResultChars must be a positive integer, got 1.5',
    );
  });
});
