/**
 * The claim queue of the synthesis outer loop (issue 14; seed 002 § Claim Queue): claims extracted
 * from a `--source` document — Markdown/text, LaTeX, Lean or PDF — in document order with
 * deterministic ids, and `--claim-select`. The per-format rules are in docs/synthesis-claims.md.
 */

export { blockText, splitLines, stripControls, textProblem } from './clean-text.js';
export { type ClaimFormat, claimFormatOf, extractClaims, extractClaimsFromText } from './extract.js';
export { type ClaimHeader, claimHeader, isProofLine } from './keyword.js';
export { findLeanClaims } from './lean.js';
export { findTextClaims, type TextClaimOptions } from './markdown.js';
export { nameFromLabel, nameFromTitle } from './names.js';
export { claimId, numberClaims } from './number.js';
export {
  findPdfClaims,
  MAX_PDF_PAGES,
  PDF_TIMEOUT_MS,
  type PdfClaimOptions,
  type PdfjsDocument,
  type PdfjsModule,
} from './pdf.js';
export { type PdfTextItem, pdfPageLines, pdfText } from './pdf-lines.js';
export { selectClaims } from './select.js';
export { findTexClaims, stripTexComment } from './tex.js';
export {
  CLAIM_KINDS,
  type Claim,
  type ClaimKind,
  type ClaimSource,
  type ClaimsResult,
  type FoundClaim,
  type FoundClaimsResult,
  MAX_CLAIMS,
  MAX_SOURCE_BYTES,
} from './types.js';
