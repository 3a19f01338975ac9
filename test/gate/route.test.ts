/**
 * Controller rules pinned one by one: exact checks first, STOP on hard stop / invalid authority,
 * evaluator failures never grant, interpretations, stage, prohibitions, slots, recomputation.
 */
import { describe, expect, it } from 'vitest';
import {
  type BlockedReport,
  buildLeadPacket,
  DEFAULT_THRESHOLDS,
  decideRoute,
  exactChecks,
  ownerAuthority,
  type RouteInput,
  readClaim,
  recomputeRoute,
} from '../../src/gate/index.js';
import { contract, D1, evaluated, failed, OK, packet, T0 } from './fixtures.js';

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

describe("the seed's examples, one rule each", () => {
  const reload = (p: ReturnType<typeof packet>, label: 'CONFIRMED' | 'INSUFFICIENT', pc: number) =>
    evaluated(p, [
      {
        criterion_id: 'reload-idempotent',
        raw_label: label,
        distribution: { CONFIRMED: pc, INSUFFICIENT: 1 - pc },
        requested_evidence: [],
      },
    ]);

  it('an assertion that a page heading exists does not establish that a reload avoided a second paid operation', () => {
    const c = contract();
    // a trusted, candidate-bound, passing run of the wrong assertion, plus the worker's claim
    const p = packet(c, {
      executions: [
        {
          runner: 'ci',
          command: ['npm', 'test', '--', 'heading.test.ts'],
          exit_code: 0,
          operations: ['test:unit'],
          output_sha256: null,
          provenance: { runner_id: 'ci-1', trusted: true, candidate_digest: D1 },
        },
      ].map((e) => ({ ...e, counted: true, reason: null })),
      claims: [
        { criterion_id: 'reload-idempotent', text: 'reload tested: heading is shown', verified: false },
      ],
    });
    const d = decideRoute(input({ contract: c, packet: p, assessment: reload(p, 'INSUFFICIENT', 0.3) }));
    expect(d.route).not.toBe('REVIEW_READY');
    expect(d.criteria[0]).toMatchObject({ criterion_id: 'reload-idempotent', status: 'insufficient' });
    expect(d.obligations.map((o) => o.criterion_id)).toEqual(['reload-idempotent']);
    // only the evaluator's reading of the relation counts: the same packet read as CONFIRMED passes
    expect(
      decideRoute(input({ contract: c, packet: p, assessment: reload(p, 'CONFIRMED', 0.9) })).route,
    ).toBe('REVIEW_READY');
  });

  it('a passing assertion about the wrong candidate does not satisfy the current one', () => {
    const c = contract();
    const run = (digest: string) => ({
      runner: 'ci',
      command: ['npm', 'test'],
      exit_code: 0,
      operations: ['test:unit'],
      output_sha256: 'e'.repeat(64),
      provenance: { runner_id: 'ci-1', trusted: true, candidate_digest: digest },
    });
    const p = packet(c, {
      executions: [
        { ...run('f'.repeat(64)), counted: false, reason: 'bound to another candidate' },
        { ...run(D1), counted: true, reason: null },
      ],
    });
    const lead = buildLeadPacket({
      contract: c,
      packet: p,
      assessment: null,
      route: null,
      grants: [],
      outcome: 'lead-review',
    });
    // the wrong-candidate run is a limitation, never bound evidence
    expect(lead.evidence.filter((e) => e.kind === 'execution')).toHaveLength(1);
    expect(lead.limitations.join('\n')).toContain('not counted: bound to another candidate');
  });

  it('a ready hypothesis does not override permission denial, a hard stop, an expired lease, a conflicting owner, or a separately limited external operation', () => {
    const c = contract();
    const blocked: BlockedReport = {
      schema: 'gate-blocked/v1',
      failure: 'the payment sandbox is unreachable',
      evidence: ['src/pay.ts'],
      hypothesis: { text: 'the sandbox needs network access', verified: false },
      proposed_next_step: 'call the live payment API once',
      intended_validation: 'one paid call succeeds',
      operations: [],
    };
    const p = packet(c);
    const ready = evaluated(p, [
      {
        criterion_id: 'proposed_next_step',
        raw_label: 'CONFIRMED',
        distribution: { CONFIRMED: 0.99, REFUTED: 0.01 },
        requested_evidence: [],
      },
    ]);
    const routeWith = (authority: ReturnType<typeof ownerAuthority>, report: BlockedReport = blocked) =>
      decideRoute({
        ...input({ contract: c, packet: p, assessment: ready }),
        blocked: report,
        exact: exactChecks({ contract: c, packet: p, authority, now: NOW, blocked: report }),
      });
    const owner = ownerAuthority(c.owner);
    // the baseline: a supported step is only a recommendation for the enforcer
    expect(routeWith(owner).route).toBe('CONTINUATION_ELIGIBLE');
    expect(routeWith({ ...owner, hard_stop: 'incident freeze' }).route).toBe('STOP');
    expect(routeWith({ ...owner, lease_expires_at: '2026-11-30T11:59:59Z' }).route).toBe('STOP');
    expect(routeWith({ ...owner, actor: 'someone-else' }).route).toBe('STOP');
    const denied = { ...blocked, operations: ['payments:live'] };
    expect(routeWith({ ...owner, denied_operations: ['payments:live'] }, denied).route).toBe('STOP');
    // an external operation the contract limits separately: never eligible, whatever the model says
    const limited = routeWith(owner, { ...blocked, operations: ['network'] });
    expect(limited.route).toBe('LEAD_REVIEW');
    expect(limited.reasons.map((r) => r.code)).toEqual(['prohibited_operation']);
  });

  it('a BLOCKED report is never REVIEW_READY: an unsupported proposed step goes to the lead', () => {
    const c = contract();
    const p = packet(c);
    const blocked: BlockedReport = {
      schema: 'gate-blocked/v1',
      failure: 'f',
      evidence: [],
      hypothesis: { text: 'h', verified: false },
      proposed_next_step: 'retry with a stub',
      intended_validation: 'unit test',
      operations: [],
    };
    const at = (pc: number) =>
      decideRoute({
        ...input({ contract: c, packet: p }),
        blocked,
        assessment: evaluated(p, [
          {
            criterion_id: 'proposed_next_step',
            raw_label: pc >= 0.8 ? 'CONFIRMED' : 'INSUFFICIENT',
            distribution: { CONFIRMED: pc, INSUFFICIENT: 1 - pc },
            requested_evidence: [],
          },
        ]),
      });
    expect(at(0.3)).toMatchObject({ route: 'LEAD_REVIEW', obligations: [] });
    expect(at(0.3).reasons.map((r) => r.code)).toEqual(['proposed_step_unsupported']);
    expect(at(0.95).route).toBe('CONTINUATION_ELIGIBLE');
    expect(at(0.95).obligations).toEqual([{ criterion_id: 'proposed_next_step', evidence: [] }]);
  });

  for (const kind of ['timeout', 'no-key', 'unavailable', 'invalid-data'] as const) {
    it(`a hard stop or invalid authority remains a stop regardless of evaluator availability (${kind})`, () => {
      const c = contract();
      const p = packet(c);
      for (const authority of [
        { ...ownerAuthority(c.owner), hard_stop: 'halt' },
        ownerAuthority('not-the-owner'),
      ]) {
        const exact = exactChecks({ contract: c, packet: p, authority, now: NOW });
        const d = decideRoute(
          input({ contract: c, packet: p, exact, assessment: failed(p, { kind, detail: 'x' }) }),
        );
        expect(d.route).toBe('STOP');
      }
    });
  }
});
