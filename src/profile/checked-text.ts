/**
 * What the built-in checks read (layer 1, pure): a file's bytes become text only when they are
 * text — UTF-8 without NUL bytes, within the size the checks read — and every line ending is
 * normalized to LF first. Anything else is **unverifiable**: the checks refuse it by name, never
 * skip it (a skipped file's marker would count as gone).
 */

/** The most bytes a built-in check reads from one file (8 MiB); a larger file is unverifiable. */
export const MAX_CHECKED_BYTES = 8 * 1024 * 1024;

/**
 * `text` with CRLF and bare CR line endings turned into LF (a bare CR is a line break to a
 * reader, so a line-based check must see it as one).
 *
 * @example
 * ```ts
 * normalizeLineEndings('a\r\nb\rc'); // 'a\nb\nc'
 * ```
 */
export function normalizeLineEndings(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** The text of a file, or why the checks cannot read it (the reason starts with `unverifiable`). */
export type CheckedText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: string };

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Decodes a file's bytes for the checks: over `max` bytes, a NUL byte or invalid UTF-8 is
 * unverifiable (with the reason); otherwise the text with its line endings normalized. Never throws.
 *
 * @example
 * ```ts
 * checkedText(Buffer.from('theorem t : True := by\r  sorry\r')); // { ok: true, text: 'theorem t : True := by\n  sorry\n' }
 * checkedText(Buffer.from('-- \0\nsorry')).ok;                   // false: 'unverifiable: a NUL byte at offset 3 (not text)'
 * ```
 */
export function checkedText(bytes: Uint8Array, max: number = MAX_CHECKED_BYTES): CheckedText {
  if (bytes.length > max)
    return {
      ok: false,
      reason: `unverifiable: ${bytes.length} bytes, over the ${max} bytes the checks read`,
    };
  const nul = bytes.indexOf(0);
  if (nul >= 0) return { ok: false, reason: `unverifiable: a NUL byte at offset ${nul} (not text)` };
  try {
    return { ok: true, text: normalizeLineEndings(UTF8.decode(bytes)) };
  } catch {
    return { ok: false, reason: 'unverifiable: not valid UTF-8 text' };
  }
}
