import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { protocolErrorHandoff, validateHandoff } from '../../src/contract/index.js';
import { canonicalDispatch } from './fixtures.js';

describe('protocolErrorHandoff', () => {
  it('echoes the identity it can parse and names the defect', () => {
    const d = { ...canonicalDispatch(), budget: 'lots' };
    const h = protocolErrorHandoff(d, 'budget: expected object');
    expect(h).toMatchObject({
      target: d.target,
      scope: 'sorry',
      mode: 'prove',
      stop_reason: 'protocol-error',
      stop_detail: 'budget: expected object',
    });
    expect(h.files_owned).toEqual(d.owned_files);
    expect(h.file_baseline).toEqual(d.file_baseline);
    expect(validateHandoff(h).ok).toBe(true);
  });

  it('parses text input and nulls what is unparseable', () => {
    const h = protocolErrorHandoff('{"target": 7, "scope": "file", "mode": "nope"}', 'bad');
    expect(h).toMatchObject({ target: null, scope: 'file', mode: null, file_baseline: null });
    expect(validateHandoff(h).ok).toBe(true);
    const g = protocolErrorHandoff('{not json', 'not JSON');
    expect(g).toMatchObject({ target: null, scope: null, mode: null });
    expect(validateHandoff(g).ok).toBe(true);
  });

  it('drops a baseline that does not cover the echoed owned files', () => {
    const d = canonicalDispatch();
    d.owned_files.push('/repo/Other.lean');
    const h = protocolErrorHandoff(d, 'coverage');
    expect(h.file_baseline).toBeNull();
    expect(validateHandoff(h).ok).toBe(true);
  });

  it('never produces an empty stop_detail', () => {
    expect(protocolErrorHandoff(null, '   ').stop_detail).toBe('malformed dispatch');
  });

  it('always validates, for arbitrary input (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.jsonValue()), fc.string(), (raw, detail) => {
        expect(validateHandoff(protocolErrorHandoff(raw, detail)).ok).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('always validates for dispatch-shaped input with arbitrary field values (property)', () => {
    const keys = ['target', 'scope', 'mode', 'owned_files', 'file_baseline'] as const;
    fc.assert(
      fc.property(
        fc.record(
          Object.fromEntries(
            keys.map((k) => [k, fc.oneof(fc.anything(), fc.constantFrom('sorry', 'prove', 'x'))]),
          ),
        ),
        (partial) => {
          const h = protocolErrorHandoff({ ...canonicalDispatch(), ...partial }, 'mutated');
          expect(validateHandoff(h).ok).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('recoverObjectPrefix', () => {
  it('recovers the complete members of a truncated object', async () => {
    const { recoverObjectPrefix } = await import('../../src/contract/index.js');
    expect(recoverObjectPrefix('{"target": "A.lean", "scope": "file", "mode": "pro')).toEqual({
      target: 'A.lean',
      scope: 'file',
    });
    expect(recoverObjectPrefix('{"a": {"b": [1, 2], "c": "x,y"}, "d": "q\\",}", "e"')).toEqual({
      a: { b: [1, 2], c: 'x,y' },
      d: 'q",}',
    });
    expect(recoverObjectPrefix('garbage {"a": 1}')).toBeUndefined();
    expect(recoverObjectPrefix('[1, 2')).toBeUndefined();
  });

  it('lets a truncated dispatch keep its identity in the protocol-error handoff', () => {
    const h = protocolErrorHandoff(
      '{"schema": "run-contract/v1", "target": "Foo.lean:3", "scope": "sorry", "mode": "prove", "owned_f',
      'truncated',
    );
    expect(h).toMatchObject({ target: 'Foo.lean:3', scope: 'sorry', mode: 'prove' });
    expect(validateHandoff(h).ok).toBe(true);
  });
});
