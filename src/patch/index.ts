/**
 * Unified diffs from untrusted workers (seed 002 § Repair Mode): a strict parser, an exact
 * applier (no offset, no fuzz), the scope check of a patch's paths, and the parent-side
 * application under file-baseline custody.
 */
export { type ApplyResult, applyFilePatch } from './apply.js';
export {
  applyPatchUnderCustody,
  type PatchedFile,
  type PatchUnderCustody,
  type PatchUnderCustodyResult,
} from './apply-files.js';
export {
  DEFAULT_PATCH_LIMITS,
  type FilePatch,
  type Hunk,
  type HunkLine,
  type ParsePatchOptions,
  type ParsePatchResult,
  type PatchLimits,
  parsePatch,
} from './parse.js';
export {
  describePatchError,
  escapeControls,
  type PatchError,
  type PatchErrorCode,
  patchFailure,
} from './patch-error.js';
export { type PatchTarget, type PatchTargetsResult, patchTargets, unsafePathReason } from './targets.js';
