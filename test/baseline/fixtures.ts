/**
 * Shared helpers of the baseline tests: a temp directory per suite, FIFOs, error capture.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach } from 'vitest';
import { isHandoffError } from '../../src/errors/index.js';

/** True when the tests run as root (root reads chmod 000 files, so chmod cannot make an entry unreadable). */
export const IS_ROOT = process.getuid?.() === 0;

/** Creates a fresh temp directory (realpath'd, so /tmp symlinks do not matter). */
export function makeTmp(prefix = 'handoff-baseline-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Removes a temp directory. */
export function removeTmp(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Gives every test of the calling file a fresh, empty directory (passed to `use` before each test)
 * under one temp root that is removed after the file.
 */
export function dirPerTest(use: (dir: string) => void, prefix?: string): void {
  const root = makeTmp(prefix);
  let n = 0;
  beforeEach(() => {
    const dir = join(root, `case-${n++}`);
    mkdirSync(dir);
    use(dir);
  });
  afterAll(() => removeTmp(root));
}

/** Creates a FIFO with mkfifo(1) (argument array, no shell). */
export function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/** Awaits `p` and returns the HandoffError it rejects with (fails otherwise). */
export async function rejection(p: Promise<unknown>): Promise<{
  code: string;
  message: string;
  details: Record<string, unknown>;
}> {
  try {
    await p;
  } catch (e) {
    if (isHandoffError(e)) return { code: e.code, message: e.message, details: e.details };
    throw e;
  }
  throw new Error('expected a HandoffError rejection');
}
