import { describe, expect, it } from 'vitest';
import { describeViolation, type FenceViolation, MAX_DESCRIBED_SIGNATURE } from '../../src/fence/index.js';

const base = { declaration: 'Foo.t', kind: 'theorem', line: 3 } as const;

describe('describeViolation', () => {
  it('describes every change in one line naming file, kind and declaration', () => {
    const cases: [FenceViolation, string][] = [
      [
        { ...base, change: 'changed', before: ': P', after: ': True' },
        'header fence: F.lean: theorem Foo.t: statement changed (`: P` → `: True`)',
      ],
      [
        { ...base, change: 'changed', before: ': P', after: ': P', kindAfter: 'def' },
        'header fence: F.lean: theorem Foo.t: changed to def (`: P` → `: P`)',
      ],
      [
        {
          ...base,
          change: 'added-hypothesis',
          before: ': P',
          after: '(h : P) (k : Q) : P',
          added: ['(h : P)', '(k : Q)'],
        },
        'header fence: F.lean: theorem Foo.t: hypotheses added `(h : P)` `(k : Q)` (`: P` → `(h : P) (k : Q) : P`)',
      ],
      [
        { ...base, change: 'renamed', before: ': P', after: ': P', renamedTo: 'Foo.t2' },
        'header fence: F.lean: theorem Foo.t: renamed to Foo.t2 (`: P`)',
      ],
      [
        { ...base, change: 'deleted', before: ': P', after: null },
        'header fence: F.lean: theorem Foo.t: declaration deleted (was `: P`)',
      ],
      [
        { declaration: 'ax', kind: 'axiom', change: 'added-axiom', before: null, after: ': False', line: 1 },
        'header fence: F.lean: axiom ax: axiom added (`: False`): a new axiom can prove anything, and no grant allows one',
      ],
      [
        {
          declaration: 'variable@1',
          kind: 'variable',
          change: 'added-context',
          before: null,
          after: '(h : P)',
          line: 1,
        },
        'header fence: F.lean: variable variable@1: context command added (`(h : P)`)',
      ],
      [
        {
          declaration: '',
          kind: '',
          change: 'unparseable',
          before: null,
          after: null,
          line: 0,
          detail: 'bad',
        },
        'header fence: F.lean: headers unreadable after the worker returned (bad)',
      ],
    ];
    for (const [v, text] of cases) expect(describeViolation('F.lean', v)).toBe(text);
  });

  it('bounds long signatures with an ellipsis', () => {
    const long = `: ${'a + '.repeat(100)}a`;
    const text = describeViolation('F.lean', { ...base, change: 'deleted', before: long, after: null });
    const quoted = text.slice(text.indexOf('`') + 1, text.lastIndexOf('`'));
    expect(Array.from(quoted)).toHaveLength(MAX_DESCRIBED_SIGNATURE);
    expect(quoted.endsWith('…')).toBe(true);
    expect(long.startsWith(quoted.slice(0, -1))).toBe(true);
  });

  it('escapes control and bidi characters from worker-written text', () => {
    const text = describeViolation('F\n.lean', {
      ...base,
      declaration: 't\u001b[2J',
      change: 'changed',
      before: ': P\u202e',
      after: ': \u0007True',
    });
    expect(text).toBe(
      'header fence: F\\u{a}.lean: theorem t\\u{1b}[2J: statement changed (`: P\\u{202e}` → `: \\u{7}True`)',
    );
    expect(text).not.toMatch(/[\u0000-\u001f\u202e]/);
  });

  it('escapes zero-width and invisible format characters, so look-alike names differ visibly', () => {
    const invisible = [
      '\u200b',
      '\u200c',
      '\u200d',
      '\u200e',
      '\u200f',
      '\u2060',
      '\u2064',
      '\u2066',
      '\u2069',
      '\ufeff',
    ];
    for (const ch of invisible) {
      const text = describeViolation('F.lean', {
        ...base,
        change: 'renamed',
        declaration: 't',
        renamedTo: `t${ch}`,
        before: ': True',
        after: ': True',
      });
      expect(text).toBe(
        `header fence: F.lean: theorem t: renamed to t\\u{${(ch.codePointAt(0) as number).toString(16)}} (\`: True\`)`,
      );
    }
    const text = describeViolation('F.lean', {
      ...base,
      change: 'deleted',
      before: ': a\u200bb',
      after: null,
    });
    expect(text).toContain('`: a\\u{200b}b`');
  });
});
