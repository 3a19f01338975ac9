/**
 * vitest globalSetup: one throwaway PostgreSQL cluster per vitest run, shared by every test file
 * (each file creates and drops its own database through `usePostgres` in ./postgres.ts). Skipped
 * when HANDOFF_TEST_PG_URL names a server. The admin URL reaches the workers through
 * `project.provide('handoffPgAdminUrl', …)`.
 */
import type { TestProject } from 'vitest/node';
import { findPgBinDir, startPgCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    handoffPgAdminUrl: string;
  }
}

/** Starts the shared cluster (lazily useful: files that never call usePostgres do not connect). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.HANDOFF_TEST_PG_URL !== undefined && process.env.HANDOFF_TEST_PG_URL !== '') {
    return async () => {};
  }
  if (findPgBinDir() === null) {
    // no server binaries: provide nothing; usePostgres() then fails the PostgreSQL test files with
    // the install hint, while every other test of the run is unaffected
    return async () => {};
  }
  const cluster = await startPgCluster();
  project.provide('handoffPgAdminUrl', cluster.adminUrl);
  return () => cluster.stop();
}
