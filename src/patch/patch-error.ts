/**
 * The structured refusal of the unified-diff applier (layer 0, a record): what went wrong, where
 * (file, 1-based hunk, 1-based line), never an exception. Every pure function of src/patch returns
 * one of these instead of throwing.
 */

/**
 * Codes of a {@link PatchError}:
 * - `not_text`: the patch is not a string;
 * - `too_large` / `too_many_files` / `too_many_hunks`: a size limit ({@link PatchLimits});
 * - `no_files`: no `---`/`+++` file header was found;
 * - `malformed`: a line the grammar does not allow, a bad hunk header, a misplaced
 *   `\ No newline at end of file`;
 * - `unsupported`: binary patches, renames, copies, mode changes, header-only git entries;
 * - `create_refused` / `delete_refused`: a `/dev/null` side when creation / deletion is not allowed;
 * - `count_mismatch`: a hunk body shorter or longer than its header's line counts;
 * - `hunk_order`: hunks out of order, overlapping, or a new-side start that does not follow from
 *   the earlier hunks;
 * - `hunk_mismatch`: a context or removed line that is not exactly the file's line at the stated
 *   position (no offset, no fuzz), or a hunk beyond the end of the file;
 * - `newline_mismatch`: the final-newline state the patch states is not the file's;
 * - `unsafe_path`: absolute, `..`, empty segment, backslash, control character, `.git`;
 * - `path_mismatch`: `---` and `+++` name different files;
 * - `duplicate_file`: one file patched twice in one patch;
 * - `out_of_scope`: a file outside the allowed set;
 * - `internal`: a defect of the applier itself, reported instead of thrown.
 *
 * @example
 * ```ts
 * const code: PatchErrorCode = 'hunk_mismatch';
 * ```
 */
export type PatchErrorCode =
  | 'not_text'
  | 'too_large'
  | 'too_many_files'
  | 'too_many_hunks'
  | 'no_files'
  | 'malformed'
  | 'unsupported'
  | 'create_refused'
  | 'delete_refused'
  | 'count_mismatch'
  | 'hunk_order'
  | 'hunk_mismatch'
  | 'newline_mismatch'
  | 'unsafe_path'
  | 'path_mismatch'
  | 'duplicate_file'
  | 'out_of_scope'
  | 'internal';

/**
 * One refusal of the applier. `hunk` is 1-based within its file; `line` is a 1-based line of the
 * patch text (parse errors) or of the original file (apply errors), as the message says.
 *
 * @example
 * ```ts
 * const e: PatchError = { code: 'hunk_mismatch', message: 'hunk 2: line 14 differs', hunk: 2, line: 14 };
 * ```
 */
export interface PatchError {
  readonly code: PatchErrorCode;
  readonly message: string;
  readonly file?: string;
  readonly hunk?: number;
  readonly line?: number;
}

/**
 * A failed result carrying `error`.
 *
 * @example
 * ```ts
 * return patchFailure({ code: 'no_files', message: 'no file header' });
 * ```
 */
export function patchFailure(error: PatchError): { readonly ok: false; readonly error: PatchError } {
  return { ok: false, error };
}

/**
 * A one-line, terminal-safe rendering of a {@link PatchError}: `file: hunk N: message` with
 * control characters shown as `\\u….` escapes (the patch comes from an untrusted worker).
 *
 * @example
 * ```ts
 * describePatchError({ code: 'out_of_scope', message: 'not an owned file', file: 'B.lean' });
 * // 'B.lean: not an owned file (out_of_scope)'
 * ```
 */
export function describePatchError(e: PatchError): string {
  const where = [e.file === undefined ? null : `${e.file}:`, e.hunk === undefined ? null : `hunk ${e.hunk}:`]
    .filter((x) => x !== null)
    .join(' ');
  const text = `${where === '' ? '' : `${where} `}${e.message} (${e.code})`;
  return escapeControls(text);
}

/**
 * `s` with every control character (C0, DEL, C1) replaced by a `\\uXXXX` escape.
 *
 * @example
 * ```ts
 * escapeControls('a\u001b[2Jb'); // 'a\\u001b[2Jb'
 * ```
 */
export function escapeControls(s: string): string {
  return s.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
