/**
 * The setup the chain journal's lock tests share (test/chain/journal-lock, test/chain/journal-held-lock):
 * a fresh scratch directory per test, real writer processes (test/chain/fixtures/journal-writer.mjs,
 * against the built library: `npm run build` first) that are SIGKILLed if a test leaves them
 * running — one run to its end, or two released at once to race on the same batons — the outcomes
 * line such a writer prints, what a race must leave on disk, and the first three journal entries
 * of the trip chain.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect } from 'vitest';
import { chainJournalLockFile, createFileChainJournal, type JournalEntry } from '../../src/chain/index.js';
import { tripBaton, tripChain } from '../chain/trip-fixture.js';

/**
 * The writer script: `hold`, `hold-held`, `effects-begin` and `run` modes (see its header).
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
  /**
   * Starts a writer holding `batonId`'s lock in this directory (`hold`: the lock every commit takes;
   * `hold-held`: a holdLocks journal's lock after its first commit; `effects-begin`: the effect
   * ledger's lock, stopped inside a `begin` of key `batonId` before its intent is written);
   * resolves once it printed LOCKED.
   */
  holder(mode: 'hold' | 'hold-held' | 'effects-begin', batonId: string): Promise<JournalWriter>;
  /** Runs one `run` writer (`args`) to its end: READY, go, exit 0 (asserted); its outcomes. */
  run(args: readonly string[]): Promise<Outcomes>;
  /**
   * Runs two `run` writers on this directory, variants `a` and `b` over batons race-0 … race-(n-1)
   * (`extra` appended, e.g. `held`), released at once; both must exit 0 (asserted); their outcomes.
   */
  race(n: number, extra?: readonly string[]): Promise<[Outcomes, Outcomes]>;
}

/** Baton id → `accepted` or the error code a writer's commit ended with. */
export type Outcomes = Record<string, string>;

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
  const writer = (args: readonly string[]) => {
    const w = startJournalWriter(args);
    children.push(w.child);
    return w;
  };
  const fixture: JournalDirFixture = {
    get dir() {
      if (dir === null) throw new Error('useJournalDir: the directory exists only inside a test');
      return dir;
    },
    writer,
    async holder(mode, batonId) {
      const w = writer([mode, fixture.dir, batonId]);
      await w.shows('LOCKED\n');
      return w;
    },
    async run(args) {
      const w = writer(args);
      await w.shows('READY\n');
      w.child.stdin?.write('go\n');
      const r = await w.done;
      expect(r.code).toBe(0);
      return outcomesOf(r.out);
    },
    async race(n, extra = []) {
      const a = writer(['run', fixture.dir, 'a', String(n), ...extra]);
      const b = writer(['run', fixture.dir, 'b', String(n), ...extra]);
      await Promise.all([a.shows('READY\n'), b.shows('READY\n')]);
      a.child.stdin?.write('go\n');
      b.child.stdin?.write('go\n');
      const [ra, rb] = await Promise.all([a.done, b.done]);
      expect([ra.code, rb.code]).toEqual([0, 0]);
      return [outcomesOf(ra.out), outcomesOf(rb.out)];
    },
  };
  return fixture;
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
export const outcomesOf = (out: string): Outcomes =>
  (JSON.parse(out.slice(out.lastIndexOf('{"outcomes"'))) as { outcomes: Record<string, string> }).outcomes;

/**
 * Asserts what two racing writers (see {@link JournalDirFixture.race}) must leave under `dir`, baton
 * by baton (race-0 … race-(n-1)): each outcome `accepted`, `busy` or `journal_conflict`, never both
 * accepted, the journal one dense verified history (loading it fails with `journal_damaged` if two
 * writers interleaved), `each` (extra checks of the test) passed, and no lock left.
 *
 * @example
 * ```ts
 * const [oa, ob] = await tmp.race(12);
 * await expectOneHistoryPerBaton(tmp.dir, 12, oa, ob);
 * ```
 */
export async function expectOneHistoryPerBaton(
  dir: string,
  n: number,
  oa: Outcomes,
  ob: Outcomes,
  each: (id: string, entries: readonly JournalEntry[]) => void = () => {},
): Promise<void> {
  const journal = createFileChainJournal(dir);
  for (let i = 0; i < n; i++) {
    const id = `race-${i}`;
    for (const o of [oa[id], ob[id]]) expect(['accepted', 'busy', 'journal_conflict']).toContain(o);
    expect(oa[id] === 'accepted' && ob[id] === 'accepted').toBe(false); // the variants differ
    const entries = await journal.entries(id); // journal_damaged if two writers interleaved
    expect(entries.map((e) => e.baton.revision)).toEqual(entries.map((_, j) => j));
    each(id, entries);
    expect(await exists(chainJournalLockFile(dir, id))).toBe(false);
  }
}

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
