/**
 * The statement policy: resolution of --statement-policy (defaults, the startup warning, an
 * explicit flag wins, a bad value is a usage error) and the redraft table (every policy × session-
 * generated or user-authored × explicit or default preserve), with adjacent naming.
 */
import { describe, expect, it } from 'vitest';
import {
  adjacentName,
  DEFAULT_POLICY_WARNING,
  emptyProvenance,
  redraftAllowed,
  resolveStatementPolicy,
  type StatementPolicy,
  withDrafted,
} from '../../src/synthesis/index.js';

const FILE = '/p/Demo/A.lean';

describe('resolveStatementPolicy', () => {
  it.each([
    [undefined, false, { ok: true, policy: 'preserve', explicit: false, warnings: [] }],
    [
      undefined,
      true,
      { ok: true, policy: 'rewrite-generated-only', explicit: false, warnings: [DEFAULT_POLICY_WARNING] },
    ],
    ['preserve', true, { ok: true, policy: 'preserve', explicit: true, warnings: [] }],
    ['preserve', false, { ok: true, policy: 'preserve', explicit: true, warnings: [] }],
    ['adjacent-drafts', true, { ok: true, policy: 'adjacent-drafts', explicit: true, warnings: [] }],
    [
      'rewrite-generated-only',
      false,
      { ok: true, policy: 'rewrite-generated-only', explicit: true, warnings: [] },
    ],
  ] as const)('flag %s, formalize active %s', (flag, formalizeActive, expected) => {
    expect(resolveStatementPolicy({ flag, formalizeActive })).toEqual(expected);
  });

  it.each(['', 'Preserve', 'rewrite', 'preserve '])('%j is a usage error naming the choices', (flag) => {
    const r = resolveStatementPolicy({ flag, formalizeActive: true });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain('preserve, rewrite-generated-only, adjacent-drafts');
  });
});

describe('redraftAllowed', () => {
  const generated = withDrafted(emptyProvenance(), FILE, ['gen']);
  type Row = [StatementPolicy, 'gen' | 'user', boolean, ReturnType<typeof redraftAllowed>];
  const rows: Row[] = [
    [
      'preserve',
      'gen',
      false,
      { ok: false, halt: false, reason: 'statement policy preserve refuses to rewrite gen' },
    ],
    [
      'preserve',
      'gen',
      true,
      {
        ok: false,
        halt: true,
        reason: 'statement policy preserve (explicit) refuses to rewrite gen; the stuck restage halts',
      },
    ],
    [
      'preserve',
      'user',
      false,
      { ok: false, halt: false, reason: 'statement policy preserve refuses to rewrite user' },
    ],
    [
      'preserve',
      'user',
      true,
      {
        ok: false,
        halt: true,
        reason: 'statement policy preserve (explicit) refuses to rewrite user; the stuck restage halts',
      },
    ],
    ['rewrite-generated-only', 'gen', false, { ok: true, mode: 'replace', name: 'gen' }],
    [
      'rewrite-generated-only',
      'user',
      false,
      {
        ok: false,
        halt: false,
        reason: 'user is user-authored (not drafted in this session); no policy rewrites it',
      },
    ],
    ['adjacent-drafts', 'gen', false, { ok: true, mode: 'adjacent', name: 'gen_v2' }],
    [
      'adjacent-drafts',
      'user',
      false,
      {
        ok: false,
        halt: false,
        reason: 'user is user-authored (not drafted in this session); no policy rewrites it',
      },
    ],
  ];
  it.each(rows)(
    '%s, %s-authored statement, explicit preserve %s',
    (policy, name, explicitPreserve, expected) => {
      expect(redraftAllowed({ policy, provenance: generated, file: FILE, name, explicitPreserve })).toEqual(
        expected,
      );
    },
  );

  it('provenance is per file: the same name drafted into another file does not count', () => {
    expect(
      redraftAllowed({
        policy: 'rewrite-generated-only',
        provenance: generated,
        file: '/p/Demo/B.lean',
        name: 'gen',
        explicitPreserve: false,
      }).ok,
    ).toBe(false);
  });

  it('adjacent-drafts picks the next name the file does not already declare', () => {
    expect(
      redraftAllowed({
        policy: 'adjacent-drafts',
        provenance: generated,
        file: FILE,
        name: 'gen',
        explicitPreserve: false,
        taken: ['gen', 'gen_v2', 'gen_v3'],
      }),
    ).toEqual({ ok: true, mode: 'adjacent', name: 'gen_v4' });
  });
});

describe('adjacentName', () => {
  it.each([
    ['t', [], 't_v2'],
    ['t_v2', [], 't_v3'],
    ['t_v9', ['t_v10'], 't_v11'],
    ['t_v', [], 't_v_v2'],
    ['Foo.t', ['Foo.t_v2'], 'Foo.t_v3'],
  ] as const)('%s (taken %j) → %s', (name, taken, expected) => {
    expect(adjacentName(name, taken)).toBe(expected);
  });
});
