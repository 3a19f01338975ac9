/**
 * `recoverRun` on real files and real processes: a stale lock of a dead pid on this host is broken
 * and journaled (the cite resolves); a lock of another host, of a live pid (this process, a
 * sleeping child) or with an unparsable body is refused and left byte-identical; a torn tail is
 * truncated and the run takes appends again with every acknowledged event intact; a corrupt line
 * is refused; a dry run changes no byte; hostile layouts (a symlinked or directory `.lock`, a run
 * id with `..`) are refused with nothing touched; nothing but the CLI calls recoverRun.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFsLayer } from '../../src/durable/index.js';
import { isProcessAlive, recoverRun } from '../../src/store/fs-recover.js';
import { createFsStore, type RunLoad, resolveCite } from '../../src/store/index.js';
import { RECOVER_NOTE_KIND, RECOVER_NOTE_PREFIX } from '../../src/store/recover-rules.js';
import { RecoverResultSchema } from '../../src/store/recover-schema.js';
import { chainCommits, chainRunInput, dispatch, fixedClock, note } from './fixtures.js';
import { tempDir } from './tmp.js';

const HOST = hostname();
const NOW = '2026-11-30T10:00:00Z';
const live = new Set<ChildProcess>();

afterEach(async () => {
  const dying = [...live].map((c) => new Promise((r) => c.once('close', r)));
  for (const c of live) c.kill('SIGKILL');
  await Promise.all(dying);
});

/** A pid that existed and has exited (a real process, reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  expect(r.status).toBe(0);
  expect(isProcessAlive(r.pid)).toBe(false);
  return r.pid;
}

/** A run with `notes` committed notes. */
async function runWith(notes = 3): Promise<{ root: string; id: string; dir: string }> {
  const root = join(tempDir('recover-'), 'store');
  const store = createFsStore({ root, env: {}, now: fixedClock() });
  const c = await store.createRun({ dispatch: dispatch(), now: NOW });
  const id = c.run_id as string;
  for (let i = 1; i <= notes; i++)
    expect(await store.append(id, 'note', note(`n${i}`))).toMatchObject({ seq: i });
  store.close();
  return { root, id, dir: join(root, 'runs', id) };
}

function lockBody(pid: number, host = HOST): string {
  return `{"acquired":"2026-11-30T09:59:59Z","host":${JSON.stringify(host)},"pid":${pid}}\n`;
}

/** Every entry under `dir`: file bytes, symlink targets, directories. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      const key = relative(dir, p);
      if (st.isSymbolicLink()) out[key] = `symlink:${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[key] = 'dir';
        walk(p);
      } else out[key] = `${st.ino}:${readFileSync(p).toString('base64')}`;
    }
  };
  walk(dir);
  return out;
}

async function loaded(root: string, id: string): Promise<RunLoad> {
  const l = await createFsStore({ root, env: {} }).load(id);
  if (!l.ok) throw new Error(`${l.code}: ${l.detail}`);
  return l.value;
}

function textOf(l: RunLoad, index: number): string {
  const e = l.events[index];
  if (e === undefined) throw new Error(`no event ${index + 1}`);
  return (e.payload as { text: string }).text;
}

async function appendWorks(root: string, id: string, expectSeq: number): Promise<void> {
  const store = createFsStore({ root, env: {} });
  expect(await store.append(id, 'note', note('after recovery'))).toMatchObject({
    outcome: 'committed',
    seq: expectSeq,
  });
  store.close();
}

describe('recoverRun: stale locks', () => {
  it('breaks the lock of a dead pid on this host and journals it; the cite resolves', async () => {
    const { root, id, dir } = await runWith(3);
    const pid = deadPid();
    writeFileSync(join(dir, '.lock'), lockBody(pid));
    expect(await createFsStore({ root, env: {} }).append(id, 'note', note())).toMatchObject({ code: 'busy' });
    const r = await recoverRun({ root, runId: id, env: {} });
    expect(RecoverResultSchema.parse(r)).toEqual(r);
    expect(r).toMatchObject({
      schema: 'run-store-recover/v1',
      run_id: id,
      outcome: 'recovered',
      dry_run: false,
      actions: [{ kind: 'lock_broken', owner: { pid, host: HOST, acquired: '2026-11-30T09:59:59Z' } }],
      cite: `${id}#4`,
    });
    expect(readdirSync(dir).sort()).toEqual(['events.jsonl', 'manifest.json']);
    const l = await loaded(root, id);
    expect(l.damaged).toBe(false);
    const c = resolveCite(l, r.cite as string);
    if (!c.ok || c.kind !== 'event') throw new Error('cite does not resolve');
    expect(c.event.kind).toBe('note');
    const payload = c.event.payload as { kind: string; text: string; lean: null };
    expect(payload.kind).toBe(RECOVER_NOTE_KIND);
    expect(payload.text.startsWith(`${RECOVER_NOTE_PREFIX} `)).toBe(true);
    expect(payload.text).toContain(`pid ${pid}`);
    expect(payload.text).toContain(JSON.stringify(HOST));
    expect(payload.text).toContain('2026-11-30T09:59:59Z');
    await appendWorks(root, id, 5);
  });

  it('with an injected host and liveness probe (deterministic)', async () => {
    const { root, id, dir } = await runWith(1);
    writeFileSync(join(dir, '.lock'), lockBody(777, 'box'));
    const asked: number[] = [];
    const r = await recoverRun({
      root,
      runId: id,
      env: {},
      host: 'box',
      now: fixedClock('2026-12-01T00:00:00Z'),
      isAlive: (p) => {
        asked.push(p);
        return false;
      },
    });
    expect(asked).toEqual([777]);
    expect(r).toMatchObject({ outcome: 'recovered', cite: `${id}#2` });
    expect((await loaded(root, id)).events[1]?.ts).toBe('2026-12-01T00:00:00Z');
  });

  const refusedCases: [
    string,
    (dir: string) => Promise<ChildProcess | null> | ChildProcess | null,
    string,
  ][] = [
    [
      'another host',
      (dir) => {
        writeFileSync(join(dir, '.lock'), lockBody(deadPid(), `not-${HOST}`));
        return null;
      },
      'other_host',
    ],
    [
      'a live pid (this process)',
      (dir) => {
        writeFileSync(join(dir, '.lock'), lockBody(process.pid));
        return null;
      },
      'owner_alive',
    ],
    [
      'a live pid (a sleeping child)',
      (dir) => {
        const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
        live.add(child);
        child.once('close', () => live.delete(child));
        writeFileSync(join(dir, '.lock'), lockBody(child.pid as number));
        return child;
      },
      'owner_alive',
    ],
    [
      'an empty body',
      (dir) => {
        writeFileSync(join(dir, '.lock'), '');
        return null;
      },
      'lock_unparsable',
    ],
    [
      'an unparsable body',
      (dir) => {
        writeFileSync(join(dir, '.lock'), '{"pid": 12, "host": ');
        return null;
      },
      'lock_unparsable',
    ],
    [
      'pid 0 (would signal a process group)',
      (dir) => {
        writeFileSync(join(dir, '.lock'), lockBody(0));
        return null;
      },
      'lock_unparsable',
    ],
  ];

  it.each(refusedCases)(
    'refuses a lock of %s and leaves everything byte-identical',
    async (_, plant, reason) => {
      const { root, id, dir } = await runWith(2);
      // a torn tail too: refused before anything, it stays as well
      appendFileSync(join(dir, 'events.jsonl'), '{"kind":"note","pay');
      await plant(dir);
      const before = snapshot(dir);
      for (const dryRun of [true, false]) {
        const r = await recoverRun({ root, runId: id, env: {}, dryRun });
        expect(r).toMatchObject({ outcome: 'refused', code: 'busy', reason, actions: [] });
        expect(r.cite).toBeUndefined();
        expect(snapshot(dir)).toEqual(before);
      }
    },
  );

  it('refuses a lock replaced between its judgement and its breaking, and puts the new one back', async () => {
    const { root, id, dir } = await runWith(1);
    const lock = join(dir, '.lock');
    writeFileSync(lock, lockBody(deadPid()));
    let replaced = '';
    const r = await recoverRun({
      root,
      runId: id,
      env: {},
      isAlive: () => {
        // a writer takes the run right after the dead owner was judged: a new inode, its own body
        unlinkSync(lock);
        replaced = lockBody(process.pid);
        writeFileSync(lock, replaced);
        return false;
      },
    });
    expect(r).toMatchObject({ outcome: 'refused', code: 'busy', reason: 'lock_changed' });
    expect(readFileSync(lock, 'utf8')).toBe(replaced);
    expect(readdirSync(dir).sort()).toEqual(['.lock', 'events.jsonl', 'manifest.json']);
    expect((await loaded(root, id)).events).toHaveLength(1);
  });
});

describe('recoverRun: torn tails and corrupt lines', () => {
  it('truncates a torn tail; the run takes appends again; acknowledged events intact', async () => {
    const { root, id, dir } = await runWith(3);
    const journal = join(dir, 'events.jsonl');
    const whole = readFileSync(journal);
    const torn = '{"kind":"note","payload":{"kind":"candidate","text":"unacknowledged ⊢","le';
    appendFileSync(journal, torn);
    expect(await createFsStore({ root, env: {} }).append(id, 'note', note())).toMatchObject({
      code: 'journal_damaged',
    });
    const r = await recoverRun({ root, runId: id, env: {} });
    const bytes = Buffer.byteLength(torn);
    expect(r).toMatchObject({
      outcome: 'recovered',
      actions: [
        {
          kind: 'tail_truncated',
          line: 4,
          bytes,
          size_before: whole.length + bytes,
          size_after: whole.length,
        },
      ],
      cite: `${id}#4`,
    });
    const after = readFileSync(journal);
    expect(after.subarray(0, whole.length).equals(whole)).toBe(true);
    const l = await loaded(root, id);
    expect(l.damaged).toBe(false);
    expect(l.events.map((e) => (e.payload as { text: string }).text).slice(0, 3)).toEqual(['n1', 'n2', 'n3']);
    expect(textOf(l, 3)).toContain(`line 4 (${bytes} bytes never acknowledged`);
    expect(readdirSync(dir).sort()).toEqual(['events.jsonl', 'manifest.json']);
    await appendWorks(root, id, 5);
  });

  it('a torn group-commit batch is cut back to its first line; the batch is then aborted, appends work', async () => {
    const { root, id, dir } = await runWith(2);
    const journal = join(dir, 'events.jsonl');
    const acknowledged = readFileSync(journal);
    const store = createFsStore({ root, env: {} });
    expect(
      await store.appendBatch(
        id,
        [note('b1'), note('b2'), note('b3')].map((p) => ({ kind: 'note', payload: p })),
      ),
    ).toMatchObject({
      outcome: 'committed',
      first_seq: 3,
      seq: 5,
    });
    store.close();
    // the crash: only the batch's first line (and part of its second) reached the journal
    const whole = readFileSync(journal);
    const lines = whole.toString('utf8').split('\n');
    const kept = Buffer.byteLength(`${lines.slice(0, 3).join('\n')}\n`) + 20;
    truncateSync(journal, kept);
    const torn = await loaded(root, id);
    expect([torn.damaged, torn.events.length]).toEqual([true, 2]);
    const r = await recoverRun({ root, runId: id, env: {} });
    expect(r).toMatchObject({
      outcome: 'recovered',
      actions: [
        {
          kind: 'tail_truncated',
          line: 3,
          bytes: kept - acknowledged.length,
          size_after: acknowledged.length,
        },
      ],
      cite: `${id}#3`,
    });
    const l = await loaded(root, id);
    expect(l.damaged).toBe(false);
    expect(l.events.slice(0, 2).map((e) => (e.payload as { text: string }).text)).toEqual(['n1', 'n2']);
    expect(readFileSync(journal).subarray(0, acknowledged.length).equals(acknowledged)).toBe(true);
    await appendWorks(root, id, 4);
  });

  it('a stale lock and a torn tail together: both, in one note', async () => {
    const { root, id, dir } = await runWith(2);
    appendFileSync(join(dir, 'events.jsonl'), '{"ki');
    const pid = deadPid();
    writeFileSync(join(dir, '.lock'), lockBody(pid));
    const r = await recoverRun({ root, runId: id, env: {} });
    expect(r).toMatchObject({
      outcome: 'recovered',
      actions: [{ kind: 'lock_broken' }, { kind: 'tail_truncated', line: 3, bytes: 4 }],
      cite: `${id}#3`,
    });
    const text = textOf(await loaded(root, id), 2);
    expect(text).toContain(`pid ${pid}`);
    expect(text).toContain('line 3 (4 bytes');
    await appendWorks(root, id, 4);
  });

  it('refuses a corrupt line in the middle (never repaired), lock and journal untouched', async () => {
    const { root, id, dir } = await runWith(3);
    const journal = join(dir, 'events.jsonl');
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[1] = (lines[1] as string).replace('"n2"', '"n2 edited"').replace('{"kind"', '{ "kind"');
    writeFileSync(journal, `${lines.join('\n')}{"torn`);
    writeFileSync(join(dir, '.lock'), lockBody(deadPid()));
    const before = snapshot(dir);
    const r = await recoverRun({ root, runId: id, env: {} });
    expect(r).toMatchObject({
      outcome: 'refused',
      code: 'journal_damaged',
      reason: 'corrupt_line',
      actions: [],
    });
    expect(r.detail).toContain('line 2');
    expect(snapshot(dir)).toEqual(before);
  });

  it('nothing to do: writes nothing', async () => {
    const { root, id, dir } = await runWith(2);
    const before = snapshot(dir);
    const r = await recoverRun({ root, runId: id, env: {} });
    expect(r).toMatchObject({ outcome: 'nothing_to_do', actions: [] });
    expect(r.cite).toBeUndefined();
    expect(snapshot(dir)).toEqual(before);
  });

  it('dry run: the plan, and not one byte changed', async () => {
    const { root, id, dir } = await runWith(2);
    appendFileSync(join(dir, 'events.jsonl'), '{"kind":');
    const pid = deadPid();
    writeFileSync(join(dir, '.lock'), lockBody(pid));
    const before = snapshot(dir);
    const r = await recoverRun({ root, runId: id, env: {}, dryRun: true });
    expect(r).toMatchObject({
      outcome: 'planned',
      dry_run: true,
      actions: [
        { kind: 'lock_broken', owner: { pid } },
        { kind: 'tail_truncated', line: 3, bytes: 8 },
      ],
    });
    expect(r.cite).toBeUndefined();
    expect(snapshot(dir)).toEqual(before);
    // and the real run afterwards does what was planned
    expect(await recoverRun({ root, runId: id, env: {} })).toMatchObject({
      outcome: 'recovered',
      actions: r.actions,
    });
  });

  it('a failing ftruncate: refused, the journal unchanged and the lock released', async () => {
    const { root, id, dir } = await runWith(1);
    appendFileSync(join(dir, 'events.jsonl'), '{"k');
    const before = snapshot(dir);
    const r = await recoverRun({
      root,
      runId: id,
      env: {},
      ftruncate: () => {
        throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
      },
    });
    expect(r).toMatchObject({ outcome: 'refused', code: 'write_failed', actions: [] });
    expect(snapshot(dir)).toEqual(before);
  });

  it('a failing fsync after the truncation: incomplete, step fsync, not journaled', async () => {
    const { root, id, dir } = await runWith(1);
    appendFileSync(join(dir, 'events.jsonl'), '{"k');
    const real = nodeFsLayer();
    let armed = false;
    const r = await recoverRun({
      root,
      runId: id,
      env: {},
      fs: {
        ...real,
        fsync: (fd) => {
          if (armed) throw Object.assign(new Error('EIO'), { code: 'EIO' });
          real.fsync(fd);
        },
      },
      ftruncate: (fd, len) => {
        armed = true; // the layer's next fsync (the truncation's) fails
        ftruncateSync(fd, len);
      },
    });
    expect(r).toMatchObject({
      outcome: 'incomplete',
      code: 'write_failed',
      step: 'fsync',
      actions: [{ kind: 'tail_truncated', line: 2, bytes: 3 }],
    });
    expect(r.cite).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual(['events.jsonl', 'manifest.json']);
  });
});

describe('recoverRun: hostile layouts and other refusals', () => {
  it('a .lock that is a symlink: refused, neither the link nor its target touched', async () => {
    const { root, id, dir } = await runWith(1);
    const outside = join(tempDir('recover-outside-'), 'victim');
    writeFileSync(outside, lockBody(deadPid()));
    symlinkSync(outside, join(dir, '.lock'));
    appendFileSync(join(dir, 'events.jsonl'), '{"k');
    const before = snapshot(dir);
    const victim = readFileSync(outside);
    const r = await recoverRun({ root, runId: id, env: {} });
    expect(r).toMatchObject({ outcome: 'refused', code: 'containment', reason: 'lock_not_a_file' });
    expect(snapshot(dir)).toEqual(before);
    expect(readFileSync(outside).equals(victim)).toBe(true);
  });

  it('a .lock that is a directory: refused, untouched', async () => {
    const { root, id, dir } = await runWith(1);
    mkdirSync(join(dir, '.lock'));
    writeFileSync(join(dir, '.lock', 'x'), lockBody(deadPid()));
    const before = snapshot(dir);
    const r = await recoverRun({ root, runId: id, env: {} });
    expect(r).toMatchObject({ outcome: 'refused', code: 'containment', reason: 'lock_not_a_file' });
    expect(snapshot(dir)).toEqual(before);
  });

  it('run ids with .. or slashes: bad_run_id, nothing touched', async () => {
    const { root, id, dir } = await runWith(1);
    writeFileSync(join(dir, '.lock'), lockBody(deadPid()));
    const before = snapshot(root);
    for (const bad of ['..', `../runs/${id}`, `${id}/..`, `${id}/../${id}`, '', 'x'.repeat(300)]) {
      const r = await recoverRun({ root, runId: bad, env: {} });
      expect(r, bad).toMatchObject({ outcome: 'refused', run_id: null, code: 'bad_run_id' });
    }
    expect(snapshot(root)).toEqual(before);
  });

  it('a symlinked journal or run directory: containment, untouched', async () => {
    const { root, id, dir } = await runWith(1);
    const elsewhere = join(tempDir('recover-elsewhere-'), 'events.jsonl');
    writeFileSync(elsewhere, `${readFileSync(join(dir, 'events.jsonl'), 'utf8')}{"torn`);
    unlinkSync(join(dir, 'events.jsonl'));
    symlinkSync(elsewhere, join(dir, 'events.jsonl'));
    const before = readFileSync(elsewhere);
    expect(await recoverRun({ root, runId: id, env: {} })).toMatchObject({
      outcome: 'refused',
      code: 'containment',
    });
    expect(readFileSync(elsewhere).equals(before)).toBe(true);
  });

  it('no such run: refused', async () => {
    const { root } = await runWith(0);
    expect(await recoverRun({ root, runId: '20261130T100000Z-00000000', env: {} })).toMatchObject({
      outcome: 'refused',
      code: 'no_such_run',
    });
  });

  it('a chain run: refused (no note kind to journal it), untouched', async () => {
    const root = join(tempDir('recover-chain-'), 'store');
    const store = createFsStore({ root, env: {}, now: fixedClock() });
    const { batons } = await chainCommits();
    const c = await store.createChainRun(chainRunInput(batons[0] as never));
    expect(c.outcome).toBe('committed');
    const id = c.run_id as string;
    const dir = join(root, 'runs', id);
    writeFileSync(join(dir, '.lock'), lockBody(deadPid()));
    const before = snapshot(dir);
    expect(await recoverRun({ root, runId: id, env: {} })).toMatchObject({
      outcome: 'refused',
      code: 'kind_unsupported',
      reason: 'chain_run',
    });
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('nothing recovers automatically', () => {
  it('no source file but the CLI verb, `handoff run --resume` (a person asks for both) and the store index refers to fs-recover or recoverRun', () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const users: string[] = [];
    const walk = (d: string): void => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (lstatSync(p).isDirectory()) walk(p);
        else if (
          p.endsWith('.ts') &&
          /from\s+'[^']*fs-recover\.js'|\brecoverRun\(/.test(readFileSync(p, 'utf8'))
        )
          users.push(relative(src, p));
      }
    };
    walk(src);
    expect(users.filter((u) => !/^store\/(fs-recover|recover-[a-z]+|index)\.ts$/.test(u)).sort()).toEqual([
      'cli/store.ts',
      'runtime/resume-run.ts',
    ]);
  });
});
