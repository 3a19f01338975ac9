/**
 * Domain profiles: what marks a target, how an edit is checked, which statements are fenced and
 * the words reviewers use for blockers — the runtime's domain knobs around run-contract/v1
 * (docs/concepts.md). The Lean profile is the default; the code profile serves ordinary code work.
 */

export {
  type BlockerClassTable,
  CODE_BLOCKER_CLASSES,
  classOfPhrase,
  LEAN_BLOCKER_CLASSES,
  phraseOfClass,
} from './blocker-classes.js';
export {
  type CheckedText,
  checkedText,
  MAX_CHECKED_BYTES,
  normalizeLineEndings,
} from './checked-text.js';
export {
  type CodeAttribution,
  type CodeDeclaration,
  codeDeclarationAt,
  codeDeclarations,
  INDENT_EXTENSIONS,
  markersByDeclaration,
} from './code-declarations.js';
export {
  CODE_SOURCE_EXTENSIONS,
  codeProfile,
  type DomainProfile,
  leanProfile,
  PROFILE_NAMES,
  type ProfileName,
  type ProfileOptions,
  profileByName,
} from './domain-profile.js';
export {
  declarationAt,
  type EscapeHatch,
  type HatchPolicy,
  type HatchScan,
  LEAN_ESCAPE_HATCHES,
  PREAMBLE,
  scanEscapeHatches,
} from './escape-hatches.js';
export {
  openInDeclaration,
  type SolvedQuestion,
  type SolvedVerdict,
  targetSolved,
} from './target-solved.js';
