import { describe, expect, it } from 'vitest';
import { blockerClassFromPhrase, blockerSignature, normalizeErrorText } from '../../src/contract/index.js';

describe('blockerSignature', () => {
  it('keeps a short error text verbatim as file:line:text', () => {
    expect(blockerSignature('Foo.lean', 42, 'unknown identifier')).toBe('Foo.lean:42:unknown identifier');
  });

  it('is stable across volatile metavariable numbers and whitespace', () => {
    const a = blockerSignature('Foo.lean', 3, 'type mismatch  ?m.17\nextra context 1');
    const b = blockerSignature('Foo.lean', 3, ' type mismatch ?m.942\nother context');
    expect(a).toBe(b);
  });

  it('hashes long texts into a fixed-length key', () => {
    const long = `failed to synthesize ${'Decidable '.repeat(20)}`;
    const s = blockerSignature('Foo.lean', 9, long);
    expect(s).toMatch(/^Foo\.lean:9:h-[0-9a-f]{12}$/);
    expect(blockerSignature('Foo.lean', 9, long)).toBe(s);
    expect(blockerSignature('Foo.lean', 9, `${long}x`)).not.toBe(s);
  });

  it('distinguishes file and line', () => {
    expect(blockerSignature('A.lean', 1, 'e')).not.toBe(blockerSignature('A.lean', 2, 'e'));
  });

  it('normalizes error text', () => {
    expect(normalizeErrorText('\n\n  a   b _uniq.33 \nc')).toBe('a b _uniq');
  });
});

describe('blockerClassFromPhrase', () => {
  it.each([
    ['Missing library lemma', 'missing-library-lemma'],
    ['needs helper lemma', 'needs-helper-lemma'],
    ['Definitional equality', 'definitional-equality'],
    ['typeclass/coercion/elaboration', 'typeclass-coercion-elaboration'],
    ['missing intro/constructor cases', 'missing-intro-constructor-cases'],
    ['arithmetic', 'arithmetic'],
    ['missing-rewrite', 'missing-rewrite'],
  ])('%s → %s', (phrase, cls) => {
    expect(blockerClassFromPhrase(phrase)).toBe(cls);
  });
  it('returns null for an unknown phrase', () => {
    expect(blockerClassFromPhrase('bad luck')).toBeNull();
  });
});
