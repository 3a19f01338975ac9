/**
 * The statement fence: declaration headers, the built-in Lean extractor, command extractors for
 * other languages (the header-extract protocol), the comparison and the fence check over a
 * snapshot. Binder splitting, response parsing and the snapshot's concurrency are internal.
 */
export {
  type CommandExtractorOptions,
  commandHeaderExtractor,
  DEFAULT_EXTRACTOR_OUTPUT_LIMIT,
} from './command-extractor.js';
export { CONTEXT_KINDS, compareHeaders } from './compare.js';
export { describeViolation, MAX_DESCRIBED_SIGNATURE } from './describe.js';
export {
  HEADER_EXTRACT_REQUEST_SCHEMA,
  HEADER_EXTRACT_RESPONSE_SCHEMA,
  type HeaderExtractRequest,
  HeaderExtractRequestSchema,
  type HeaderExtractResponse,
  HeaderExtractResponseSchema,
  headerExtractRequest,
} from './extract-protocol.js';
export {
  type ExtractorTable,
  extractorForFile,
  extractorResolver,
  functionHeaderExtractor,
  type HeaderExtractor,
  leanHeaderExtractor,
  validatedHeaders,
} from './extractor.js';
export { extractionFailures, type FileFenceViolations, fenceCheck } from './fence-check.js';
export {
  type DeclarationHeader,
  DeclarationHeaderSchema,
  type HeaderExtraction,
  type LeanCommand,
  normalizeSignature,
} from './header.js';
export {
  extractLeanFence,
  extractLeanHeaders,
  LEAN_CONTEXT_KEYWORDS,
  LEAN_DECLARATION_KEYWORDS,
  MAX_LEAN_TEXT_LENGTH,
  normalizeLeanName,
} from './lean-headers.js';
export { compareProofWork, grantFor, type ProofWorkSide } from './proof-work.js';
export {
  COMMAND_CLASS_GRANTS,
  type CommandClass,
  commandClass,
  FENCE_GRANT_NEW_DEFINITIONS,
  isResourceOption,
  PROOF_WORK_DECLARATIONS,
  proofWorkAllows,
  RESOURCE_OPTION_PREFIXES,
  STRUCTURAL_COMMANDS,
} from './proof-work-rules.js';
export {
  type HeaderSnapshot,
  MAX_SNAPSHOT_FILE_BYTES,
  snapshotHeaders,
} from './snapshot.js';
export { FENCE_CHANGES, type FenceChange, type FenceViolation } from './violation.js';
