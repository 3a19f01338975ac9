/**
 * The worker-side entry points stay light (issue 28 item 7): the static import graph of the built
 * `handoff-runtime/contract` and `handoff-runtime/baseline` reaches no package at all — not zod
 * (loaded on the first schema build, src/validation/zod-sync.ts), not xstate, immer, yaml, nanoid
 * or an optional peer — and no module outside the record and rule folders, within a file budget.
 * A walk over the emitted JavaScript's import/export declarations (dynamic `import()` is not an
 * edge: it loads nothing at import time); cheap, no timing. The time itself is measured in
 * `npm run bench` (bench/startup.bench.mjs). Needs the build (`npm test` builds first).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Files (repo-relative), packages and builtins the static imports of `entry` reach. */
function staticGraph(entry: string): { files: string[]; packages: string[]; builtins: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const builtins = new Set<string>();
  const stack = [resolve(ROOT, entry)];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    const rel = relative(ROOT, file);
    if (files.has(rel)) continue;
    files.add(rel);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
    for (const node of source.statements) {
      if (!ts.isImportDeclaration(node) && !ts.isExportDeclaration(node)) continue;
      const spec = node.moduleSpecifier;
      if (spec === undefined || !ts.isStringLiteral(spec)) continue;
      const s = spec.text;
      if (s.startsWith('.')) stack.push(join(dirname(file), s));
      else if (s.startsWith('node:')) builtins.add(s);
      else packages.add(s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] as string));
    }
  }
  return { files: [...files].sort(), packages: [...packages].sort(), builtins: [...builtins].sort() };
}

/** What a worker-side entry point may reach. */
const LIGHT_FOLDERS = /^dist\/src\/(contract|baseline|validation|canonical|errors)\/[^/]+\.js$/;
const HEAVY = ['zod', 'xstate', 'immer', 'yaml', 'nanoid', 'pg', 'fast-check', '@langchain/core'];
const FILE_BUDGET = 30;

describe('worker-side entry points', () => {
  it.each(['dist/src/contract/index.js', 'dist/src/baseline/index.js'])(
    '%s statically reaches no package and no heavy module',
    (entry) => {
      const g = staticGraph(entry);
      for (const heavy of HEAVY) expect(g.packages, `${entry} reaches ${heavy}`).not.toContain(heavy);
      expect(g.packages).toEqual([]);
      expect(g.files.filter((f) => !LIGHT_FOLDERS.test(f))).toEqual([]);
      expect(g.files.length, g.files.join('\n')).toBeLessThanOrEqual(FILE_BUDGET);
    },
  );

  it('the walk sees a package where one is imported, and no edge for a dynamic import()', () => {
    expect(staticGraph('dist/src/tracker/index.js').packages).toContain('zod');
    const lazy = staticGraph('dist/src/validation/zod-sync.js');
    expect(lazy.packages).toEqual([]);
    expect(lazy.builtins).toEqual(['node:module', 'node:url']);
  });
});
