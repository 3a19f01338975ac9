/**
 * Exclusive files: lock files and markers created with O_CREAT|O_EXCL|O_NOFOLLOW, so exactly one
 * of any number of racing creators succeeds and a planted symlink is never followed, and their
 * removal. What an existing file means (`busy`, "already begun") is the caller's policy; nothing
 * here ever breaks (removes) a file someone else created.
 */
import { errnoOf } from './errno.js';
import { type FsLayer, O } from './fs-layer.js';
import { writeFully } from './full-io.js';
import { StepFailure } from './step-failure.js';

/**
 * Outcome of {@link createExclusiveFile}. `exists`: the path was taken (by a file, a directory or
 * a symlink); `create_failed`: it could not be created for another reason; `init_failed`: it was
 * created but its body could not be written (or fsync'd, or closed) — it was removed again unless
 * `keepOnFailure`. `cause` is the Node error (with its `code`).
 *
 * @example
 * ```ts
 * const r: ExclusiveCreate = createExclusiveFile(fsl, lock, body);
 * if (!r.ok && r.reason === 'exists') refuse('busy');
 * ```
 */
export type ExclusiveCreate =
  | {
      readonly ok: true;
      /** The creating descriptor, still open (only with `keepOpen`: the caller closes it). */
      readonly fd?: number;
    }
  | {
      readonly ok: false;
      readonly reason: 'exists' | 'create_failed' | 'init_failed';
      readonly cause: unknown;
    };

/**
 * Options of {@link createExclusiveFile}.
 *
 * @example
 * ```ts
 * const o: ExclusiveOptions = { mode: 0o600, sync: true };
 * ```
 */
export interface ExclusiveOptions {
  /** Mode of the new file (before the umask). Default 0o644. */
  readonly mode?: number;
  /** fsync the file after writing its body (before close). Default false. */
  readonly sync?: boolean;
  /** Leave the file in place when writing its body fails (default: remove it, freeing the path). */
  readonly keepOnFailure?: boolean;
  /**
   * Keep the creating descriptor open and answer it (`{ok: true, fd}`): the caller then knows the
   * very inode it created (`fstat(fd)`), with no window in which the path could name another file.
   * Default false (closed).
   */
  readonly keepOpen?: boolean;
}

const CREATED: ExclusiveCreate = Object.freeze({ ok: true });

/**
 * Creates `file` exclusively (O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW) and writes `body` (possibly
 * empty) completely, then closes it (or, with `keepOpen`, answers the open descriptor). Never throws: the outcome says what happened. Call
 * {@link fsyncDir} on its directory when the new entry itself must be durable.
 *
 * @example
 * ```ts
 * const r = createExclusiveFile(fsl, '/p/.handoff/runs/R/.lock', Buffer.from('{"pid":1}\n'));
 * if (!r.ok) return r.reason === 'exists' ? 'busy' : 'lock_unavailable';
 * ```
 */
export function createExclusiveFile(
  fsl: FsLayer,
  file: string,
  body: Uint8Array,
  options: ExclusiveOptions = {},
): ExclusiveCreate {
  let fd: number;
  try {
    fd = fsl.open(file, O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, options.mode ?? 0o644);
  } catch (e) {
    return { ok: false, reason: errnoOf(e) === 'EEXIST' ? 'exists' : 'create_failed', cause: e };
  }
  let closed = false;
  try {
    writeFully(fsl, fd, body, 'body_write');
    if (options.sync === true) fsl.fsync(fd);
    if (options.keepOpen === true) return { ok: true, fd };
    closed = true;
    fsl.close(fd);
    return CREATED;
  } catch (e) {
    if (!closed) {
      try {
        fsl.close(fd);
      } catch {
        // already failing
      }
    }
    if (options.keepOnFailure !== true) {
      try {
        fsl.unlink(file);
      } catch {
        // if this fails too the file stays: a lock then reads as held, never as broken
      }
    }
    return { ok: false, reason: 'init_failed', cause: e instanceof StepFailure ? e.cause : e };
  }
}

/**
 * Outcome of {@link removeExclusiveFile}.
 *
 * @example
 * ```ts
 * const r: ExclusiveRemove = removeExclusiveFile(fsl, lock);
 * if (!r.ok) warn(errnoOf(r.cause));
 * ```
 */
export type ExclusiveRemove = { readonly ok: true } | { readonly ok: false; readonly cause: unknown };

const REMOVED: ExclusiveRemove = Object.freeze({ ok: true });

/**
 * Removes a lock or marker file this process created (unlink). Never throws: when it fails the
 * file stays, so a lock keeps reading as held — never as released by accident.
 *
 * @example
 * ```ts
 * const r = removeExclusiveFile(fsl, '/p/.handoff/runs/R/.lock'); // { ok: true }
 * ```
 */
export function removeExclusiveFile(fsl: FsLayer, file: string): ExclusiveRemove {
  try {
    fsl.unlink(file);
    return REMOVED;
  } catch (e) {
    return { ok: false, cause: e };
  }
}
