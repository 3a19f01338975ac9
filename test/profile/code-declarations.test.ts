/**
 * The code profile's declaration spans (src/profile/code-declarations.ts, pure): brace languages
 * skip strings, template holes and comments; Python follows indentation (blank lines, comment
 * lines and triple-quoted strings do not end a block); a line in no declaration is the top level.
 */
import { describe, expect, it } from 'vitest';
import { codeDeclarationAt, codeDeclarations } from '../../src/profile/code-declarations.js';
import { PREAMBLE } from '../../src/profile/escape-hatches.js';

const TS = `import x from 'y';
export function add(a: number, b: number): number {
  // TODO(agent) }
  const s = "}{ // not a comment";
  return \`\${a + \`\${b}\`} }\`;
}
class Calc {
  private total = 0;
  add(a: number): this {
    if (a > 0) {
      this.total += a;
    }
    return this;
  }
  static of = (n: number) => {
    return new Calc();
  };
}
const mul = async (a, b) => {
  /* { */
  return a * b;
};
const o = { k: 1 };
function add(x) { return x }
`;

const PY = `import os

class Shape:
    """doc
no dedent here
"""
    def area(self):
        # TODO(agent)

        return 0
# a comment at column 0 inside area
        pass

async def top():
    pass
x = 1
`;

describe('codeDeclarations (brace languages)', () => {
  it('functions, classes, methods, arrow functions; strings, templates and comments skipped', () => {
    expect(codeDeclarations('a.ts', TS)).toEqual([
      { key: 'function add', startLine: 2, endLine: 6 },
      { key: 'class Calc', startLine: 7, endLine: 18 },
      { key: 'method Calc.add', startLine: 9, endLine: 14 },
      { key: 'function Calc.of', startLine: 15, endLine: 17 },
      { key: 'function mul', startLine: 19, endLine: 22 },
      { key: 'function add #2', startLine: 24, endLine: 24 },
    ]);
  });

  it('a line maps to its innermost declaration, else the top level', () => {
    const ds = codeDeclarations('a.ts', TS);
    expect(codeDeclarationAt(ds, 3)).toBe('function add');
    expect(codeDeclarationAt(ds, 11)).toBe('method Calc.add'); // inside the if block
    expect(codeDeclarationAt(ds, 8)).toBe('class Calc');
    expect(codeDeclarationAt(ds, 23)).toBe(PREAMBLE); // an object literal is no declaration
    expect(codeDeclarationAt(ds, 1)).toBe(PREAMBLE);
  });

  it('Java/C-like methods and Go/Rust functions; control blocks are not declarations', () => {
    const java = 'public class A {\n  public int add(int a) throws X {\n    while (true) {\n    }\n  }\n}\n';
    expect(codeDeclarations('A.java', java).map((d) => d.key)).toEqual(['class A', 'method A.add']);
    expect(
      codeDeclarations('m.go', 'func (r *R) Run(x int) error {\n  if x { }\n}\n').map((d) => d.key),
    ).toEqual(['function Run']);
    expect(codeDeclarations('m.rs', 'fn main() {\n  for i in 0..3 {\n  }\n}\n').map((d) => d.key)).toEqual([
      'function main',
    ]);
  });

  it('an unbalanced text never throws', () => {
    expect(() => codeDeclarations('a.js', 'function f() {\n  "unterminated\n')).not.toThrow();
    expect(codeDeclarations('a.js', '}}} function f() { }')).toEqual([
      { key: 'function f', startLine: 1, endLine: 1 },
    ]);
  });
});

describe('codeDeclarations (Python)', () => {
  it('def and class by indentation; docstrings, blank and comment lines do not end a block', () => {
    expect(codeDeclarations('m.py', PY)).toEqual([
      { key: 'class Shape', startLine: 3, endLine: 12 },
      { key: 'def Shape.area', startLine: 7, endLine: 12 },
      { key: 'def top', startLine: 14, endLine: 15 },
    ]);
    const ds = codeDeclarations('m.py', PY);
    expect(codeDeclarationAt(ds, 8)).toBe('def Shape.area');
    expect(codeDeclarationAt(ds, 16)).toBe(PREAMBLE);
  });
});

describe('markersByDeclaration (the code line scan, judged by declaration)', () => {
  it('each marked line is a hatch of its declaration; the declaration judges the target', async () => {
    const { openInDeclaration } = await import('../../src/profile/target-solved.js');
    const { markersByDeclaration: attribute } = await import('../../src/profile/code-declarations.js');
    const before = 'function f() {\n  // TODO(agent)\n}\nfunction g() {\n}\n';
    const a = attribute('a.js', before, [{ id: 'a.js:2', line: 2 }], ['TODO(agent)']);
    const key = a.declarations.get('a.js:2');
    expect(key).toBe('function f');
    // moved by a blank line: still in function f
    const moved = 'function f() {\n\n  // TODO(agent)\n}\nfunction g() {\n}\n';
    const m = attribute('a.js', moved, [{ id: 'a.js:3', line: 3 }], ['TODO(agent)']);
    const scan = {
      ok: true as const,
      hatches: m.hatches,
      declarations: m.declared.map((k) => ({ key: k, line: 0 })),
      axioms: [],
    };
    expect(openInDeclaration(scan, key as string)).toBe('`TODO(agent)` still in function f (line 3)');
    // moved into another function: f holds none (solved there), g holds it
    const elsewhere = 'function f() {\n}\nfunction g() {\n  // TODO(agent)\n}\n';
    const e = attribute('a.js', elsewhere, [{ id: 'a.js:4', line: 4 }], ['TODO(agent)']);
    const scan2 = {
      ok: true as const,
      hatches: e.hatches,
      declarations: e.declared.map((k) => ({ key: k, line: 0 })),
      axioms: [],
    };
    expect(openInDeclaration(scan2, 'function f')).toBeNull();
    expect(openInDeclaration(scan2, 'function g')).toMatch(/still in function g/);
  });
});
