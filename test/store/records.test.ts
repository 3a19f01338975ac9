import { describe, expect, it } from 'vitest';
import {
  formatCite,
  isRunId,
  makeRunId,
  parseCite,
  randomRunIdSuffix,
  validateRecord,
} from '../../src/store/index.js';
import { checkReplanCites, validateEventPayload } from '../../src/store/validate-payload.js';
import { batchReview, note, replan, stuckHandoff, stuckReview } from './fixtures.js';

const RUN = '20261130T100000Z-0a1b2c3d';
const v2 = { runId: RUN, eventSchema: 'run-store-event/v2' as const, nextSeq: 4 };
const v1 = { runId: RUN, eventSchema: 'run-store-event/v1' as const, nextSeq: 4 };

describe('run ids', () => {
  it('are the compact timestamp and 8 hex digits from the suffix source', () => {
    expect(makeRunId('2026-11-30T10:00:00Z', () => '0a1b2c3d')).toBe('20261130T100000Z-0a1b2c3d');
    expect(isRunId(makeRunId('2026-11-30T10:00:00Z'))).toBe(true);
    expect(makeRunId('2026-11-30T10:00:00Z')).toMatch(/^20261130T100000Z-[0-9a-f]{8}$/);
  });
  it('the default suffix is random: the same second gives different ids', () => {
    // nanoid hex: 32 random bits per id; 64 equal draws in a row would be a broken source
    const ids = new Set(Array.from({ length: 64 }, () => makeRunId('2026-11-30T10:00:00Z')));
    expect(ids.size).toBeGreaterThan(1);
    for (let i = 0; i < 64; i++) expect(randomRunIdSuffix()).toMatch(/^[0-9a-f]{8}$/);
  });
  it('refuse timestamps not in the exact form, and suffixes that are not 8 lower-case hex digits', () => {
    for (const bad of ['2026-11-30T10:00:00.000Z', '2026-11-30 10:00:00Z', '2026-02-30T10:00:00Z', '']) {
      expect(() => makeRunId(bad)).toThrow(RangeError);
    }
    for (const bad of ['0A1B2C3D', '0a1b2c3', '0a1b2c3d4', '../etc/x', '']) {
      expect(() => makeRunId('2026-11-30T10:00:00Z', () => bad)).toThrow(RangeError);
    }
  });
});

describe('cites', () => {
  it('parse and format round trip', () => {
    expect(parseCite(`${RUN}#12`)).toEqual({ run_id: RUN, seq: 12 });
    expect(parseCite(`${RUN}#manifest`)).toEqual({ run_id: RUN, seq: 'manifest' });
    expect(formatCite(RUN, 12)).toBe(`${RUN}#12`);
    expect(formatCite(RUN, 'manifest')).toBe(`${RUN}#manifest`);
  });
  it('reject malformed cites', () => {
    for (const bad of [
      `${RUN}#0`,
      `${RUN}#01`,
      `${RUN}#-1`,
      `${RUN}`,
      `../x#1`,
      `${RUN}#1 `,
      `${RUN.toUpperCase()}#1`,
    ]) {
      expect(parseCite(bad)).toBeNull();
    }
    expect(() => formatCite('../x', 1)).toThrow(RangeError);
    expect(() => formatCite(RUN, 0)).toThrow(RangeError);
  });
});

describe('payload validation', () => {
  it('accepts the six note kinds and rejects others', () => {
    for (const k of [
      'candidate',
      'failed-avenue',
      'search-result',
      'blocker-diagnosis',
      'definition-gap',
      'source-note',
    ]) {
      expect(validateEventPayload('note', note('x', k), v1).ok).toBe(true);
    }
    expect(validateEventPayload('note', note('x', 'critique'), v1)).toMatchObject({
      ok: false,
      code: 'invalid_payload',
    });
    expect(validateEventPayload('note', { kind: 'candidate', text: 'x' }, v1)).toMatchObject({ ok: false });
    expect(validateEventPayload('note', { ...note(), extra: 1 }, v1)).toMatchObject({ ok: false });
  });
  it('refuses v2 kinds in a v1 run and unknown kinds', () => {
    expect(validateEventPayload('review', batchReview(), v1)).toMatchObject({
      ok: false,
      code: 'kind_unsupported',
    });
    expect(validateEventPayload('replan', replan(), v1)).toMatchObject({
      ok: false,
      code: 'kind_unsupported',
    });
    expect(validateEventPayload('finish', {}, v2)).toMatchObject({ ok: false, code: 'kind_unsupported' });
  });
  it('checks review-record/v1 rules', () => {
    expect(validateEventPayload('review', batchReview(), v2).ok).toBe(true);
    expect(validateEventPayload('review', stuckReview(), v2).ok).toBe(true);
    const withError = { ...batchReview(), output: { error: 'boom' } };
    expect(validateRecord('review', withError).map((i) => i.code)).toContain('output_error');
    const skipped = { ...batchReview(), status: 'skipped', output: null, detail: '' };
    expect(validateRecord('review', skipped).map((i) => i.code)).toContain('detail_required');
    expect(validateRecord('review', { ...skipped, detail: 'no changes', source: 'none' })).toEqual([]);
    expect(validateRecord('review', { ...batchReview(), source: 'none' }).map((i) => i.code)).toContain(
      'source_none_not_skipped',
    );
    const r = stuckReview();
    const mismatched = { ...r, triage: { ...(r.triage as object), next_action: 'deep' } };
    expect(validateRecord('review', mismatched).map((i) => i.code)).toContain('triage_mismatch');
    const otherTarget = { ...r, mapped_handoff: { ...stuckHandoff(), target: 'Other.lean' } };
    expect(validateRecord('review', otherTarget).map((i) => i.code)).toContain('target_mismatch');
    const { mapped_handoff: _m, ...missing } = r;
    expect(validateRecord('review', missing).length).toBeGreaterThan(0);
    expect(validateRecord('review', { ...r, cycle: true }).length).toBeGreaterThan(0);
  });
  it('checks replan cites name this run and an earlier seq', () => {
    expect(validateEventPayload('replan', replan([`${RUN}#1`, `${RUN}#3`]), v2).ok).toBe(true);
    expect(checkReplanCites([`${RUN}#4`], RUN, 4).map((i) => i.code)).toEqual(['cite_not_earlier']);
    expect(checkReplanCites(['20261130T100000Z-ffffffff#1'], RUN, 4).map((i) => i.code)).toEqual([
      'cite_other_run',
    ]);
    expect(validateEventPayload('replan', replan([`${RUN}#manifest`]), v2)).toMatchObject({
      ok: false,
      code: 'invalid_payload',
    });
    expect(validateEventPayload('replan', replan([], 0), v2)).toMatchObject({ ok: false });
  });
});
