/**
 * The file-system seam of the fs backend. Every call the store makes goes through an
 * {@link FsLayer}, so tests can fail any single step (open, write, fsync, rename, directory
 * fsync, lock create…) and check the outcome the store reports. The calls are synchronous:
 * a mutation runs start to finish without yielding, so two mutations of one process never
 * interleave, and an append costs no thread-pool round trips.
 */
import * as fs from 'node:fs';

/**
 * The subset of `fs.Stats` the store uses.
 *
 * @internal Exported for the fault-injection tests (test/store/faulty-fs.ts).
 */
export interface FsStat {
  readonly size: number;
  readonly ino: number;
  readonly dev: number;
  readonly mode: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/**
 * Synchronous file-system operations used by the fs store. Errors are thrown as Node errors (with `code`).
 *
 * @internal Exported for the fault-injection tests (test/store/faulty-fs.ts).
 */
export interface FsLayer {
  /** `open(2)`; `flags` are `fs.constants` O_* bits. */
  open(path: string, flags: number, mode?: number): number;
  /** Writes `length` bytes of `buffer` from `offset`; returns the bytes written (may be short). */
  write(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  /** Reads into `buffer` at `offset` from file `position`; returns bytes read. */
  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  fsync(fd: number): void;
  close(fd: number): void;
  fstat(fd: number): FsStat;
  lstat(path: string): FsStat;
  rename(from: string, to: string): void;
  unlink(path: string): void;
  mkdir(path: string): void;
  rmdir(path: string): void;
  readdir(path: string): string[];
  realpath(path: string): string;
  /** `process.platform` as seen by the store (mutations are POSIX-only). */
  readonly platform: string;
}

/**
 * The real file system (node:fs, synchronous).
 *
 * @internal Exported for the fault-injection tests (test/store/faulty-fs.ts wraps it).
 *
 * @example
 * ```ts
 * const store = createFsStore({ root: '/p/.handoff', fs: nodeFsLayer() });
 * ```
 */
export function nodeFsLayer(): FsLayer {
  return {
    open: (p, flags, mode) => fs.openSync(p, flags, mode),
    write: (fd, b, o, l) => fs.writeSync(fd, b, o, l),
    read: (fd, b, o, l, pos) => fs.readSync(fd, b, o, l, pos),
    fsync: (fd) => fs.fsyncSync(fd),
    close: (fd) => fs.closeSync(fd),
    fstat: (fd) => fs.fstatSync(fd),
    lstat: (p) => fs.lstatSync(p),
    rename: (a, b) => fs.renameSync(a, b),
    unlink: (p) => fs.unlinkSync(p),
    mkdir: (p) => fs.mkdirSync(p),
    rmdir: (p) => fs.rmdirSync(p),
    readdir: (p) => fs.readdirSync(p),
    realpath: (p) => fs.realpathSync.native(p),
    platform: process.platform,
  };
}

/** `fs.constants` re-exported for layer users. */
export const O = fs.constants;

/**
 * The errno code of a thrown value, or `''`.
 *
 * @example
 * ```ts
 * try { fsl.open(p, O.O_RDONLY); } catch (e) { if (errnoOf(e) === 'ENOENT') … }
 * ```
 */
export function errnoOf(e: unknown): string {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string'
    ? (e as { code: string }).code
    : '';
}
