/**
 * The per-mutation run lock: `.lock` created with O_CREAT|O_EXCL in the run directory. An existing
 * lock means `busy` and is never broken (a crashed writer's lock stays until a human removes it).
 * The body `{pid, host, acquired}` is diagnostic only. Readers take no lock.
 */
import { canonicalJson } from '../canonical/index.js';
import { errnoOf, type FsLayer, O } from './fs-layer.js';
import type { StoreCode } from './store.js';

/** Outcome of {@link acquireLock}. */
export type LockAcquire =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: Extract<StoreCode, 'busy' | 'lock_unavailable' | 'lock_init_failed'>;
      readonly detail: string;
    };

/**
 * Creates the lock file exclusively and writes its diagnostic body `{acquired, host, pid}` (given as
 * the record, or as its canonical JSON line already encoded) with one write. On a body write
 * failure the lock just created is removed again (`lock_init_failed`).
 *
 * @example
 * ```ts
 * const l = acquireLock(fsl, '/p/.handoff/runs/R/.lock', { pid: process.pid, host: 'h', acquired: '2026-11-30T10:00:00Z' });
 * if (!l.ok && l.code === 'busy') …
 * ```
 */
export function acquireLock(
  fsl: FsLayer,
  lockPath: string,
  body: { pid: number; host: string; acquired: string } | Uint8Array,
): LockAcquire {
  let fd: number;
  try {
    fd = fsl.open(lockPath, O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o644);
  } catch (e) {
    if (errnoOf(e) === 'EEXIST') {
      return {
        ok: false,
        code: 'busy',
        detail: 'another mutation holds the run lock (.lock); it is never broken',
      };
    }
    return { ok: false, code: 'lock_unavailable', detail: `cannot create .lock: ${errnoOf(e) || String(e)}` };
  }
  try {
    const data = body instanceof Uint8Array ? body : Buffer.from(`${canonicalJson(body)}\n`);
    let off = 0;
    while (off < data.length) {
      const n = fsl.write(fd, data, off, data.length - off);
      if (!(n > 0)) throw new Error('lock write made no progress');
      off += n;
    }
    fsl.close(fd);
    return { ok: true };
  } catch (e) {
    try {
      fsl.close(fd);
    } catch {
      // already failing
    }
    try {
      fsl.unlink(lockPath);
    } catch {
      // if this fails too the lock stays: later mutations see busy, never a broken lock
    }
    return {
      ok: false,
      code: 'lock_init_failed',
      detail: `cannot initialize .lock: ${errnoOf(e) || String(e)}`,
    };
  }
}

/**
 * Removes the lock; returns an error text when it could not (the lock then stays: later
 * mutations are `busy` until a human removes it).
 *
 * @example
 * ```ts
 * const warn = releaseLock(fsl, lockPath); // null on success
 * ```
 */
export function releaseLock(fsl: FsLayer, lockPath: string): string | null {
  try {
    fsl.unlink(lockPath);
    return null;
  } catch (e) {
    return `lock not released (${errnoOf(e) || String(e)}); later mutations will be busy until .lock is removed`;
  }
}
