/**
 * The synthesis outer loop's drafting side: the drafter protocol's records, the drafter port (a
 * command or a function), the declaration-only block rules, file assembly with boundary markers,
 * session-generated provenance and the statement policy (docs/drafter-protocol.md); and the claim
 * queue (`./claims`).
 */
export {
  type AssemblyResult,
  assembleDraft,
  claimSummary,
  type DraftToAssemble,
  draftBeginMarker,
  draftEndMarker,
  lineEnding,
  MAX_SUMMARY,
  oneLine,
} from './assembly.js';
export {
  blockText,
  CLAIM_KINDS,
  type Claim,
  type ClaimFormat,
  type ClaimHeader,
  type ClaimKind,
  type ClaimSource,
  type ClaimsResult,
  claimFormatOf,
  claimHeader,
  claimId,
  extractClaims,
  extractClaimsFromText,
  type FoundClaim,
  type FoundClaimsResult,
  findLeanClaims,
  findPdfClaims,
  findTexClaims,
  findTextClaims,
  isProofLine,
  MAX_CLAIMS,
  MAX_PDF_PAGES,
  MAX_SOURCE_BYTES,
  nameFromLabel,
  nameFromTitle,
  numberClaims,
  type PdfClaimOptions,
  type PdfjsDocument,
  type PdfjsModule,
  type PdfTextItem,
  pdfPageLines,
  pdfText,
  selectClaims,
  splitLines,
  stripControls,
  stripTexComment,
  type TextClaimOptions,
  textProblem,
} from './claims/index.js';
export {
  type CommandDrafterOptions,
  commandDrafter,
  DEFAULT_MAX_RESPONSE_CHARS,
  DRAFTER_PROTOCOL_VERSION,
} from './command-drafter.js';
export { declarationNames, declaredAtLineStart, existingDeclaration } from './declarations.js';
export {
  type DraftBlock,
  FORBIDDEN_DRAFT_WORDS,
  isModuleName,
  MAX_DRAFT_CHARS,
  MODULE_NAME,
  parseDraftBlock,
} from './draft-block.js';
export {
  DRAFT_REQUEST_SCHEMA,
  DRAFT_RESPONSE_SCHEMA,
  type DraftClaim,
  DraftClaimSchema,
  type DraftRequest,
  DraftRequestSchema,
  type DraftResponse,
  DraftResponseSchema,
  MAX_DECLARATION_NAME,
  type StatementPolicy,
  StatementPolicySchema,
  validateDraftRequest,
  validateDraftResponse,
} from './draft-schema.js';
export {
  checkDraft,
  type DrafterPort,
  type DraftOutcome,
  type InProcessDrafterFn,
  inProcessDrafter,
} from './drafter-port.js';
export {
  emptyProvenance,
  isGenerated,
  type Provenance,
  provenanceEntries,
  withDrafted,
} from './provenance.js';
export {
  adjacentName,
  DEFAULT_POLICY_WARNING,
  type PolicyResolution,
  type RedraftDecision,
  redraftAllowed,
  resolveStatementPolicy,
} from './statement-policy.js';
