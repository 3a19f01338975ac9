/**
 * The file-system seam of every durable-file mechanism. Each call goes through an
 * {@link FsLayer}, so tests can fail any single step (open, write, fsync, rename, directory
 * fsync, lock create…) and check what the caller reports. The calls are synchronous: a durable
 * operation runs start to finish without yielding, so two operations of one process never
 * interleave, and a hot path (the store's append) costs no thread-pool round trips.
 */
import * as fs from 'node:fs';

/**
 * The subset of `fs.Stats` the durable mechanisms and the fs store use.
 *
 * @example
 * ```ts
 * const st: FsStat = nodeFsLayer().lstat('/p/.handoff/runs');
 * st.isDirectory() && !st.isSymbolicLink();
 * ```
 */
export interface FsStat {
  readonly size: number;
  readonly ino: number;
  readonly dev: number;
  readonly mode: number;
  /** Hard links (a directory's count is 2 + its subdirectories on file systems that keep it); optional for injected layers. */
  readonly nlink?: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/**
 * Synchronous file-system operations. Errors are thrown as Node errors (with `code`); a fault
 * injecting layer (test/durable/faulty-fs.ts) throws the same way.
 *
 * @example
 * ```ts
 * const fsl: FsLayer = nodeFsLayer();
 * const fd = fsl.open('/tmp/x', O.O_RDONLY);
 * fsl.close(fd);
 * ```
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
  /** `fchmod(2)`: sets the exact mode of an open file (the umask does not apply). */
  fchmod(fd: number, mode: number): void;
  lstat(path: string): FsStat;
  rename(from: string, to: string): void;
  /** `link(2)`: a second name for `existing`; fails with EEXIST when `newPath` exists. */
  link(existing: string, newPath: string): void;
  unlink(path: string): void;
  mkdir(path: string): void;
  rmdir(path: string): void;
  readdir(path: string): string[];
  realpath(path: string): string;
  /** `process.platform` as seen by the caller (the fs store's mutations are POSIX-only). */
  readonly platform: string;
}

/**
 * The real file system (node:fs, synchronous).
 *
 * @example
 * ```ts
 * const store = createFsStore({ root: '/p/.handoff', fs: nodeFsLayer() });
 * ```
 */
export function nodeFsLayer(): FsLayer {
  const layer: FsLayer = {
    open: (p, flags, mode) => fs.openSync(p, flags, mode),
    write: (fd, b, o, l) => fs.writeSync(fd, b, o, l),
    read: (fd, b, o, l, pos) => fs.readSync(fd, b, o, l, pos),
    fsync: (fd) => fs.fsyncSync(fd),
    close: (fd) => fs.closeSync(fd),
    fstat: (fd) => fs.fstatSync(fd),
    fchmod: (fd, mode) => fs.fchmodSync(fd, mode),
    lstat: (p) => fs.lstatSync(p),
    rename: (a, b) => fs.renameSync(a, b),
    link: (a, b) => fs.linkSync(a, b),
    unlink: (p) => fs.unlinkSync(p),
    mkdir: (p) => fs.mkdirSync(p),
    rmdir: (p) => fs.rmdirSync(p),
    readdir: (p) => fs.readdirSync(p),
    realpath: (p) => fs.realpathSync.native(p),
    platform: process.platform,
  };
  NODE_LAYERS.add(layer);
  return layer;
}

/** The layers {@link nodeFsLayer} made (a copy or wrapper of one is not among them). */
const NODE_LAYERS = new WeakSet<FsLayer>();

/**
 * `fsl.lstat(path)`, or null when nothing is at `path` (ENOENT); other errors are thrown. On a
 * layer {@link nodeFsLayer} made, a missing path costs the system call only — no error object is
 * built (`throwIfNoEntry: false`) — which matters where absence is the common answer (a new gate
 * problem's directory). Any other layer, including a fault-injecting wrapper spread from a node
 * layer, is asked through its own `lstat`, so its faults still apply.
 *
 * @example
 * ```ts
 * const st = lstatOrNull(fsl, '/p/.handoff/gate/ledger/p1'); // null: a new problem
 * ```
 */
export function lstatOrNull(fsl: FsLayer, path: string): FsStat | null {
  if (NODE_LAYERS.has(fsl)) return fs.lstatSync(path, { throwIfNoEntry: false }) ?? null;
  try {
    return fsl.lstat(path);
  } catch (e) {
    if ((e as { code?: unknown } | null)?.code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * `fs.constants` (the O_* open flags) for {@link FsLayer.open}.
 *
 * @example
 * ```ts
 * fsl.open(file, O.O_RDONLY | O.O_NOFOLLOW);
 * ```
 */
export const O = fs.constants;
