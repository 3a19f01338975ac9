/**
 * Durable files, the one home of the mechanism: atomic publication (temp + fsync + rename or
 * link + directory fsync), directory fsync, exclusive lock and marker files, lock files held
 * across mutations, whole-buffer I/O, and the injectable synchronous file-system layer used for
 * fault injection.
 */

export { errnoOf } from './errno.js';
export type { ExclusiveCreate, ExclusiveOptions, ExclusiveRemove } from './exclusive-file.js';
export { createExclusiveFile, removeExclusiveFile } from './exclusive-file.js';
export type { FsLayer, FsStat } from './fs-layer.js';
export { lstatOrNull, nodeFsLayer, O } from './fs-layer.js';
export { fsyncDir } from './fsync-dir.js';
export { readFileNoFollow, readRange, writeFully } from './full-io.js';
export type {
  HeldLockFilesOptions,
  HeldLockHold,
  HeldLockPin,
  HeldLockRelease,
  HeldLockTake,
  HeldLockUnreleased,
} from './held-lock.js';
export { HeldLockFiles, pinLockFile, pinOpenFile, sameLockFile } from './held-lock.js';
export { dirFsyncUnsupported, makeDirsDurable } from './mkdir-durable.js';
export type { PublishOptions, PublishStep, PublishSync } from './publish.js';
export { publishFile, publishNewFile } from './publish.js';
export { causeOf, StepFailure } from './step-failure.js';
