/**
 * Starting a run as pure rules: the exclusive initial state with the create in flight, what the
 * store's create result means, the states and results of each outcome, and a prior-run start.
 */
import { describe, expect, it } from 'vitest';
import { persistResult } from '../../src/persist/result.js';
import {
  createdState,
  createdUnsavedResult,
  createFailedResult,
  createFailedState,
  createOutcome,
  initialState,
  priorStartResult,
  startedResult,
  stateCreateError,
} from '../../src/persist/start-rules.js';
import { PersistStateSchema } from '../../src/persist/state-schema.js';
import type { StoreResult } from '../../src/store/store.js';
import { dispatch, RULES_RUN_ID } from './fixtures.js';

const AT = '2026-11-30T10:00:00Z';
const PRIOR = '20261129T100000Z-00000001';
const fresh = () =>
  initialState({
    storageRoot: '/repo/.handoff',
    projectRoot: '/repo',
    priorRun: null,
    dispatch: dispatch(),
    now: AT,
  });
const result = (outcome: string, extra: Record<string, unknown> = {}) =>
  ({ schema: 'run-store-result/v1', outcome, run_id: null, ...extra }) as unknown as StoreResult;

describe('initialState', () => {
  it('is a valid state bound to the root, with the create in flight and knowledge from the dispatch', () => {
    const s = fresh();
    expect(PersistStateSchema.safeParse(s).success).toBe(true);
    expect(s).toMatchObject({
      storage_root: '/repo/.handoff',
      project_root: '/repo',
      run_id: null,
      last_seq: 0,
    });
    expect(s.inflight).toEqual({ op: 'create', kind: 'start', at: AT, pending: null });
    expect(s.knowledge?.current.target).toBe(dispatch().target);
    const p = initialState({
      storageRoot: '/r',
      projectRoot: '/p',
      priorRun: PRIOR,
      dispatch: dispatch(),
      now: AT,
    });
    expect(p.prior_run).toBe(PRIOR);
  });

  it('a state file that exists is state_exists; any other failure state_unwritable', () => {
    const eexist = Object.assign(new Error('x'), { code: 'EEXIST' });
    expect(stateCreateError('start', '/tmp/s.json', eexist)).toMatchObject({
      action: 'startup-error',
      code: 'state_exists',
      message: '/tmp/s.json: EEXIST',
    });
    expect(stateCreateError('start', '/tmp/s.json', new Error('odd'))).toMatchObject({
      code: 'state_unwritable',
      message: '/tmp/s.json: Error: odd',
    });
  });
});

describe('createOutcome', () => {
  it('created only for an exact committed result with run id and directory', () => {
    expect(
      createOutcome(
        result('committed', { run_id: RULES_RUN_ID, run_directory: '/repo/.handoff/runs/x' }),
        undefined,
      ),
    ).toEqual({ ok: true, runId: RULES_RUN_ID, runDirectory: '/repo/.handoff/runs/x' });
    expect(createOutcome(result('committed', { run_id: RULES_RUN_ID }), undefined)).toMatchObject({
      ok: false,
      outcome: 'malformed',
      refusedCode: null,
    });
    expect(
      createOutcome(
        { ...result('committed', { run_id: RULES_RUN_ID, run_directory: '/d' }), schema: 'x' } as never,
        undefined,
      ).ok,
    ).toBe(false);
  });

  it('refused (a code, nothing written), indeterminate, malformed; the store detail when given', () => {
    expect(createOutcome(result('nothing_written', { code: 'busy', detail: 'locked' }), undefined)).toEqual({
      ok: false,
      refusedCode: 'busy',
      outcome: 'refused:busy',
      detail: 'locked',
    });
    expect(createOutcome(result('nothing_written'), undefined)).toMatchObject({
      refusedCode: null,
      outcome: 'malformed',
      detail: 'store create malformed',
    });
    expect(createOutcome(result('indeterminate'), undefined)).toMatchObject({
      outcome: 'indeterminate',
      detail: 'store create indeterminate',
    });
    expect(createOutcome(undefined, new Error('socket closed'))).toEqual({
      ok: false,
      refusedCode: null,
      outcome: 'malformed',
      detail: 'socket closed',
    });
  });
});

describe('after the create', () => {
  it('a refusal clears the in-flight create; an uncertain create keeps it', () => {
    const refused = createOutcome(result('nothing_written', { code: 'busy' }), undefined);
    const uncertain = createOutcome(result('indeterminate'), undefined);
    if (refused.ok || uncertain.ok) throw new Error('expected failures');
    const s = createFailedState(fresh(), refused, AT);
    expect(s.inflight).toBeNull();
    expect(s.stopped).toEqual({ outcome: 'refused:busy', detail: 'store create refused:busy', at: AT });
    expect(createFailedState(fresh(), uncertain, AT).inflight).toEqual(fresh().inflight);
    expect(createFailedResult('start', refused)).toEqual(
      persistResult('start', 'startup-error', {
        code: 'busy',
        outcome: 'refused:busy',
        message: 'store create refused:busy',
      }),
    );
    expect(createFailedResult('start', uncertain)).toMatchObject({
      code: 'indeterminate',
      run_created: 'unknown',
    });
  });

  it('a created run is recorded and resolved; the results of a plain start', () => {
    const s = createdState(fresh(), { runId: RULES_RUN_ID, runDirectory: '/d' });
    expect(s).toMatchObject({ run_id: RULES_RUN_ID, run_directory: '/d', inflight: null });
    expect(startedResult('start', s)).toEqual(
      persistResult('start', 'continue', {
        outcome: 'committed',
        run_id: RULES_RUN_ID,
        run_directory: '/d',
        storage_root: '/repo/.handoff',
      }),
    );
    expect(createdUnsavedResult('start', RULES_RUN_ID)).toMatchObject({
      action: 'startup-error',
      code: 'state_unwritable',
      run_id: RULES_RUN_ID,
      run_created: true,
    });
  });

  it('a prior-run start continues with the source-note cite, or passes the stop on with run_created', () => {
    const s = createdState(fresh(), { runId: RULES_RUN_ID, runDirectory: '/d' });
    const prior = { priorRun: PRIOR, sourceNote: { kind: 'source-note' as const, text: '{}', lean: null } };
    const ok = persistResult('start', 'continue', { cite: `${RULES_RUN_ID}#1` });
    expect(priorStartResult('start', s, prior, ok)).toEqual(
      persistResult('start', 'continue', {
        outcome: 'committed',
        run_id: RULES_RUN_ID,
        run_directory: '/d',
        storage_root: '/repo/.handoff',
        prior_run: PRIOR,
        source_note_cite: `${RULES_RUN_ID}#1`,
        run_created: true,
      }),
    );
    const refused = persistResult('start', 'stop', { outcome: 'refused:busy' });
    expect(priorStartResult('start', s, prior, refused)).toEqual({
      ...refused,
      run_created: true,
      prior_run: PRIOR,
    });
    const bookkeeping = persistResult('start', 'stop', { committed: { seq: 1, cite: `${RULES_RUN_ID}#1` } });
    expect(priorStartResult('start', s, prior, bookkeeping).source_note_cite).toBe(`${RULES_RUN_ID}#1`);
  });
});
