/**
 * The test-server helper itself: it finds the PostgreSQL binaries, and without them it fails with
 * a clear message (CI must install them; the PostgreSQL tests fail rather than skip).
 */
import { describe, expect, it } from 'vitest';
import { findPgBinDir, startPgCluster } from '../setup/postgres-cluster.js';

describe('test PostgreSQL helper', () => {
  it('finds initdb/postgres on this machine', () => {
    expect(findPgBinDir()).toMatch(/\/(bin)$/);
  });
  it('without binaries it throws an install hint instead of skipping', async () => {
    const none = { path: '', base: '/nonexistent-postgresql' };
    expect(findPgBinDir(none)).toBeNull();
    await expect(startPgCluster(none)).rejects.toThrow(/binaries not found.*apt-get install -y postgresql/);
  });
});
