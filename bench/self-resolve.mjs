// Resolves `handoff-runtime[/subpath]` through the root package.json "exports" to the file URL it
// names, the way the package's self-reference does from anywhere under the repository root. The
// scripts in bench/ need it: bench/package.json (the benchmark-only packages) makes bench/ a package
// scope of its own, so a self-reference from a bench/ file would look in bench/package.json.
// Any other specifier is returned as it is.
import { readFileSync } from 'node:fs';

const rootUrl = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', rootUrl), 'utf8'));

/**
 * The URL to import for `specifier`: the root package's export for `handoff-runtime[/x]`, else the
 * specifier unchanged. Throws on a subpath the package does not export.
 */
export function resolveSelf(specifier) {
  if (specifier !== pkg.name && !specifier.startsWith(`${pkg.name}/`)) return specifier;
  const sub = specifier === pkg.name ? '.' : `./${specifier.slice(pkg.name.length + 1)}`;
  const target = pkg.exports[sub];
  if (target === undefined) throw new Error(`${specifier}: not exported by ${pkg.name}`);
  return new URL(typeof target === 'string' ? target : target.import, rootUrl).href;
}
