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
  codeProfile,
  type DomainProfile,
  leanProfile,
  PROFILE_NAMES,
  type ProfileName,
  type ProfileOptions,
  profileByName,
} from './domain-profile.js';
