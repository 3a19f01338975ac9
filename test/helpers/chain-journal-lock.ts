/**
 * The setup the chain journal's lock tests share (test/chain/journal-lock, test/chain/journal-held-lock):
 * a fresh scratch directory per test, real writer processes (test/chain/fixtures/journal-writer.mjs,
 * against the built library: `npm run build` first) that are SIGKILLed if a test leaves them
 * running, the outcomes line such a writer prints, and the first three journal entries of the trip
 * chain.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import type { JournalEntry } from '../../src/chain/index.js';
import { tripBaton, tripChain } from '../chain/trip-fixture.js';

/**
 * The writer script: `hold`, `hold-held` and `run` modes (see its header).
 *
 * @example
 * ```ts
 * spawn(process.execPath, [JOURNAL_WRITER, 'hold', dir, 'race-0']);
 * ```
 */
export const JOURNAL_WRITER = fileURLToPath(new URL('../chain/fixtures/journal-writer.mjs', import.meta.url));

/** How a writer process ended, with all it printed on stdout. */
export interface JournalWriterExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly out: string;
}

/** One running writer process. */
export interface JournalWriter {
  readonly child: ChildProcess;
  /** Resolves when the process has closed. */
  readonly done: Promise<JournalWriterExit>;
  /** Resolves when stdout shows `text`; rejects (with its output) if the process ends first. */
  shows(text: string): Promise<void>;
}

/** A test's scratch directory and the writers it started (see {@link useJournalDir}). */
export interface JournalDirFixture {
  /** This test's fresh directory (made in `beforeEach`, removed in `afterEach`). */
  readonly dir: string;
  /** Starts `node journal-writer.mjs ...args`; a writer still running after the test is SIGKILLed. */
  writer(args: readonly string[]): JournalWriter;
}

/**
 * Registers the `beforeEach`/`afterEach` hooks of a lock test file: a fresh directory named
 * `prefix…` under the OS temp dir per test, removed after it, and every writer the test started
 * and left running killed first.
 *
 * @example
 * ```ts
 * const tmp = useJournalDir('chain-lock-');
 * it('…', async () => {
 *   const holder = tmp.writer(['hold', tmp.dir, 'race-0']);
 *   await holder.shows('LOCKED\n');
 * });
 * ```
 */
export function useJournalDir(prefix: string): JournalDirFixture {
  let dir: string | null = null;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    if (dir !== null) await rm(dir, { recursive: true, force: true });
    dir = null;
  });
  return {
    get dir() {
      if (dir === null) throw new Error('useJournalDir: the directory exists only inside a test');
      return dir;
    },
    writer(args) {
      const w = startJournalWriter(args);
      children.push(w.child);
      return w;
    },
  };
}

function startJournalWriter(args: readonly string[]): JournalWriter {
  const child = spawn(process.execPath, [JOURNAL_WRITER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: { text: string; res: () => void }[] = [];
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of waiters.filter((x) => out.includes(x.text))) w.res();
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const done = new Promise<JournalWriterExit>((res) => {
    child.on('close', (code, signal) => res({ code, signal, out }));
  });
  const shows = (text: string) =>
    Promise.race([
      new Promise<void>((res) => {
        waiters.push({ text, res });
        if (out.includes(text)) res();
      }),
      done.then(({ code }) => {
        if (!out.includes(text)) throw new Error(`writer exited ${code} before ${text}: ${out} ${err}`);
      }),
    ]);
  return { child, done, shows };
}

/**
 * The `{"outcomes": …}` line a `run` writer prints last: baton id → `accepted` or an error code.
 * Throws (failing the test) when the output holds no such line.
 *
 * @example
 * ```ts
 * outcomesOf('READY\n{"outcomes":{"race-0":"busy"}}\n'); // { 'race-0': 'busy' }
 * ```
 */
export const outcomesOf = (out: string): Record<string, string> =>
  (JSON.parse(out.slice(out.lastIndexOf('{"outcomes"'))) as { outcomes: Record<string, string> }).outcomes;

/**
 * Whether `p` exists (a dangling symlink does not).
 *
 * @example
 * ```ts
 * expect(await exists(chainJournalLockFile(dir, 'trip-1'))).toBe(false);
 * ```
 */
export const exists = (p: string): Promise<boolean> =>
  access(p).then(
    () => true,
    () => false,
  );

/**
 * The trip chain's first three journal entries (revisions 0, 1, 2 of baton `trip-1`).
 *
 * @example
 * ```ts
 * const [e0, e1] = await tripEntries();
 * await journal.commit(e0);
 * ```
 */
export async function tripEntries(): Promise<[JournalEntry, JournalEntry, JournalEntry]> {
  const chain = tripChain();
  const b0 = tripBaton(chain);
  const c1 = await chain.advance(b0);
  const c2 = await chain.advance(c1.baton);
  return [
    { baton: b0, receipt: null },
    { baton: c1.baton, receipt: c1.receipt },
    { baton: c2.baton, receipt: c2.receipt },
  ];
}
