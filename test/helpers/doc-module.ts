/**
 * What the tests that run a documentation page share: its fenced code blocks, and a strict
 * type-check of the module made from its TypeScript (the options a consumer's strict project
 * would use, diagnostics of that one file only).
 */
import { join } from 'node:path';
import ts from 'typescript';

/** One fenced code block of a Markdown page. */
export interface DocBlock {
  readonly lang: string;
  readonly code: string;
}

/**
 * The fenced code blocks of a Markdown page, in order.
 *
 * @example
 * ```ts
 * docBlocks(readme).filter((b) => b.lang === 'ts');
 * ```
 */
export function docBlocks(markdown: string): DocBlock[] {
  const out: DocBlock[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = fence.exec(markdown); m !== null; m = fence.exec(markdown)) {
    out.push({ lang: m[1] ?? '', code: m[2] ?? '' });
  }
  return out;
}

/**
 * The strict type-check diagnostics of `file` (an ES module), as message texts; `root` is the
 * repository, whose `@types` are used.
 *
 * @example
 * ```ts
 * expect(strictDiagnostics(join(dir, 'typed.mts'), ROOT)).toEqual([]);
 * ```
 */
export function strictDiagnostics(file: string, root: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
