/**
 * Where the declarations of a code file are (layer 1, pure; issue 27): the code profile judges a
 * target by the declaration that holds it, as the lean profile does — a `TODO(agent)` moved
 * inside the same function is the same open target. A small span rule, not a parser:
 *
 * - **brace languages** (JS/TS, Java, C-like, Go, Rust, …): one pass that skips strings (`'…'`,
 *   `"…"`, template literals with their `${…}` holes) and comments (`//`, `/* … *\/`, and `#` only
 *   in Python), matches `{` with `}`, and names a block by the code before its `{`: `function f`,
 *   `class C`, `interface I`, `enum E`, `namespace N`, `const f = (…) =>`, `fn f`, `func f`, and a
 *   method or function `name(…)` (an optional return type or `throws` after it), never
 *   `if`/`for`/`while`/`switch`/`catch`/… nor an object literal;
 * - **indent languages** (Python): `def f` / `async def f` / `class C` run to the first later
 *   code line indented no deeper than their header (blank lines, comment lines and lines inside a
 *   triple-quoted string do not end them).
 *
 * A declaration's key is its kind and its name qualified by the declarations around it
 * (`function add`, `method Calc.add`, `def Shape.area`); a key that repeats gets `#n` (from 2). A
 * line in no declaration belongs to {@link PREAMBLE} (the top level), as in Lean.
 */
import { type EscapeHatch, PREAMBLE } from './escape-hatches.js';

/** One declaration of a code file: its key and its lines (1-based, inclusive). */
export interface CodeDeclaration {
  readonly key: string;
  readonly startLine: number;
  readonly endLine: number;
}

/** The extensions read with the indent rule (the rest with the brace rule). */
export const INDENT_EXTENSIONS: readonly string[] = ['.py', '.pyi', '.pyw'];

const CONTROL = new Set([
  'if',
  'else',
  'for',
  'while',
  'do',
  'switch',
  'case',
  'catch',
  'try',
  'finally',
  'with',
  'return',
  'new',
  'typeof',
  'await',
  'function',
  'synchronized',
  'using',
  'lock',
  'foreach',
  'when',
  'match',
  'loop',
  'unsafe',
  'static',
]);

/**
 * The kind and name of a block from the code before its `{` (whitespace collapsed), or null for a
 * plain block (control flow, an object literal, an initializer).
 */
function nameBlock(header: string): { kind: string; name: string } | null {
  const h = header.replace(/\s+/g, ' ').trim();
  let m = /\b(class|interface|enum|namespace|module|struct|trait|impl|object)\s+([A-Za-z_$][\w$]*)/.exec(h);
  if (m !== null && !/=\s*$/.test(h)) return { kind: m[1] as string, name: m[2] as string };
  m = /\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(/.exec(h);
  if (m !== null) return { kind: 'function', name: m[1] as string };
  m = /\b(?:fn|func|fun|def)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)/.exec(h);
  if (m !== null) return { kind: 'function', name: m[1] as string };
  m =
    /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:async\s*)?(?:function\b|(?:\([^()]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]*)?=>)/.exec(
      h,
    );
  if (m !== null) return { kind: 'function', name: m[1] as string };
  m = /(?:^|[\s;,{}])([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:\([^()]*\)|[A-Za-z_$][\w$]*)\s*=>\s*$/.exec(h);
  if (m !== null) return { kind: 'function', name: m[1] as string };
  // a method or C-like function: `name(params)` at the end, then an optional return type / throws
  m =
    /([A-Za-z_$][\w$]*)\s*(?:<[^<>]*>)?\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?:(?::|->)\s*[^{};=]*|throws\s+[^{};=]*|const|noexcept|override)?\s*$/.exec(
      h,
    );
  if (m !== null && !CONTROL.has(m[1] as string) && !/[=,(:?]\s*$/.test(h.slice(0, m.index)))
    return { kind: 'method', name: m[1] as string };
  return null;
}

interface Frame {
  readonly decl: { kind: string; name: string } | null;
  readonly line: number;
  readonly qual: string;
}

/** The declarations of brace-language text (see the module comment). */
function braceDeclarations(text: string): CodeDeclaration[] {
  const out: { key: string; startLine: number; endLine: number }[] = [];
  const stack: Frame[] = [];
  // template literal holes: the brace depth at which each `${` opened
  const templates: number[] = [];
  let line = 1;
  let header = '';
  let headerLine = 1;
  let i = 0;
  const n = text.length;
  const qualOf = () => stack.at(-1)?.qual ?? '';
  const readString = (q: string) => {
    i++;
    while (i < n && text[i] !== q) {
      if (text[i] === '\\') i++;
      else if (text[i] === '\n') {
        if (q !== '`') break; // an unterminated quote ends at the line
        line++;
      } else if (q === '`' && text[i] === '$' && text[i + 1] === '{') {
        templates.push(stack.length);
        stack.push({ decl: null, line, qual: qualOf() });
        i += 2;
        return;
      }
      i++;
    }
    i++;
  };
  while (i < n) {
    const c = text[i] as string;
    if (c === '\n') {
      line++;
      header += ' ';
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < n && !(text[i] === '*' && text[i + 1] === '/')) {
        if (text[i] === '\n') line++;
        i++;
      }
      i += 2;
    } else if (c === '"' || c === "'" || c === '`') {
      readString(c);
      header += '""';
    } else if (c === '{') {
      const decl = nameBlock(header);
      const qual = decl === null ? qualOf() : qualOf() === '' ? decl.name : `${qualOf()}.${decl.name}`;
      stack.push({ decl, line: decl === null ? line : headerLine, qual });
      header = '';
      headerLine = line;
      i++;
    } else if (c === '}') {
      const top = stack.pop();
      if (top !== undefined && templates.at(-1) === stack.length) {
        // the end of a template hole: the literal goes on after the `}` (readString skips it)
        templates.pop();
        readString('`');
        continue;
      }
      if (top?.decl != null)
        out.push({ key: `${top.decl.kind} ${top.qual}`, startLine: top.line, endLine: line });
      header = '';
      headerLine = line;
      i++;
    } else if (c === ';') {
      header = '';
      headerLine = line;
      i++;
    } else {
      if (header.trim() === '' && c.trim() !== '') headerLine = line;
      header += c;
      i++;
    }
  }
  return numbered(out);
}

/** The declarations of indent-language (Python) text (see the module comment). */
function indentDeclarations(text: string): CodeDeclaration[] {
  const lines = text.split('\n');
  const code: (number | null)[] = []; // indent of a code line, null for blank/comment/in-string
  let inString: string | null = null;
  for (const l of lines) {
    if (inString !== null) {
      code.push(null);
      if (l.split(inString).length % 2 === 0) inString = null;
      continue;
    }
    const t = l.trim();
    code.push(t === '' || t.startsWith('#') ? null : l.length - l.trimStart().length);
    for (const q of ['"""', "'''"]) if (l.split(q).length % 2 === 0) inString = q;
  }
  const out: { key: string; startLine: number; endLine: number }[] = [];
  const open: { indent: number; kind: string; qual: string; start: number }[] = [];
  const close = (upTo: number, end: number) => {
    while (open.length > 0 && (open.at(-1) as { indent: number }).indent >= upTo) {
      const d = open.pop() as { kind: string; qual: string; start: number };
      out.push({ key: `${d.kind} ${d.qual}`, startLine: d.start, endLine: end });
    }
  };
  let lastCode = 0;
  lines.forEach((l, idx) => {
    const indent = code[idx];
    if (indent === null || indent === undefined) return;
    close(indent, lastCode);
    const m = /^\s*(?:async\s+)?(def|class)\s+([A-Za-z_][\w]*)/.exec(l);
    if (m !== null) {
      const parent = open.at(-1)?.qual;
      const name = m[2] as string;
      open.push({
        indent,
        kind: m[1] as string,
        qual: parent === undefined ? name : `${parent}.${name}`,
        start: idx + 1,
      });
    }
    lastCode = idx + 1;
  });
  close(-1, lines.length);
  return numbered(out);
}

/** Sorted by start; a repeated key gets ` #n` (from 2) in order. */
function numbered(ds: { key: string; startLine: number; endLine: number }[]): CodeDeclaration[] {
  const seen = new Map<string, number>();
  return [...ds]
    .sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine)
    .map((d) => {
      const k = (seen.get(d.key) ?? 0) + 1;
      seen.set(d.key, k);
      return { ...d, key: k === 1 ? d.key : `${d.key} #${k}` };
    });
}

/**
 * The declarations of a code file (pure): the indent rule for Python-like files, the brace rule
 * for the rest (see the module comment). Never throws; text it cannot follow (an unbalanced
 * brace) gives fewer declarations, never wrong line numbers.
 *
 * @example
 * ```ts
 * codeDeclarations('calc.ts', 'class Calc {\n  add(a, b) {\n    // TODO(agent)\n  }\n}\n');
 * // [{ key: 'class Calc', startLine: 1, endLine: 5 }, { key: 'method Calc.add', startLine: 2, endLine: 4 }]
 * ```
 */
export function codeDeclarations(file: string, text: string): CodeDeclaration[] {
  const dot = file.lastIndexOf('.');
  const ext = dot < 0 ? '' : file.slice(dot).toLowerCase();
  return INDENT_EXTENSIONS.includes(ext) ? indentDeclarations(text) : braceDeclarations(text);
}

/**
 * The key of the innermost declaration holding `line`, or {@link PREAMBLE} (the top level).
 *
 * @example
 * ```ts
 * codeDeclarationAt(codeDeclarations('m.py', 'def f():\n    # TODO(agent)\n    pass\n'), 2); // 'def f'
 * ```
 */
export function codeDeclarationAt(decls: readonly CodeDeclaration[], line: number): string {
  let best: CodeDeclaration | null = null;
  for (const d of decls)
    if (d.startLine <= line && line <= d.endLine && (best === null || d.startLine >= best.startLine))
      best = d;
  return best?.key ?? PREAMBLE;
}

/** What {@link markersByDeclaration} adds to a line scan of code. */
export interface CodeAttribution {
  /** Each target's declaration key, by target id. */
  readonly declarations: ReadonlyMap<string, string>;
  /** Every marked line as a hatch of its declaration (the marker found on it). */
  readonly hatches: readonly EscapeHatch[];
  /** Every declaration key of the file. */
  readonly declared: readonly string[];
}

/**
 * Attributes a line scan's targets to the code declarations that hold them (pure), so a target is
 * judged by its declaration: it stays open while any marker is left anywhere in that function,
 * method or class body (or, for a top-level marker, anywhere at the top level).
 *
 * @example
 * ```ts
 * const text = 'function f() {\n\n  // TODO(agent)\n}\n';
 * markersByDeclaration('a.js', text, [{ id: 'a.js:3', line: 3 }], ['TODO(agent)']).hatches;
 * // [{ line: 3, word: 'TODO(agent)', declaration: 'function f' }]
 * ```
 */
export function markersByDeclaration(
  file: string,
  text: string,
  targets: readonly { readonly id: string; readonly line: number }[],
  markers: readonly string[],
): CodeAttribution {
  const decls = codeDeclarations(file, text);
  const lines = text.split('\n');
  const declarations = new Map<string, string>();
  const hatches: EscapeHatch[] = [];
  for (const t of targets) {
    const declaration = codeDeclarationAt(decls, t.line);
    declarations.set(t.id, declaration);
    const l = lines[t.line - 1] ?? '';
    hatches.push({ line: t.line, word: markers.find((m) => l.includes(m)) ?? markers[0] ?? '', declaration });
  }
  return { declarations, hatches, declared: decls.map((d) => d.key) };
}
