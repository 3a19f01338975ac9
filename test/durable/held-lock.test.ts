/**
 * Lock files held across mutations (src/durable/held-lock.ts), the one mechanism behind the fs
 * store's and the chain journal's `holdLocks`: taken once with the caller's `take`, checked by one
 * `lstat` (same device and inode), pinned by a descriptor, taken afresh when removed behind the
 * holder (the old pin closed only after the new lock exists), a replaced lock or a planted symlink
 * never touched nor followed, released only while still ours, the least recently used released
 * beyond a cap, and released by the exit hook (a SIGKILLed holder leaves its lock). Real files,
 * the fault-injecting fs layer's call trace, and real child processes against the built dist/
 * (`npm run build` first).
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  createExclusiveFile,
  type FsLayer,
  HeldLockFiles,
  type HeldLockTake,
  nodeFsLayer,
  pinLockFile,
  sameLockFile,
} from '../../src/durable/index.js';
import { faultyFs } from '../store/faulty-fs.js';
import { tempDir } from '../store/tmp.js';

const CHILD = fileURLToPath(new URL('./held-lock-child.mjs', import.meta.url));
const body = Buffer.from('{"host":"h","pid":1}\n');

/** A `take` like the store's: O_EXCL create, then a read-only pin; counts its calls. */
function exclusiveTake(fsl: FsLayer, lockPath: string) {
  const take = (): HeldLockTake<'exists' | 'create_failed' | 'init_failed'> => {
    take.calls++;
    const r = createExclusiveFile(fsl, lockPath, body);
    if (!r.ok) return { ok: false, refusal: r.reason };
    return { ok: true, pin: pinLockFile(fsl, lockPath) };
  };
  take.calls = 0;
  return take;
}

function setup(prefix = 'held-lock-') {
  const dir = tempDir(prefix);
  const f = faultyFs();
  const lock = join(dir, '.lock');
  return { dir, f, lock, held: new HeldLockFiles(f), take: exclusiveTake(f, lock) };
}

const since = (trace: readonly string[], n: number, dir: string) =>
  trace.slice(n).map((t) => t.replaceAll(dir, ''));

describe('sameLockFile (pure)', () => {
  const st = (file: boolean, ino: number, dev: number) => ({
    size: 0,
    ino,
    dev,
    mode: 0,
    isFile: () => file,
    isDirectory: () => false,
    isSymbolicLink: () => !file,
  });
  it('is ours only for a regular file with the same inode and device', () => {
    expect(sameLockFile(st(true, 7, 1), { ino: 7, dev: 1 })).toBe(true);
    expect(sameLockFile(st(true, 8, 1), { ino: 7, dev: 1 })).toBe(false);
    expect(sameLockFile(st(true, 7, 2), { ino: 7, dev: 1 })).toBe(false);
    expect(sameLockFile(st(false, 7, 1), { ino: 7, dev: 1 })).toBe(false); // a symlink, even with our numbers
  });
});

describe('HeldLockFiles', () => {
  it('take: the first hold runs take and keeps its pin; the lock file is the one take made', () => {
    const { dir, f, lock, held, take } = setup();
    expect(held.holds(lock)).toBe(false);
    expect(held.hold(lock, take)).toEqual({ ok: true, fresh: true });
    expect(take.calls).toBe(1);
    expect(held.holds(lock)).toBe(true);
    expect(held.size).toBe(1);
    expect(readFileSync(lock)).toEqual(body);
    // O_EXCL create + body + close, then the read-only pin (open + fstat) that stays open
    expect(since(f.trace, 0, dir)).toEqual([
      'open /.lock',
      'write /.lock',
      'close /.lock',
      'open /.lock',
      'fstat /.lock',
    ]);
    held.releaseAll();
  });

  it('check: a later hold is one lstat of the very same inode, take is not run', () => {
    const { dir, f, lock, held, take } = setup();
    held.hold(lock, take);
    const ino = lstatSync(lock).ino;
    for (let i = 0; i < 3; i++) {
      const n = f.trace.length;
      expect(held.hold(lock, take)).toEqual({ ok: true, fresh: false });
      expect(since(f.trace, n, dir)).toEqual(['lstat /.lock']);
    }
    expect(take.calls).toBe(1);
    expect(lstatSync(lock).ino).toBe(ino);
    held.releaseAll();
  });

  it('removed behind the holder: taken afresh (fresh), the old pin closed only after the new lock exists, so the inode is never reused', () => {
    const { dir, f, lock, held, take } = setup();
    held.hold(lock, take);
    const old = lstatSync(lock).ino;
    unlinkSync(lock); // a person (wrongly) removed the live lock
    const n = f.trace.length;
    expect(held.hold(lock, take)).toEqual({ ok: true, fresh: true });
    expect(take.calls).toBe(2);
    expect(lstatSync(lock).ino).not.toBe(old); // the old inode was pinned while the new lock was made
    const calls = since(f.trace, n, dir);
    expect(calls[0]).toBe('lstat /.lock');
    expect(calls.at(-1)).toBe('close /.lock'); // the old pin, last
    expect(calls.indexOf('open /.lock')).toBeLessThan(calls.length - 1);
    expect(held.hold(lock, take)).toEqual({ ok: true, fresh: false }); // the new lock is ours
    expect(held.release(lock)).toEqual({ outcome: 'removed' });
    expect(existsSync(lock)).toBe(false);
  });

  it('replaced behind the holder: refused by take (busy for the caller), forgotten, and the replacement never touched — not by release, not by releaseAll', () => {
    const { lock, held, take } = setup();
    held.hold(lock, take);
    rmSync(lock);
    const theirs = '{"host":"elsewhere","pid":4242}\n';
    writeFileSync(lock, theirs);
    expect(held.hold(lock, take)).toEqual({ ok: false, reason: 'refused', refusal: 'exists' });
    expect(held.holds(lock)).toBe(false);
    expect(held.size).toBe(0);
    expect(held.release(lock)).toEqual({ outcome: 'not_held' });
    expect(held.releaseAll()).toEqual([]);
    expect(readFileSync(lock, 'utf8')).toBe(theirs);
  });

  it('release of a lock replaced after the last check: not ours, left alone, pin closed', () => {
    const { dir, f, lock, held, take } = setup();
    held.hold(lock, take);
    rmSync(lock);
    writeFileSync(lock, 'theirs\n');
    const n = f.trace.length;
    expect(held.release(lock)).toEqual({ outcome: 'not_ours' });
    expect(since(f.trace, n, dir)).toEqual(['lstat /.lock', 'close /.lock']); // no unlink
    expect(readFileSync(lock, 'utf8')).toBe('theirs\n');
    expect(held.holds(lock)).toBe(false);
  });

  it('hostile: a symlink planted at the lock path (pointing at our own lock file) is never ours, never followed, never removed', () => {
    const { dir, lock, held, take } = setup();
    held.hold(lock, take);
    const aside = join(dir, 'aside');
    renameSync(lock, aside); // our very inode, now under another name…
    symlinkSync(aside, lock); // …and a symlink to it at the lock path
    expect(held.hold(lock, take)).toEqual({ ok: false, reason: 'refused', refusal: 'exists' });
    expect(held.releaseAll()).toEqual([]);
    expect(lstatSync(lock).isSymbolicLink()).toBe(true);
    expect(readFileSync(aside)).toEqual(body);
    // a dangling symlink: the create does not follow it (its target is never made)
    const fresh = setup();
    const victim = join(fresh.dir, 'victim');
    symlinkSync(victim, fresh.lock);
    expect(fresh.held.hold(fresh.lock, fresh.take)).toMatchObject({ ok: false, refusal: 'exists' });
    expect(existsSync(victim)).toBe(false);
    expect(pinLockFile(nodeFsLayer(), fresh.lock)).toBeNull(); // O_NOFOLLOW: not even pinned
  });

  it('release: removes a lock still ours (lstat, unlink, then the pin closed); releaseAll reports a lock it could not remove, which stays', () => {
    const { dir, f, lock, held, take } = setup();
    held.hold(lock, take);
    const n = f.trace.length;
    expect(held.release(lock)).toEqual({ outcome: 'removed' });
    expect(since(f.trace, n, dir)).toEqual(['lstat /.lock', 'unlink /.lock', 'close /.lock']);
    expect(existsSync(lock)).toBe(false);
    expect(held.size).toBe(0);
    held.hold(lock, take);
    f.failAt = f.trace.length + 1; // the unlink after the check
    const left = held.releaseAll();
    expect(left).toEqual([{ lockPath: lock, cause: expect.objectContaining({ code: 'EIO' }) }]);
    expect(existsSync(lock)).toBe(true); // read as held, never as broken
    expect(held.size).toBe(0);
  });

  it('a held lock that cannot be checked is check_failed and stays held; take is not run', () => {
    const { lock, held, take, f } = setup();
    held.hold(lock, take);
    f.failAt = f.trace.length; // the lstat
    const h = held.hold(lock, take);
    expect(h).toMatchObject({
      ok: false,
      reason: 'check_failed',
      cause: expect.objectContaining({ code: 'EIO' }),
    });
    expect(take.calls).toBe(1);
    expect(held.holds(lock)).toBe(true);
    expect(held.release(lock)).toEqual({ outcome: 'removed' });
  });

  it('a take that throws still closes the old pin; a take without a pin (identity unknown) is fresh but not held', () => {
    const { dir, f, lock, held, take } = setup();
    held.hold(lock, take);
    unlinkSync(lock);
    const n = f.trace.length;
    expect(() =>
      held.hold(lock, () => {
        throw new Error('take failed');
      }),
    ).toThrow('take failed');
    expect(since(f.trace, n, dir)).toEqual(['lstat /.lock', 'close /.lock']);
    expect(held.size).toBe(0);
    expect(held.hold(lock, () => ({ ok: true, pin: null }))).toEqual({ ok: true, fresh: true });
    expect(held.holds(lock)).toBe(false);
  });

  it('with a cap, the least recently used lock is released first (a checked lock counts as used)', () => {
    const dir = tempDir('held-cap-');
    const fsl = nodeFsLayer();
    const held = new HeldLockFiles(fsl, { max: 2 });
    const locks = ['a', 'b', 'c'].map((n) => join(dir, `${n}.lock`));
    const [a, b, c] = locks as [string, string, string];
    held.hold(a, exclusiveTake(fsl, a));
    held.hold(b, exclusiveTake(fsl, b));
    expect(held.hold(a, exclusiveTake(fsl, a))).toEqual({ ok: true, fresh: false }); // a used again
    held.hold(c, exclusiveTake(fsl, c));
    expect(locks.map((l) => existsSync(l))).toEqual([true, false, true]);
    expect([held.holds(a), held.holds(b), held.holds(c)]).toEqual([true, false, true]);
    held.releaseAll();
    expect(locks.some((l) => existsSync(l))).toBe(false);
  });
});

function child(lockPath: string, mode: 'exit' | 'wait' | 'fifo') {
  const p = spawn(process.execPath, [CHILD, lockPath, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: { text: string; res: () => void }[] = [];
  p.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of waiters) if (out.includes(w.text)) w.res();
  });
  p.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const timer = setTimeout(() => p.kill('SIGKILL'), 20_000);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>(
    (res) => {
      p.on('close', (code, signal) => {
        clearTimeout(timer);
        res({ code, signal, out, err });
      });
    },
  );
  const shows = (text: string) =>
    new Promise<void>((res) => {
      waiters.push({ text, res });
      if (out.includes(text)) res();
    });
  return { p, done, shows };
}

describe('HeldLockFiles across process ends (real processes)', () => {
  it('a normal exit removes the held lock (the exit hook); a SIGKILL leaves it, never broken', async () => {
    const dir = tempDir('held-proc-');
    const lock = join(dir, '.lock');
    const ok = await child(lock, 'exit').done;
    expect([ok.code, ok.out, ok.err]).toEqual([0, expect.stringMatching(/^held \d+\n$/), '']);
    expect(existsSync(lock)).toBe(false);

    const killed = child(lock, 'wait');
    await killed.shows('held ');
    killed.p.kill('SIGKILL');
    const r = await killed.done;
    expect(r.signal).toBe('SIGKILL');
    expect(existsSync(lock)).toBe(true);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual({ pid: killed.p.pid });
    // another holder is refused by its take, and removes nothing
    const held = new HeldLockFiles(nodeFsLayer());
    expect(held.hold(lock, exclusiveTake(nodeFsLayer(), lock))).toMatchObject({
      ok: false,
      refusal: 'exists',
    });
    held.releaseAll();
    expect(existsSync(lock)).toBe(true);
  }, 30_000);

  it('hostile: a FIFO swapped in for the lock before it is pinned never hangs the holder; it is not ours, and it is left alone', async () => {
    const dir = tempDir('held-fifo-');
    const lock = join(dir, '.lock');
    const r = await child(lock, 'fifo').done;
    expect(r.signal).toBeNull(); // not killed by the parent's 20 s guard: the pin did not wait
    expect(r.out).toBe('pinned true\nhold {"ok":false,"reason":"refused","refusal":"exists"}\n');
    expect(r.code).toBe(0);
    expect(lstatSync(lock).isFIFO()).toBe(true); // the exit hook did not remove it
  }, 30_000);
});
