/**
 * Controller rules pinned one by one: exact checks first, STOP on hard stop / invalid authority,
 * evaluator failures never grant, interpretations, stage, prohibitions, slots, recomputation.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_THRESHOLDS,
  decideRoute,
  exactChecks,
  ownerAuthority,
  type RouteInput,
  readClaim,
  recomputeRoute,
} from '../../src/gate/index.js';
import { contract, evaluated, failed, OK, packet, T0 } from './fixtures.js';

const SLOTS = { ordinary_repair: 1, gate_continuation: 1 };
const NOW = Date.parse(T0);

function input(over: Partial<RouteInput> = {}): RouteInput {
  const c = contract();
  const p = packet(c);
  return {
    contract: c,
    packet: p,
    exact: OK,
    assessment: evaluated(p, [
      {
        criterion_id: 'reload-idempotent',
        raw_label: 'CONFIRMED',
        distribution: { CONFIRMED: 0.9, REFUTED: 0.1 },
        requested_evidence: [],
      },
    ]),
    thresholds: DEFAULT_THRESHOLDS,
    slots: SLOTS,
    afterContinuation: false,
    ...over,
  };
}

describe('exact checks (rule 1)', () => {
  const c = contract();
  it('passes a packet inside allowed_writes with the owner authority', () => {
    expect(
      exactChecks({ contract: c, packet: packet(c), authority: ownerAuthority(c.owner), now: NOW }),
    ).toEqual(OK);
  });
  it('flags writes outside allowed_writes, including a rename source', () => {
    const p = packet(c, {
      changeset: [
        {
          path: 'src/a.ts',
          change: 'renamed',
          from: 'config/a.ts',
          staged: true,
          unstaged: false,
          untracked: false,
          sha256: null,
        },
      ],
    });
    const r = exactChecks({ contract: c, packet: p, authority: ownerAuthority(c.owner), now: NOW });
    expect(r.ok).toBe(false);
    expect(r.stop).toBe(false);
    expect(r.failures.map((f) => f.path)).toEqual(['config/a.ts']);
  });
  it('flags prohibited operations observed in the packet', () => {
    const r = exactChecks({
      contract: c,
      packet: packet(c, { operations: ['network'] }),
      authority: ownerAuthority(c.owner),
      now: NOW,
    });
    expect(r.failures.map((f) => f.code)).toEqual(['prohibited_operation']);
  });
  it('hard stop, owner conflict, expired lease and denied permission are STOP codes', () => {
    const authority = {
      ...ownerAuthority('someone-else'),
      hard_stop: 'budget frozen',
      lease_expires_at: '2026-11-30T11:00:00Z',
      denied_operations: ['test:unit'],
    };
    const r = exactChecks({
      contract: c,
      packet: packet(c, { operations: ['test:unit'] }),
      authority,
      now: NOW,
    });
    expect(r.stop).toBe(true);
    expect(r.failures.map((f) => f.code).sort()).toEqual([
      'hard_stop',
      'lease_expired',
      'owner_conflict',
      'permission_denied',
    ]);
  });
  it('a packet whose candidate is no longer the live tree fails the binding check', () => {
    const p = packet(c);
    const r = exactChecks({
      contract: c,
      packet: p,
      authority: ownerAuthority(c.owner),
      now: NOW,
      current: { commit: null, tree_digest: 'c'.repeat(64) },
    });
    expect(r.failures.map((f) => f.code)).toEqual(['candidate_changed']);
  });
});

describe('routing (rules 1-5, 7)', () => {
  it('all required satisfied → REVIEW_READY (not acceptance)', () => {
    const d = decideRoute(input());
    expect(d.route).toBe('REVIEW_READY');
    expect(d.criteria[0]?.status).toBe('satisfied');
  });

  it('a hard stop is STOP whatever the evaluator says', () => {
    const c = contract();
    const p = packet(c);
    const exact = exactChecks({
      contract: c,
      packet: p,
      authority: { ...ownerAuthority(c.owner), hard_stop: 'halt' },
      now: NOW,
    });
    expect(decideRoute(input({ contract: c, packet: p, exact })).route).toBe('STOP');
  });

  it('a non-stop exact failure is LEAD_REVIEW with no obligations, even with a perfect assessment', () => {
    const d = decideRoute(
      input({
        exact: { ok: false, stop: false, failures: [{ code: 'scope_violation', detail: 'x', path: 'x' }] },
      }),
    );
    expect(d.route).toBe('LEAD_REVIEW');
    expect(d.obligations).toEqual([]);
  });

  for (const kind of ['timeout', 'no-key', 'unavailable', 'budget', 'invalid-data'] as const) {
    it(`evaluator failure ${kind} → LEAD_REVIEW, never CONTINUATION_ELIGIBLE, never INSUFFICIENT`, () => {
      const base = input();
      const d = decideRoute({ ...base, assessment: failed(base.packet, { kind, detail: 'x' }) });
      expect(d.route).toBe('LEAD_REVIEW');
      expect(d.criteria.every((c) => c.status === 'not-evaluated')).toBe(true);
      expect(d.reasons[0]?.code).toBe(
        kind === 'invalid-data' ? 'assessment_invalid' : 'assessment_not_evaluated',
      );
    });
  }

  it('CONFIRMED is not good for a violation question', () => {
    const c = contract({
      criteria: [
        {
          id: 'double-charge',
          text: 'Does a reload trigger a second paid operation?',
          text_revision: 1,
          required: true,
          interpretation: 'confirmed-is-violation',
        },
      ],
    });
    const p = packet(c);
    const a = evaluated(p, [
      {
        criterion_id: 'double-charge',
        raw_label: 'CONFIRMED',
        distribution: { CONFIRMED: 0.95, REFUTED: 0.05 },
        requested_evidence: [],
      },
    ]);
    const d = decideRoute(input({ contract: c, packet: p, assessment: a }));
    expect(d.route).not.toBe('REVIEW_READY');
    expect(d.criteria[0]?.status).toBe('violated');
    expect(d.route).toBe('CONTINUATION_ELIGIBLE');
    // and REFUTED is the good reading of that question
    const ok = evaluated(p, [
      {
        criterion_id: 'double-charge',
        raw_label: 'REFUTED',
        distribution: { CONFIRMED: 0.05, REFUTED: 0.95 },
        requested_evidence: [],
      },
    ]);
    expect(decideRoute(input({ contract: c, packet: p, assessment: ok })).route).toBe('REVIEW_READY');
    expect(readClaim({ CONFIRMED: 0.95, REFUTED: 0.05 }, 'confirmed-is-violation')).toEqual({
      good: 0.05,
      bad: 0.95,
    });
  });

  it('source-only stage not rejected for lacking a production run', () => {
    const c = contract({ stage: 'source-only' });
    const p = packet(c);
    const a = evaluated(p, [
      {
        criterion_id: 'reload-idempotent',
        raw_label: 'INSUFFICIENT',
        distribution: { CONFIRMED: 0.2, REFUTED: 0.05, INSUFFICIENT: 0.75 },
        requested_evidence: [
          { kind: 'execution', detail: 'a production run', stage: 'production', operation: null },
        ],
      },
    ]);
    const d = decideRoute(input({ contract: c, packet: p, assessment: a }));
    expect(d.route).toBe('REVIEW_READY');
    expect(d.criteria[0]?.status).toBe('limited');
    expect(d.obligations).toEqual([]);
    expect(d.reasons.map((r) => r.code)).toContain('evidence_out_of_stage');
  });

  it('prohibited test never becomes an obligation', () => {
    const c = contract({ stage: 'integration' });
    const p = packet(c);
    const a = evaluated(p, [
      {
        criterion_id: 'reload-idempotent',
        raw_label: 'INSUFFICIENT',
        distribution: { CONFIRMED: 0.3, INSUFFICIENT: 0.7 },
        requested_evidence: [
          { kind: 'test', detail: 'run the e2e reload test', stage: 'integration', operation: 'test:e2e' },
          { kind: 'test', detail: 'a unit test of the reload guard', stage: 'unit', operation: 'test:unit' },
        ],
      },
    ]);
    const d = decideRoute(input({ contract: c, packet: p, assessment: a }));
    expect(d.route).toBe('CONTINUATION_ELIGIBLE');
    const asked = d.obligations.flatMap((o) => o.evidence.map((e) => e.operation));
    expect(asked).toEqual(['test:unit']);
    expect(asked).not.toContain('test:e2e');
    expect(d.reasons.map((r) => r.code)).toContain('prohibited_not_obligation');
    // when the prohibited test is the only thing asked for, nothing at all is owed
    const only = evaluated(p, [
      {
        criterion_id: 'reload-idempotent',
        raw_label: 'INSUFFICIENT',
        distribution: { CONFIRMED: 0.3, INSUFFICIENT: 0.7 },
        requested_evidence: [{ kind: 'test', detail: 'e2e', stage: null, operation: 'test:e2e' }],
      },
    ]);
    const d2 = decideRoute(input({ contract: c, packet: p, assessment: only }));
    expect(d2.obligations).toEqual([]);
    expect(d2.route).not.toBe('CONTINUATION_ELIGIBLE');
  });

  it('unmet criteria with missing ledger history fail closed to LEAD_REVIEW', () => {
    const base = input();
    const a = evaluated(base.packet, [
      {
        criterion_id: 'reload-idempotent',
        raw_label: 'INSUFFICIENT',
        distribution: { INSUFFICIENT: 1 },
        requested_evidence: [],
      },
    ]);
    expect(decideRoute({ ...base, assessment: a, slots: null }).route).toBe('LEAD_REVIEW');
    expect(decideRoute({ ...base, assessment: a, slots: SLOTS }).route).toBe('CONTINUATION_ELIGIBLE');
    expect(
      decideRoute({ ...base, assessment: a, slots: { ordinary_repair: 0, gate_continuation: 0 } }).route,
    ).toBe('LEAD_REVIEW');
    expect(decideRoute({ ...base, assessment: a, afterContinuation: true }).route).toBe('LEAD_REVIEW');
  });

  it('a required criterion without a claim is unmet; an optional one does not matter', () => {
    const c = contract({
      criteria: [
        { id: 'a', text: 'a', text_revision: 1, required: true, interpretation: 'confirmed-is-good' },
        { id: 'b', text: 'b', text_revision: 1, required: false, interpretation: 'confirmed-is-good' },
      ],
    });
    const p = packet(c);
    const a = evaluated(p, [
      { criterion_id: 'a', raw_label: 'CONFIRMED', distribution: { CONFIRMED: 1 }, requested_evidence: [] },
    ]);
    expect(decideRoute(input({ contract: c, packet: p, assessment: a })).route).toBe('REVIEW_READY');
  });

  it('recomputing with another threshold re-reads stored probabilities only', () => {
    const base = input();
    const first = decideRoute(base);
    const stricter = recomputeRoute(base, { satisfied: 0.95, violated: 0.5 });
    expect(first.route).toBe('REVIEW_READY');
    expect(stricter.route).toBe('CONTINUATION_ELIGIBLE');
    expect(stricter.packet_id).toBe(first.packet_id);
    expect(stricter.assessment_ref).toEqual(first.assessment_ref);
    expect(stricter.route_id).not.toBe(first.route_id);
    expect(recomputeRoute(base, DEFAULT_THRESHOLDS)).toEqual(first);
  });
});
