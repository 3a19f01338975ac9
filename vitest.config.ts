import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** `handoff-runtime[/sub]` → the .ts source of its built entry (`./dist/src/x/index.js` → src/x/index.ts). */
function entryPointSources(): { find: RegExp; replacement: string }[] {
  const pkg = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as {
    name: string;
    exports: Record<string, string | { import: string }>;
  };
  return Object.entries(pkg.exports).flatMap(([sub, target]) => {
    if (typeof target === 'string') return [];
    const name = sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`;
    const source = target.import.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts');
    return [{ find: new RegExp(`^${name}$`), replacement: fileURLToPath(new URL(source, import.meta.url)) }];
  });
}

export default defineConfig({
  // examples import the package by name, as a user would; tests run them on the sources: each entry
  // point of package.json "exports" maps to the source its build comes from
  resolve: { alias: entryPointSources() },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/no-console.ts', 'test/setup/fast-check-seed.ts'],
    // one throwaway PostgreSQL cluster per run for the PG backend tests (test/setup/postgres-cluster.ts)
    globalSetup: ['test/setup/postgres-global.ts'],
    // source type errors are reported by `npm run typecheck`; here only the *.test-d.ts assertions count
    typecheck: {
      enabled: true,
      include: ['test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
      ignoreSourceErrors: true,
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // the JSON report lets .ci/run print a plain 'N passed, N failed' closing line
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    pool: 'forks',
    maxWorkers: 2,
  },
});
