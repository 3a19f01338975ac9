/**
 * The fs store keeps a run's journal descriptor open between appends. These tests change the
 * journal behind the store's back between two appends of the same instance and check that the
 * held descriptor is only reused while the journal path still names the file validated at that
 * size: a replaced, moved, symlinked, extended, damaged or shrunk journal is never written
 * through a stale descriptor.
 */
import {
  appendFileSync,
  copyFileSync,
  linkSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  truncateSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELD_JOURNALS } from '../../src/store/fs-store.js';
import { createFsStore } from '../../src/store/index.js';
import { dispatch, fixedClock, note } from './fixtures.js';
import { tempDir } from './tmp.js';

async function runWithTwoEvents() {
  const project = tempDir('held-');
  const store = createFsStore({ projectRoot: project, env: {}, now: fixedClock() });
  const c = await store.createRun({ dispatch: dispatch() });
  const id = c.run_id as string;
  expect(await store.append(id, 'note', note('a'))).toMatchObject({ outcome: 'committed', seq: 1 });
  expect(await store.append(id, 'note', note('b'))).toMatchObject({ outcome: 'committed', seq: 2 });
  const dir = c.run_directory as string;
  return { project, store, id, dir, journal: join(dir, 'events.jsonl') };
}

/** Journals this process has open, by path (Linux /proc). */
function openJournals(): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.endsWith('/events.jsonl')) out.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

const texts = (bytes: Buffer): string[] =>
  bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { payload: { text: string } }).payload.text);

describe('held journal descriptor', () => {
  it('a journal replaced by another file (rename over it) is written in the new file, never the old inode', async () => {
    const { store, id, dir, journal } = await runWithTwoEvents();
    const old = join(dir, 'old-inode.keep');
    linkSync(journal, old); // keeps the old inode reachable
    copyFileSync(journal, join(dir, 'copy.tmp'));
    renameSync(join(dir, 'copy.tmp'), journal);
    expect(await store.append(id, 'note', note('c'))).toMatchObject({ outcome: 'committed', seq: 3 });
    expect(texts(readFileSync(journal))).toEqual(['a', 'b', 'c']);
    expect(texts(readFileSync(old))).toEqual(['a', 'b']);
  });

  it('a journal moved away is integrity_failure; the moved file is untouched', async () => {
    const { store, id, dir, journal } = await runWithTwoEvents();
    const moved = join(dir, 'moved.keep');
    renameSync(journal, moved);
    const before = readFileSync(moved);
    expect(await store.append(id, 'note', note('c'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'integrity_failure',
    });
    expect(readFileSync(moved).equals(before)).toBe(true);
  });

  it('a journal swapped for a symlink to itself is containment; nothing is written', async () => {
    const { store, id, dir, journal } = await runWithTwoEvents();
    const moved = join(dir, 'real.keep');
    renameSync(journal, moved);
    symlinkSync(moved, journal);
    const before = readFileSync(moved);
    expect(await store.append(id, 'note', note('c'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'containment',
    });
    expect(readFileSync(moved).equals(before)).toBe(true);
  });

  it('validates what another writer appended: a whole event continues the seqs, a torn one is journal_damaged', async () => {
    const { project, store, id, journal } = await runWithTwoEvents();
    const other = createFsStore({ projectRoot: project, env: {}, now: fixedClock() });
    expect(await other.append(id, 'note', note('x'))).toMatchObject({ seq: 3 });
    expect(await store.append(id, 'note', note('c'))).toMatchObject({ outcome: 'committed', seq: 4 });
    appendFileSync(journal, '{"kind":"note","payload":');
    const before = readFileSync(journal);
    expect(await store.append(id, 'note', note('d'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'journal_damaged',
    });
    expect(readFileSync(journal).equals(before)).toBe(true);
  });

  it('a shrunk journal is validated whole again (seqs continue from what is really there)', async () => {
    const { store, id, journal } = await runWithTwoEvents();
    const lines = readFileSync(journal, 'utf8').split('\n');
    truncateSync(journal, Buffer.byteLength(`${lines[0]}\n`));
    expect(await store.append(id, 'note', note('c'))).toMatchObject({ outcome: 'committed', seq: 2 });
    expect(texts(readFileSync(journal))).toEqual(['a', 'c']);
  });

  it(`keeps at most ${HELD_JOURNALS} journals open, and close() releases them (the store stays usable)`, async () => {
    if (process.platform !== 'linux') return;
    const project = tempDir('held-many-');
    const store = createFsStore({ projectRoot: project, env: {}, now: fixedClock() });
    const baseline = openJournals().length;
    const ids: string[] = [];
    for (let i = 0; i < HELD_JOURNALS + 3; i++) {
      const c = await store.createRun({ dispatch: dispatch(), trackerSessionId: `s${i}` });
      ids.push(c.run_id as string);
      expect(await store.append(c.run_id as string, 'note', note(`n${i}`))).toMatchObject({ seq: 1 });
    }
    const mine = openJournals().filter((p) => p.startsWith(project));
    expect(mine.length).toBe(HELD_JOURNALS);
    // the most recently used runs are the ones held
    for (const id of ids.slice(-HELD_JOURNALS)) expect(mine.some((p) => p.includes(id))).toBe(true);
    store.close();
    expect(openJournals().filter((p) => p.startsWith(project))).toEqual([]);
    expect(openJournals().length).toBe(baseline);
    expect(await store.append(ids[0] as string, 'note', note('again'))).toMatchObject({ seq: 2 });
    store.close();
  });
});
