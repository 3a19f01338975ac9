/**
 * The drafter protocol's records and rules without processes: draft-request/v1 and
 * draft-response/v1 validation (exact keys, absolute paths, prior iff redraft, depth limit), the
 * declaration-only block rules on tokens (comments and strings are not read as commands), the
 * response-vs-text name check, and the in-process drafter (hostile function output included).
 */
import { describe, expect, it } from 'vitest';
import {
  checkDraft,
  type DraftRequest,
  inProcessDrafter,
  isModuleName,
  parseDraftBlock,
  validateDraftRequest,
  validateDraftResponse,
} from '../../src/synthesis/index.js';

const REQUEST: DraftRequest = {
  schema: 'draft-request/v1',
  claim: { id: 'c1', text: 'n + 0 = n', title: 'Zero', name: 'add_zero_ex', kind: 'theorem' },
  target_file: '/p/Demo/Basic.lean',
  temp_path: '/tmp/d/draft.lean',
  policy: { statement_policy: 'preserve', caller: 'formalize' },
  mode: 'draft',
  prior: null,
};
const drafted = (declarations: string[]) => ({
  schema: 'draft-response/v1',
  status: 'drafted',
  declarations,
  detail: null,
});

describe('draft-request/v1', () => {
  it('accepts a draft and a redraft', () => {
    expect(validateDraftRequest(REQUEST)).toEqual({ ok: true, value: REQUEST });
    const redraft = {
      ...REQUEST,
      mode: 'redraft',
      prior: { declaration: 'add_zero_ex', reason: 'stuck: false statement' },
    };
    expect(validateDraftRequest(redraft).ok).toBe(true);
  });

  it.each([
    ['an extra key', { ...REQUEST, extra: 1 }, ''],
    ['a relative target', { ...REQUEST, target_file: 'Demo/Basic.lean' }, 'target_file'],
    ['a relative temp path', { ...REQUEST, temp_path: 'draft.lean' }, 'temp_path'],
    ['temp path = target', { ...REQUEST, temp_path: REQUEST.target_file }, 'temp_path'],
    ['a redraft without prior', { ...REQUEST, mode: 'redraft' }, 'prior'],
    ['a draft with prior', { ...REQUEST, prior: { declaration: 'x', reason: 'y' } }, 'prior'],
    [
      'an unknown policy',
      { ...REQUEST, policy: { statement_policy: 'yolo', caller: 'formalize' } },
      'policy.statement_policy',
    ],
    [
      'an unknown caller',
      { ...REQUEST, policy: { statement_policy: 'preserve', caller: 'prove' } },
      'policy.caller',
    ],
    ['a wrong schema', { ...REQUEST, schema: 'draft-request/v2' }, 'schema'],
  ])('refuses %s', (_what, input, path) => {
    const r = validateDraftRequest(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(path);
  });
});

describe('draft-response/v1', () => {
  it('drafted needs declarations; declined needs none and a detail', () => {
    expect(validateDraftResponse(drafted(['t'])).ok).toBe(true);
    expect(validateDraftResponse(drafted([])).ok).toBe(false);
    expect(
      validateDraftResponse({
        schema: 'draft-response/v1',
        status: 'declined',
        declarations: [],
        detail: 'vague',
      }).ok,
    ).toBe(true);
    expect(
      validateDraftResponse({
        schema: 'draft-response/v1',
        status: 'declined',
        declarations: ['t'],
        detail: 'x',
      }).ok,
    ).toBe(false);
    expect(
      validateDraftResponse({
        schema: 'draft-response/v1',
        status: 'declined',
        declarations: [],
        detail: null,
      }).ok,
    ).toBe(false);
    expect(validateDraftResponse({ ...drafted(['t']), status: 'proved' }).ok).toBe(false);
  });

  it('over-deep input is refused before the schema walks it, without throwing', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const r = validateDraftResponse({ ...drafted(['t']), detail: deep });
    expect(r).toMatchObject({ ok: false, issues: [{ code: 'too_deep', path: 'detail' }] });
  });

  it('a getter that throws is an issue, not a crash', () => {
    const hostile = Object.defineProperty({ ...drafted(['t']) }, 'status', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    expect(validateDraftResponse(hostile).ok).toBe(false);
  });
});

describe('the declaration-only block', () => {
  it('reads the needs-import header and the declared names; the body is byte-exact', () => {
    const text =
      '\n-- needs-import: Mathlib.Tactic\n--needs-import:   A.B  \n-- needs-import: Mathlib.Tactic\n\n/-- doc -/\n@[simp] theorem t : True := by sorry\ndef d : Nat := 1\n';
    expect(parseDraftBlock(text)).toEqual({
      ok: true,
      block: {
        imports: ['Mathlib.Tactic', 'A.B'],
        body: '/-- doc -/\n@[simp] theorem t : True := by sorry\ndef d : Nat := 1\n',
        declarations: ['t', 'd'],
      },
    });
  });

  it('forbidden words inside comments and strings are not commands', () => {
    const text =
      '-- import this, open that\n/- namespace X\n#eval 1 -/\ntheorem t : "open import #eval".length > 0 := by sorry\n';
    expect(parseDraftBlock(text)).toMatchObject({ ok: true, block: { declarations: ['t'] } });
  });

  it('a #-term inside a statement is not a command; a #-word at line start is', () => {
    expect(parseDraftBlock('theorem t (s : Finset Nat) : #s = s.card := by sorry\n').ok).toBe(true);
    expect(parseDraftBlock('theorem t : True := by sorry\n#my_command\n')).toMatchObject({ ok: false });
    expect(parseDraftBlock('theorem t : True := trivial #check t\n')).toMatchObject({ ok: false });
  });

  it.each([
    ['import A\ntheorem t : True := trivial', 'line 1: `import`'],
    ['theorem t : True := trivial\nsection\nend', 'line 2: `section`'],
    ['mutual\ntheorem t : True := trivial\nend', '`mutual`'],
    ['variable (n : Nat)\ntheorem t : n = n := rfl', '`variable`'],
    ['universe u\ntheorem t : True := trivial', '`universe`'],
    ['attribute [simp] Nat.add_zero\ntheorem t : True := trivial', '`attribute`'],
    ['local notation "ℕ" => Nat\ntheorem t : True := trivial', '`local`'],
    ['macro "cheat" : tactic => `(tactic| sorry)\ntheorem t : True := by cheat', '`macro`'],
    ['theorem t : True := trivial\nrun_cmd pure ()', '`run_cmd`'],
    ['example : True := trivial', 'anonymous `example`'],
    ['instance : Inhabited Nat := ⟨0⟩', 'anonymous `instance`'],
    ['theorem t : True := trivial\ntheorem t : True := trivial', '`t` is declared twice'],
    ['-- only a comment', 'declares nothing'],
    ['', 'declares nothing'],
    ['/- unterminated', 'unterminated block comment'],
    ['theorem t : True := trivial -- \u202e evil', 'bidirectional character U+202e at line 1'],
    ['theorem t : True := trivial\u0000', 'U+0000'],
    ['-- needs-import: \ntheorem t : True := trivial', 'not a module name'],
  ])('refuses %j', (text, why) => {
    const r = parseDraftBlock(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(why);
  });

  it('line numbers count from the start of the temp file, header included', () => {
    expect(parseDraftBlock('-- needs-import: A\n\ntheorem t : True := trivial\nopen A')).toEqual({
      ok: false,
      error: 'line 4: `open` is not allowed in a declaration-only draft',
    });
  });

  it('module names: the pattern and no empty component', () => {
    for (const m of ['Mathlib', 'Mathlib.Data.Nat.Basic', "A'.b_c", '_x']) expect(isModuleName(m)).toBe(true);
    for (const m of ['', '1A', 'A..B', 'A.', '.A', 'A B', 'A;B', 'A/B', 'Ä'])
      expect(isModuleName(m)).toBe(false);
  });
});

describe('checkDraft', () => {
  it('names must match the text exactly (order aside)', () => {
    const text = 'theorem a : True := by sorry\ntheorem b : True := by sorry\n';
    expect(checkDraft(drafted(['b', 'a']), text)).toEqual({
      kind: 'drafted',
      declarations: ['a', 'b'],
      text,
      imports: [],
    });
    expect(checkDraft(drafted(['a']), text).kind).toBe('protocol-error');
    expect(checkDraft(drafted(['a', 'b', 'c']), text).kind).toBe('protocol-error');
    expect(checkDraft(drafted(['a', 'a']), 'theorem a : True := by sorry\n').kind).toBe('protocol-error');
  });
});

describe('inProcessDrafter', () => {
  const signal = new AbortController().signal;

  it('a function that drafts is checked like a command', async () => {
    const d = inProcessDrafter(async (req) => ({
      response: drafted([req.claim.name ?? 'x']),
      text: `-- needs-import: Mathlib.Tactic\ntheorem ${req.claim.name} : True := by sorry\n`,
    }));
    expect(await d.draft(REQUEST, signal)).toEqual({
      kind: 'drafted',
      declarations: ['add_zero_ex'],
      text: '-- needs-import: Mathlib.Tactic\ntheorem add_zero_ex : True := by sorry\n',
      imports: ['Mathlib.Tactic'],
    });
  });

  it('hostile function output (an open, an axiom, lying names, no text) is a protocol error', async () => {
    const cases: { response: unknown; text?: string | null }[] = [
      { response: drafted(['t']), text: 'open Classical\ntheorem t : True := by sorry\n' },
      { response: drafted(['t']), text: 'axiom t : False\n' },
      { response: drafted(['t']), text: 'theorem u : True := by sorry\n' },
      { response: drafted(['t']) },
      { response: 'drafted' },
    ];
    for (const c of cases) {
      const out = await inProcessDrafter(async () => c).draft(REQUEST, signal);
      expect(out.kind).toBe('protocol-error');
    }
  });

  it('a throw is an operational error; an invalid request never reaches the function', async () => {
    expect(
      await inProcessDrafter(async () => {
        throw new Error('model offline');
      }).draft(REQUEST, signal),
    ).toEqual({ kind: 'operational-error', detail: 'in-process drafter threw: model offline' });
    let called = false;
    const out = await inProcessDrafter(async () => {
      called = true;
      return { response: drafted(['t']), text: 'theorem t : True := by sorry\n' };
    }).draft({ ...REQUEST, temp_path: 'relative.lean' }, signal);
    expect(out.kind).toBe('operational-error');
    expect(called).toBe(false);
  });

  it('a declined draft passes its reason through', async () => {
    const d = inProcessDrafter(async () => ({
      response: {
        schema: 'draft-response/v1',
        status: 'declined',
        declarations: [],
        detail: 'not formalizable',
      },
    }));
    expect(await d.draft(REQUEST, signal)).toEqual({ kind: 'declined', detail: 'not formalizable' });
  });
});
