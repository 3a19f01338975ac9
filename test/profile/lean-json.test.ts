/**
 * Lean's JSON messages (`lake env lean --json`) read into targets and errors
 * (src/profile/lean-json.ts), on the fixtures of test/fixtures/lean-json (README there says where
 * each came from).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LEAN_JSON_MAX_LINES, parseLeanJson } from '../../src/profile/lean-json.js';

const dir = new URL('../fixtures/lean-json/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, dir), 'utf8');
const basicSource = fixture('Demo/Basic.lean');
const source = (f: string) => (f === 'Demo/Basic.lean' ? basicSource : null);

describe('parseLeanJson on the current toolchain shape (basic.jsonl)', () => {
  const r = parseLeanJson(fixture('basic.jsonl'), { source });

  it('makes each `declaration uses sorry` a file:line target named by its declaration', () => {
    expect(r.targets).toEqual([
      {
        id: 'Demo/Basic.lean:3',
        file: 'Demo/Basic.lean',
        line: 3,
        column: 8,
        declaration: "add_zero'",
        goal: "add_zero'",
      },
      {
        id: 'Demo/Basic.lean:9',
        file: 'Demo/Basic.lean',
        line: 9,
        column: 4,
        declaration: 'half',
        goal: 'half',
      },
    ]);
  });

  it('reports errors as file:line:first line of the message, and nothing else as an error', () => {
    expect(r.errors).toEqual(['Demo/Basic.lean:7:Tactic `decide` proved that the proposition']);
  });

  it('keeps information and other warnings as infos, drops silent messages', () => {
    expect(r.infos).toEqual([
      "Demo/Basic.lean:11:information: 'add_zero'' depends on axioms: [sorryAx]",
      'Demo/Basic.lean:13:warning: unused variable `h`',
    ]);
    expect(r.infos.join('\n')).not.toContain('language server');
    expect(r.unparsed).toEqual([]);
    expect(r.truncated).toBe(0);
  });

  it('without the source the goal is the message and the declaration unknown', () => {
    const bare = parseLeanJson(fixture('basic.jsonl'));
    expect(bare.targets.map((t) => [t.id, t.declaration, t.goal])).toEqual([
      ['Demo/Basic.lean:3', null, 'declaration uses `sorry`'],
      ['Demo/Basic.lean:9', null, 'declaration uses `sorry`'],
    ]);
  });
});

describe('parseLeanJson on other shapes', () => {
  it("reads the older 'sorry' wording without a kind (legacy-quotes.jsonl)", () => {
    const r = parseLeanJson(fixture('legacy-quotes.jsonl'), { source });
    expect(r.targets.map((t) => [t.id, t.declaration])).toEqual([
      ['Demo/Basic.lean:3', "add_zero'"],
      ['Demo/Basic.lean:9', 'half'],
    ]);
    expect(r.errors).toEqual([]);
  });

  it('reads recorded output with absolute paths, relative to the root (strata-havoc.jsonl)', () => {
    const r = parseLeanJson(fixture('strata-havoc.jsonl'), { root: '/local/home/mimayere/strata2' });
    expect(r.targets).toEqual([]);
    expect(r.errors).toEqual([
      'StrataTest/Languages/Core/Examples/Havoc.lean:44:❌️ Docstring on `#guard_msgs` does not match generated message:',
    ]);
    expect(r.infos).toEqual([
      'StrataTest/Languages/Core/Examples/Havoc.lean:45:information: procedure S :  () → ()',
    ]);
    // outside the root an absolute path is kept as given
    expect(parseLeanJson(fixture('strata-havoc.jsonl'), { root: '/elsewhere' }).errors[0]).toMatch(
      /^\/local\/home\/mimayere\/strata2\/StrataTest\/.*Havoc\.lean:44:/,
    );
  });

  it('a sorry reported as an error (warningAsError) is still a target, once per file:line', () => {
    const line = fixture('basic.jsonl').split('\n')[0] ?? '';
    const asError = line.replace('"severity":"warning"', '"severity":"error"');
    const r = parseLeanJson(`${line}\n${asError}\n`);
    expect(r.targets.map((t) => t.id)).toEqual(['Demo/Basic.lean:3']);
    expect(r.errors).toEqual([]);
  });

  it('names the caption and falls back to the checked file when fileName is missing', () => {
    const r = parseLeanJson(
      '{"caption":"elaboration","data":"unknown identifier `x`","pos":{"column":3,"line":2},"severity":"error"}',
      { defaultFile: 'A.lean' },
    );
    expect(r.errors).toEqual(['A.lean:2:elaboration: unknown identifier `x`']);
  });
});

describe('parseLeanJson never throws on bad input', () => {
  it('keeps lines that are not Lean messages in unparsed', () => {
    const r = parseLeanJson(
      [
        'error: unknown package `Foo`',
        '{"severity":"warning"}',
        '{"severity":"error","data":"x","pos":{"line":"3"}}',
        '[1,2]',
        '{"severity":"error","data":"x"',
        '{"severity":"loud","data":"x","pos":{"line":1,"column":0},"fileName":"A.lean"}',
        '',
      ].join('\n'),
    );
    expect(r.targets).toEqual([]);
    expect(r.errors).toEqual([]);
    expect(r.unparsed).toHaveLength(6);
    expect(r.unparsed[0]).toBe('error: unknown package `Foo`');
  });

  it('is bounded: lines past the limit are counted, not read', () => {
    const line =
      '{"data":"declaration uses `sorry`","fileName":"A.lean","kind":"hasSorry","pos":{"column":0,"line":1},"severity":"warning"}';
    const r = parseLeanJson(`${'\n'.repeat(LEAN_JSON_MAX_LINES)}${line}`);
    expect(r.targets).toEqual([]);
    expect(r.truncated).toBe(1);
  });

  it('accepts anything as text', () => {
    for (const bad of [undefined, null, 42, {}] as unknown as string[])
      expect(parseLeanJson(bad)).toEqual({ targets: [], errors: [], infos: [], unparsed: [], truncated: 0 });
  });
});
