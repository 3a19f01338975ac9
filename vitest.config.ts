import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/no-console.ts'],
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
