/**
 * The fence's lexer against Lean 4's own lexical rules: a generator builds Lean text from pieces
 * whose classification follows Lean (code tokens, identifiers with primes and guillemets, line,
 * nested block, doc and module-doc comments, plain, escaped, interpolated and raw strings, char
 * literals), and `leanSegments` must give the text back exactly with every piece classified as
 * the generator made it. Plus the hand-picked cases where the old lexer disagreed with Lean.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractLeanHeaders } from '../../src/fence/index.js';
import { type LeanSegmentKind, leanSegments } from '../../src/fence/lean-lexer.js';

const SEED = 20_261_206;

interface Piece {
  readonly kind: Exclude<LeanSegmentKind, 'whitespace'>;
  readonly text: string;
}

const code = (text: string): Piece => ({ kind: 'code', text });

/** Identifiers: primes, `!`/`?`, subscripts, dotted, guillemets (any text but `»`, dots too). */
const identifier = fc
  .tuple(
    fc.constantFrom('h', 'x', 'add_zero', 'α', 'Foo.bar', 'x₁', 'a_1', 'ih', 'r', 'f', 's'),
    fc.constantFrom('', "'", "''", '!', '?', "'₂"),
  )
  .map(([a, b]) => a + b)
  .filter((x) => !['s!', 'm!', 'f!'].includes(x));
const guillemet = fc
  .array(fc.constantFrom('a', ' ', '.', '"', "'", '-', '/', '{', '}', '--', '/-', '-/', '\n', 'theorem'), {
    maxLength: 5,
  })
  .map((xs) => `«${xs.join('')}»`);
const symbol = fc.constantFrom(
  ':=',
  '(',
  ')',
  '+',
  '→',
  '∀',
  ',',
  ':',
  '=',
  '|',
  '⟨',
  '⟩',
  '[',
  ']',
  '@[',
  '.',
);
const number = fc.constantFrom('0', '42', '3.14', '0x1F');
const keyword = fc.constantFrom('theorem', 'lemma', 'def', 'by', 'where', 'instance', 'in', '#exit', '#eval');
const codePiece: fc.Arbitrary<Piece> = fc.oneof(identifier, guillemet, symbol, number, keyword).map(code);

/**
 * Comment body atoms: none starts or ends with `-` or `/` except the two-character atoms that
 * cannot form `/-` or `-/` with a neighbour, so nesting happens only through `nested`.
 */
const bodyAtom = fc.constantFrom(
  'x',
  ' ',
  '"',
  "'",
  '{',
  '}',
  '\n',
  '«',
  '»',
  '- ',
  '/ ',
  '-- ',
  'theorem t : False',
  ':=',
  '#exit',
);
const commentBody: fc.Arbitrary<string> = fc.letrec<{ body: string; nested: string }>((tie) => ({
  body: fc
    .array(fc.oneof({ weight: 4, arbitrary: bodyAtom }, { weight: 1, arbitrary: tie('nested') }), {
      maxLength: 6,
    })
    .map((xs) => xs.join('')),
  nested: tie('body').map((b) => `/-${b}-/`),
})).body;

const lineComment: fc.Arbitrary<Piece> = fc
  .array(fc.constantFrom('x', ' ', '-/', '/-', '"', "'", '{', '»', '/--/', 'theorem'), { maxLength: 5 })
  .map((xs) => ({ kind: 'line-comment', text: `--${xs.join('')}` }));
/** A plain comment: Lean skips the character after `/-` unread (anything but `-` and `!`). */
const blockComment: fc.Arbitrary<Piece> = fc
  .tuple(fc.constantFrom(' ', '\n', '/', 'x', '"', '*'), commentBody)
  .map(([skipped, body]) => ({ kind: 'block-comment', text: `/-${skipped}${body}-/` }));
/** `/--` then a body: `/--/ …` opens a doc comment (the case the old lexer closed at once). */
const docComment: fc.Arbitrary<Piece> = fc
  .tuple(fc.constantFrom('', '/', '/ ', ' '), commentBody)
  .map(([lead, body]) => ({ kind: 'doc-comment', text: `/--${lead}${lead === '/' ? ' ' : ''}${body}-/` }));
const moduleDoc: fc.Arbitrary<Piece> = fc
  .tuple(fc.constantFrom('', '/ ', ' '), commentBody)
  .map(([lead, body]) => ({ kind: 'module-doc', text: `/-!${lead}${body}-/` }));

const stringAtom = fc.constantFrom(
  'a',
  ' ',
  '\\"',
  '\\\\',
  '\\n',
  '\\x41',
  '\\u03b1',
  "'",
  '-- ',
  '/-',
  '-/',
  '\n',
  'theorem t : False := sorry',
  '«',
);
const plainString = fc
  .array(fc.oneof(stringAtom, fc.constantFrom('{', '}')), { maxLength: 6 })
  .map((xs) => `"${xs.join('')}"`);
/** An interpolated string: `{…}` holds code, strings with braces, chars, comments, nested braces. */
const interpolated: fc.Arbitrary<string> = fc.letrec<{ str: string; hole: string }>((tie) => ({
  str: fc
    .array(fc.oneof({ weight: 3, arbitrary: stringAtom }, { weight: 1, arbitrary: tie('hole') }), {
      maxLength: 4,
    })
    .map((xs) => `"${xs.join('')}"`),
  hole: fc
    .array(
      fc.oneof(
        fc.constantFrom(
          ' x ',
          "h'",
          "x''",
          '"}"',
          '"{"',
          "'}'",
          "'\"'",
          '{ a := 1 }',
          ' -- }"\n',
          ' /- } -/ ',
          '«}»',
        ),
        fc.constantFrom('s!', 'm!', 'f!').chain((p) => tie('str').map((s) => `${p}${s}`)),
      ),
      { maxLength: 3 },
    )
    .map((xs) => `{${xs.join(' ')}}`),
})).str;
const rawString = fc
  .tuple(
    fc.integer({ min: 0, max: 3 }),
    fc.array(fc.constantFrom('a', ' ', '\\', '{', '\n', '-- ', '/-'), { maxLength: 5 }),
  )
  .chain(([k, xs]) => {
    const hashes = '#'.repeat(k);
    // inside r#"…"#, a `"` not followed by the hashes is content
    const body = k > 0 ? fc.constantFrom(...['', '"', '"x', `"${'#'.repeat(k - 1)}x`]) : fc.constant('');
    return body.map((q) => `r${hashes}"${xs.join('')}${q}"${hashes}`);
  });
const charLit = fc.constantFrom(
  "'a'",
  "'\\''",
  "'\\n'",
  "'\\\\'",
  "'\"'",
  "'\\x41'",
  "'α'",
  "'{'",
  "'-'",
  "'/'",
);

/** A sequence of pieces with the whitespace between them (a line comment always ends its line). */
const text: fc.Arbitrary<{ pieces: Piece[]; src: string }> = fc
  .array(
    fc.oneof(
      { weight: 5, arbitrary: codePiece.map((p) => [p]) },
      { weight: 2, arbitrary: lineComment.map((p) => [p]) },
      { weight: 2, arbitrary: blockComment.map((p) => [p]) },
      { weight: 2, arbitrary: docComment.map((p) => [p]) },
      { weight: 1, arbitrary: moduleDoc.map((p) => [p]) },
      { weight: 2, arbitrary: plainString.map((s): Piece[] => [{ kind: 'string', text: s }]) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom('s!', 'm!', 'f!', 'throwError'), fc.constantFrom('', ' '), interpolated)
          .map(([p, gap, s]): Piece[] => [code(p), { kind: 'string', text: gap === '' ? s : ` ${s}` }]),
      },
      { weight: 2, arbitrary: rawString.map((s): Piece[] => [{ kind: 'string', text: s }]) },
      { weight: 2, arbitrary: charLit.map((s): Piece[] => [{ kind: 'char', text: s }]) },
    ),
    { maxLength: 12 },
  )
  .chain((groups) =>
    fc
      .array(fc.constantFrom(' ', '\n', '  '), { minLength: groups.length, maxLength: groups.length })
      .map((gaps) => {
        const pieces: Piece[] = [];
        let src = '';
        groups.forEach((g, i) => {
          for (const p of g) {
            // `throwError "…"`: the gap belongs between the two pieces, as whitespace
            if (p.text.startsWith(' ')) {
              src += ' ';
              pieces.push({ ...p, text: p.text.slice(1) });
              src += p.text.slice(1);
            } else {
              pieces.push(p);
              src += p.text;
            }
          }
          const last = g[g.length - 1] as Piece;
          src += last.kind === 'line-comment' ? '\n' : (gaps[i] as string);
        });
        return { pieces, src };
      }),
  );

describe('leanSegments follows Lean 4 lexical rules', () => {
  it('gives generated Lean text back exactly, every piece classified as generated', () => {
    fc.assert(
      fc.property(text, ({ pieces, src }) => {
        const r = leanSegments(src);
        if (!r.ok) throw new Error(`${r.error} in ${JSON.stringify(src)}`);
        expect(r.segments.map((s) => src.slice(s.start, s.end)).join('')).toBe(src);
        for (let i = 1; i < r.segments.length; i++) expect(r.segments[i]?.start).toBe(r.segments[i - 1]?.end);
        const got = r.segments
          .filter((s) => s.kind !== 'whitespace')
          .map((s) => ({ kind: s.kind, text: src.slice(s.start, s.end) }));
        expect(got).toEqual(pieces);
        for (const s of r.segments)
          if (s.kind === 'whitespace') expect(src.slice(s.start, s.end)).toMatch(/^[ \n]*$/);
      }),
      { seed: SEED, numRuns: 600 },
    );
  });

  it('opens a doc comment at `/--/` (Lean does), so a theorem after it is commented out', () => {
    const src = '/--/ theorem t (n : Nat) : n + 0 = n := by sorry -/\ntheorem t : True := trivial';
    const r = leanSegments(src);
    expect(r.ok && r.segments.filter((s) => s.kind !== 'whitespace').map((s) => s.kind)).toEqual([
      'doc-comment',
      ...Array(6).fill('code'),
    ]);
    const h = extractLeanHeaders(src);
    expect(h.ok && h.headers).toEqual([{ name: 't', kind: 'theorem', signature: ': True', line: 2 }]);
  });

  it('skips the character after a plain `/-` unread, as Lean does: `/-/- a -/` is one comment', () => {
    const r = extractLeanHeaders('/-/- a -/ theorem t : True := trivial');
    expect(r.ok && r.headers.map((h) => h.name)).toEqual(['t']);
  });

  it('reads `foo!"…"` as a plain string: braces there open no interpolation hiding code', () => {
    const src = 'def x := bar!"{"\ntheorem t : True := trivial\ndef y := "}"';
    const r = extractLeanHeaders(src);
    expect(r.ok && r.headers.map((h) => h.name)).toEqual(['x', 't', 'y']);
  });

  it('reads comments and primed identifiers inside an interpolation as Lean does', () => {
    const src = 'def m := s!"{h\' -- }"\n}"\ntheorem t : True := trivial';
    const r = extractLeanHeaders(src);
    expect(r.ok && r.headers.map((h) => h.name)).toEqual(['m', 't']);
  });

  it('reads `s! "…"` (a space after s!) and `throwError "…"` as interpolated', () => {
    const r = leanSegments('s! "a{"}"}b" throwError "{x}"');
    expect(r.ok && r.segments.filter((s) => s.kind !== 'whitespace').map((s) => s.kind)).toEqual([
      'code',
      'string',
      'code',
      'string',
    ]);
  });
});
