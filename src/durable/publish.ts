/**
 * Atomic publication of a whole file: the content is written to a temp file, fsync'd, and only
 * then given its final name — by `rename(2)` ({@link publishFile}: replaces the target) or by
 * `link(2)` ({@link publishNewFile}: first writer wins, an existing target is never replaced) —
 * and the directory is fsync'd so the new name is durable. A reader sees the old file or the new
 * one, never a torn one; a failure before the name is given leaves the target untouched and
 * removes the temp file.
 */
import * as path from 'node:path';
import { randomHex } from '../ids/index.js';
import { errnoOf } from './errno.js';
import { type FsLayer, O } from './fs-layer.js';
import { fsyncDir } from './fsync-dir.js';
import { writeFully } from './full-io.js';
import { dirFsyncUnsupported } from './mkdir-durable.js';
import { StepFailure } from './step-failure.js';

/**
 * Steps of a publication; a {@link StepFailure}'s step is `<label>_<PublishStep>`.
 *
 * @example
 * ```ts
 * const step: PublishStep = 'tmp_fsync'; // reported as e.g. 'cache_tmp_fsync'
 * ```
 */
export type PublishStep =
  | 'tmp_open'
  | 'tmp_chmod'
  | 'tmp_write'
  | 'tmp_fsync'
  | 'tmp_close'
  | 'rename'
  | 'link'
  | 'dir_fsync';

/**
 * What a publication makes durable:
 * - `all` (default): the temp file's content before it is named, and the directory after; a
 *   failing directory fsync is an error (`<label>_dir_fsync`, thrown after the file was named).
 * - `dir-best-effort`: the content as in `all`; the directory fsync is attempted and a refusal
 *   of the file system (EINVAL, ENOTSUP… — {@link dirFsyncUnsupported}) ignored, for file systems
 *   that refuse fsync on directories, where the name itself is atomic. Any other failure (EIO)
 *   is an error as under `all`.
 * - `none`: no fsync at all (a restore whose caller needs atomic replacement, not durability).
 *
 * @example
 * ```ts
 * publishFile(fsl, file, data, { sync: 'none' });
 * ```
 */
export type PublishSync = 'all' | 'dir-best-effort' | 'none';

/**
 * Options of {@link publishFile} and {@link publishNewFile}.
 *
 * @example
 * ```ts
 * const o: PublishOptions = { label: 'cache', tmpPath: `${dir}/handoff.json.tmp`, reuseTmp: true };
 * ```
 */
export interface PublishOptions {
  /** Prefix of the step names in a {@link StepFailure} (`cache` → `cache_tmp_write`). Default `publish`. */
  readonly label?: string;
  /**
   * The temp file's path (on the target's file system). Default: `.<name>.<8 hex>.tmp` beside
   * the target. It is created exclusively (O_EXCL), so a default or otherwise unique name never
   * collides with a concurrent publisher.
   */
  readonly tmpPath?: string;
  /**
   * Open the temp file with O_TRUNC instead of O_EXCL, reusing one left by a crashed earlier
   * attempt. Only for a fixed `tmpPath` whose publishers are serialized (the fs store's
   * `handoff.json.tmp`, written under the run lock). Default false.
   */
  readonly reuseTmp?: boolean;
  /** Mode of the new file (before the umask unless {@link PublishOptions.exactMode}). Default 0o644. */
  readonly mode?: number;
  /** Set `mode` exactly with fchmod (the umask does not apply). Default false. */
  readonly exactMode?: boolean;
  /** What is fsync'd ({@link PublishSync}). Default `all`. */
  readonly sync?: PublishSync;
}

function tmpFor(target: string, options: PublishOptions): string {
  return options.tmpPath ?? path.join(path.dirname(target), `.${path.basename(target)}.${randomHex(8)}.tmp`);
}

function removeQuietly(fsl: FsLayer, file: string): void {
  try {
    fsl.unlink(file);
  } catch {
    // best effort
  }
}

/** Writes the temp file whole (and fsyncs it unless `sync: 'none'`); on failure it is removed. */
function writeTemp(
  fsl: FsLayer,
  tmp: string,
  data: Uint8Array,
  label: string,
  options: PublishOptions,
): void {
  const mode = options.mode ?? 0o644;
  let fd: number;
  try {
    fd = fsl.open(
      tmp,
      O.O_WRONLY | O.O_CREAT | (options.reuseTmp === true ? O.O_TRUNC : O.O_EXCL) | O.O_NOFOLLOW,
      mode,
    );
  } catch (e) {
    throw new StepFailure(`${label}_tmp_open`, e);
  }
  let closed = false;
  try {
    if (options.exactMode === true) {
      try {
        fsl.fchmod(fd, mode);
      } catch (e) {
        throw new StepFailure(`${label}_tmp_chmod`, e);
      }
    }
    writeFully(fsl, fd, data, `${label}_tmp_write`);
    if (options.sync !== 'none') {
      try {
        fsl.fsync(fd);
      } catch (e) {
        throw new StepFailure(`${label}_tmp_fsync`, e);
      }
    }
    closed = true;
    try {
      fsl.close(fd);
    } catch (e) {
      throw new StepFailure(`${label}_tmp_close`, e);
    }
  } catch (e) {
    if (!closed) {
      try {
        fsl.close(fd);
      } catch {
        // already failing
      }
    }
    removeQuietly(fsl, tmp);
    throw e;
  }
}

function syncDirectory(fsl: FsLayer, dir: string, label: string, sync: PublishSync | undefined): void {
  if (sync === 'none') return;
  if (sync === 'dir-best-effort') {
    try {
      fsyncDir(fsl, dir, `${label}_dir_fsync`);
    } catch (e) {
      // the name is atomic already; this file system may refuse fsync on directories — but a
      // real I/O failure (EIO, ENOSPC…) is not a refusal and surfaces like under `all`
      if (!dirFsyncUnsupported(e)) throw e;
    }
    return;
  }
  fsyncDir(fsl, dir, `${label}_dir_fsync`);
}

/**
 * Publishes `data` as `target`, replacing it atomically: temp file (see
 * {@link PublishOptions.tmpPath}), write, fsync, close, `rename(2)` over `target`, fsync of
 * `target`'s directory. A link planted at `target` is replaced, never written through. The step
 * of a failure tells the caller which side of the rename it is on: before `<label>_rename`
 * (included) `target` is untouched and the temp file removed; `<label>_dir_fsync` means `target`
 * was replaced but the new name is not known durable.
 *
 * @example
 * ```ts
 * publishFile(fsl, '/p/.handoff/runs/R/handoff.json', Buffer.from(json), { label: 'cache' });
 * publishFile(fsl, '/tmp/s/state.json', Buffer.from(text), { mode: 0o600 }); // unique exclusive temp
 * ```
 * @throws StepFailure with step `<label>_<PublishStep>` (cause: the Node error).
 */
export function publishFile(
  fsl: FsLayer,
  target: string,
  data: Uint8Array,
  options: PublishOptions = {},
): void {
  const label = options.label ?? 'publish';
  const tmp = tmpFor(target, options);
  writeTemp(fsl, tmp, data, label, options);
  try {
    fsl.rename(tmp, target);
  } catch (e) {
    removeQuietly(fsl, tmp);
    throw new StepFailure(`${label}_rename`, e);
  }
  syncDirectory(fsl, path.dirname(target), label, options.sync);
}

/**
 * Publishes `data` as `target` only if `target` does not exist: temp file, write, fsync, close,
 * `link(2)` to `target` (fails with EEXIST when it exists, so exactly one of any number of racing
 * publishers wins), fsync of `target`'s directory; the temp name is always removed. False when
 * `target` already existed (nothing was changed).
 *
 * @example
 * ```ts
 * const won = publishNewFile(fsl, `${log}/00000003.json`, Buffer.from(line), { tmpPath: `${tmp}/x.json` });
 * ```
 * @throws StepFailure with step `<label>_<PublishStep>` (cause: the Node error).
 */
export function publishNewFile(
  fsl: FsLayer,
  target: string,
  data: Uint8Array,
  options: PublishOptions = {},
): boolean {
  const label = options.label ?? 'publish';
  const tmp = tmpFor(target, options);
  writeTemp(fsl, tmp, data, label, options);
  try {
    fsl.link(tmp, target);
  } catch (e) {
    removeQuietly(fsl, tmp);
    if (errnoOf(e) === 'EEXIST') return false;
    throw new StepFailure(`${label}_link`, e);
  }
  removeQuietly(fsl, tmp);
  syncDirectory(fsl, path.dirname(target), label, options.sync);
  return true;
}
