/**
 * A `delegate` run on the project's fs store is a run over the delegation machine: its handoff
 * write carries the machine's transitions, so `handoff audit` exits 0 on it, `handoff inspect`
 * draws it over the delegation machine (not the cycle), and an edited trace is flagged — for an
 * accepted run, a refused run, and a LangGraph `delegateNode` run (offline). The CLI runs in
 * process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { END, START, StateGraph } from '@langchain/langgraph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DelegationAnnotation, delegateNode } from '../../src/adapters/langgraph/index.js';
import { canonicalJsonUtf8 } from '../../src/canonical/index.js';
import type { Dispatch } from '../../src/contract/index.js';
import { createDispatch, delegate } from '../../src/delegate/index.js';
import { fsStore, makeProject, type Project, RUN_ID, solve } from '../delegate/fixtures.js';
import { cliMain } from '../helpers/cli-main.js';

let p: Project;
let dispatch: Dispatch;
let root: string;
beforeEach(async () => {
  p = await makeProject();
  root = join(p.dir, '.handoff');
  dispatch = await createDispatch({
    target: 'src/greeting.ts:1',
    scope: 'file',
    mode: 'autoprove',
    ownedFiles: [p.owned],
  });
});
afterEach(async () => {
  await p.cleanup();
});

interface InspectJson {
  readonly path: {
    readonly steps: readonly { state: string; source: string; cite: string }[];
    readonly limits: readonly string[];
  };
  readonly overlay: unknown;
}

/** `inspect --format json` of the run: the states of its path, and the machine drawn. */
async function inspected(runId: string) {
  const r = await cliMain(['inspect', runId, '--root', root, '--format', 'json'], p.dir);
  expect(r.code).toBe(0);
  const report = JSON.parse(r.out) as InspectJson;
  const text = await cliMain(['inspect', runId, '--root', root], p.dir);
  return { report, states: report.path.steps.map((s) => s.state), text: text.out };
}

async function audited(runId: string) {
  const r = await cliMain(['audit', runId, '--root', root, '--json'], p.dir);
  return {
    code: r.code,
    report: JSON.parse(r.out) as {
      ok: boolean;
      steps: number;
      findings: { code: string; cite: string; index: number }[];
    },
  };
}

/** Rewrites the run's one batch record with its step `index` sent elsewhere. */
async function editTrace(runId: string, index: number, to: string): Promise<void> {
  const file = join(root, 'runs', runId, 'batches.jsonl');
  const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  const rec = JSON.parse(lines[0] as string) as { trace: { to: string }[] };
  (rec.trace[index] as { to: string }).to = to;
  await writeFile(file, `${canonicalJsonUtf8(rec)}\n`);
}

const ACCEPTED_PATH = ['dispatch', 'prepare', 'work', 'check', 'journal.accepted'];

describe('a delegate run is audited and drawn over the delegation machine', () => {
  it('accepted: audit exit 0, inspect draws dispatch → … → journal.accepted over delegation; an edited step is flagged', async () => {
    const store = fsStore(p.dir);
    try {
      const r = await delegate(dispatch, solve, { store });
      expect(r.outcome).toBe('accepted');
      expect(r.cite).toBe(`${RUN_ID}#1`);
    } finally {
      store.close();
    }
    const a = await audited(RUN_ID);
    expect(a.code).toBe(0);
    expect(a.report).toMatchObject({ ok: true, steps: 4, findings: [] });

    const { report, states, text } = await inspected(RUN_ID);
    expect(states).toEqual(ACCEPTED_PATH);
    expect(report.path.steps[0]).toMatchObject({ state: 'dispatch', source: 'manifest' });
    expect(report.path.steps.slice(1).every((s) => s.source === 'trace' && s.cite === `${RUN_ID}#1`)).toBe(
      true,
    );
    expect(report.path.limits.at(-1)).toMatch(/settle after the handoff write .* is not recorded/);
    expect(text).toContain('path over the delegation machine');
    expect(text).not.toContain('fenceViolation');
    expect(JSON.stringify(report.overlay)).toContain('delegation.journal.accepted');

    // the check's verdict edited: check → journal.refused is an edge, but not with acceptedResult
    await editTrace(RUN_ID, 3, 'delegation.journal.refused');
    const edited = await audited(RUN_ID);
    expect(edited.code).toBe(5);
    expect(edited.report.ok).toBe(false);
    expect(edited.report.findings).toEqual([
      expect.objectContaining({ code: 'guard_mismatch', cite: `${RUN_ID}#1`, index: 3 }),
    ]);
    // a skipped state (prepare → check, no work) is no transition of the machine
    await editTrace(RUN_ID, 1, 'delegation.check');
    const skipped = await audited(RUN_ID);
    expect(skipped.code).toBe(5);
    expect(skipped.report.findings.map((f) => f.code)).toContain('no_such_transition');
  });

  it('refused: the same machine, ending at journal.refused; audit exit 0', async () => {
    const store = fsStore(p.dir);
    try {
      const r = await delegate(dispatch, async () => ({ not: 'a handoff' }), { store });
      expect(r.outcome).toBe('refused');
    } finally {
      store.close();
    }
    const a = await audited(RUN_ID);
    expect(a).toMatchObject({ code: 0, report: { ok: true, steps: 4 } });
    const { states, text } = await inspected(RUN_ID);
    expect(states).toEqual(['dispatch', 'prepare', 'work', 'check', 'journal.refused']);
    expect(text).toContain('path over the delegation machine');
  });

  it('drift before the worker: refused from prepare, the worker never ran', async () => {
    await writeFile(p.owned, 'changed by someone else\n');
    const store = fsStore(p.dir);
    let ran = false;
    try {
      const r = await delegate(
        dispatch,
        () => {
          ran = true;
        },
        { store },
      );
      expect(r.violations.map((v) => v.check)).toEqual(['external_drift']);
    } finally {
      store.close();
    }
    expect(ran).toBe(false);
    expect((await audited(RUN_ID)).code).toBe(0);
    expect((await inspected(RUN_ID)).states).toEqual(['dispatch', 'prepare', 'journal.refused']);
  });

  it('a LangGraph delegateNode run (offline) journals a run that audits and draws over delegation', async () => {
    const store = fsStore(p.dir);
    try {
      const graph = new StateGraph(DelegationAnnotation)
        .addNode(
          'fix',
          delegateNode({
            task: { target: 'src/greeting.ts:1', scope: 'file', mode: 'autoprove', ownedFiles: [p.owned] },
            worker: solve,
            store,
            projectRoot: p.dir,
          }),
        )
        .addEdge(START, 'fix')
        .addEdge('fix', END)
        .compile();
      const out = await graph.invoke({});
      expect(out.delegation?.verdict).toBe('solved');
      expect(out.delegation?.cite).toBe(`${RUN_ID}#1`);
    } finally {
      store.close();
    }
    expect(await audited(RUN_ID)).toMatchObject({ code: 0, report: { ok: true } });
    expect((await inspected(RUN_ID)).states).toEqual(ACCEPTED_PATH);
  });
});
