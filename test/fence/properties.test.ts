/**
 * Seeded properties over generated Lean files: proof-body edits, header reformatting and
 * attribute/modifier changes never violate the fence; changing any one signature token always
 * does, naming exactly that declaration.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareHeaders, type DeclarationHeader, extractLeanHeaders } from '../../src/fence/index.js';

const SEED = 20_260_901;

const BINDERS: readonly (readonly string[])[] = [
  ['(', 'n', ':', 'Nat', ')'],
  ['{', 'α', ':', 'Type', '}'],
  ['[', 'Inhabited', 'α', ']'],
  ['(', 'h', ':', 'n', '=', 'n', ')'],
  ['⦃', 'm', ':', 'Nat', '⦄'],
  ['(', 'xs', ':', 'List', 'α', ')'],
  ['(', 'k', ':', 'Nat', ':=', '3', ')'],
];

const TYPES: readonly (readonly string[])[] = [
  ['n', '+', '0', '=', 'n'],
  ['∀', 'x', ':', 'Nat', ',', 'x', '=', 'x'],
  ['True'],
  ['0', '≤', '|', 'a', '|', '+', '|', 'b', '|'],
  ['(', 'a', ',', 'b', ')', '=', '(', 'a', ',', 'b', ')'],
  ['"s := t"', '=', '"s := t"'],
  ['¬', 'False'],
  ['f', '(', 'g', 'x', ')', '=', 'xs.length'],
  ["'a'", '≠', "'='"],
];

const BODIES: readonly string[] = [
  'by sorry',
  'by simp',
  'rfl',
  'by\n  have h : n + 0 = n := by simp\n  exact h',
  'by\n  -- theorem fake : False := sorry\n  simp',
  'by\n  /- def bad := 1\n     /- nested lemma x : False -/ -/\n  trivial',
  'by\n  let s := "theorem x : False := sorry"\n  show True\n  trivial',
  'fun x => match x with\n  | 0 => rfl\n  | _ => rfl',
  'by\n  cases h with\n  | inl h => exact h\n  | inr h => exact h',
  '(by decide : True) ▸ rfl',
];

const SEPARATORS = [
  ' ',
  '  ',
  '\n    ',
  ' -- note: theorem\n    ',
  ' /- c := d -/ ',
  '\n  /- multi\n  line -/ ',
];
const PREFIXES = [
  '',
  '@[simp] ',
  '/-- Doc mentioning theorem and :=. -/\n',
  'private ',
  '@[simp,\n  norm_cast]\nprotected ',
];
const REPLACEMENTS = ['Nat', 'Int', '1', 'm', '+', '*', 'True', 'False', '≠', 'Bool'];

interface Decl {
  readonly kind: 'theorem' | 'lemma' | 'def' | 'example';
  readonly namespace: string | null;
  readonly binders: readonly (readonly string[])[];
  readonly type: readonly string[];
}

const arbDecl: fc.Arbitrary<Decl> = fc.record({
  kind: fc.constantFrom('theorem' as const, 'lemma' as const, 'def' as const, 'example' as const),
  namespace: fc.option(fc.constantFrom('A', 'B.C'), { nil: null }),
  binders: fc.array(fc.constantFrom(...BINDERS), { maxLength: 3 }),
  type: fc.constantFrom(...TYPES),
});

/** One rendering choice per declaration: separators between header tokens, a prefix, a body. */
interface Layout {
  readonly separators: readonly string[];
  readonly prefix: string;
  readonly body: string;
}

const arbLayout: fc.Arbitrary<Layout> = fc.record({
  separators: fc.array(fc.constantFrom(...SEPARATORS), { minLength: 40, maxLength: 40 }),
  prefix: fc.constantFrom(...PREFIXES),
  body: fc.constantFrom(...BODIES),
});

const nameOf = (i: number): string =>
  [`t${i}`, `foo_bar${i}`, `h${i}'`, `x${i}₁`, `«weird name ${i}»`][i % 5] as string;

function signatureTokens(d: Decl): string[] {
  return [...d.binders.flat(), ':', ...d.type];
}

function renderDecl(d: Decl, i: number, layout: Layout, tokens = signatureTokens(d)): string {
  const head = d.kind === 'example' ? [d.kind, ...tokens] : [d.kind, nameOf(i), ...tokens];
  let text = layout.prefix + (head[0] as string);
  for (let k = 1; k < head.length; k++)
    text += (layout.separators[k % layout.separators.length] as string) + head[k];
  text += ` := ${layout.body}\n`;
  return d.namespace === null ? text : `namespace ${d.namespace}\n${text}end ${d.namespace}\n`;
}

function renderFile(decls: readonly Decl[], layouts: readonly Layout[]): string {
  return `import Mathlib\n\nopen Nat\n\n${decls.map((d, i) => renderDecl(d, i, layouts[i] as Layout)).join('\n')}`;
}

function extract(text: string): readonly DeclarationHeader[] {
  const r = extractLeanHeaders(text);
  if (!r.ok) throw new Error(`extraction failed: ${r.error}\n${text}`);
  return r.headers;
}

/** The qualified name the extractor gives declaration `i` of `decls`. */
function qualifiedName(decls: readonly Decl[], i: number): string {
  const d = decls[i] as Decl;
  const prefix = d.namespace === null ? '' : `${d.namespace}.`;
  if (d.kind !== 'example') return prefix + nameOf(i);
  const ordinal = decls.slice(0, i + 1).filter((x) => x.kind === 'example').length;
  return `${prefix}example@${ordinal}`;
}

const arbFile = fc.array(arbDecl, { minLength: 1, maxLength: 6 }).chain((decls) =>
  fc.record({
    decls: fc.constant(decls),
    before: fc.array(arbLayout, { minLength: decls.length, maxLength: decls.length }),
    after: fc.array(arbLayout, { minLength: decls.length, maxLength: decls.length }),
  }),
);

describe('fence properties over generated Lean files', () => {
  it('proof-body edits, header reformatting and attribute changes never violate the fence', () => {
    fc.assert(
      fc.property(arbFile, ({ decls, before, after }) => {
        const b = extract(renderFile(decls, before));
        const a = extract(renderFile(decls, after));
        expect(b.map((h) => h.name)).toEqual(decls.map((_, i) => qualifiedName(decls, i)));
        expect(compareHeaders(b, a)).toEqual([]);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('changing any one signature token is a violation naming exactly that declaration', () => {
    fc.assert(
      fc.property(
        arbFile,
        fc.nat(),
        fc.nat(),
        fc.constantFrom(...REPLACEMENTS),
        ({ decls, before, after }, which, where, replacement) => {
          const target = which % decls.length;
          const tokens = signatureTokens(decls[target] as Decl);
          const at = where % tokens.length;
          fc.pre(tokens[at] !== replacement);
          const mutated = tokens.map((t, k) => (k === at ? replacement : t));
          const text = decls
            .map((d, i) => renderDecl(d, i, after[i] as Layout, i === target ? mutated : signatureTokens(d)))
            .join('\n');
          const violations = compareHeaders(extract(renderFile(decls, before)), extract(text));
          expect(violations.length).toBeGreaterThan(0);
          for (const v of violations) expect(v.declaration).toBe(qualifiedName(decls, target));
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});

const SOUP = [
  'theorem',
  'lemma',
  'def',
  'instance',
  'example',
  'axiom',
  'namespace',
  'section',
  'end',
  'variable',
  'where',
  ':=',
  ':',
  '|',
  '=>',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '@[',
  '`(',
  '"',
  "'",
  '/-',
  '-/',
  '--',
  '/--',
  '\n',
  ' ',
  'x',
  'A.B',
  '«a»',
  's!"{',
  '}"',
  'r#"',
  '"#',
  '.1',
  '.{u}',
  '⟨',
  '⟩',
  '·',
  '¬',
  '-',
];

describe('the Lean extractor never throws', () => {
  it('on arbitrary text and on Lean token soup', () => {
    const soup = fc.array(fc.constantFrom(...SOUP), { maxLength: 60 }).map((xs) => xs.join(''));
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), soup), (text) => {
        const r = extractLeanHeaders(text);
        if (r.ok) {
          expect(compareHeaders(r.headers, r.headers)).toEqual([]);
          for (const h of r.headers) expect(h.line).toBeGreaterThanOrEqual(1);
        } else expect(typeof r.error).toBe('string');
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
