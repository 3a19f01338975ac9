/**
 * delegate on a real git project: an honest worker's handoff is accepted as it is (function or
 * object with a run method; solved, stuck), the store journals the dispatch and the handoff with
 * a cite, captureBefore + checkHandoff give a host that runs its own worker the same checks, and
 * the delegation's own edges (drift, timeout, abort, a store that refuses, bad options).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, handoffFor, validateHandoff } from '../../src/contract/index.js';
import {
  canRelaunch,
  captureBefore,
  checkHandoff,
  createDispatch,
  delegate,
  operationalErrorHandoff,
} from '../../src/delegate/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { resolveCite } from '../../src/store/index.js';
import {
  expectContained,
  fsStore,
  GREETING,
  makeProject,
  memoryStore,
  type Project,
  RUN_ID,
  SOLVED,
  solve,
} from './fixtures.js';

let p: Project;
let dispatch: Dispatch;
beforeEach(async () => {
  p = await makeProject();
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

describe('an honest worker', () => {
  it('its solved handoff is accepted as it is', async () => {
    const r = await delegate(dispatch, solve);
    expect(r.outcome).toBe('accepted');
    expect(r.violations).toEqual([]);
    expect(r.handoff.status).toBe('solved');
    expect(r.handoff.files_changed).toEqual([p.owned]);
    expect(await readFile(p.owned, 'utf8')).toBe(SOLVED);
    expect(r.cite).toBeUndefined();
    expect(Object.isFrozen(r.handoff)).toBe(true);
  });

  it('an object with a run method is a worker too; it gets a frozen dispatch and a signal', async () => {
    const seen: { frozen?: boolean; signal?: boolean } = {};
    const worker = {
      prefix: 'agent',
      async run(d: Dispatch, ctx: { signal: AbortSignal }) {
        seen.frozen = Object.isFrozen(d) && Object.isFrozen(d.file_baseline.files[0]);
        seen.signal = ctx.signal instanceof AbortSignal && !ctx.signal.aborted;
        expect(this.prefix).toBe('agent');
        return solve(d);
      },
    };
    const r = await delegate(dispatch, worker);
    expect(r.outcome).toBe('accepted');
    expect(seen).toEqual({ frozen: true, signal: true });
  });

  it('a stuck handoff that changed nothing is accepted, and the rerun guard reads it', async () => {
    const r = await delegate(dispatch, (d) =>
      handoffFor(d, {
        status: 'stuck',
        blocker_kind: 'capability',
        blocker_signature: 'src/greeting.ts:1:no translation service',
        new_evidence_required_for_rerun: 'a translation table',
        next_action: 'stop',
      }),
    );
    expect(r.outcome).toBe('accepted');
    expect(r.handoff.blocker_kind).toBe('capability');
    const again = await createDispatch({
      target: 'src/greeting.ts:1',
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [p.owned],
      priorBlocker: r.handoff.blocker_signature,
    });
    expect(canRelaunch(again, r.handoff)).toMatchObject({
      allowed: false,
      required_evidence: 'a translation table',
    });
  });

  it('a worker that stops on an operational error of its own fails; its (reported) writes are put back', async () => {
    const r = await delegate(dispatch, async (d) => {
      await writeFile(p.owned, 'half written');
      const file_baseline = await advanceBaseline(d.file_baseline, [p.owned]);
      return {
        ...operationalErrorHandoff(d, 'the model provider answered 503'),
        files_changed: [p.owned],
        file_baseline,
      };
    });
    await expectContained(r, p.owned);
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toBe(
      'the worker stopped: the model provider answered 503; owned files restored to their pre-dispatch bytes',
    );
  });
});

describe('journaling', () => {
  it('a memory store holds the dispatch as the run manifest and the handoff as event 1', async () => {
    const store = memoryStore();
    const r = await delegate(dispatch, solve, { store });
    expect(r.cite).toBe(`${RUN_ID}#1`);
    expect(r.journal?.outcome).toBe('committed');
    const load = await store.load(RUN_ID);
    expect(load.ok).toBe(true);
    if (!load.ok) return;
    expect(load.value.manifest.dispatch).toEqual(dispatch);
    const cited = resolveCite(load.value, r.cite as string);
    expect(cited).toMatchObject({ ok: true, kind: 'event', event: { kind: 'handoff', payload: r.handoff } });
  });

  it('the project’s fs store journals a refusal too, and its directory is not mistaken for the worker’s', async () => {
    const store = fsStore(p.dir);
    try {
      const r = await delegate(dispatch, async () => ({ not: 'a handoff' }), { store });
      expect(r.outcome).toBe('refused');
      expect(r.violations.map((v) => v.check)).toEqual(['schema']);
      expect(r.cite).toBe(`${RUN_ID}#1`);
      const load = await store.load(RUN_ID);
      expect(load.ok && load.value.effective_handoff?.payload).toEqual(r.handoff);
    } finally {
      store.close();
    }
  });

  it('a store that refuses the dispatch: the worker never runs', async () => {
    const store = memoryStore();
    store.scriptNext({ outcome: 'nothing_written', code: 'busy', detail: 'run is locked' });
    let ran = false;
    const r = await delegate(
      dispatch,
      () => {
        ran = true;
      },
      { store },
    );
    expect(ran).toBe(false);
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toBe(
      'the run store did not record the dispatch: nothing_written (busy): run is locked',
    );
    expect(r.journal?.outcome).toBe('nothing_written');
    expect(r.cite).toBeUndefined();
  });

  it('a store whose handoff append is indeterminate: no cite, the answer says so', async () => {
    const inner = memoryStore();
    // the run is created; the next mutation (the handoff event) reports indeterminate
    const store = Object.assign(Object.create(inner) as typeof inner, {
      async createRun(input: Parameters<typeof inner.createRun>[0]) {
        const c = await inner.createRun(input);
        inner.scriptNext({ outcome: 'indeterminate', step: 'fsync' });
        return c;
      },
    });
    const r = await delegate(dispatch, (d) => handoffFor(d), { store });
    expect(r.outcome).toBe('accepted');
    expect(r.cite).toBeUndefined();
    expect(r.journal).toMatchObject({ outcome: 'indeterminate', step: 'fsync' });
  });
});

describe('write-ahead: an acceptance the journal refuses is no acceptance', () => {
  it('the store refuses the handoff event: failed, naming the refusal, the owned edit put back', async () => {
    const inner = memoryStore();
    const store = Object.assign(Object.create(inner) as typeof inner, {
      async createRun(input: Parameters<typeof inner.createRun>[0]) {
        const c = await inner.createRun(input);
        inner.scriptNext({ outcome: 'nothing_written', code: 'busy', detail: 'run is locked' });
        return c;
      },
    });
    const r = await delegate(dispatch, solve, { store });
    expect(r.outcome).toBe('failed');
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'operational-error' });
    expect(r.handoff.stop_detail).toBe(
      'the run store did not record the handoff: nothing_written (busy): run is locked; owned files restored to their pre-dispatch bytes',
    );
    expect(r.cite).toBeUndefined();
    expect(r.journal?.outcome).toBe('nothing_written');
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });
});

describe('captureBefore + checkHandoff, for a host that runs the worker itself', () => {
  it('the same checks and the same restore as delegate', async () => {
    const before = await captureBefore(dispatch);
    expect(before).toMatchObject({ projectRoot: p.dir, ownedFiles: [p.owned], storeRoot: null });
    const honest = await solve(dispatch);
    const ok = await checkHandoff(dispatch, honest, before);
    expect(ok.outcome).toBe('accepted');

    const d2 = await createDispatch({
      target: 'src/greeting.ts:1',
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [p.owned],
    });
    const before2 = await captureBefore(d2);
    await writeFile(p.owned, 'sneaky');
    const r = await checkHandoff(d2, handoffFor(d2), before2);
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['baseline']);
    expect(await readFile(p.owned, 'utf8')).toBe(SOLVED);
  });

  it('refuses a forged snapshot and a snapshot of another dispatch', async () => {
    const before = await captureBefore(dispatch);
    const forged = { ...before };
    const e1 = await checkHandoff(dispatch, handoffFor(dispatch), forged).catch((e: unknown) => e);
    expect(isHandoffError(e1) && e1.code).toBe('usage');
    const other = await createDispatch({
      target: 'other:1',
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [p.owned],
    });
    const e2 = await checkHandoff(other, handoffFor(other), before).catch((e: unknown) => e);
    expect(isHandoffError(e2) && e2.message).toBe(
      'checkHandoff: the snapshot was taken for another dispatch',
    );
  });

  it('captureBefore refuses a dispatch whose owned file drifted since its baseline', async () => {
    await writeFile(p.owned, 'changed by someone else');
    const e = await captureBefore(dispatch).catch((x: unknown) => x);
    expect(isHandoffError(e) && e.code).toBe('drift');
    expect(isHandoffError(e) && e.message).toMatch(
      /^external drift on owned file\(s\) before dispatch: .*greeting\.ts \(modified\)/,
    );
  });
});

describe('concurrent delegations', () => {
  it('two delegations in one project take turns: both honest workers are accepted', async () => {
    const other = join(p.dir, 'src', 'farewell.ts');
    await writeFile(other, 'farewell\n');
    const second = await createDispatch({
      target: 'src/farewell.ts:1',
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [other],
    });
    const order: string[] = [];
    const slow = async (d: Dispatch) => {
      order.push(`start ${d.target}`);
      await new Promise((r) => setTimeout(r, 30));
      const h = await solve(d);
      order.push(`end ${d.target}`);
      return h;
    };
    const [a, b] = await Promise.all([delegate(dispatch, slow), delegate(second, slow)]);
    expect([a.outcome, b.outcome]).toEqual(['accepted', 'accepted']);
    // one after the other, never interleaved (which goes first is not promised: each takes its
    // turn after its own asynchronous preparation)
    const serial = (first: string, second: string) => [
      `start ${first}`,
      `end ${first}`,
      `start ${second}`,
      `end ${second}`,
    ];
    expect([
      serial('src/greeting.ts:1', 'src/farewell.ts:1'),
      serial('src/farewell.ts:1', 'src/greeting.ts:1'),
    ]).toContainEqual(order);
  });

  it('delegations in two projects run side by side', async () => {
    const q = await makeProject();
    try {
      const there = await createDispatch({
        target: 'src/greeting.ts:1',
        scope: 'file',
        mode: 'autoprove',
        ownedFiles: [q.owned],
      });
      // each worker waits until both are inside: delegations that took turns would never get there
      let entered = 0;
      let bothInside: () => void = () => {};
      const barrier = new Promise<void>((r) => {
        bothInside = r;
      });
      const overlapping = async (d: Dispatch) => {
        entered += 1;
        if (entered === 2) bothInside();
        await barrier;
        return solve(d);
      };
      const rs = await Promise.all([
        delegate(dispatch, overlapping, { timeoutMs: 20_000 }),
        delegate(there, overlapping, { timeoutMs: 20_000 }),
      ]);
      expect(rs.map((r) => r.outcome)).toEqual(['accepted', 'accepted']);
    } finally {
      await q.cleanup();
    }
  });
});

describe('the delegation’s own edges', () => {
  it('external drift before dispatch: refused, the worker never runs, nothing is restored over the drift', async () => {
    await writeFile(p.owned, 'changed by someone else');
    let ran = false;
    const r = await delegate(dispatch, () => {
      ran = true;
    });
    expect(ran).toBe(false);
    expect(r.outcome).toBe('refused');
    expect(r.violations.map((v) => v.check)).toEqual(['external_drift']);
    expect(await readFile(p.owned, 'utf8')).toBe('changed by someone else');
  });

  it('an invalid dispatch is refused with a protocol-error handoff that echoes what it can', async () => {
    const r = await delegate({ ...dispatch, mode: 'rush' } as unknown as Dispatch, solve);
    expect(r.outcome).toBe('refused');
    expect(r.violations[0]?.check).toBe('dispatch');
    expect(r.handoff).toMatchObject({
      stop_reason: 'protocol-error',
      target: 'src/greeting.ts:1',
      mode: null,
    });
    expect(await readFile(p.owned, 'utf8')).toBe(GREETING);
  });

  it('a worker past timeoutMs fails with an operational error; its signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const r = await delegate(
      dispatch,
      (_d, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      },
      { timeoutMs: 30 },
    );
    await expectContained(r, p.owned);
    expect(r.outcome).toBe('failed');
    expect(r.handoff.stop_detail).toBe('the worker did not return within 30 ms');
    expect(signal?.aborted).toBe(true);
  });

  it('the host’s abort ends the attempt as a user stop, which the rerun guard lets relaunch', async () => {
    const host = new AbortController();
    const r = await delegate(
      dispatch,
      async (d) => {
        await writeFile(d.owned_files[0] as string, 'partial');
        host.abort();
        return new Promise(() => {});
      },
      { signal: host.signal },
    );
    await expectContained(r, p.owned);
    expect(r.handoff.stop_reason).toBe('user-stop');
    expect(canRelaunch(dispatch, r.handoff).allowed).toBe(true);
    const pre = new AbortController();
    pre.abort();
    let ran = false;
    const r2 = await delegate(
      dispatch,
      () => {
        ran = true;
      },
      { signal: pre.signal },
    );
    expect(ran).toBe(false);
    expect(r2.handoff.stop_reason).toBe('user-stop');
  });

  it.each([
    ['a zero timeout', { timeoutMs: 0 }],
    ['a fractional timeout', { timeoutMs: 1.5 }],
    ['a timeout past setTimeout’s range', { timeoutMs: 2 ** 31 }],
    ['a signal that is not an AbortSignal', { signal: {} as AbortSignal }],
  ])('rejects %s as a usage error', async (_name, options) => {
    const e = await delegate(dispatch, solve, options).catch((x: unknown) => x);
    expect(isHandoffError(e) && e.code).toBe('usage');
  });

  it('rejects a project root that is missing or does not hold the owned files, before anything is journaled', async () => {
    const store = memoryStore();
    const other = await makeProject();
    try {
      for (const projectRoot of [join(p.dir, 'nowhere'), other.dir]) {
        const e = await delegate(dispatch, solve, { projectRoot, store }).catch((x: unknown) => x);
        expect(isHandoffError(e) && e.code).toBe('invalid_input');
      }
    } finally {
      await other.cleanup();
    }
    expect(store.calls).toHaveLength(0);
  });

  it('every result’s handoff validates', async () => {
    const r = await delegate(dispatch, solve);
    expect(validateHandoff(r.handoff).ok).toBe(true);
  });
});
