import { describe, expect, it } from 'vitest';
import {
  type Baton,
  batonFacts,
  checkDelta,
  checkpointProblem,
  checkRequires,
  commitBaton,
  type FactRule,
  factValue,
  isSeamError,
  SEAM_CODES,
  type SeamError,
  seedBaton,
  stageDelta,
  stageRunId,
} from '../../src/chain/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { goodStages, tripBaton, tripChain } from './trip-fixture.js';

async function seamError(p: Promise<unknown>): Promise<SeamError> {
  try {
    await p;
  } catch (e) {
    if (isSeamError(e)) return e;
    throw e;
  }
  throw new Error('expected a SeamError');
}

describe('clean run', () => {
  it('commits three revisions with receipts and an accepted acceptance receipt', async () => {
    const chain = tripChain();
    const r = await chain.run(tripBaton(chain));
    expect(r.baton.revision).toBe(3);
    expect(r.baton.trace).toEqual(['intent', 'route', 'pay']);
    expect(batonFacts(r.baton)).toMatchObject({
      city: 'Shanghai',
      depart_by: '18:00',
      payment_id: 'pay-1',
      request_id: 'req-7',
    });
    expect(r.baton.artifact_refs).toEqual(['ticket://MU5101']);
    expect(r.receipts).toHaveLength(3);
    expect(r.receipts).toEqual(r.baton.stage_receipts);
    expect(r.acceptance).toMatchObject({
      decision: 'accepted',
      artifact_id: r.baton.snapshot_id,
      receipt_id: `accept::${r.baton.snapshot_id}`,
      checked_by: 'trip-chain',
      findings: [],
    });
    for (const rc of r.receipts) expect(rc.contract_digest).toBe(chain.contract_digest);
    expect(r.acceptance.contract_digest).toBe(chain.contract_digest);
  });

  it('binds each receipt to its revision pair and distinct fingerprints', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const r = await chain.run(b0);
    expect(r.receipts.map((x) => [x.input_revision, x.output_revision])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    for (const rc of r.receipts) expect(rc.input_fingerprint).not.toBe(rc.output_fingerprint);
    expect(r.receipts[0]?.input_fingerprint).toBe(b0.fingerprint);
    expect(r.receipts[2]?.output_fingerprint).toBe(r.baton.fingerprint);
    expect(r.receipts[1]).toMatchObject({
      consumed_keys: ['city', 'policy'],
      produced_keys: ['depart_by'],
      evidence_refs: ['maps://route/42'],
    });
    expect(r.receipts[1]?.receipt_id).toBe(`receipt::${r.receipts[1]?.stage_run_id}`);
  });

  it('records provenance: producer, run id equal to the receipt’s, evidence kept; initial facts come from __input__', async () => {
    const chain = tripChain();
    const r = await chain.run(tripBaton(chain));
    const depart = r.baton.records.find((x) => x.key === 'depart_by');
    expect(depart).toMatchObject({
      producer_stage: 'route',
      stage_run_id: r.receipts[1]?.stage_run_id,
      evidence_refs: ['maps://route/42'],
    });
    const req = r.baton.records.find((x) => x.key === 'request_id');
    expect(req).toMatchObject({ producer_stage: '__input__', stage_run_id: 'trip-1::__input__' });
  });

  it('deduplicates receipt evidence and keeps its order', async () => {
    const s = goodStages();
    s.intent = () =>
      stageDelta({
        city: { value: 'Shanghai', evidence: ['doc://b', 'doc://a'] },
        policy: { value: { latest_departure: '20:00' }, evidence: ['doc://a', 'doc://c'] },
      });
    const chain = tripChain(s);
    const r = await chain.run(tripBaton(chain));
    expect(r.receipts[0]?.evidence_refs).toEqual(['doc://b', 'doc://a', 'doc://c']);
  });

  it('accepts async stages', async () => {
    const s = goodStages();
    s.route = async () => {
      await new Promise((res) => setTimeout(res, 5));
      return stageDelta({ depart_by: { value: '17:30', evidence: ['agent://route'] } });
    };
    const chain = tripChain(s);
    expect(batonFacts((await chain.run(tripBaton(chain))).baton).depart_by).toBe('17:30');
  });
});

describe('seam codes (each reached, checked in the reference order)', () => {
  it('lists the nine codes in check order', () => {
    expect(SEAM_CODES).toEqual([
      'missing_required_fact',
      'stage_failed',
      'invalid_stage_delta',
      'promised_fact_missing',
      'undeclared_fact',
      'committed_fact_overwrite',
      'fact_type_mismatch',
      'fact_evidence_missing',
      'fact_semantic_violation',
    ]);
  });

  it('promised_fact_missing: empty route delta, checkpoint at revision 1 with trace [intent]', async () => {
    const s = goodStages();
    s.route = () => stageDelta({});
    const chain = tripChain(s);
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.code).toBe('promised_fact_missing');
    expect(e.stage).toBe('route');
    expect(e.message).toBe(
      "stage 'route' [promised_fact_missing] did not deliver promised fact(s): depart_by",
    );
    expect(e.checkpoint.revision).toBe(1);
    expect(e.checkpoint.trace).toEqual(['intent']);
    expect(e.receipts).toEqual(e.checkpoint.stage_receipts);
    expect(e.receipts).toHaveLength(1);
    expect(e.details).toMatchObject({ checkpoint_revision: 1 });
    expect(e.details).not.toHaveProperty('exit_code');
  });

  it('undeclared_fact: an extra secret fact is named', async () => {
    const s = goodStages();
    s.route = () =>
      stageDelta({ depart_by: { value: '18:00', evidence: ['e'] }, secret: { value: 'x', evidence: ['e'] } });
    const chain = tripChain(s);
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.code).toBe('undeclared_fact');
    expect(e.detail).toContain('secret');
  });

  it('undeclared_fact (not overwrite) when a later stage restates a committed fact', async () => {
    const s = goodStages();
    s.pay = () =>
      stageDelta({
        payment_id: { value: 'p', evidence: ['e'] },
        depart_by: { value: '17:00', evidence: ['e'] },
      });
    const chain = tripChain(s);
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.code).toBe('undeclared_fact');
    expect(e.stage).toBe('pay');
  });

  it.each([
    ['fact_type_mismatch', { value: 1800, evidence: ['maps://route/42'] }],
    ['fact_evidence_missing', { value: '18:00', evidence: [] }],
    ['fact_semantic_violation', { value: '21:00', evidence: ['maps://route/42'] }],
  ] as const)('%s', async (code, fact) => {
    const s = goodStages();
    s.route = () => stageDelta({ depart_by: fact });
    const chain = tripChain(s);
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.code).toBe(code);
    expect(e.stage).toBe('route');
    expect(e.checkpoint.trace).toEqual(['intent']);
  });

  it('fact_semantic_violation detail quotes the finding and the rule', async () => {
    const s = goodStages();
    s.route = () => stageDelta({ depart_by: { value: '21:00', evidence: ['x'] } });
    const chain = tripChain(s);
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.detail).toBe(
      "'depart_by': departure 21:00 is later than 20:00 (departure within the travel policy)",
    );
  });

  it('fact_type_mismatch for values JSON cannot represent', async () => {
    const s = goodStages();
    s.intent = () => ({
      facts: [
        { key: 'city', value: 'x', evidence_refs: ['e'] },
        { key: 'policy', value: { latest_departure: Number.NaN }, evidence_refs: ['e'] },
      ],
      artifact_refs: [],
    });
    const chain = tripChain(s);
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.code).toBe('fact_type_mismatch');
    expect(e.detail).toContain('policy');
  });

  it('missing_required_fact (defensive through advance): reached on a constructed state', async () => {
    // Topology gives every required key an earlier owner and the checkpoint check pins the fact
    // keys to the committed prefix, so a real checkpoint always holds the required facts. The
    // check is reached by handing the pure seam a revision-1 baton without `policy`.
    const chain = tripChain();
    const b1 = (await chain.advance(tripBaton(chain))).baton;
    const gap = seedBaton({
      baton_id: 'trip-1',
      contract_digest: chain.contract_digest,
      intent: 'x',
      records: b1.records.filter((r) => r.key !== 'policy'),
    });
    const forged: Baton = commitBaton(gap, {
      stage_name: 'intent',
      records: [],
      artifact_refs: [],
      receipt: () => b1.stage_receipts[0] as never,
    });
    expect(checkRequires(chain, forged)).toEqual({
      ok: false,
      code: 'missing_required_fact',
      stage: 'route',
      detail: 'missing required fact(s): policy',
    });
    expect(checkRequires(chain, b1)).toBeNull();
    expect(checkpointProblem(chain, forged)).toContain('missing [policy]');
    await expect(chain.advance(forged)).rejects.toMatchObject({ code: 'invalid_checkpoint' });
  });

  it('stage_failed: a throwing stage becomes stage_failed with <Type>: <msg>', async () => {
    const s = goodStages();
    s.route = () => {
      throw new RangeError('no route today');
    };
    const chain = tripChain(s);
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.code).toBe('stage_failed');
    expect(e.detail).toBe('RangeError: no route today');
  });

  it('stage_failed: a rejected async stage and a timeout', async () => {
    const s = goodStages();
    s.route = async () => Promise.reject(new Error('agent down'));
    const chain = tripChain(s);
    expect((await seamError(chain.run(tripBaton(chain)))).detail).toBe('Error: agent down');
    const slow = goodStages();
    slow.route = () => new Promise(() => {});
    const chain2 = tripChain(slow);
    const e = await seamError(chain2.run(tripBaton(chain2), { stageTimeoutMs: 20 }));
    expect(e.code).toBe('stage_failed');
    expect(e.detail).toMatch(/^TimeoutError: /);
  });

  it('stage_failed on timeout aborts the stage’s signal (a stage that honours it stops); a stage in time keeps it', async () => {
    let seen: AbortSignal | undefined;
    let stopped: unknown;
    const s = goodStages();
    s.route = (_view, { signal }) => {
      seen = signal;
      return new Promise((_, reject) =>
        signal.addEventListener('abort', () => {
          stopped = signal.reason;
          reject(signal.reason);
        }),
      );
    };
    const chain = tripChain(s);
    const e = await seamError(chain.run(tripBaton(chain), { stageTimeoutMs: 20 }));
    expect(e.detail).toBe('TimeoutError: stage exceeded 20 ms');
    expect(seen?.aborted).toBe(true);
    expect(stopped).toMatchObject({
      name: 'TimeoutError',
      code: 'stage_failed',
      details: { timeout_ms: 20 },
    });
    expect(isHandoffError(stopped)).toBe(true);
    const signals: AbortSignal[] = [];
    const fine = goodStages();
    const chain2 = tripChain({
      ...fine,
      route: (v, ctx) => {
        signals.push(ctx.signal);
        return fine.route(v, ctx);
      },
    });
    await chain2.run(tripBaton(chain2), { stageTimeoutMs: 1_000 });
    expect(signals.map((x) => x.aborted)).toEqual([false]);
  });

  it('invalid_stage_delta: a stage that does not return a StageDelta', async () => {
    for (const bad of [
      undefined,
      { facts: {} },
      { facts: [{ key: 'depart_by', value: '1', evidence_refs: [' '] }] },
      { facts: [], extra: 1 },
    ]) {
      const s = goodStages();
      s.route = () => bad;
      const chain = tripChain(s);
      const e = await seamError(chain.run(tripBaton(chain)));
      expect(e.code).toBe('invalid_stage_delta');
    }
  });

  it('invalid_stage_delta: duplicate fact keys', async () => {
    const s = goodStages();
    s.route = () => ({
      facts: [
        { key: 'depart_by', value: '18:00', evidence_refs: ['e'] },
        { key: 'depart_by', value: '18:00', evidence_refs: ['e'] },
      ],
    });
    const chain = tripChain(s);
    expect((await seamError(chain.run(tripBaton(chain)))).code).toBe('invalid_stage_delta');
  });

  it('committed_fact_overwrite (defensive): reached by checking a delta against a constructed state', async () => {
    const chain = tripChain();
    const b1 = (await chain.advance(tripBaton(chain))).baton;
    // Construct a revision-1 baton that already holds route's fact (impossible through the chain).
    const forged = commitBaton(
      seedBaton({
        baton_id: 'trip-1',
        contract_digest: chain.contract_digest,
        intent: 'x',
        records: [
          ...b1.records,
          {
            key: 'depart_by',
            value: '17:00',
            producer_stage: 'route',
            stage_run_id: 'forged',
            evidence_refs: ['e'],
          },
        ],
      }),
      { stage_name: 'intent', records: [], artifact_refs: [], receipt: () => b1.stage_receipts[0] as never },
    );
    const out = checkDelta(chain, forged, stageDelta({ depart_by: { value: '18:00', evidence: ['e'] } }));
    expect(out).toMatchObject({ ok: false, code: 'committed_fact_overwrite', stage: 'route' });
    if (!out.ok) expect(out.detail).toContain('depart_by');
    // and the full advance refuses the same state before running anything
    await expect(chain.advance(forged)).rejects.toMatchObject({ code: 'invalid_checkpoint' });
  });

  it('a validator that throws is a semantic violation, not a crash', async () => {
    const chain = tripChain();
    const b1 = (await chain.advance(tripBaton(chain))).baton;
    const rules = new Map(chain.rules);
    rules.set('depart_by', {
      ...(rules.get('depart_by') as FactRule),
      validator: () => {
        throw new Error('ledger offline');
      },
    });
    const out = checkDelta(
      {
        ...chain,
        specs: chain.specs,
        rules,
        contract_digest: chain.contract_digest,
        chain_id: chain.chain_id,
        initial_keys: chain.initial_keys,
      },
      b1,
      stageDelta({ depart_by: { value: '18:00', evidence: ['e'] } }),
    );
    expect(out).toMatchObject({ ok: false, code: 'fact_semantic_violation' });
    if (!out.ok) expect(out.detail).toContain('Error: ledger offline');
  });
});

describe('checkpoint validation', () => {
  it('refuses foreign, inconsistent and completed batons', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const other = seedBaton({
      baton_id: 'x',
      contract_digest: '0000000000000000',
      intent: 'x',
      records: b0.records,
    });
    await expect(chain.advance(other)).rejects.toMatchObject({ code: 'invalid_checkpoint' });
    expect(checkpointProblem(chain, other)).toContain('contract digest differs');
    const done = (await chain.run(b0)).baton;
    await expect(chain.advance(done)).rejects.toMatchObject({ code: 'chain_complete' });
    const wrongTrace = commitBaton(b0, {
      stage_name: 'route',
      records: [],
      artifact_refs: [],
      receipt: () => done.stage_receipts[0] as never,
    });
    expect(checkpointProblem(chain, wrongTrace)).toContain('not a prefix');
    let long = done;
    long = commitBaton(long, {
      stage_name: 'extra',
      records: [],
      artifact_refs: [],
      receipt: () => done.stage_receipts[0] as never,
    });
    expect(checkpointProblem(chain, long)).toContain('more stages than the chain');
  });

  it('a completed baton passed to run is accepted without running anything', async () => {
    let calls = 0;
    const s = goodStages();
    const chain = tripChain({
      ...s,
      intent: (v, c) => {
        calls++;
        return s.intent(v, c);
      },
    });
    const done = (await chain.run(tripBaton(chain))).baton;
    const again = await chain.run(done);
    expect(calls).toBe(1);
    expect(again.acceptance.artifact_id).toBe(done.snapshot_id);
  });
});

describe('retry from the checkpoint', () => {
  it('resumes at the failed stage with the same stage_run_id; earlier stages do not rerun; pay runs once', async () => {
    const payments = new Map<string, number>();
    const s = goodStages(payments);
    const calls = { intent: 0, route: 0, pay: 0 };
    const seenRunIds: string[] = [];
    let routeFails = true;
    const chain = tripChain({
      intent: (v, c) => {
        calls.intent++;
        return s.intent(v, c);
      },
      route: (v, c) => {
        calls.route++;
        seenRunIds.push(v.stage_run_id);
        if (routeFails) throw new Error('timeout talking to the routing agent');
        return s.route(v, c);
      },
      pay: (v, c) => {
        calls.pay++;
        return s.pay(v, c);
      },
    });
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.code).toBe('stage_failed');
    expect(chain.nextRunId(e.checkpoint)).toBe(seenRunIds[0]);
    routeFails = false;
    const r = await chain.run(e.checkpoint);
    expect(seenRunIds).toHaveLength(2);
    expect(seenRunIds[1]).toBe(seenRunIds[0]);
    expect(seenRunIds[0]).toBe(stageRunId(e.checkpoint, 'route'));
    expect(r.baton.trace).toEqual(['intent', 'route', 'pay']);
    expect(calls).toEqual({ intent: 1, route: 2, pay: 1 });
    expect([...payments.values()]).toEqual([1]);
    expect(r.receipts[1]?.stage_run_id).toBe(seenRunIds[0]);
  });

  it('retry after a real stage timeout reuses the same run id; the trace completes and pay runs exactly once', async () => {
    const payments = new Map<string, number>();
    const s = goodStages(payments);
    const routeRunIds: string[] = [];
    let hang = true;
    const chain = tripChain({
      ...s,
      route: (v, ctx) => {
        routeRunIds.push(v.stage_run_id);
        return hang ? new Promise(() => {}) : s.route(v, ctx);
      },
    });
    const e = await seamError(chain.run(tripBaton(chain), { stageTimeoutMs: 20 }));
    expect([e.code, e.stage, e.detail]).toEqual([
      'stage_failed',
      'route',
      'TimeoutError: stage exceeded 20 ms',
    ]);
    hang = false;
    const r = await chain.run(e.checkpoint, { stageTimeoutMs: 1_000 });
    expect(routeRunIds).toEqual([routeRunIds[0], routeRunIds[0]]);
    expect(r.receipts[1]?.stage_run_id).toBe(routeRunIds[0]);
    expect(r.baton.trace).toEqual(['intent', 'route', 'pay']);
    expect([...payments.values()]).toEqual([1]);
  });

  it('a pay stage retried after failing past its side effect pays exactly once', async () => {
    const payments = new Map<string, number>();
    const s = goodStages(payments);
    let failAfterPaying = true;
    const chain = tripChain({
      ...s,
      pay: async (v, c) => {
        const d = await s.pay(v, c);
        if (failAfterPaying) throw new Error('crashed before returning the delta');
        return d;
      },
    });
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.stage).toBe('pay');
    expect(payments.size).toBe(1);
    failAfterPaying = false;
    const r = await chain.run(e.checkpoint);
    expect([...payments.entries()]).toEqual([[r.receipts[2]?.stage_run_id, 1]]);
    expect(batonFacts(r.baton).payment_id).toBe('pay-1');
  });
});

describe('immutability and detached views', () => {
  it('batons are deep-frozen and FactRecord values are handed out as copies', async () => {
    const chain = tripChain();
    const { baton } = await chain.run(tripBaton(chain));
    expect(Object.isFrozen(baton)).toBe(true);
    expect(Object.isFrozen(baton.records)).toBe(true);
    const policyRecord = baton.records.find((r) => r.key === 'policy');
    expect(Object.isFrozen(policyRecord?.value)).toBe(true);
    expect(() => {
      (baton as { revision: number }).revision = 9;
    }).toThrow(TypeError);
    const copy = factValue(baton, 'policy') as { latest_departure: string };
    copy.latest_departure = '23:59';
    expect(factValue(baton, 'policy')).toEqual({ latest_departure: '20:00' });
    const facts = batonFacts(baton);
    expect(() => {
      (facts as Record<string, unknown>).city = 'Beijing';
    }).toThrow(TypeError);
  });

  it('every node of every committed baton is frozen (receipts, refs, nested values)', async () => {
    const chain = tripChain();
    const batons: Baton[] = [];
    await chain.run(tripBaton(chain), { onCommit: (c) => void batons.push(c.baton) });
    const unfrozen = (v: unknown, path: string): string[] => {
      if (typeof v !== 'object' || v === null) return [];
      const here = Object.isFrozen(v) ? [] : [path];
      return [...here, ...Object.entries(v).flatMap(([k, x]) => unfrozen(x, `${path}.${k}`))];
    };
    expect(batons).toHaveLength(3);
    for (const b of batons) expect(unfrozen(b, '$')).toEqual([]);
  });

  it('a view rejects assignment and deletion, and nested mutation does not leak', async () => {
    let captured: { facts: Record<string, unknown> } | undefined;
    const s = goodStages();
    const chain = tripChain({
      ...s,
      route: (view, c) => {
        expect(() => {
          (view.facts as Record<string, unknown>).city = 'Beijing';
        }).toThrow(TypeError);
        expect(() => {
          delete (view.facts as Record<string, unknown>).city;
        }).toThrow(TypeError);
        expect(() => {
          (view as { intent: string }).intent = 'x';
        }).toThrow(TypeError);
        expect(() => (view.trace as string[]).push('x')).toThrow(TypeError);
        (view.facts.policy as { latest_departure: string }).latest_departure = '23:59';
        expect(Object.keys(view.facts).sort()).toEqual(['city', 'policy', 'request_id']);
        expect('city' in view.facts).toBe(true);
        expect({ ...view.facts }).toEqual({
          city: 'Shanghai',
          policy: { latest_departure: '23:59' },
          request_id: 'req-7',
        });
        captured = view as never;
        return s.route(view, c);
      },
    });
    const { baton } = await chain.run(tripBaton(chain));
    expect(captured?.facts.policy).toEqual({ latest_departure: '23:59' });
    expect(batonFacts(baton).policy).toEqual({ latest_departure: '20:00' });
  });

  it('a stage mutating its own view cannot influence the validator; the checkpoint keeps the original', async () => {
    const s = goodStages();
    const chain = tripChain({
      ...s,
      route: (view) => {
        (view.facts.policy as { latest_departure: string }).latest_departure = '23:59';
        return stageDelta({ depart_by: { value: '22:00', evidence: ['maps://route/9'] } });
      },
    });
    const e = await seamError(chain.run(tripBaton(chain)));
    expect(e.code).toBe('fact_semantic_violation');
    expect(factValue(e.checkpoint, 'policy')).toEqual({ latest_departure: '20:00' });
  });

  it('a stage mutating the value after returning it cannot change the committed fact', async () => {
    const s = goodStages();
    const policy = { latest_departure: '20:00' };
    const chain = tripChain({
      ...s,
      intent: () =>
        stageDelta({
          city: { value: 'Shanghai', evidence: ['e'] },
          policy: { value: policy, evidence: ['e'] },
        }),
      route: (v, c) => {
        policy.latest_departure = '23:59';
        return s.route(v, c);
      },
    });
    const { baton } = await chain.run(tripBaton(chain));
    expect(batonFacts(baton).policy).toEqual({ latest_departure: '20:00' });
  });
});
