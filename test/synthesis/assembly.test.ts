/**
 * File assembly, byte-exact: imports deduplicated and inserted into the preamble (after the last
 * import, after a copyright comment, or at the top), declarations appended between the boundary
 * markers, already-present declarations skipped (alone, or cut out of a mixed block with their
 * doc comment and attributes), CRLF targets kept CRLF, a missing final newline added, and a
 * hostile claim text that cannot add a line to the file.
 */
import { describe, expect, it } from 'vitest';
import {
  assembleDraft,
  claimSummary,
  type DraftToAssemble,
  declarationNames,
  declaredAtLineStart,
  draftBeginMarker,
  draftEndMarker,
  existingDeclaration,
  lineEnding,
} from '../../src/synthesis/index.js';

const TS = '2026-01-01T00:00:00Z';
const claim = { id: 'c1-abcd', text: 'Adding zero changes nothing.' };
const BEGIN = '-- draft: c1-abcd: Adding zero changes nothing. (2026-01-01T00:00:00Z)';
const END = '-- end draft: c1-abcd';

function draft(text: string, over: Partial<DraftToAssemble> = {}): DraftToAssemble {
  return { text, imports: [], claim, timestamp: TS, ...over };
}

function ok(r: ReturnType<typeof assembleDraft>) {
  if (!r.ok) throw new Error(`expected ok, got ${r.error}`);
  return r;
}

describe('imports', () => {
  it('new modules go after the last import; present ones and repeats are dropped; the rest is byte-exact', () => {
    const target =
      '/- Copyright -/\nimport Mathlib.Tactic\nimport Mathlib.Order.Basic\n\n/-! # Module doc -/\n\ntheorem old : True := trivial\n';
    const r = ok(
      assembleDraft(
        target,
        draft(
          '-- needs-import: Mathlib.Tactic\n-- needs-import: Mathlib.Data.Nat.Basic\n-- needs-import: Mathlib.Data.Nat.Basic\n\ntheorem t (n : Nat) : n + 0 = n := by\n  sorry\n',
          { imports: ['Mathlib.Order.Basic', 'Mathlib.Data.Real.Basic'] },
        ),
      ),
    );
    expect(r.text).toBe(
      '/- Copyright -/\nimport Mathlib.Tactic\nimport Mathlib.Order.Basic\nimport Mathlib.Data.Nat.Basic\nimport Mathlib.Data.Real.Basic\n\n/-! # Module doc -/\n\ntheorem old : True := trivial\n' +
        `\n${BEGIN}\ntheorem t (n : Nat) : n + 0 = n := by\n  sorry\n${END}\n`,
    );
    expect(r.imports).toEqual(['Mathlib.Data.Nat.Basic', 'Mathlib.Data.Real.Basic']);
    expect(r.added).toEqual(['t']);
    expect(r.skipped).toEqual([]);
  });

  it('a target without imports gets them after its copyright comment, with a blank line before the code', () => {
    const target = '/-\nCopyright (c) 2026\n-/\ntheorem old : True := trivial\n';
    const r = ok(
      assembleDraft(target, draft('-- needs-import: Mathlib.Tactic\ntheorem t : True := by sorry\n')),
    );
    expect(r.text).toBe(
      `/-\nCopyright (c) 2026\n-/\nimport Mathlib.Tactic\n\ntheorem old : True := trivial\n\n${BEGIN}\ntheorem t : True := by sorry\n${END}\n`,
    );
  });

  it('a target that starts with code gets the imports at the very top', () => {
    const r = ok(
      assembleDraft(
        'theorem old : True := trivial\n',
        draft('-- needs-import: A.B\ntheorem t : True := by sorry'),
      ),
    );
    expect(r.text).toBe(
      `import A.B\n\ntheorem old : True := trivial\n\n${BEGIN}\ntheorem t : True := by sorry\n${END}\n`,
    );
  });

  it('an empty target becomes imports, a blank line and the block', () => {
    const r = ok(assembleDraft('', draft('-- needs-import: A\ntheorem t : True := by sorry\n')));
    expect(r.text).toBe(`import A\n\n${BEGIN}\ntheorem t : True := by sorry\n${END}\n`);
    expect(ok(assembleDraft('', draft('theorem t : True := by sorry\n'))).text).toBe(
      `${BEGIN}\ntheorem t : True := by sorry\n${END}\n`,
    );
  });

  it('a target that is one import line without a final newline', () => {
    const r = ok(assembleDraft('import A', draft('-- needs-import: B\ntheorem t : True := by sorry\n')));
    expect(r.text).toBe(`import A\nimport B\n\n${BEGIN}\ntheorem t : True := by sorry\n${END}\n`);
  });

  it('an import inside a block comment of the preamble does not count as present', () => {
    const target = '/- import B -/\nimport A\n';
    const r = ok(assembleDraft(target, draft('-- needs-import: B\ntheorem t : True := by sorry\n')));
    expect(r.imports).toEqual(['B']);
    expect(r.text.startsWith('/- import B -/\nimport A\nimport B\n')).toBe(true);
  });

  it('an invalid extra module is an error, not an import line', () => {
    const r = assembleDraft('', draft('theorem t : True := by sorry\n', { imports: ['A\nopen Evil'] }));
    expect(r).toEqual({ ok: false, error: 'not a module name: "A\\nopen Evil"' });
  });
});

describe('line endings and final newlines', () => {
  it('a CRLF target stays CRLF, the drafted lines included', () => {
    const target = 'import A\r\n\r\ntheorem old : True := trivial\r\n';
    const r = ok(assembleDraft(target, draft('-- needs-import: B\ntheorem t : True := by\n  sorry\n')));
    expect(r.text).toBe(
      `import A\r\nimport B\r\n\r\ntheorem old : True := trivial\r\n\r\n${BEGIN}\r\ntheorem t : True := by\r\n  sorry\r\n${END}\r\n`,
    );
    expect(r.text.replace(/\r\n/g, '').includes('\n')).toBe(false);
  });

  it('a CRLF block into an LF target becomes LF', () => {
    const r = ok(assembleDraft('import A\n', draft('theorem t : True := by\r\n  sorry\r\n')));
    expect(r.text).toBe(`import A\n\n${BEGIN}\ntheorem t : True := by\n  sorry\n${END}\n`);
  });

  it('a target without a final newline gets one before the block; a trailing blank line is not doubled', () => {
    expect(
      ok(assembleDraft('theorem old : True := trivial', draft('theorem t : True := by sorry'))).text,
    ).toBe(`theorem old : True := trivial\n\n${BEGIN}\ntheorem t : True := by sorry\n${END}\n`);
    expect(
      ok(assembleDraft('theorem old : True := trivial\n\n', draft('\n\ntheorem t : True := by sorry\n\n\n')))
        .text,
    ).toBe(`theorem old : True := trivial\n\n${BEGIN}\ntheorem t : True := by sorry\n${END}\n`);
  });

  it('lineEnding reads the first line break', () => {
    expect(lineEnding('a\r\nb\n')).toBe('\r\n');
    expect(lineEnding('a\nb\r\n')).toBe('\n');
    expect(lineEnding('abc')).toBe('\n');
  });
});

describe('already formalized declarations', () => {
  it('a draft whose declaration exists is skipped whole: the target is unchanged, no import added', () => {
    const target = 'import A\n\n@[simp] private theorem t : True := trivial\n';
    const r = ok(assembleDraft(target, draft('-- needs-import: B\ntheorem t : True := by sorry\n')));
    expect(r).toEqual({ ok: true, text: target, added: [], skipped: ['t'], imports: [] });
  });

  it('a mixed block keeps only the new declarations, each with its doc comment and attributes', () => {
    const target = 'theorem helper : True := trivial\n';
    const block =
      '/-- the helper -/\n@[simp]\ntheorem helper : True := by sorry\n\n-- about main\n/-- main -/\n@[simp] noncomputable\ndef main_def : Nat := 0\n\ntheorem main_thm : main_def = 0 := by\n  sorry\n';
    const r = ok(assembleDraft(target, draft(block)));
    expect(r.added).toEqual(['main_def', 'main_thm']);
    expect(r.skipped).toEqual(['helper']);
    expect(r.text).toBe(
      `theorem helper : True := trivial\n\n${BEGIN}\n/-- main -/\n@[simp] noncomputable\ndef main_def : Nat := 0\n\ntheorem main_thm : main_def = 0 := by\n  sorry\n${END}\n`,
    );
  });

  it('namespaced names in the target are qualified: a root draft of the same short name is new', () => {
    const target = 'namespace Foo\ntheorem t : True := trivial\nend Foo\n';
    expect(ok(assembleDraft(target, draft('theorem t : True := by sorry\n'))).added).toEqual(['t']);
    expect(ok(assembleDraft(target, draft('theorem Foo.t : True := by sorry\n'))).skipped).toEqual(['Foo.t']);
  });

  it('a declaration only mentioned in a comment of the target is not present', () => {
    expect(existingDeclaration('-- theorem t : True\n/- theorem t : True -/\n', 't')).toBe(false);
  });

  it('an untokenizable target falls back to the line-start rule', () => {
    const target = 'theorem t : True := trivial\n/- unterminated\n';
    expect(declarationNames(target).ok).toBe(false);
    expect(existingDeclaration(target, 't')).toBe(true);
    expect(existingDeclaration(target, 'u')).toBe(false);
    expect(ok(assembleDraft(target, draft('theorem t : True := by sorry\n'))).skipped).toEqual(['t']);
  });

  it('the line-start rule: attributes, modifiers and keywords; not a longer name or a comment', () => {
    expect(declaredAtLineStart('@[simp] protected noncomputable def f := 1', 'f')).toBe(true);
    expect(declaredAtLineStart('lemma f (x : Nat) : x = x := rfl', 'f')).toBe(true);
    expect(declaredAtLineStart('instance f : Inhabited Nat := ⟨0⟩', 'f')).toBe(true);
    expect(declaredAtLineStart('structure f where', 'f')).toBe(true);
    expect(declaredAtLineStart('theorem f_2 : True := trivial', 'f')).toBe(false);
    expect(declaredAtLineStart('theorem f.g : True := trivial', 'f')).toBe(false);
    expect(declaredAtLineStart('  -- theorem f : True', 'f')).toBe(false);
    expect(declaredAtLineStart('theorem a.b : True', 'a.b')).toBe(true);
    expect(declaredAtLineStart('theorem axb : True', 'a.b')).toBe(false);
  });
});

describe('boundary markers', () => {
  it('markers carry the claim id, a one-line summary and the injected timestamp', () => {
    expect(draftBeginMarker(claim, TS)).toBe(BEGIN);
    expect(draftEndMarker(claim)).toBe(END);
    expect(claimSummary('x'.repeat(100))).toBe(`${'x'.repeat(72)}…`);
    expect(claimSummary(' \n ')).toBe('(no text)');
  });

  it('a hostile claim text or id cannot add a line to the file (no import smuggled through a marker)', () => {
    const hostile = { id: 'c2\nimport Evil', text: 'ok\r\nimport Evil\u2028open Evil\u202e\u0000' };
    const r = ok(
      assembleDraft(
        '',
        draft('theorem t : True := by sorry\n', { claim: hostile, timestamp: 'now\nimport X' }),
      ),
    );
    const lines = r.text.split('\n');
    expect(lines.filter((l) => /^\s*(import|open)\b/.test(l))).toEqual([]);
    expect(lines[0]).toBe('-- draft: c2 import Evil: ok import Evil open Evil (now import X)');
    expect(lines).toHaveLength(4);
  });
});

describe('refusals', () => {
  it('a block that breaks the declaration-only rules is not assembled', () => {
    expect(assembleDraft('', draft('import A\ntheorem t : True := by sorry\n'))).toMatchObject({
      ok: false,
      error: expect.stringContaining('`import`'),
    });
    expect(assembleDraft('', draft('-- just a comment\n'))).toEqual({
      ok: false,
      error: 'draft refused: the draft declares nothing',
    });
  });

  it('two declarations on one line cannot be separated when one of them is already present', () => {
    const r = assembleDraft(
      'theorem a : True := trivial\n',
      draft('theorem a : True := trivial theorem b : True := trivial\n'),
    );
    expect(r).toEqual({
      ok: false,
      error: 'cannot separate the already present declarations from the new ones',
    });
  });
});
