/**
 * Records: contract defaults and refusals, criterion-id stability across revisions, assessment
 * invariants, packets are frozen and content-addressed, executions count only when bound.
 */
import { describe, expect, it } from 'vitest';
import { globMatch } from '../../src/gate/globs.js';
import {
  AssessmentSchema,
  checkContractRevision,
  EvidencePacketSchema,
  TaskContractSchema,
} from '../../src/gate/index.js';
import { bindExecutions } from '../../src/gate/packet.js';
import { safeValidate } from '../../src/validation/index.js';
import { contract, D0, D1, failed, packet } from './fixtures.js';

const crit = (id: string, text: string, rev = 1, interpretation = 'confirmed-is-good') => ({
  id,
  text,
  text_revision: rev,
  required: true,
  interpretation,
});

describe('task contract', () => {
  it('applies the example profile and evaluator policy defaults', () => {
    const c = contract();
    expect(c.profile).toEqual({ ordinary_repairs: 1, gate_continuations: 1, lead_directed_attempts: 3 });
    expect(c.evaluator_policy).toEqual({ requests_per_packet: 1, retries: 0, deadline_ms: 2000 });
  });
  it('refuses a wider profile, retries, duplicate criterion ids and a commit-only candidate', () => {
    const base = { ...contract() } as Record<string, unknown>;
    const bad = (over: Record<string, unknown>) => safeValidate(TaskContractSchema, { ...base, ...over });
    expect(
      bad({ profile: { ordinary_repairs: 2, gate_continuations: 1, lead_directed_attempts: 3 } }).ok,
    ).toBe(false);
    expect(bad({ evaluator_policy: { deadline_ms: 10, retries: 1 } }).ok).toBe(false);
    const dup = bad({ criteria: [crit('a', 'x'), crit('a', 'y')] });
    expect(dup.ok ? [] : dup.issues.map((i) => i.code)).toContain('duplicate_criterion');
    expect(bad({ candidate: { commit: 'f'.repeat(40) } }).ok).toBe(false);
  });
});

describe('criterion-id stability across revisions', () => {
  const r1 = contract({ criteria: [crit('a', 'A'), crit('b', 'B')] });
  const codes = (next: ReturnType<typeof contract>, history = [r1]) => {
    const r = checkContractRevision(history, next);
    return r.ok ? [] : r.issues.map((i) => i.code);
  };
  it('accepts a text change with a bumped text_revision and a retirement', () => {
    expect(codes(contract({ revision: 2, criteria: [crit('a', 'A, reworded', 2)] }))).toEqual([]);
  });
  it('refuses a text change without a bump, and a bump without a change', () => {
    expect(codes(contract({ revision: 2, criteria: [crit('a', 'A2'), crit('b', 'B')] }))).toEqual([
      'text_changed_without_bump',
    ]);
    expect(codes(contract({ revision: 2, criteria: [crit('a', 'A', 2), crit('b', 'B')] }))).toEqual([
      'text_revision_without_change',
    ]);
  });
  it('refuses moving an id to another requirement (interpretation flip)', () => {
    expect(
      codes(
        contract({ revision: 2, criteria: [crit('a', 'A', 1, 'confirmed-is-violation'), crit('b', 'B')] }),
      ),
    ).toEqual(['interpretation_changed']);
  });
  it('refuses reusing a retired id', () => {
    const r2 = contract({ revision: 2, criteria: [crit('a', 'A')] });
    expect(
      codes(contract({ revision: 3, criteria: [crit('a', 'A'), crit('b', 'something else', 2)] }), [r1, r2]),
    ).toEqual(['id_reused']);
  });
  it('refuses skipped revisions and a widened profile', () => {
    const narrow = contract({
      profile: { ordinary_repairs: 0, gate_continuations: 1, lead_directed_attempts: 1 },
    });
    const wider = contract({
      revision: 3,
      profile: { ordinary_repairs: 1, gate_continuations: 1, lead_directed_attempts: 1 },
    });
    expect(codes(wider, [narrow]).sort()).toEqual(['profile_widened', 'revision_not_next']);
  });
});

describe('packets, executions and assessments', () => {
  it('a packet is deep-frozen and its id ignores the collection time', () => {
    const c = contract();
    const p1 = packet(c);
    const p2 = packet(c, { collectedAt: '2027-01-01T00:00:00.000Z' });
    expect(p1.packet_id).toBe(p2.packet_id);
    expect(Object.isFrozen(p1.changeset[0])).toBe(true);
    expect(safeValidate(EvidencePacketSchema, p1).ok).toBe(true);
    expect(packet(c, { claims: [{ criterion_id: null, text: 'x', verified: false }] }).packet_id).not.toBe(
      p1.packet_id,
    );
  });
  it('an execution counts only from a trusted runner bound to this candidate', () => {
    const candidate = { commit: null, tree_digest: D1 };
    const e = (trusted: boolean, digest: string | null) => ({
      runner: 'ci',
      command: ['npm', 'test'],
      exit_code: 0,
      provenance: { runner_id: 'ci-1', trusted, candidate_digest: digest },
    });
    const r = bindExecutions([e(true, D1), e(true, D0), e(false, D1), e(true, null)], candidate);
    expect(r.map((x) => x.counted)).toEqual([true, false, false, false]);
    expect(r.map((x) => x.reason)).toEqual([
      null,
      'bound to another candidate',
      'runner not trusted',
      'no candidate binding in provenance',
    ]);
  });
  it('worker claims stay claims (verified is always false)', () => {
    const c = contract();
    const raw = { ...packet(c), worker_claims: [{ criterion_id: null, text: 'tests pass', verified: true }] };
    expect(safeValidate(EvidencePacketSchema, raw).ok).toBe(false);
  });
  it('a failed assessment has no claims and is never EVALUATED', () => {
    const p = packet(contract());
    const a = failed(p, { kind: 'timeout', detail: 'x' });
    expect(a.status).toBe('NOT_EVALUATED');
    expect(safeValidate(AssessmentSchema, a).ok).toBe(true);
    expect(safeValidate(AssessmentSchema, { ...a, status: 'EVALUATED' }).ok).toBe(false);
    expect(safeValidate(AssessmentSchema, { ...a, status: 'INVALID' }).ok).toBe(false);
  });
  it('globs: ** spans directories, * stays in one segment, a trailing / is a subtree', () => {
    expect(globMatch('src/**', 'src/a/b.ts')).toBe(true);
    expect(globMatch('src/**/*.ts', 'src/b.ts')).toBe(true);
    expect(globMatch('src/*.ts', 'src/a/b.ts')).toBe(false);
    expect(globMatch('docs/', 'docs/x/y.md')).toBe(true);
    expect(globMatch('a.b', 'aXb')).toBe(false);
  });
});
