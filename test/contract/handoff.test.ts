import { describe, expect, it } from 'vitest';
import { type Handoff, validateHandoff } from '../../src/contract/index.js';
import { solvedHandoff, stoppedHandoff, stuckHandoff } from './fixtures.js';

function issueCodes(h: unknown): string[] {
  const r = validateHandoff(h);
  return r.ok ? [] : r.issues.map((i) => `${i.path}:${i.code}`);
}

describe('handoff record (run-contract/v1) conditional rules', () => {
  it('accepts a stuck, a solved and every stopped handoff', () => {
    expect(issueCodes(stuckHandoff())).toEqual([]);
    expect(issueCodes(solvedHandoff())).toEqual([]);
    for (const r of [
      'max-stuck',
      'max-cycles',
      'max-runtime',
      'user-stop',
      'queue-empty',
      'protocol-error',
      'operational-error',
    ] as const) {
      expect(issueCodes(stoppedHandoff(r)), r).toEqual([]);
    }
  });

  describe('blocker fields are non-null iff blocker-driven', () => {
    for (const f of ['blocker_kind', 'blocker_signature', 'new_evidence_required_for_rerun'] as const) {
      it(`${f}: required when stuck`, () => {
        expect(issueCodes({ ...stuckHandoff(), [f]: null })).toContain(`${f}:blocker_field_required`);
      });
      it(`${f}: required when stopped with max-stuck`, () => {
        expect(issueCodes({ ...stoppedHandoff('max-stuck'), [f]: null })).toContain(
          `${f}:blocker_field_required`,
        );
      });
      it(`${f}: forbidden when solved or a non-blocker stop`, () => {
        const value = f === 'blocker_kind' ? 'proof' : 'x';
        expect(issueCodes({ ...solvedHandoff(), [f]: value })).toContain(`${f}:blocker_field_forbidden`);
        expect(issueCodes({ ...stoppedHandoff('queue-empty'), [f]: value })).toContain(
          `${f}:blocker_field_forbidden`,
        );
      });
    }
    it('rejects a blank signature on a driven stop', () => {
      expect(issueCodes({ ...stuckHandoff(), blocker_signature: '  ' })).toContain(
        'blocker_signature:blocker_field_required',
      );
    });
  });

  describe('blocker_class iff blocker-driven and kind == proof', () => {
    it('required for a proof blocker', () => {
      expect(issueCodes({ ...stuckHandoff(), blocker_class: null })).toContain(
        'blocker_class:blocker_class_required',
      );
    });
    it('forbidden for a safety-guard blocker', () => {
      const h: Handoff = { ...stuckHandoff(), blocker_kind: 'safety-guard' };
      expect(issueCodes(h)).toContain('blocker_class:blocker_class_forbidden');
      expect(issueCodes({ ...h, blocker_class: null })).toEqual([]);
    });
    it('forbidden when not blocker-driven', () => {
      expect(issueCodes({ ...solvedHandoff(), blocker_class: 'arithmetic' })).toContain(
        'blocker_class:blocker_class_forbidden',
      );
    });
    it('must be a valid enum member', () => {
      expect(validateHandoff({ ...stuckHandoff(), blocker_class: 'vibes' }).ok).toBe(false);
    });
  });

  describe('stop_reason iff stopped', () => {
    it('required when stopped', () => {
      expect(issueCodes({ ...stoppedHandoff('user-stop'), stop_reason: null })).toContain(
        'stop_reason:stop_reason_required',
      );
    });
    it('forbidden when stuck or solved', () => {
      expect(issueCodes({ ...solvedHandoff(), stop_reason: 'user-stop' })).toContain(
        'stop_reason:stop_reason_forbidden',
      );
    });
  });

  describe('stop_detail non-empty iff protocol-error/operational-error', () => {
    it('required and non-empty for operational aborts', () => {
      expect(issueCodes({ ...stoppedHandoff('operational-error'), stop_detail: null })).toContain(
        'stop_detail:stop_detail_required',
      );
      expect(issueCodes({ ...stoppedHandoff('protocol-error'), stop_detail: '' })).toContain(
        'stop_detail:stop_detail_required',
      );
    });
    it('forbidden otherwise', () => {
      expect(issueCodes({ ...stoppedHandoff('max-cycles'), stop_detail: 'budget' })).toContain(
        'stop_detail:stop_detail_forbidden',
      );
    });
  });

  describe('identity and baseline null only for protocol-error', () => {
    for (const f of ['target', 'scope', 'mode', 'file_baseline'] as const) {
      it(`${f} null is accepted for protocol-error and refused otherwise`, () => {
        expect(issueCodes({ ...stoppedHandoff('protocol-error'), [f]: null })).toEqual([]);
        expect(issueCodes({ ...stoppedHandoff('operational-error'), [f]: null })).toContain(
          `${f}:identity_required`,
        );
        expect(issueCodes({ ...solvedHandoff(), [f]: null })).toContain(`${f}:identity_required`);
      });
    }
    it('present identity must still be valid for protocol-error', () => {
      expect(validateHandoff({ ...stoppedHandoff('protocol-error'), scope: 'galaxy' }).ok).toBe(false);
    });
  });

  it('requires the baseline to cover files_owned', () => {
    const h = solvedHandoff();
    h.files_owned = [...h.files_owned, '/repo/Mathlib/Other.lean'];
    expect(issueCodes(h)).toContain('file_baseline:baseline_not_covering');
    // a protocol-error stop may carry a partial baseline, as the reference accepts (issue 34 item 5)
    const p = stoppedHandoff('protocol-error');
    p.files_owned = [...p.files_owned, '/repo/Mathlib/Other.lean'];
    expect(p.file_baseline).not.toBeNull();
    expect(issueCodes(p)).not.toContain('file_baseline:baseline_not_covering');
    expect(issueCodes(p)).toEqual([]);
  });

  it('checks exact keys of nested records', () => {
    expect(
      validateHandoff({ ...solvedHandoff(), best_candidates: [{ candidate: 'x', outcome: 'y', z: 1 }] }).ok,
    ).toBe(false);
    expect(validateHandoff({ ...solvedHandoff(), artifacts: [{ kind: 'unified-diff' }] }).ok).toBe(false);
    const ev = { ...solvedHandoff().evidence } as Record<string, unknown>;
    delete ev.goal_delta;
    expect(validateHandoff({ ...solvedHandoff(), evidence: ev }).ok).toBe(false);
  });
});

describe('handoffFor', () => {
  it('echoes identity and custody and validates as a solved, patch-only answer', async () => {
    const { handoffFor } = await import('../../src/contract/index.js');
    const { canonicalDispatch } = await import('./fixtures.js');
    const d = canonicalDispatch();
    const h = handoffFor(d);
    expect(h).toMatchObject({
      target: d.target,
      scope: d.scope,
      mode: d.mode,
      status: 'solved',
      files_changed: [],
    });
    expect(h.files_owned).toEqual(d.owned_files);
    expect(h.files_owned).not.toBe(d.owned_files);
    expect(h.file_baseline).toEqual(d.file_baseline);
    expect(validateHandoff(h).ok).toBe(true);
    const stuck = handoffFor(d, {
      status: 'stuck',
      blocker_kind: 'proof',
      blocker_class: 'arithmetic',
      blocker_signature: 'A.lean:3:omega failed',
      new_evidence_required_for_rerun: 'a linear bound',
      next_action: 'stop',
    });
    expect(validateHandoff(stuck).ok).toBe(true);
  });
});
