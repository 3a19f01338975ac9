/**
 * Shared helpers of the baseline tests: a temp directory per suite, FIFOs, error capture.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach } from 'vitest';
import { errorExitCode } from '../../src/cli/exit-codes.js';
import { type HandoffError, isHandoffError } from '../../src/errors/index.js';

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

/** A baseline refusal as a test sees it: the error's code, message and details, and the CLI's exit. */
export interface Refusal {
  code: string;
  message: string;
  details: Record<string, unknown>;
  /** The exit status `handoff baseline` gives this code (src/cli/exit-codes.ts). */
  exit: number;
}

/**
 * The {@link Refusal} of a HandoffError; fails when the library put an exit status into
 * `details` (exit statuses are the CLI's: it derives them from the code).
 */
export function refusalOf(e: HandoffError): Refusal {
  if (Object.hasOwn(e.details, 'exit_code')) throw new Error(`library error names an exit code: ${e.code}`);
  return { code: e.code, message: e.message, details: e.details, exit: errorExitCode(e.code, 'baseline') };
}

/** Awaits `p` and returns the {@link Refusal} of the HandoffError it rejects with (fails otherwise). */
export async function rejection(p: Promise<unknown>): Promise<Refusal> {
  try {
    await p;
  } catch (e) {
    if (isHandoffError(e)) return refusalOf(e);
    throw e;
  }
  throw new Error('expected a HandoffError rejection');
}
