/**
 * Helpers for the conformance tests: paths of the test workers and of the example workers (built).
 */
import { fileURLToPath } from 'node:url';
import type { ConformanceReport } from '../../src/conformance/index.js';

/** Absolute path of a test worker under test/conformance/fixtures. */
export const fixture = (name: string): string =>
  fileURLToPath(new URL(`./fixtures/${name}.mjs`, import.meta.url));

/** `node <fixture>` as a worker command. */
export const nodeWorker = (name: string): string[] => [process.execPath, fixture(name)];

/** The built TypeScript example worker. */
export const TS_EXAMPLE = fileURLToPath(
  new URL('../../dist/examples/workers/solver-worker.js', import.meta.url),
);
/** The Python example worker. */
export const PY_EXAMPLE = fileURLToPath(new URL('../../examples/workers/solver_worker.py', import.meta.url));

/** The sorted, distinct ids of the failed checks of a report. */
export function failedChecks(r: ConformanceReport): string[] {
  return [...new Set(r.findings.filter((f) => !f.passed).map((f) => f.check))].sort();
}
