/**
 * The blocker signature `(file, line, primary_error_code_or_text_hash)`, written `file:line:key`.
 */
import { sha256Hex } from '../canonical/digest.js';

const SHORT_KEY = /^[A-Za-z0-9 _.,'()\-:/⊢→←∀∃λ]+$/u;

/**
 * Normalizes an error text so the same error gives the same key across runs: the first non-empty
 * line, whitespace collapsed, and volatile metavariable numbers (`?m.123`, `_uniq.45`) erased.
 *
 * @example
 * ```ts
 * normalizeErrorText('  unknown  identifier ?m.17\n more'); // 'unknown identifier ?m'
 * ```
 */
export function normalizeErrorText(text: string): string {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return first
    .replace(/\s+/g, ' ')
    .replace(/\?m\.\d+/g, '?m')
    .replace(/_uniq\.\d+/g, '_uniq')
    .trim();
}

/**
 * Builds a blocker signature. A short, plain error code or text is kept verbatim (so the
 * signature reads as `Foo.lean:42:unknown identifier`); anything longer or unusual becomes
 * `h-` and the first 12 hex digits of the sha256 of its normalized text.
 *
 * @example
 * ```ts
 * blockerSignature('Foo.lean', 42, 'unknown identifier'); // 'Foo.lean:42:unknown identifier'
 * ```
 */
export function blockerSignature(file: string, line: number, errorCodeOrText: string): string {
  const norm = normalizeErrorText(errorCodeOrText);
  const key =
    norm.length > 0 && norm.length <= 64 && SHORT_KEY.test(norm) ? norm : `h-${sha256Hex(norm).slice(0, 12)}`;
  return `${file}:${Number.isInteger(line) && line >= 0 ? line : 0}:${key}`;
}
