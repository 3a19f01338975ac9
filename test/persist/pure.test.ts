/**
 * Pure rules of run persistence: the store-verdict classifier and the failure-policy table,
 * compatibility (mode family, target semantics, containment), the drift report and token, and
 * set semantics of knowledge absorption.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import { buildDriftReport, sameBaselineIdentity } from '../../src/persist/drift-report.js';
import { decide, exitCodeOf } from '../../src/persist/failure-policy.js';
import { absorbPart, knowledgeFromDispatch, operationalErrorHandoff } from '../../src/persist/knowledge.js';
import { compatibleTarget, isInside, modeFamily, targetFile } from '../../src/persist/reuse-compat.js';
import { classifyStoreResult } from '../../src/persist/store-verdict.js';
import { dispatch } from './fixtures.js';

const ID = '20261130T100000Z-0123abcd';
const exp = { op: 'append' as const, runId: ID, expectedSeq: 2 };
const raw = (outcome: string, extra: Record<string, unknown> = {}) => ({
  schema: 'run-store-result/v1',
  outcome,
  run_id: ID,
  ...extra,
});

describe('failure-policy table', () => {
  it('maps every verdict to the spec action for mutations and finish', () => {
    const rows: [unknown, string, string, string][] = [
      [raw('committed', { seq: 2 }), 'continue', 'done', 'committed'],
      [raw('nothing_written', { code: 'journal_damaged' }), 'stop', 'done', 'refused:journal_damaged'],
      [raw('indeterminate', { seq: 2, step: 'fsync' }), 'stop', 'done', 'indeterminate'],
      [raw('committed', { seq: 3 }), 'stop', 'done', 'malformed'],
    ];
    for (const [r, mutation, finish, outcome] of rows) {
      const m = decide('mutation', classifyStoreResult(r, exp));
      const f = decide('finish', classifyStoreResult(r, { ...exp, op: 'set-handoff' }));
      expect([m.action, m.outcome]).toEqual([mutation, outcome]);
      expect([f.action, f.outcome]).toEqual([finish, outcome]);
      expect(f.stored).toBe(outcome === 'committed');
    }
    expect(
      decide('finish', classifyStoreResult(raw('journal_only', { seq: 2 }), { ...exp, op: 'set-handoff' })),
    ).toMatchObject({ action: 'done', stored: true, warning: 'handoff cache not confirmed' });
    expect(
      decide('mutation', classifyStoreResult(raw('nothing_written', { code: 'busy' }), exp)).persistence,
    ).toBe('not-stored');
    expect(decide('mutation', classifyStoreResult(raw('indeterminate'), exp)).persistence).toBe(
      'unconfirmed',
    );
  });

  it('an exit code contradicting the outcome is malformed', () => {
    expect(classifyStoreResult(raw('committed', { seq: 2 }), { ...exp, exitCode: 6 }).kind).toBe('malformed');
    expect(classifyStoreResult(raw('committed', { seq: 2 }), { ...exp, exitCode: 0 }).kind).toBe('committed');
  });

  it('never yields committed for anything but an exact, well-formed committed result (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (x) => {
        const v = classifyStoreResult(x, exp);
        if (v.kind === 'committed') {
          const r = x as Record<string, unknown>;
          return r.outcome === 'committed' && r.run_id === ID && r.seq === 2;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('exit codes', () => {
    expect(exitCodeOf({ action: 'continue' })).toBe(0);
    expect(exitCodeOf({ action: 'done', stored: true })).toBe(0);
    expect(exitCodeOf({ action: 'done', stored: false })).toBe(5);
    expect(exitCodeOf({ action: 'stop' })).toBe(5);
    expect(exitCodeOf({ action: 'startup-error' })).toBe(3);
    expect(exitCodeOf({ action: 'usage' })).toBe(2);
    expect(exitCodeOf({ action: 'preview' })).toBe(0);
  });
});

describe('compatibility', () => {
  it('mode families, location suffixes and whole-component containment', () => {
    expect(modeFamily('prove')).toBe(modeFamily('autoprove'));
    expect(modeFamily('golf')).not.toBe(modeFamily('prove'));
    expect(targetFile('Foo.lean:42')).toBe('Foo.lean');
    expect(targetFile('C:Foo.lean')).toBe('C:Foo.lean');
    expect(isInside('/p/a/b', '/p/a')).toBe(true);
    expect(isInside('/p/ab', '/p/a')).toBe(false);
    expect(compatibleTarget({ target: 'A/Foo.lean:42' }, { target: 'A/Foo.lean', scope: 'file' }, '/p')).toBe(
      true,
    );
    expect(
      compatibleTarget({ target: 'A/Foo.lean:42' }, { target: 'A/Foo.lean:7', scope: 'file' }, '/p'),
    ).toBe(true);
    expect(compatibleTarget({ target: 'A/Foo.lean' }, { target: 'A/Foo.lea', scope: 'file' }, '/p')).toBe(
      false,
    );
    expect(compatibleTarget({ target: 'A/B/Foo.lean:1' }, { target: 'A', scope: 'changed' }, '/p')).toBe(
      true,
    );
    expect(compatibleTarget({ target: 'AB/Foo.lean' }, { target: 'A', scope: 'project' }, '/p')).toBe(false);
    expect(compatibleTarget({ target: 'Foo.lean:42' }, { target: 'Foo.lean:43', scope: 'sorry' }, '/p')).toBe(
      false,
    );
  });
});

describe('drift report', () => {
  const base = (sha: string) => ({
    schema: 'file-baseline/v1' as const,
    files: [{ path: '/p/A', realpath: '/p/A', exists: true, sha256: sha, size: 1 }],
  });
  it('result order and a token bound to content', () => {
    const mk = (status: string | null, sha: string) =>
      buildDriftReport({
        prior_run: ID,
        prefix_digest: 'd',
        owned: ['/p/A'],
        checked:
          status === null ? new Map() : new Map([['/p/A', { status, detail: null, origin: `${ID}#1` }]]),
        current: base(sha),
      });
    expect(mk('unchanged', 'a'.repeat(64)).result).toBe('match');
    expect(mk('modified', 'a'.repeat(64)).result).toBe('drift');
    expect(mk('error', 'a'.repeat(64)).result).toBe('error');
    expect(mk(null, 'a'.repeat(64)).result).toBe('uncovered');
    expect(mk('modified', 'a'.repeat(64)).approval_token).not.toBe(
      mk('modified', 'b'.repeat(64)).approval_token,
    );
    expect(mk('modified', 'a'.repeat(64)).approval_token).toBe(mk('modified', 'a'.repeat(64)).approval_token);
    expect(sameBaselineIdentity(base('a'.repeat(64)), base('a'.repeat(64)))).toBe(true);
    expect(
      sameBaselineIdentity(base('a'.repeat(64)), {
        ...base('a'.repeat(64)),
        files: [{ path: '/p/A', realpath: '/p/B', exists: true, sha256: 'a'.repeat(64), size: 1 }],
      }),
    ).toBe(false);
  });
});

describe('knowledge', () => {
  it('absorbs with set semantics and always yields a valid operational-error handoff', () => {
    const part = {
      attempted_tools: ['simp'],
      best_candidates: [{ candidate: 'c', outcome: 'o' }],
      evidence: { attempts: [{ snippet: 's', result: 'r' }] },
      artifacts: [{ kind: 'unified-diff', content: 'x' }],
    };
    const k = absorbPart(absorbPart(knowledgeFromDispatch(dispatch()), part), part);
    expect(k.accumulated.attempted_tools).toEqual(['simp']);
    expect(k.accumulated.best_candidates).toHaveLength(1);
    expect(k.accumulated.evidence.attempts).toHaveLength(1);
    expect(k.accumulated.artifacts).toHaveLength(1);
    const h = operationalErrorHandoff(k, 'run-store busy: locked');
    expect(validateHandoff(h).ok).toBe(true);
    expect(h).toMatchObject({ status: 'stopped', stop_reason: 'operational-error', next_action: 'stop' });
  });
});
