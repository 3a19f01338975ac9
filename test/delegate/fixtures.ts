/**
 * Shared fixtures of the delegation tests: a real git project with one owned file and a
 * bystander, a well-behaved worker, a deterministic store, and the invariants every hostile case
 * must end in.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, handoffFor, validateHandoff } from '../../src/contract/index.js';
import type { DelegateResult } from '../../src/delegate/index.js';
import { createFsStore, createMemoryStore } from '../../src/store/index.js';

/** The owned file's bytes before any worker ran. */
export const GREETING = "export const greeting = 'TODO(agent)';\n";
/** What the well-behaved worker writes. */
export const SOLVED = "export const greeting = 'hello';\n";
/** The fixed clock of the deterministic stores. */
export const NOW = new Date('2026-11-30T10:00:00Z');
/** The run id the deterministic stores give their first run. */
export const RUN_ID = '20261130T100000Z-0a1b2c3d';

/** A temp git project: `src/greeting.ts` (owned by the tests), `README.md` (a bystander). */
export interface Project {
  readonly dir: string;
  readonly owned: string;
  git(args: readonly string[]): string;
  cleanup(): Promise<void>;
}

/**
 * Creates and commits the project (a real path, so custody compares real locations).
 *
 * @example
 * ```ts
 * const p = await makeProject(); … await p.cleanup();
 * ```
 */
export async function makeProject(): Promise<Project> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-delegate-')));
  const git = (args: readonly string[]) =>
    execFileSync('git', [...args], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'greeting.ts'), GREETING);
  await writeFile(join(dir, 'README.md'), 'bystander\n');
  git(['init', '-q']);
  git(['add', '-A']);
  git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init']);
  return {
    dir,
    owned: join(dir, 'src', 'greeting.ts'),
    git,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * The well-behaved worker: edits its owned file, advances the baseline, reports the change.
 *
 * @example
 * ```ts
 * await delegate(dispatch, solve);
 * ```
 */
export async function solve(d: Dispatch) {
  const f = d.owned_files[0] as string;
  await writeFile(f, SOLVED);
  const file_baseline = await advanceBaseline(d.file_baseline, [f]);
  return handoffFor(d, { files_changed: [f], file_baseline });
}

/** An in-memory store with a fixed clock and run id. */
export function memoryStore() {
  return createMemoryStore({ now: () => NOW, runIdSuffix: () => '0a1b2c3d' });
}

/** The project's fs store (`<dir>/.handoff`) with a fixed clock and run id. */
export function fsStore(dir: string) {
  return createFsStore({ projectRoot: dir, now: () => NOW, runIdSuffix: () => '0a1b2c3d' });
}

/**
 * What every refused or failed delegation must end with: not accepted, never `solved`, a valid
 * handoff, and the owned file back at its pre-dispatch bytes.
 *
 * @example
 * ```ts
 * await expectContained(r, p.owned);
 * ```
 */
export async function expectContained(r: DelegateResult, owned: string, before = GREETING): Promise<void> {
  expect(r.outcome).not.toBe('accepted');
  expect(r.handoff.status).not.toBe('solved');
  expect(validateHandoff(r.handoff).ok).toBe(true);
  expect(await readFile(owned, 'utf8').catch(() => null)).toBe(before);
}
