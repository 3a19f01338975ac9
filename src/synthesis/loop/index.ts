/**
 * The synthesis outer loop's pure rules (layer 1): records, the claim lifecycle, the review
 * router, the redraft rule (re-exported from the statement policy), the reducers and actor inputs of
 * `machines/synthesis.ts`, and the session report. No I/O; `src/runtime/synthesis-run.ts`
 * provides the actors.
 */

// one home each: the declaration blocks live with the declarations parser, the redraft rule with
// the statement policy; the loop re-exports them for the machine and its host
export { declarationLines, declarationNameAt, withoutDeclarations } from '../declarations.js';
export { type RedraftQuestion, redraftVerdict } from '../statement-policy.js';
export {
  approveInput,
  assembleInput,
  commitInput,
  commitQuestion,
  draftCommitMessage,
  draftInput,
  golfInput,
  inspectInput,
  proveInput,
} from './actor-inputs.js';
export {
  alreadyPresent,
  assembleEnded,
  draftEnded,
  golfEnded,
  humanEnded,
  invalidEnded,
  refusedEnd,
  routedEnd,
} from './claim-endings.js';
export {
  beginClaim,
  beginScope,
  type ClaimEnd,
  claimReport,
  endClaim,
  initialSynthesisContext,
  scopeClaim,
} from './context.js';
export {
  commitHaltReason,
  errorText,
  extractFailure,
  failClaim,
  redraftHaltReason,
  redraftHalts,
  redraftLeft,
  redraftNotTaken,
  redraftPermitted,
  redraftVerdictOf,
  stopByHuman,
  validateInput,
} from './machine-rules.js';
export {
  absorbAssemble,
  absorbCommit,
  absorbCommitAnswer,
  absorbDraft,
  absorbExtract,
  absorbGolf,
  absorbInvalid,
  absorbNow,
  absorbProve,
  absorbValidated,
  allowRedraft,
  haltSession,
  noteRoute,
} from './reducers.js';
export { reportLines, SYNTHESIS_EXIT, synthesisExitCode, synthesisOutput } from './report.js';
export {
  budgetReason,
  claimBudgetLeft,
  currentRoute,
  type Route,
  routeOf,
  runtimeExhausted,
  runtimeLeftMs,
} from './router.js';
export type {
  ActiveClaim,
  ApproveInput,
  ApproveOutput,
  AssembleInput,
  AssembleOutput,
  ClaimReport,
  ClaimStatus,
  CommitInput,
  CommitOutput,
  DraftCommit,
  DraftInput,
  DraftOutput,
  ExtractOutput,
  GolfInput,
  GolfOutput,
  InspectInput,
  InspectOutput,
  LoopClaim,
  ProveInput,
  ProvenanceEntry,
  ProveOutput,
  RedraftVerdict,
  StatementPolicy,
  SynthesisContext,
  SynthesisEntry,
  SynthesisInput,
  SynthesisMode,
  SynthesisOutput,
  ValidateInput,
  ValidateOutput,
} from './types.js';
