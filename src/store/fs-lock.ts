/**
 * The per-mutation run lock: `.lock` created exclusively in the run directory (the mechanism is
 * `createExclusiveFile` of src/durable). An existing lock means `busy` and is never broken (a
 * crashed writer's lock stays until a human removes it). The body `{pid, host, acquired}` is
 * diagnostic only. Readers take no lock. A writer may keep it across mutations (`holdLocks`,
 * fs-held-locks.ts).
 */
import { canonicalJson } from '../canonical/index.js';
import { createExclusiveFile, errnoOf, type FsLayer, removeExclusiveFile } from '../durable/index.js';
import type { StoreCode } from './store.js';

/** Outcome of {@link acquireLock}. */
export type LockAcquire =
  | {
      readonly ok: true;
      /** The creating descriptor, open (only with `keepOpen`: the caller closes it). */
      readonly fd?: number;
    }
  | {
      readonly ok: false;
      readonly code: Extract<StoreCode, 'busy' | 'lock_unavailable' | 'lock_init_failed'>;
      readonly detail: string;
    };

const ACQUIRED: LockAcquire = Object.freeze({ ok: true });

/**
 * Creates the lock file exclusively and writes its diagnostic body `{acquired, host, pid}` (given as
 * the record, or as its canonical JSON line already encoded) with one write. On a body write
 * failure the lock just created is removed again (`lock_init_failed`). With `keepOpen` the
 * creating descriptor is answered open, so a holder pins the very inode it created.
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
  options: { readonly keepOpen?: boolean } = {},
): LockAcquire {
  const data = body instanceof Uint8Array ? body : Buffer.from(`${canonicalJson(body)}\n`);
  const r = createExclusiveFile(fsl, lockPath, data, { keepOpen: options.keepOpen === true });
  if (r.ok) return r.fd === undefined ? ACQUIRED : { ok: true, fd: r.fd };
  const why = errnoOf(r.cause) || String(r.cause);
  switch (r.reason) {
    case 'exists':
      return {
        ok: false,
        code: 'busy',
        detail: 'another mutation holds the run lock (.lock); it is never broken',
      };
    case 'create_failed':
      return { ok: false, code: 'lock_unavailable', detail: `cannot create .lock: ${why}` };
    case 'init_failed':
      return { ok: false, code: 'lock_init_failed', detail: `cannot initialize .lock: ${why}` };
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
  const r = removeExclusiveFile(fsl, lockPath);
  return r.ok
    ? null
    : `lock not released (${errnoOf(r.cause) || String(r.cause)}); later mutations will be busy until .lock is removed`;
}
