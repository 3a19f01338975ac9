#!/usr/bin/env node
// Counts the export names of the package's entry points: runtime values (Object.keys of the
// module namespace) and type-only names (from the emitted .d.ts, through the TypeScript checker).
//
//   node bench/export-names.mjs [SUBPATH…] [--json] [--names] [--snapshot]
//
// Default: every subpath in package.json "exports". Needs the build (`npx tsc -p tsconfig.build.json`).
// --snapshot prints test/package/export-names.json (sorted names per subpath), which
// test/package/exports.test.ts compares exactly:
//   node bench/export-names.mjs --snapshot > test/package/export-names.json
//   npx biome format --write test/package/export-names.json
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { resolveSelf } from './self-resolve.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(import.meta.url);
const ts = require('typescript');
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const args = process.argv.slice(2);
const json = args.includes('--json');
const names = args.includes('--names');
const snapshot = args.includes('--snapshot');
const snap = {};
const wanted = args.filter((a) => !a.startsWith('--'));
const subpaths = Object.keys(pkg.exports).filter(
  (s) => s !== './package.json' && (wanted.length === 0 || wanted.includes(s)),
);

const entries = subpaths.map((s) => `${root}${pkg.exports[s].types.slice(2)}`);
const program = ts.createProgram(entries, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  skipLibCheck: true,
  noEmit: true,
});
const checker = program.getTypeChecker();

for (const [i, sub] of subpaths.entries()) {
  const specifier = sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`;
  const values = Object.keys(await import(resolveSelf(specifier))).sort();
  const file = program.getSourceFile(entries[i]);
  const all = checker
    .getExportsOfModule(checker.getSymbolAtLocation(file))
    .map((s) => s.getName())
    .sort();
  const valueSet = new Set(values);
  const types = all.filter((n) => !valueSet.has(n));
  if (snapshot) {
    snap[sub] = { values, types };
  } else if (json) {
    process.stdout.write(`${JSON.stringify({ subpath: sub, total: all.length, values, types })}\n`);
  } else {
    process.stdout.write(
      `${sub}: ${all.length} names (${values.length} values, ${types.length} type-only)\n`,
    );
    if (names) process.stdout.write(`  values: ${values.join(' ')}\n  types: ${types.join(' ')}\n`);
  }
}
if (snapshot) process.stdout.write(`${JSON.stringify(snap, null, 2)}\n`);
