/**
 * The pure rules of dynamic handoff: records validate without throwing, the context projection
 * keeps only included keys and never a redacted one (property-tested over generated contexts,
 * `__proto__` included), lease arithmetic on an injected clock, limits, the rerun guard on a
 * re-handoff, the authorization order and the journal fold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  authorize,
  emptySession,
  foldSession,
  leaseFor,
  leaseLive,
  projectContext,
  type RoutePolicy,
  requestDigest,
  type TransferRequest,
  transferRerun,
  validateRoutePolicy,
  validateTransferDecision,
  validateTransferRequest,
} from '../../src/transfer/index.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const POLICY: RoutePolicy = {
  schema: 'handoff-routes/v1',
  entry: 'triage',
  lease_seconds: 60,
  routes: [
    {
      from: 'triage',
      to: 'billing',
      context: { include: ['question', 'card'], redact: ['card'] },
      max_per_session: 1,
    },
    { from: 'billing', to: 'triage', context: { include: ['question'], redact: [] } },
  ],
};
const request = (over: Partial<TransferRequest> = {}): TransferRequest => ({
  schema: 'handoff-transfer/v1',
  session: 's1',
  request_id: 'r1',
  kind: 'transfer',
  from: 'triage',
  to: 'billing',
  reason: 'invoice',
  context: { question: 'why?', card: '4111' },
  blocker: null,
  evidence_delta: [],
  ...over,
});

describe('records', () => {
  it('validate without throwing, with named issues', () => {
    expect(validateRoutePolicy(POLICY).ok).toBe(true);
    for (const bad of [null, 42, 'x', [], { schema: 'handoff-routes/v1' }, { ...POLICY, lease_seconds: 0 }]) {
      expect(validateRoutePolicy(bad).ok).toBe(false);
    }
    const dup = validateRoutePolicy({ ...POLICY, routes: [...POLICY.routes, POLICY.routes[0]] });
    expect(dup.ok === false && dup.issues.some((i) => i.message.includes('duplicate route'))).toBe(true);
    const self = validateRoutePolicy({ ...POLICY, routes: [{ from: 'a', to: 'a' }] });
    expect(self.ok).toBe(false);
    expect(validateTransferRequest(request()).ok).toBe(true);
    const noTo = validateTransferRequest({ ...request(), to: undefined });
    expect(noTo.ok === false && noTo.issues[0]?.path).toBe('to');
    expect(validateTransferRequest({ ...request(), kind: 'return', to: undefined }).ok).toBe(true);
    expect(validateTransferRequest({ ...request(), extra: 1 }).ok).toBe(false);
    expect(validateTransferRequest({ ...request(), from: ' triage' }).ok).toBe(false);
    expect(validateTransferDecision({ outcome: 'granted' }).ok).toBe(false);
    // a deeply nested record is refused with one issue, never a stack overflow
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    expect(validateTransferRequest({ ...request(), context: { deep } }).ok).toBe(false);
  });
});

describe('context projection', () => {
  it('keeps included keys, drops redacted ones and names them', () => {
    const p = projectContext(
      { question: 'q', card: '4111', notes: 'n' },
      { include: ['question', 'card'], redact: ['card'] },
    );
    expect(p).toEqual({ context: { question: 'q' }, redacted: ['card'] });
    expect(JSON.stringify(p)).not.toContain('4111');
    // an own __proto__ key is copied as data, never as a prototype
    const ctx = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const q = projectContext(ctx, { include: ['__proto__', 'a'], redact: [] });
    expect(Object.keys(q.context)).toEqual(['__proto__', 'a']);
    expect((q.context as { polluted?: unknown }).polluted).toBeUndefined();
    // an inherited key is not forwarded
    expect(projectContext({}, { include: ['toString'], redact: [] }).context).toEqual({});
  });

  it('never forwards a redacted key or a key outside include (property, generated contexts)', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'card', 'ssn', '__proto__', 'constructor', 'toString', '');
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.jsonValue()),
        fc.array(key),
        fc.array(key),
        (context, include, redact) => {
          const filter = { include: include.filter((k) => k !== ''), redact: redact.filter((k) => k !== '') };
          const { context: out, redacted } = projectContext(context, filter);
          for (const k of Object.keys(out)) {
            expect(filter.include).toContain(k);
            expect(filter.redact).not.toContain(k);
            expect(out[k]).toEqual(context[k]);
          }
          for (const k of filter.include) {
            if (!filter.redact.includes(k) && Object.hasOwn(context, k))
              expect(Object.hasOwn(out, k)).toBe(true);
          }
          expect(redacted).toEqual(
            [...new Set(filter.redact.filter((k) => Object.hasOwn(context, k)))].sort(),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('lease', () => {
  it('lives strictly before its expiry, on the injected clock', () => {
    const l = leaseFor('billing', T0, 60);
    expect(l).toEqual({
      holder: 'billing',
      granted_at: '2026-01-01T00:00:00.000Z',
      expires_at: '2026-01-01T00:01:00.000Z',
    });
    expect(leaseLive(l, T0 + 59_999)).toBe(true);
    expect(leaseLive(l, T0 + 60_000)).toBe(false);
    expect(leaseLive(null, T0)).toBe(false);
  });
});

const OPEN_LINE = {
  schema: 'handoff-transfer-journal/v1' as const,
  session: 's1',
  seq: 1,
  at: new Date(T0).toISOString(),
  entry: { kind: 'open' as const, active: 'triage', lease: leaseFor('triage', T0, 60) },
};

/** The state of session s1 just opened (triage active, lease from T0). */
function open() {
  const r = foldSession('s1', [OPEN_LINE]);
  if (!r.ok) throw new Error('fold');
  return r.state;
}

describe('authorize', () => {
  it('checks open session, active agent, live lease, allowlist, limits, rerun guard — in that order', () => {
    const s = open();
    expect(authorize(POLICY, emptySession('s1'), request(), T0)).toMatchObject({
      ok: false,
      code: 'not_active',
    });
    expect(authorize(POLICY, s, request(), T0)).toMatchObject({ ok: true });
    expect(authorize(POLICY, s, request({ from: 'billing' }), T0)).toMatchObject({
      ok: false,
      code: 'not_active',
    });
    expect(authorize(POLICY, s, request(), T0 + 60_000)).toMatchObject({ ok: false, code: 'lease_expired' });
    expect(authorize(POLICY, s, request({ to: 'refunds' }), T0)).toMatchObject({
      ok: false,
      code: 'not_allowlisted',
    });
    const used = { ...s, route_counts: { 'triage\u0000billing': 1 } };
    expect(authorize(POLICY, used, request(), T0)).toMatchObject({ ok: false, code: 'limit_reached' });
    expect(authorize(POLICY, { ...s, status: 'revoked' }, request(), T0)).toMatchObject({
      ok: false,
      code: 'revoked',
    });
    expect(authorize(POLICY, s, request({ kind: 'return', to: undefined }), T0)).toEqual({
      ok: true,
      route: null,
    });
  });

  it('a re-handoff to the same agent on the same blocker needs new evidence (the rerun guard)', () => {
    const grants = [{ from: 'triage', to: 'billing', blocker: 'invoice-missing', request_id: 'r1' }];
    expect(
      transferRerun(grants, { to: 'billing', blocker: 'invoice-missing', evidence_delta: [] })?.forbidden,
    ).toBe(true);
    expect(
      transferRerun(grants, { to: 'billing', blocker: 'invoice-missing', evidence_delta: ['found it'] })
        ?.forbidden,
    ).toBe(false);
    expect(transferRerun(grants, { to: 'billing', blocker: 'other', evidence_delta: [] })?.forbidden).toBe(
      false,
    );
    expect(
      transferRerun(grants, { to: 'refunds', blocker: 'invoice-missing', evidence_delta: [] }),
    ).toBeNull();
    const s = { ...open(), grants };
    const policy = {
      ...POLICY,
      routes: [{ ...POLICY.routes[0], max_per_session: undefined }],
    } as RoutePolicy;
    expect(authorize(policy, s, request({ blocker: 'invoice-missing' }), T0)).toMatchObject({
      ok: false,
      code: 'rerun_forbidden',
    });
  });

  it('the request digest ignores context values (a redacted value is not journaled even hashed)', () => {
    expect(requestDigest(request({ context: { card: '4111' } }))).toBe(
      requestDigest(request({ context: { card: '5500' } })),
    );
    expect(requestDigest(request())).not.toBe(requestDigest(request({ to: 'triage' })));
  });
});

describe('fold', () => {
  it('refuses a journal out of sequence, of another session, or not opened first', () => {
    const line = OPEN_LINE;
    expect(foldSession('s1', [line]).ok).toBe(true);
    expect(foldSession('s1', [{ ...line, seq: 2 }])).toMatchObject({ ok: false, defect: { line: 1 } });
    expect(foldSession('s2', [line])).toMatchObject({ ok: false, defect: { why: 'another session' } });
    const end = { ...line, entry: { kind: 'end' as const, end: 'revoked' as const, by: 'x', reason: 'y' } };
    expect(foldSession('s1', [end])).toMatchObject({ ok: false });
    const folded = foldSession('s1', [line, { ...end, seq: 2 }]);
    expect(folded.ok && folded.state).toMatchObject({ status: 'revoked', active: null, lease: null });
  });
});
