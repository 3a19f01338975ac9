/**
 * The fs store's opt-in `holdLocks` mode: a writer takes its run's `.lock` once (O_EXCL, the same
 * `{acquired, host, pid}` body) and keeps it across appends until `close()` or process exit. Pinned
 * here: the lock stays the same file between appends and everyone else is `busy` meanwhile; a lock
 * removed behind the writer's back is taken afresh (and the batch sidecar looked at again, so an
 * aborted batch another writer left is superseded); a lock replaced by someone else's file is
 * `busy` and never removed by the holder; a normal exit removes the lock, a SIGKILL leaves it with
 * the dead pid, and `recoverRun` breaks exactly that one; every acknowledged event survives.
 * Children use dist/ (run `npm run build` first).
 */
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  constants,
  existsSync,
  lstatSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type FsLayer, nodeFsLayer } from '../../src/durable/index.js';
import { createFsStore, recoverRun } from '../../src/store/index.js';
import { faultyFs } from './faulty-fs.js';
import { dispatch, fixedClock, note } from './fixtures.js';
import { tempDir } from './tmp.js';

const CHILD = fileURLToPath(new URL('./children/held-child.mjs', import.meta.url));

async function heldRun() {
  const project = tempDir('held-lock-');
  const store = createFsStore({ projectRoot: project, env: {}, now: fixedClock(), holdLocks: true });
  const c = await store.createRun({ dispatch: dispatch() });
  const id = c.run_id as string;
  const dir = c.run_directory as string;
  return { project, store, id, dir, lock: join(dir, '.lock') };
}

const other = (project: string) => createFsStore({ projectRoot: project, env: {}, now: fixedClock() });

describe('holdLocks: one lock for a writer across its appends', () => {
  it('the first append creates .lock with the diagnostic body; later appends keep that very file; others are busy until close()', async () => {
    const { project, store, id, lock } = await heldRun();
    expect(existsSync(lock)).toBe(false); // create takes no lock
    expect(await store.append(id, 'note', note('a'))).toMatchObject({ outcome: 'committed', seq: 1 });
    const first = lstatSync(lock);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual({
      acquired: '2026-11-30T10:00:00Z',
      host: expect.any(String),
      pid: process.pid,
    });
    for (const t of ['b', 'c', 'd'])
      expect(await store.append(id, 'note', note(t))).toMatchObject({ outcome: 'committed' });
    expect(
      await store.appendBatch(id, [
        { kind: 'note', payload: note('e') },
        { kind: 'note', payload: note('f') },
      ]),
    ).toMatchObject({
      outcome: 'committed',
      first_seq: 5,
      seq: 6,
    });
    expect(lstatSync(lock).ino).toBe(first.ino);
    // another writer (here: another instance, default mode) is busy and breaks nothing
    expect(await other(project).append(id, 'note', note('x'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'busy',
    });
    expect(await other(project).isLocked(id)).toBe(true);
    // readers take no lock
    const l = await other(project).load(id);
    expect(l.ok && l.value.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    store.close();
    expect(existsSync(lock)).toBe(false);
    expect(await other(project).append(id, 'note', note('x'))).toMatchObject({
      outcome: 'committed',
      seq: 7,
    });
    // the closed store stays usable: it takes the lock again
    expect(await store.append(id, 'note', note('g'))).toMatchObject({ outcome: 'committed', seq: 8 });
    expect(existsSync(lock)).toBe(true);
    store.close();
  });

  it('per append it makes no lock-file creates or unlinks, only one lstat of .lock (the fs calls, counted)', async () => {
    const { project, store, id } = await heldRun();
    store.close();
    const f = faultyFs();
    const s = createFsStore({ projectRoot: project, env: {}, now: fixedClock(), fs: f, holdLocks: true });
    expect(await s.append(id, 'note', note('a'))).toMatchObject({ outcome: 'committed' });
    const before = f.trace.length;
    expect(await s.append(id, 'note', note('b'))).toMatchObject({ outcome: 'committed' });
    const calls = f.trace.slice(before).map((c) => c.replace(project, ''));
    expect(calls.filter((c) => c.endsWith('/.lock'))).toEqual([expect.stringMatching(/^lstat /)]);
    expect(calls.filter((c) => /^(open|unlink|close) /.test(c))).toEqual([]);
    expect(calls.filter((c) => c.startsWith('fsync '))).toHaveLength(1);
    const n = f.trace.length;
    s.close();
    expect(f.trace.slice(n).filter((c) => c.endsWith('/.lock'))).toEqual([
      expect.stringMatching(/^lstat /),
      expect.stringMatching(/^unlink /),
      expect.stringMatching(/^close /),
    ]);
  });

  it('hostile: a lock swapped in right after the O_EXCL create is not pinned as ours (the creating descriptor is the pin)', async () => {
    const { project, store, id, lock } = await heldRun();
    store.close();
    const real = nodeFsLayer();
    let swapped = false;
    // the O_EXCL create of .lock succeeds, then another process moves it away and plants its own
    // file there before the holder could re-open the path
    const racing: FsLayer = {
      ...real,
      open(p, flags, mode) {
        const fd = real.open(p, flags, mode);
        if (!swapped && p === lock && (flags & constants.O_EXCL) !== 0) {
          swapped = true;
          renameSync(lock, `${lock}.moved`);
          writeFileSync(lock, '{"host":"intruder","pid":1}\n');
        }
        return fd;
      },
    };
    const s = createFsStore({
      projectRoot: project,
      env: {},
      now: fixedClock(),
      fs: racing,
      holdLocks: true,
    });
    expect(await s.append(id, 'note', note('a'))).toMatchObject({ outcome: 'committed', seq: 1 });
    expect(swapped).toBe(true);
    // the planted file is not the lock this writer created: the next mutation sees that and is busy
    expect(await s.append(id, 'note', note('b'))).toMatchObject({ outcome: 'nothing_written', code: 'busy' });
    s.close();
    // and closing never removes the intruder's file
    expect(readFileSync(lock, 'utf8')).toBe('{"host":"intruder","pid":1}\n');
  });

  it('a lock removed behind the holder is taken afresh; an aborted batch left meanwhile by another writer is superseded', async () => {
    const { project, store, id, dir, lock } = await heldRun();
    expect(await store.append(id, 'note', note('a'))).toMatchObject({ outcome: 'committed', seq: 1 });
    // someone removes the live lock (the protocol never does); another writer appends a batch and
    // then leaves the record of 4..6 whose lines it never wrote (an aborted batch)
    unlinkSync(lock);
    const o = other(project);
    expect(
      await o.appendBatch(id, [
        { kind: 'note', payload: note('b') },
        { kind: 'note', payload: note('c') },
      ]),
    ).toMatchObject({
      outcome: 'committed',
      seq: 3,
    });
    o.close();
    appendFileSync(
      join(dir, 'batches.jsonl'),
      `{"count":3,"first_seq":4,"last_seq":6,"schema":"run-store-batch/v1","sha256":"${'0'.repeat(64)}","trace":[]}\n`,
    );
    // the holder sees the lock gone, takes it afresh and must supersede the aborted record: a
    // holder trusting its old sidecar state would write seq 4 bare, and a load would hide it as torn
    expect(await store.append(id, 'note', note('d'))).toMatchObject({ outcome: 'committed', seq: 4 });
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid });
    const l = await other(project).load(id);
    if (!l.ok) throw new Error(l.detail);
    expect([l.value.events.map((e) => (e.payload as { text: string }).text), l.value.damaged]).toEqual([
      ['a', 'b', 'c', 'd'],
      false,
    ]);
    const b = await other(project).readBatches(id);
    expect(b.ok && b.value.batches.map((x) => [x.first_seq, x.last_seq, x.status])).toEqual([
      [2, 3, 'complete'],
      [4, 6, 'aborted'],
      [4, 4, 'complete'],
    ]);
    store.close();
    expect(existsSync(lock)).toBe(false);
  });

  it('hostile: a .lock planted in place of the held one (another pid) makes the holder busy; it is never removed, not even by close()', async () => {
    const { store, id, lock } = await heldRun();
    expect(await store.append(id, 'note', note('a'))).toMatchObject({ outcome: 'committed', seq: 1 });
    rmSync(lock);
    const planted = '{"acquired":"2026-11-30T10:00:00Z","host":"elsewhere","pid":1}\n';
    writeFileSync(lock, planted);
    expect(await store.append(id, 'note', note('b'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'busy',
    });
    store.close();
    expect(readFileSync(lock, 'utf8')).toBe(planted);
    const l = await store.load(id);
    expect(l.ok && l.value.events.length).toBe(1);
  });

  it('the default mode is unchanged: no lock between appends', async () => {
    const project = tempDir('held-lock-default-');
    const store = other(project);
    const c = await store.createRun({ dispatch: dispatch() });
    expect(await store.append(c.run_id as string, 'note', note('a'))).toMatchObject({ outcome: 'committed' });
    expect(existsSync(join(c.run_directory as string, '.lock'))).toBe(false);
    store.close();
  });
});

describe('holdLocks under fault injection', () => {
  it('every failing fs call of a fresh and of a reused held-lock append yields a truthful outcome; close() leaves no lock of ours', async () => {
    const project = tempDir('held-fault-');
    const setup = other(project);
    const id = (await setup.createRun({ dispatch: dispatch() })).run_id as string;
    setup.close();
    const journal = join(project, '.handoff', 'runs', id, 'events.jsonl');
    const lock = join(project, '.handoff', 'runs', id, '.lock');
    const trial = async (failAt: number) => {
      const f = faultyFs();
      f.failAt = failAt;
      const s = createFsStore({ projectRoot: project, env: {}, now: fixedClock(), fs: f, holdLocks: true });
      const results: string[] = [];
      for (const t of ['fresh', 'reused']) {
        const before = readFileSync(journal);
        const r = await s.append(id, 'note', note(t));
        const after = readFileSync(journal);
        const ctx = `${t} failing ${f.failed ?? '(none)'} → ${JSON.stringify(r)}`;
        if (r.outcome === 'committed') {
          expect(after.subarray(before.length).toString('utf8'), ctx).toContain(`"text":"${t}"`);
          expect(f.unsyncedContent.has(journal), `${ctx}: acknowledged before its fsync`).toBe(false);
        } else if (r.outcome === 'nothing_written') {
          expect(after.equals(before), `${ctx}: journal changed`).toBe(true);
        } else {
          expect(r.outcome, ctx).toBe('indeterminate');
          expect(r.step, ctx).toBeDefined();
        }
        results.push(r.outcome);
      }
      s.close();
      // the lock is gone unless removing it, or close()'s check that it is still ours, was the
      // failing call: a lock close() cannot identify as its own stays (busy, never broken)
      const failed = f.failed ?? '';
      const closeCheckFailed = failed === `lstat ${lock}` && results.every((r) => r === 'committed');
      if (failed === `unlink ${lock}` || closeCheckFailed) rmSync(lock);
      else expect(existsSync(lock), failed).toBe(false);
      // whatever happened, the journal loads and a later writer appends after it
      const o = other(project);
      const l = await o.load(id);
      if (!l.ok) throw new Error(l.detail);
      if (l.value.damaged) await recoverRun({ root: join(project, '.handoff'), runId: id, env: {} });
      expect(await o.append(id, 'note', note('next')), f.failed ?? '').toMatchObject({
        outcome: 'committed',
      });
      o.close();
      return { f, results };
    };
    const clean = await trial(-1);
    expect(clean.results).toEqual(['committed', 'committed']);
    const n = clean.f.trace.length;
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const { f, results } = await trial(i);
      expect(f.failed, `call ${i} not reached`).not.toBeNull();
      for (const r of results) seen.add(r);
    }
    expect([...seen].sort()).toEqual(['committed', 'indeterminate', 'nothing_written']);
  }, 60_000);
});

interface ChildRun {
  lines: string[];
  code: number | null;
}

/** Runs the held-lock child; with `killAfterAck` it is SIGKILLed `delayMs` after that ack arrived. */
function runChild(
  root: string,
  mode: 'exit' | 'crash',
  label: string,
  killAfterAck?: number,
  delayMs = 0,
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CHILD, root, mode, label], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CHILD_DISPATCH: JSON.stringify(dispatch()) },
    });
    const lines: string[] = [];
    let buf = '';
    let stderr = '';
    p.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    p.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const parts = buf.split('\n');
      buf = parts.pop() ?? '';
      for (const l of parts) {
        lines.push(l);
        if (killAfterAck !== undefined && l === `ack ${killAfterAck}`) {
          if (delayMs === 0) p.kill('SIGKILL');
          else setTimeout(() => p.kill('SIGKILL'), delayMs);
        }
      }
    });
    p.on('error', reject);
    p.on('close', (code) => {
      if (lines.some((l) => l.startsWith('error'))) reject(new Error(`${lines.join('|')} ${stderr}`));
      else resolve({ lines, code });
    });
  });
}

describe('holdLocks across process ends', () => {
  it('a normal exit removes the held lock; SIGKILLs leave it with the dead pid, every ack survives, and recover breaks it', async () => {
    const root = join(tempDir('held-proc-'), 'store');
    const ok = await runChild(root, 'exit', 'ends-normally');
    expect(ok.lines.at(-1)).toBe('done');
    const okId = (ok.lines[0] as string).slice('created '.length);
    expect(existsSync(join(root, 'runs', okId, '.lock'))).toBe(false);

    // kills land between appends and inside them (the child appends back to back)
    const trials = Array.from({ length: 12 }, (_, t) => [t, 1 + ((t * 5) % 9), t % 3] as const);
    for (const [t, after, delayMs] of trials) {
      const r = await runChild(root, 'crash', `killed-${t}`, after, delayMs);
      const id = (r.lines[0] as string).slice('created '.length);
      const acks = r.lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)));
      expect(acks.length).toBeGreaterThanOrEqual(after);
      expect(acks, `killed-${t}`).toEqual(acks.map((_, i) => i + 1));
      const lock = join(root, 'runs', id, '.lock');
      expect(existsSync(lock), `killed-${t}`).toBe(true);
      const body = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number };
      expect(body.pid).not.toBe(process.pid);
      const store = createFsStore({ root, env: {} });
      expect(await store.append(id, 'note', note('x'))).toMatchObject({
        outcome: 'nothing_written',
        code: 'busy',
      });
      const l = await store.load(id);
      if (!l.ok) throw new Error(l.detail);
      // every acknowledged event is there, in order; at most one unacknowledged one after them
      const texts = l.value.events.map((e) => (e.payload as { text: string }).text);
      expect(texts.slice(0, acks.length)).toEqual(acks.map((i) => `killed-${t}-${i}`));
      expect(texts.length - acks.length).toBeLessThanOrEqual(1);
      const rec = await recoverRun({ root, runId: id, env: {} });
      expect(rec.actions.map((a) => a.kind)).toContain('lock_broken');
      expect(await store.append(id, 'note', note('after'))).toMatchObject({ outcome: 'committed' });
    }
  }, 60_000);
});
