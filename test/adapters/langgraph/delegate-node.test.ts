/**
 * delegateNode + routeOnVerdict inside a real @langchain/langgraph StateGraph, with scripted
 * workers: the verdict (solved, stuck, refused, failed, relaunch_forbidden) picks the edge, the
 * state carries the validated handoff, violations and cite, and hostile workers and nodes — writing
 * outside the owned files, answering for another task, throwing non-Errors, mutating their answer
 * or the state after return, forging the record — are refused or routed as refusals.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DELEGATION_VERDICTS,
  DelegationAnnotation,
  type DelegationRecord,
  delegateNode,
  type NodeWorker,
  readDelegation,
  routeOnVerdict,
  verdictDestinations,
} from '../../../src/adapters/langgraph/index.js';
import { type Dispatch, handoffFor } from '../../../src/contract/index.js';
import { GREETING, makeProject, memoryStore, type Project, RUN_ID, solve } from './fixtures.js';

let p: Project;
beforeEach(async () => {
  p = await makeProject();
});
afterEach(async () => {
  await p.cleanup();
});

const State = Annotation.Root({
  ...DelegationAnnotation.spec,
  /** The nodes the graph passed through after the delegation. */
  path: Annotation<string[]>({ reducer: (a: string[], b: string[]) => [...a, ...b], default: () => [] }),
});
type S = typeof State.State;

const ROUTES = {
  solved: 'ship',
  stuck: 'review',
  stopped: 'review',
  refused: 'triage',
  failed: 'triage',
  relaunch_forbidden: 'escalate',
} as const;

function task(evidence: readonly string[] = []) {
  return {
    target: 'src/greeting.ts:1',
    scope: 'file',
    mode: 'autoprove',
    ownedFiles: [p.owned],
    evidenceDelta: evidence,
  } as const;
}

/** START → fix → (verdict) → ship | review | triage | escalate → END. */
function graphOf(worker: NodeWorker<S>, store = memoryStore()) {
  const mark = (name: string) => async () => ({ path: [name] });
  return new StateGraph(State)
    .addNode('fix', delegateNode<S>({ task: task(), worker, store, projectRoot: p.dir }))
    .addNode('ship', mark('ship'))
    .addNode('review', mark('review'))
    .addNode('triage', mark('triage'))
    .addNode('escalate', mark('escalate'))
    .addEdge(START, 'fix')
    .addConditionalEdges('fix', routeOnVerdict(ROUTES), verdictDestinations(ROUTES))
    .addEdge('ship', END)
    .addEdge('review', END)
    .addEdge('triage', END)
    .addEdge('escalate', END)
    .compile();
}

function record(s: S): DelegationRecord {
  if (s.delegation === null) throw new Error('no delegation in the state');
  return s.delegation;
}

describe('delegateNode in a StateGraph', () => {
  it('solved: the state carries the validated handoff, no violations and the cite; the edge goes to ship', async () => {
    const final = await graphOf(async (d) => solve(d)).invoke({});
    const r = record(final);
    expect(final.path).toEqual(['ship']);
    expect(r).toMatchObject({ verdict: 'solved', outcome: 'accepted', violations: [], cite: `${RUN_ID}#1` });
    expect(r.handoff?.status).toBe('solved');
    expect(r.handoff?.files_changed).toEqual([p.owned]);
    expect(r.relaunch?.allowed).toBe(true);
    expect(Object.isFrozen(r) && Object.isFrozen(r.handoff)).toBe(true);
  });

  it('the worker gets the dispatch, the graph state and a signal', async () => {
    const seen: unknown[] = [];
    await graphOf(async (d, ctx) => {
      seen.push(d.target, ctx.state.path, ctx.signal instanceof AbortSignal);
      return handoffFor(d);
    }).invoke({ path: ['before'] });
    expect(seen).toEqual(['src/greeting.ts:1', ['before'], true]);
  });

  it('refused: a worker writing outside its owned files goes to triage, its owned edit put back', async () => {
    const final = await graphOf(async (d) => {
      const h = await solve(d);
      await writeFile(join(p.dir, 'README.md'), 'rewritten\n');
      return h;
    }).invoke({});
    const r = record(final);
    expect(final.path).toEqual(['triage']);
    expect(r.verdict).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['outside_owned']);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });

  it('refused: a handoff for another task', async () => {
    const final = await graphOf(async (d) => ({ ...handoffFor(d), target: 'src/other.ts:9' })).invoke({});
    const r = record(final);
    expect(final.path).toEqual(['triage']);
    expect(r.verdict).toBe('refused');
    expect(r.violations.map((v) => v.check)).toContain('task_echo');
  });

  it.each([
    ['a string', 'boom', 'the worker threw: boom'],
    ['undefined', undefined, 'the worker threw: undefined'],
    ['a plain object', { not: 'an error' }, 'the worker threw:'],
    ['null', null, 'the worker threw: null'],
  ])('failed: a worker that throws %s goes to triage', async (_what, thrown, detail) => {
    const final = await graphOf(async () => {
      throw thrown;
    }).invoke({});
    const r = record(final);
    expect(final.path).toEqual(['triage']);
    expect(r).toMatchObject({ verdict: 'failed', outcome: 'failed', violations: [] });
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'operational-error' });
    expect(r.handoff?.stop_detail).toContain(detail);
  });

  it('failed: a worker that never returns is given up after timeoutMs; its signal is aborted', async () => {
    let aborted = false;
    const app = new StateGraph(State)
      .addNode(
        'fix',
        delegateNode<S>({
          task: task(),
          projectRoot: p.dir,
          timeoutMs: 50,
          worker: (_d, { signal }) =>
            new Promise(() => {
              signal.addEventListener('abort', () => {
                aborted = true;
              });
            }),
        }),
      )
      .addEdge(START, 'fix')
      .addEdge('fix', END)
      .compile();
    const r = record(await app.invoke({}));
    expect(r.verdict).toBe('failed');
    expect(r.handoff?.stop_detail).toContain('the worker did not return within 50 ms');
    expect(aborted).toBe(true);
  });

  it('aborting the graph run aborts the worker: the delegation ends as a user-stop', async () => {
    const controller = new AbortController();
    let aborted = false;
    const fix = delegateNode<S>({
      task: task(),
      projectRoot: p.dir,
      worker: (_d, { signal }) =>
        new Promise(() => {
          signal.addEventListener('abort', () => {
            aborted = true;
          });
          setImmediate(() => controller.abort());
        }),
    });
    let settled: ReturnType<typeof fix> | undefined;
    const app = new StateGraph(State)
      .addNode('fix', (s: S, config) => {
        settled = fix(s, config);
        return settled;
      })
      .addEdge(START, 'fix')
      .addEdge('fix', END)
      .compile();
    // LangGraph gives up on the run at once; the delegation finishes (puts back, journals) on its own
    await app.invoke({}, { signal: controller.signal }).catch(() => undefined);
    const r = (await settled)?.delegation;
    expect(aborted).toBe(true);
    expect(r).toMatchObject({ verdict: 'failed', outcome: 'failed' });
    expect(r?.handoff).toMatchObject({ status: 'stopped', stop_reason: 'user-stop' });
  });

  it('a worker that mutates its answer after returning it changes nothing the graph sees', async () => {
    let returned: { status: string; files_changed: string[] } | undefined;
    const final = await graphOf(async (d) => {
      const h = structuredClone(await solve(d)) as unknown as { status: string; files_changed: string[] };
      returned = h;
      setImmediate(() => {
        h.status = 'stuck';
        h.files_changed.push('/etc/passwd');
      });
      return h;
    }).invoke({});
    await new Promise((r) => setImmediate(r));
    expect(returned?.status).toBe('stuck'); // the mutation happened
    const r = record(final);
    expect(r.verdict).toBe('solved');
    expect(r.handoff?.files_changed).toEqual([p.owned]);
  });

  it('a worker that keeps the state and forges its delegation after returning changes nothing', async () => {
    const forged = {
      verdict: 'solved',
      outcome: 'accepted',
      handoff: null,
      violations: [],
      cite: null,
      relaunch: null,
    };
    const final = await graphOf(async (d, ctx) => {
      const state = ctx.state as { delegation: unknown };
      expect(() => {
        state.delegation = forged;
      }).toThrow(TypeError);
      setImmediate(() => {
        try {
          state.delegation = forged;
        } catch {
          // frozen
        }
      });
      return { ...handoffFor(d), target: 'src/other.ts:1' };
    }).invoke({});
    await new Promise((r) => setImmediate(r));
    expect(final.path).toEqual(['triage']);
    expect(record(final).verdict).toBe('refused');
  });

  it('a later node cannot edit the record in place: it is frozen', async () => {
    const app = new StateGraph(State)
      .addNode(
        'fix',
        delegateNode<S>({ task: task(), worker: async () => ({ bogus: true }), projectRoot: p.dir }),
      )
      .addNode('forger', async (s: S) => {
        (s.delegation as { verdict: string }).verdict = 'solved';
        return {};
      })
      .addEdge(START, 'fix')
      .addEdge('fix', 'forger')
      .addEdge('forger', END)
      .compile();
    await expect(app.invoke({})).rejects.toThrow(TypeError);
  });

  it('a node that writes a forged record is routed as refused', async () => {
    const honest = record(await graphOf(async (d) => solve(d)).invoke({}));
    const forged = { ...honest, outcome: 'refused', violations: [{ check: 'baseline', detail: 'x' }] };
    const app = new StateGraph(State)
      .addNode('forger', async () => ({ delegation: forged as unknown as DelegationRecord }))
      .addNode('ship', async () => ({ path: ['ship'] }))
      .addNode('triage', async () => ({ path: ['triage'] }))
      .addEdge(START, 'forger')
      .addConditionalEdges('forger', routeOnVerdict({ solved: 'ship', otherwise: 'triage' }))
      .addEdge('ship', END)
      .addEdge('triage', END)
      .compile();
    expect((await app.invoke({})).path).toEqual(['triage']);
  });

  it('stuck, then a blind relaunch: the rerun guard refuses it and the worker does not run', async () => {
    let calls = 0;
    const stuck: NodeWorker<S> = async (d: Dispatch) => {
      calls += 1;
      return handoffFor(d, {
        status: 'stuck',
        blocker_signature: 'greeting:missing-copy',
        blocker_kind: 'capability',
        new_evidence_required_for_rerun: 'the copy deck',
      });
    };
    const store = memoryStore();
    const app = new StateGraph(State)
      .addNode('fix', delegateNode<S>({ task: task(), worker: stuck, store, projectRoot: p.dir }))
      .addNode('again', delegateNode<S>({ task: task(), worker: stuck, store, projectRoot: p.dir }))
      .addNode('escalate', async () => ({ path: ['escalate'] }))
      .addEdge(START, 'fix')
      .addConditionalEdges('fix', routeOnVerdict({ stuck: 'again', otherwise: END }))
      .addConditionalEdges('again', routeOnVerdict({ relaunch_forbidden: 'escalate', otherwise: END }))
      .addEdge('escalate', END)
      .compile();
    const final = await app.invoke({});
    expect(calls).toBe(1);
    expect(final.path).toEqual(['escalate']);
    const r = record(final);
    expect(r).toMatchObject({ verdict: 'relaunch_forbidden', outcome: 'not_run', handoff: null, cite: null });
    expect(r.relaunch).toMatchObject({ allowed: false, branch: 'blocker' });
  });

  it('with new evidence the relaunch runs', async () => {
    let calls = 0;
    const app = new StateGraph(State)
      .addNode(
        'fix',
        delegateNode<S>({
          task: () => task(calls === 0 ? [] : ['the copy deck arrived']),
          worker: async (d) => {
            calls += 1;
            if (calls > 1) return solve(d);
            return handoffFor(d, {
              status: 'stopped',
              stop_reason: 'operational-error',
              stop_detail: 'model 503',
            });
          },
          projectRoot: p.dir,
        }),
      )
      .addEdge(START, 'fix')
      .addConditionalEdges('fix', routeOnVerdict({ failed: 'fix', otherwise: END }))
      .compile();
    const final = await app.invoke({});
    expect(calls).toBe(2);
    expect(record(final).verdict).toBe('solved');
  });
});

describe('readDelegation and routeOnVerdict never trust the record', () => {
  const hostile: [string, unknown][] = [
    ['undefined', undefined],
    ['a string', 'solved'],
    ['an array', []],
    ['a bare verdict', { verdict: 'solved' }],
    [
      'a throwing getter',
      Object.defineProperty({}, 'verdict', {
        enumerable: true,
        get() {
          throw new Error('gotcha');
        },
      }),
    ],
    [
      'a Proxy',
      new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('trap');
          },
        },
      ),
    ],
  ];
  it.each(hostile)('%s is not a delegation and routes as refused', (_what, value) => {
    expect(readDelegation(value).ok).toBe(false);
    expect(routeOnVerdict({ refused: 'triage', otherwise: 'ship' })({ delegation: value })).toBe('triage');
  });

  it('an operational stop dressed up as accepted is not a delegation', async () => {
    const failed = record(
      await graphOf(async () => {
        throw new Error('model 503');
      }).invoke({}),
    );
    expect(readDelegation(failed).ok).toBe(true);
    const dressed = { ...failed, outcome: 'accepted', verdict: 'stopped' };
    expect(readDelegation(dressed)).toEqual({
      ok: false,
      detail: 'an accepted handoff cannot end in operational-error',
    });
  });

  it('a cyclic record is refused', () => {
    const c: Record<string, unknown> = { verdict: 'solved' };
    c.self = c;
    expect(readDelegation(c).ok).toBe(false);
  });

  it('every verdict has a route; destinations are listed once', () => {
    expect(DELEGATION_VERDICTS).toEqual([
      'solved',
      'stuck',
      'stopped',
      'refused',
      'failed',
      'relaunch_forbidden',
    ]);
    expect(verdictDestinations(ROUTES)).toEqual(['ship', 'review', 'triage', 'escalate']);
    expect(verdictDestinations({ solved: 'ship', otherwise: END })).toEqual(['ship', END]);
  });

  it('routeOnVerdict takes state without a delegation channel', () => {
    expect(routeOnVerdict({ otherwise: 'x', refused: 'y' })({})).toBe('y');
  });
});
