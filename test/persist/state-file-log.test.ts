/**
 * The state file's log (state-store.ts over node:fs): a save appends one delta line with one sync
 * and leaves the state file as it was, a new process replays the log, a torn last save is dropped
 * and followed by a whole rewrite, a damaged log stops the controller before the store is called,
 * the log is folded into the state file once it outgrows it, a second writer makes the next save
 * a whole rewrite, and SIGKILLed controllers (real processes) never lose an acknowledged mutation.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeStateFs, type StateFs } from '../../src/persist/state-file.js';
import { fileStateStore } from '../../src/persist/state-store.js';
import { createFsStore } from '../../src/store/index.js';
import { controller, dispatch, faultyStore, note, readStateFile, tempDir } from './fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

/** node:fs, counting whole rewrites and appends. */
function countingFs(): StateFs & { replaces: string[]; appends: number } {
  const fs = {
    ...nodeStateFs,
    replaces: [] as string[],
    appends: 0,
    async replace(path: string, text: string) {
      fs.replaces.push(path.endsWith('.log') ? 'log' : 'state');
      return nodeStateFs.replace(path, text);
    },
    async append(path: string, text: string) {
      fs.appends += 1;
      return (nodeStateFs.append as NonNullable<StateFs['append']>)(path, text);
    },
  };
  return fs;
}

async function started(stateFs: StateFs = nodeStateFs, extra = {}) {
  const store = faultyStore();
  const ctl = controller(dir, store, { stateFs, ...extra });
  const s = await ctl.c.start({ dispatch: dispatch(), trackerSessionId: null });
  expect(s.action).toBe('continue');
  return { ...ctl, store, runId: s.run_id as string };
}

describe('the state log', () => {
  it('a mutation appends two deltas (in flight, resolved) and never rewrites the state file', async () => {
    const fs = countingFs();
    const { c, statePath, runId } = await started(fs);
    const created = await readFile(statePath, 'utf8');
    expect(fs.replaces).toEqual(['log']); // the start's resolution opened the log
    for (let i = 0; i < 3; i++) expect((await c.note(note(`n${i}`))).seq).toBe(i + 1);
    expect(fs.replaces).toEqual(['log']);
    expect(fs.appends).toBe(6);
    expect(await readFile(statePath, 'utf8')).toBe(created);
    const log = (await readFile(`${statePath}.log`, 'utf8')).trimEnd().split('\n');
    expect(log).toHaveLength(1 + 1 + 6);
    expect(JSON.parse(log[0] as string)).toMatchObject({ schema: 'run-persist-state-log/v1' });
    // a new process (a fresh store on the same files) reads what the controller knows
    const fresh = await readStateFile(statePath);
    expect(fresh).toEqual(
      await (async () => {
        const st = await c.status();
        expect(st.last_seq).toBe(3);
        return fresh;
      })(),
    );
    expect(fresh.history.map((h) => h.cite)).toEqual([1, 2, 3].map((n) => `${runId}#${n}`));
    expect(fresh.inflight).toBeNull();
    expect(fresh.knowledge?.accumulated.failed_avenues).toHaveLength(3);
  });

  it('a torn last save is dropped; the next save rewrites the state file whole (a new log follows)', async () => {
    const fs = countingFs();
    const { c, statePath } = await started(fs);
    await c.note(note('kept'));
    const before = await readStateFile(statePath);
    await appendFile(`${statePath}.log`, '{"ops":[{"op":"set","path":["last_seq"],"va');
    const later = controller(dir, faultyStore(), { stateFs: fs });
    const st = await later.c.status();
    expect(st.last_seq).toBe(before.last_seq);
    expect(st.accumulated).toEqual(before.knowledge?.accumulated);
    // the torn line is never glued onto: the next save is a whole rewrite
    const n = fs.replaces.length;
    await c.note(note('after'));
    expect(fs.replaces.slice(n, n + 1)).toEqual(['state']);
    const after = await readStateFile(statePath);
    expect(after.knowledge?.accumulated.failed_avenues).toHaveLength(2);
    expect(after.last_seq).toBe(2);
  });

  it('a damaged log line stops the next call before the store is called', async () => {
    const { statePath, store } = await started();
    const later = controller(dir, store);
    await later.c.note(note('one'));
    const log = await readFile(`${statePath}.log`, 'utf8');
    await writeFile(`${statePath}.log`, log.replace('"one"', '"forged"'));
    const n = store.mutations.length;
    const r = await controller(dir, store).c.note(note('two'));
    expect(r.action).not.toBe('continue');
    expect(JSON.stringify(r)).toMatch(/state\.json\.log: line \d+: digest mismatch/);
    expect(store.mutations.length).toBe(n);
  });

  it('the log is folded into the state file once it outgrows it (and the minimum)', async () => {
    const fs = countingFs();
    const { c, statePath } = await started(fs, {});
    // a low minimum through the store's option, on the same files
    const s = fileStateStore(fs, statePath, { minCompactBytes: 1 });
    const r = await s.load();
    if (!r.ok) throw new Error(r.detail);
    let state = r.state;
    const size = Buffer.byteLength(await readFile(statePath, 'utf8'));
    let rewrites = 0;
    for (let i = 0; rewrites === 0 && i < 200; i++) {
      const n = fs.replaces.length;
      state = {
        ...state,
        unpersisted: [
          ...state.unpersisted,
          { kind: 'note', seq: null, status: 'not-stored', note: `x${i}`.repeat(20) },
        ],
      };
      await s.save(state);
      if (fs.replaces.slice(n).includes('state')) rewrites += 1;
    }
    expect(rewrites).toBe(1);
    const log = await readFile(`${statePath}.log`, 'utf8').catch(() => '');
    expect(Buffer.byteLength(log)).toBeLessThan(size);
    expect(await readStateFile(statePath)).toEqual(state);
    expect((await c.status()).unpersisted_items).toEqual(state.unpersisted);
  });

  it('another writer since the last read makes the next save a whole rewrite (the last writer wins)', async () => {
    const fs = countingFs();
    const { statePath } = await started(fs);
    const a = fileStateStore(fs, statePath);
    const b = fileStateStore(nodeStateFs, statePath);
    const ra = await a.load();
    const rb = await b.load();
    if (!ra.ok || !rb.ok) throw new Error('load');
    await b.save({ ...rb.state, source_note_cite: 'b#1' });
    const n = fs.replaces.length;
    await a.save({ ...ra.state, source_note_cite: 'a#1' });
    expect(fs.replaces.slice(n)).toEqual(['state']);
    expect((await readStateFile(statePath)).source_note_cite).toBe('a#1');
    const rb2 = await b.load();
    expect(rb2.ok && rb2.state.source_note_cite).toBe('a#1');
  });
});

const CHILD = fileURLToPath(new URL('./children/state-log-child.mjs', import.meta.url));
const live = new Set<ChildProcess>();
afterEach(async () => {
  const dying = [...live].map((ch) => new Promise((r) => ch.once('close', r)));
  for (const ch of live) ch.kill('SIGKILL');
  await Promise.all(dying);
});

/** Runs the child until it acknowledged `acks` notes (plus a random extra delay), then SIGKILLs it. */
function killedChild(
  runDir: string,
  acks: number,
  extraMs: number,
): Promise<{ lastAck: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHILD, runDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CHILD_DISPATCH: JSON.stringify(dispatch()) },
    });
    live.add(child);
    let lastAck = 0;
    let buf = '';
    let stderr = '';
    let armed = false;
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const parts = buf.split('\n');
      buf = parts.pop() ?? '';
      for (const l of parts) if (l.startsWith('ack ')) lastAck = Number(l.slice(4));
      if (!armed && lastAck >= acks) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), extraMs);
      }
    });
    child.on('close', () => {
      live.delete(child);
      resolve({ lastAck, stderr });
    });
  });
}

describe('fingerprints taken from the appending descriptor', () => {
  it('an append yields the log fingerprint a stat of the path gives, so the next load reads nothing', async () => {
    const counts = { fingerprint: 0, read: 0 };
    const fs: StateFs = {
      ...nodeStateFs,
      async fingerprint(path: string) {
        counts.fingerprint += 1;
        return (nodeStateFs.fingerprint as NonNullable<StateFs['fingerprint']>)(path);
      },
      async read(path: string) {
        counts.read += 1;
        return nodeStateFs.read(path);
      },
    };
    const { c, statePath } = await started(fs);
    await c.note(note('warm-up')); // the first append follows the log's header
    const logFp = await (nodeStateFs.append as NonNullable<StateFs['append']>)(`${statePath}.log`, '');
    expect(logFp).toBe(
      await (nodeStateFs.fingerprint as NonNullable<StateFs['fingerprint']>)(`${statePath}.log`),
    );
    // that empty append changed nothing the store knows of: the size and mtime are the ones it holds
    counts.fingerprint = 0;
    counts.read = 0;
    for (let i = 0; i < 3; i++) expect((await c.note(note(`n${i}`))).action).toBe('continue');
    // a load (2 stats) and two saves each checked before appending (2 stats each); nothing after
    // the appends, and no load re-reads the files (the descriptor's fingerprint matched the path's)
    expect(counts.read).toBe(0);
    expect(counts.fingerprint).toBe(3 * 6);
  });
});

describe('SIGKILL trials on the state log (real processes, needs npm run build)', () => {
  it('no acknowledged mutation is lost and the state always reads', async () => {
    for (let t = 0; t < 8; t++) {
      const runDir = join(dir, `t${t}`);
      await mkdir(runDir);
      const { lastAck, stderr } = await killedChild(runDir, 3 + (t % 4), (t * 7) % 13);
      expect(stderr).toBe('');
      expect(lastAck).toBeGreaterThanOrEqual(3);
      const statePath = join(runDir, 'state.json');
      const state = await readStateFile(statePath);
      // the state holds every acknowledged mutation (perhaps one more, resolved or in flight)
      expect(state.last_seq).toBeGreaterThanOrEqual(lastAck);
      expect(state.history.map((h) => h.seq)).toEqual(
        Array.from({ length: state.last_seq }, (_, i) => i + 1),
      );
      // and the journal agrees with what the state calls committed
      const run = await createFsStore({ root: join(runDir, 'store'), env: {} }).load(state.run_id as string);
      expect(run.ok && run.value.events.length).toBeGreaterThanOrEqual(state.last_seq);
    }
  }, 120_000);
});
