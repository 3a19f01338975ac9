/**
 * Git as the runtime runs it: hardened against a repository a worker may have written to, pinned
 * to the repository resolved before the first dispatch, and checked by reading back what it wrote.
 */
export {
  LOOSE_OBJECT_CHECK_LIMIT,
  looseObjectIsAuthentic,
  looseObjectsSnapshot,
  newObjects,
  objectIdOfName,
  removePlantedObjects,
} from './loose-objects.js';
export {
  type CommitHeader,
  type GitObjectType,
  gitObjectId,
  parseCommitHeader,
  parseTree,
  type TreeEntry,
} from './object-format.js';
export {
  type CommittedFile,
  type ReadbackProblem,
  type ReadObject,
  readObjects,
  verifyCommitted,
} from './object-readback.js';
export {
  FALLBACK_IDENTITY,
  type GitIdentity,
  identityEnv,
  type PinnedRepository,
  pinRepository,
} from './pinned-repository.js';
export {
  type GitLocation,
  HARDENED_GIT_CONFIG,
  hardenedGitEnv,
  isBlockedGit,
  pinnedGitArgs,
  type RunGitOptions,
  runGit,
  runGitSync,
  userSafeDirectories,
} from './run-git.js';
