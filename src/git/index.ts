/**
 * Git as the runtime runs it: hardened against a repository a worker may have written to.
 */
export {
  HARDENED_GIT_CONFIG,
  hardenedGitEnv,
  isBlockedGit,
  type RunGitOptions,
  runGit,
  runGitSync,
} from './run-git.js';
