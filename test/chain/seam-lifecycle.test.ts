/**
 * The seam machine's context and reducers (src/chain/seam-lifecycle.ts), called directly — no
 * machine, no actor.
 */
import { describe, expect, it } from 'vitest';
import { type Baton, checkDelta, stageDelta, stageRunId } from '../../src/chain/index.js';
import {
  adoptPending,
  beginAttempt,
  type ChainMachineContext,
  type ChainUpdate,
  canRetry,
  chainComplete,
  chainOutput,
  initialChainContext,
  pendingCommit,
  recordAcceptance,
  recordCommitFailed,
  recordMissingRequired,
  recordSeamFailure,
  recordStageFailed,
  requiresPresent,
  seamPassed,
  storeDelta,
  storePending,
} from '../../src/chain/seam-lifecycle.js';
import { tripBaton, tripChain } from './trip-fixture.js';

const chain = tripChain();
const b0 = tripBaton(chain);
const apply = (c: ChainMachineContext, u: ChainUpdate): ChainMachineContext => ({ ...c, ...u });
const contextAt = (baton: Baton, specs = chain.specs): ChainMachineContext =>
  initialChainContext({
    chain_id: chain.chain_id,
    contract_digest: chain.contract_digest,
    specs,
    initial_keys: chain.initial_keys,
    baton,
    max_attempts: 2,
  });
const intent = stageDelta({
  city: { value: 'Shanghai', evidence: ['chat://1'] },
  policy: { value: { latest_departure: '20:00' }, evidence: ['policy://v3'] },
});

describe('seam lifecycle reducers', () => {
  it('an attempt keeps the stage run id stable across retries and counts attempts', () => {
    let c = contextAt(b0);
    c = apply(c, beginAttempt(c));
    expect([c.attempt, c.stage_run_id]).toEqual([1, stageRunId(b0, 'intent')]);
    c = apply(c, recordStageFailed(c, new TypeError('boom')));
    expect(c.failure).toEqual({ code: 'stage_failed', stage: 'intent', detail: 'TypeError: boom' });
    expect(c.checkpoint).toBe(b0);
    expect(canRetry(c)).toBe(true);
    c = apply(c, beginAttempt(c));
    expect([c.attempt, c.stage_run_id, c.failure, c.checkpoint]).toEqual([
      2,
      stageRunId(b0, 'intent'),
      null,
      null,
    ]);
    expect(canRetry(c)).toBe(false);
  });

  it('a passed seam is held as pending until durable, then adopted; the chain completes', () => {
    let c = contextAt(b0);
    c = apply(c, beginAttempt(c));
    c = apply(c, storeDelta(intent));
    const out = checkDelta(chain, c.baton, c.delta);
    expect(seamPassed(out)).toBe(true);
    c = apply(c, storePending(out));
    expect(pendingCommit(c).baton.revision).toBe(1);
    // entering the next seam looks at the pending baton
    expect(chainComplete(c)).toBe(false);
    expect(requiresPresent(c)).toBe(true);
    c = apply(c, adoptPending(c));
    expect([c.baton.revision, c.pending, c.attempt, c.stage_run_id, c.delta]).toEqual([
      1,
      null,
      0,
      null,
      null,
    ]);
    expect(adoptPending(c)).toEqual({});
    expect(() => pendingCommit(c)).toThrow(/only a validated commit/);
  });

  it('a refused delta, a missing fact and a failed journal each hold the checkpoint', () => {
    const c = apply(contextAt(b0), beginAttempt(contextAt(b0)));
    const refused = checkDelta(chain, b0, stageDelta({}));
    expect(seamPassed(refused)).toBe(false);
    expect(storePending(refused)).toEqual({ pending: null });
    expect(recordSeamFailure(c, refused)).toMatchObject({
      failure: { code: 'promised_fact_missing', stage: 'intent' },
      checkpoint: b0,
    });
    const crashed = recordCommitFailed(
      { ...c, pending: { baton: b0, receipt: null as never } },
      new Error('disk full'),
    );
    expect(crashed).toEqual({
      failure: { code: 'commit_failed', stage: 'intent', detail: 'Error: disk full' },
      checkpoint: b0,
      pending: null,
    });
    const gapSpecs = chain.specs.map((s) => (s.name === 'intent' ? { ...s, requires: ['visa'] } : s));
    const gap = contextAt(b0, gapSpecs);
    expect(requiresPresent(gap)).toBe(false);
    expect(recordMissingRequired(gap)).toEqual({
      failure: { code: 'missing_required_fact', stage: 'intent', detail: 'missing required fact(s): visa' },
      checkpoint: b0,
    });
  });

  it('a complete baton is accepted with its acceptance receipt as the output', () => {
    let b = b0;
    for (const d of [
      intent,
      stageDelta({ depart_by: { value: '18:00', evidence: ['maps://42'] } }),
      stageDelta({ payment_id: { value: 'pay-1', evidence: ['bank://1'] } }),
    ]) {
      const out = checkDelta(chain, b, d);
      if (!out.ok) throw new Error(out.detail);
      b = out.baton;
    }
    const c = contextAt(b);
    expect(chainComplete(c)).toBe(true);
    const done = apply(c, recordAcceptance(c));
    expect(chainOutput(done)).toMatchObject({
      status: 'accepted',
      baton: b,
      acceptance: { decision: 'accepted', artifact_id: b.snapshot_id },
      failure: null,
    });
    expect(chainOutput(contextAt(b0)).status).toBe('stopped');
  });
});
