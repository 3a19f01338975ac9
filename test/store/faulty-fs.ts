/**
 * A fault-injecting {@link FsLayer} over the real file system, with a small durability model:
 * it records every call, can fail the n-th call (EIO, or a partial write), and tracks which file
 * contents and directory entries have not been fsync'd yet — so a test can check that a
 * `committed` result only ever follows durable writes.
 */
import * as path from 'node:path';
import { type FsLayer, nodeFsLayer } from '../../src/durable/index.js';

/** How the selected call fails. */
/** `einval`: the selected non-write call fails EINVAL (a file system refusing directory fsync). */
export type FaultMode = 'eio' | 'partial' | 'enospc-nothing' | 'einval';

/** The faulty layer with its trace and durability model. */
export interface FaultyFs extends FsLayer {
  /** Every call made, as `op path`. */
  readonly trace: string[];
  /** Paths whose content was written but not fsync'd since. */
  readonly unsyncedContent: Set<string>;
  /** Directory entries (full paths) created or renamed into place but whose directory was not fsync'd since. */
  readonly unsyncedEntries: Set<string>;
  /** Index (0-based, into `trace`) of the call to fail, or -1. */
  failAt: number;
  mode: FaultMode;
  /** The call that was failed, if any. */
  failed: string | null;
}

/**
 * Wraps the real fs layer.
 *
 * @example
 * ```ts
 * const f = faultyFs(); f.failAt = 7; const store = createFsStore({ root, fs: f });
 * ```
 */
export function faultyFs(): FaultyFs {
  const real = nodeFsLayer();
  const fdPath = new Map<number, string>();
  const self: FaultyFs = {
    trace: [],
    unsyncedContent: new Set(),
    unsyncedEntries: new Set(),
    failAt: -1,
    mode: 'eio',
    failed: null,
    platform: real.platform,
    open(p, flags, mode) {
      step(`open ${p}`);
      let existed = true;
      try {
        real.lstat(p);
      } catch {
        existed = false;
      }
      const fd = real.open(p, flags, mode);
      fdPath.set(fd, p);
      if (!existed) self.unsyncedEntries.add(p);
      return fd;
    },
    write(fd, b, o, l) {
      const p = fdPath.get(fd) ?? `fd${fd}`;
      const i = self.trace.length;
      self.trace.push(`write ${p}`);
      if (i === self.failAt) {
        self.failed = self.trace[i] as string;
        if (self.mode === 'partial' && l > 1) {
          const n = real.write(fd, b, o, Math.floor(l / 2));
          self.unsyncedContent.add(p);
          self.failAt = self.trace.length; // the next write fails
          return n;
        }
        throw Object.assign(new Error('injected EIO'), {
          code: self.mode === 'enospc-nothing' ? 'ENOSPC' : 'EIO',
        });
      }
      const n = real.write(fd, b, o, l);
      self.unsyncedContent.add(p);
      return n;
    },
    read(fd, b, o, l, pos) {
      step(`read ${fdPath.get(fd)}`);
      return real.read(fd, b, o, l, pos);
    },
    fsync(fd) {
      const p = fdPath.get(fd) ?? `fd${fd}`;
      step(`fsync ${p}`);
      real.fsync(fd);
      self.unsyncedContent.delete(p);
      for (const e of [...self.unsyncedEntries]) if (path.dirname(e) === p) self.unsyncedEntries.delete(e);
    },
    close(fd) {
      step(`close ${fdPath.get(fd)}`, () => {
        real.close(fd);
        fdPath.delete(fd);
      });
      real.close(fd);
      fdPath.delete(fd);
    },
    fstat(fd) {
      step(`fstat ${fdPath.get(fd)}`);
      return real.fstat(fd);
    },
    fchmod(fd, mode) {
      step(`fchmod ${fdPath.get(fd)}`);
      real.fchmod(fd, mode);
    },
    lstat(p) {
      step(`lstat ${p}`);
      return real.lstat(p);
    },
    rename(a, b) {
      step(`rename ${a} ${b}`);
      real.rename(a, b);
      if (self.unsyncedContent.delete(a)) self.unsyncedContent.add(b);
      else self.unsyncedContent.delete(b);
      self.unsyncedEntries.delete(a);
      self.unsyncedEntries.add(b);
    },
    link(a, b) {
      step(`link ${a} ${b}`);
      real.link(a, b);
      self.unsyncedEntries.add(b);
      if (self.unsyncedContent.has(a)) self.unsyncedContent.add(b);
    },
    unlink(p) {
      step(`unlink ${p}`);
      real.unlink(p);
      self.unsyncedEntries.delete(p);
      self.unsyncedContent.delete(p);
    },
    mkdir(p) {
      step(`mkdir ${p}`);
      real.mkdir(p);
      self.unsyncedEntries.add(p);
    },
    rmdir(p) {
      step(`rmdir ${p}`);
      real.rmdir(p);
      self.unsyncedEntries.delete(p);
    },
    readdir(p) {
      step(`readdir ${p}`);
      return real.readdir(p);
    },
    realpath(p) {
      step(`realpath ${p}`);
      return real.realpath(p);
    },
  };
  function step(call: string, onFail?: () => void): void {
    const i = self.trace.length;
    self.trace.push(call);
    if (i === self.failAt) {
      self.failed = call;
      onFail?.();
      const code = self.mode === 'einval' ? 'EINVAL' : 'EIO';
      throw Object.assign(new Error(`injected ${code} at ${call}`), { code });
    }
  }
  return self;
}
