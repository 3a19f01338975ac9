/**
 * The unified-diff parser (layer 1, pure): git-style (`diff --git`, extended headers) and plain
 * (`diff -u`) unified diffs into {@link FilePatch} records. Strict: hunk bodies are read by the
 * line counts of their headers and must match them exactly; `/dev/null` sides (creation,
 * deletion) are refused unless allowed; binary patches, renames, copies and mode changes are
 * refused. Never throws: every defect is a structured {@link PatchError}.
 */
import { type PatchError, patchFailure } from './patch-error.js';

/**
 * One body line of a hunk: its operation (` ` context, `-` removed, `+` added), its text without
 * the `\n` that ends it in the patch (a `\r` stays: a patch made from CRLF bytes carries it), and
 * whether a `\ No newline at end of file` marker follows it.
 *
 * @example
 * ```ts
 * const l: HunkLine = { op: '+', text: 'by simp', noEol: false };
 * ```
 */
export interface HunkLine {
  readonly op: ' ' | '-' | '+';
  readonly text: string;
  readonly noEol: boolean;
}

/**
 * One hunk: the header's starts and counts (`@@ -oldStart,oldCount +newStart,newCount @@`; an
 * omitted count is 1; a count of 0 means the start names the line before the hunk) and its body.
 *
 * @example
 * ```ts
 * const h: Hunk = { oldStart: 3, oldCount: 1, newStart: 3, newCount: 1, lines: [] };
 * ```
 */
export interface Hunk {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
  readonly lines: readonly HunkLine[];
}

/**
 * The patch of one file: the paths as the `---`/`+++` headers name them (unquoted, timestamp
 * removed, prefixes such as `a/`/`b/` kept; null for `/dev/null`), what it does, and its hunks in
 * order.
 *
 * @example
 * ```ts
 * const f: FilePatch = { oldPath: 'a/A.lean', newPath: 'b/A.lean', kind: 'modify', hunks: [] };
 * ```
 */
export interface FilePatch {
  readonly oldPath: string | null;
  readonly newPath: string | null;
  readonly kind: 'modify' | 'create' | 'delete';
  readonly hunks: readonly Hunk[];
}

/**
 * Size limits of {@link parsePatch}; the defaults are {@link DEFAULT_PATCH_LIMITS}.
 *
 * @example
 * ```ts
 * const l: PatchLimits = { maxBytes: 64 * 1024, maxFiles: 4, maxHunks: 100 };
 * ```
 */
export interface PatchLimits {
  /** UTF-8 size of the patch text. */
  readonly maxBytes: number;
  /** Files in one patch. */
  readonly maxFiles: number;
  /** Hunks in one patch, all files together. */
  readonly maxHunks: number;
}

/**
 * The default limits: 1 MiB of patch text, 1,000 files, 10,000 hunks.
 *
 * @example
 * ```ts
 * DEFAULT_PATCH_LIMITS.maxBytes; // 1048576
 * ```
 */
export const DEFAULT_PATCH_LIMITS: PatchLimits = Object.freeze({
  maxBytes: 1024 * 1024,
  maxFiles: 1000,
  maxHunks: 10_000,
});

/**
 * Options of {@link parsePatch}.
 *
 * @example
 * ```ts
 * parsePatch(text, { allowCreate: true, limits: { maxBytes: 4096, maxFiles: 1, maxHunks: 8 } });
 * ```
 */
export interface ParsePatchOptions {
  /** Accept `--- /dev/null` (a new file). Default false. */
  readonly allowCreate?: boolean;
  /** Accept `+++ /dev/null` (a deleted file). Default false. */
  readonly allowDelete?: boolean;
  /** Size limits (default {@link DEFAULT_PATCH_LIMITS}). */
  readonly limits?: Partial<PatchLimits>;
}

/**
 * What {@link parsePatch} returns.
 *
 * @example
 * ```ts
 * const r: ParsePatchResult = parsePatch(text);
 * if (r.ok) r.files.length;
 * ```
 */
export type ParsePatchResult =
  | { readonly ok: true; readonly files: readonly FilePatch[] }
  | { readonly ok: false; readonly error: PatchError };

const HUNK_HEADER = /^@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@(?: .*)?$/;
const GIT_UNSUPPORTED = [
  'old mode ',
  'new mode ',
  'similarity index ',
  'dissimilarity index ',
  'rename from ',
  'rename to ',
  'copy from ',
  'copy to ',
  'GIT binary patch',
  'Binary files ',
];

const C_ESCAPES: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  '\\': 92,
};

/** Decodes a git C-quoted path (`"a/x\\tb"`, octal bytes as UTF-8); null when malformed. */
function unquoteC(q: string): string | null {
  const bytes: number[] = [];
  for (let i = 1; i < q.length - 1; i++) {
    const c = q[i] as string;
    if (c === '"') return null;
    if (c !== '\\') {
      for (const b of new TextEncoder().encode(c)) bytes.push(b);
      continue;
    }
    const n = q[i + 1];
    if (n === undefined || i + 1 >= q.length - 1) return null;
    const simple = C_ESCAPES[n];
    if (simple !== undefined) {
      bytes.push(simple);
      i += 1;
      continue;
    }
    const oct = q.slice(i + 1, i + 4);
    if (!/^[0-3][0-7]{2}$/.test(oct)) return null;
    bytes.push(Number.parseInt(oct, 8));
    i += 3;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

/** The path of a `---`/`+++` header line (after its 4-character prefix); undefined when malformed. */
function headerPath(rest: string): string | null | undefined {
  let p: string | null;
  if (rest.startsWith('"')) {
    // the closing quote is the first one not escaped
    let close = -1;
    for (let i = 1; i < rest.length; i++) {
      if (rest[i] === '\\') {
        i += 1;
        continue;
      }
      if (rest[i] === '"') {
        close = i;
        break;
      }
    }
    if (close < 0) return undefined;
    const tail = rest.slice(close + 1);
    if (tail !== '' && !tail.startsWith('\t')) return undefined;
    p = unquoteC(rest.slice(0, close + 1));
    if (p === null) return undefined;
  } else {
    const tab = rest.indexOf('\t');
    p = tab >= 0 ? rest.slice(0, tab) : rest;
  }
  if (p === '') return undefined;
  return p === '/dev/null' ? null : p;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i += 1;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

interface Cursor {
  readonly lines: readonly string[];
  i: number;
}

const isFileHeaderAt = (c: Cursor, i: number): boolean =>
  (c.lines[i] ?? '').startsWith('--- ') && (c.lines[i + 1] ?? '').startsWith('+++ ');

/** Reads one hunk at `c.i` (a header line); advances past its body and an optional final marker. */
function readHunk(c: Cursor, n: number): Hunk | PatchError {
  const headerLine = c.i + 1;
  const m = HUNK_HEADER.exec(c.lines[c.i] as string);
  if (m === null) {
    return {
      code: 'malformed',
      message: `bad hunk header at patch line ${headerLine}`,
      hunk: n,
      line: headerLine,
    };
  }
  const oldStart = Number(m[1]);
  const oldCount = m[2] === undefined ? 1 : Number(m[2]);
  const newStart = Number(m[3]);
  const newCount = m[4] === undefined ? 1 : Number(m[4]);
  if ((oldStart === 0 && oldCount !== 0) || (newStart === 0 && newCount !== 0)) {
    return {
      code: 'malformed',
      message: 'a hunk with lines cannot start at line 0',
      hunk: n,
      line: headerLine,
    };
  }
  c.i += 1;
  let oldLeft = oldCount;
  let newLeft = newCount;
  const lines: { op: ' ' | '-' | '+'; text: string; noEol: boolean }[] = [];
  const marker = (): PatchError | null => {
    const last = lines[lines.length - 1];
    if (last === undefined || last.noEol) {
      return {
        code: 'malformed',
        message: `misplaced "\\ No newline at end of file" at patch line ${c.i + 1}`,
        hunk: n,
        line: c.i + 1,
      };
    }
    last.noEol = true;
    c.i += 1;
    return null;
  };
  while (oldLeft > 0 || newLeft > 0) {
    const l = c.lines[c.i];
    if (l === undefined) {
      return {
        code: 'count_mismatch',
        message: `the body ends before the header's counts (-${oldCount} +${newCount}) are met`,
        hunk: n,
        line: headerLine,
      };
    }
    const op = l === '' ? ' ' : l[0];
    if (op === '\\') {
      const e = marker();
      if (e !== null) return e;
      continue;
    }
    if (op !== ' ' && op !== '-' && op !== '+') {
      return {
        code: 'count_mismatch',
        message: `the body has fewer lines than its header states (-${oldCount} +${newCount}); patch line ${c.i + 1} is not a body line`,
        hunk: n,
        line: c.i + 1,
      };
    }
    if (op !== '+') oldLeft -= 1;
    if (op !== '-') newLeft -= 1;
    if (oldLeft < 0 || newLeft < 0) {
      return {
        code: 'count_mismatch',
        message: `the body has more ${oldLeft < 0 ? 'old-side' : 'new-side'} lines than its header states (-${oldCount} +${newCount})`,
        hunk: n,
        line: c.i + 1,
      };
    }
    lines.push({ op, text: l.slice(1), noEol: false });
    c.i += 1;
  }
  if ((c.lines[c.i] ?? '').startsWith('\\')) {
    const e = marker();
    if (e !== null) return e;
  }
  const next = c.lines[c.i];
  if (
    next !== undefined &&
    (next.startsWith(' ') || next.startsWith('+') || (next.startsWith('-') && !isFileHeaderAt(c, c.i)))
  ) {
    return {
      code: 'count_mismatch',
      message: `the body has more lines than its header states (-${oldCount} +${newCount}); patch line ${c.i + 1} is extra`,
      hunk: n,
      line: c.i + 1,
    };
  }
  // a marker must end its side: nothing of that side may follow it in the hunk
  for (let j = 0; j < lines.length; j++) {
    const l = lines[j] as HunkLine;
    if (!l.noEol) continue;
    const later = lines.slice(j + 1);
    const oldSide = l.op !== '+';
    const newSide = l.op !== '-';
    if ((oldSide && later.some((x) => x.op !== '+')) || (newSide && later.some((x) => x.op !== '-'))) {
      return {
        code: 'malformed',
        message: '"\\ No newline at end of file" follows a line that is not the last of its side',
        hunk: n,
        line: headerLine,
      };
    }
  }
  return { oldStart, oldCount, newStart, newCount, lines };
}

function isError(x: unknown): x is PatchError {
  return typeof x === 'object' && x !== null && 'code' in x && 'message' in x;
}

function parseUnchecked(text: string, o: ParsePatchOptions): ParsePatchResult {
  const limits = { ...DEFAULT_PATCH_LIMITS, ...(o.limits ?? {}) };
  if (text.length > limits.maxBytes || utf8Length(text) > limits.maxBytes) {
    return patchFailure({ code: 'too_large', message: `the patch exceeds ${limits.maxBytes} bytes` });
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const c: Cursor = { lines, i: 0 };
  const files: FilePatch[] = [];
  let hunkTotal = 0;
  let git: { create: boolean; delete: boolean; line: number } | null = null;
  while (c.i < lines.length) {
    const l = lines[c.i] as string;
    if (isFileHeaderAt(c, c.i)) {
      const oldPath = headerPath(l.slice(4));
      const newPath = headerPath((lines[c.i + 1] as string).slice(4));
      if (oldPath === undefined || newPath === undefined) {
        return patchFailure({
          code: 'malformed',
          message: `bad file header at patch line ${c.i + 1}`,
          line: c.i + 1,
        });
      }
      if (oldPath === null && newPath === null) {
        return patchFailure({ code: 'malformed', message: 'both sides are /dev/null', line: c.i + 1 });
      }
      const kind = oldPath === null ? 'create' : newPath === null ? 'delete' : 'modify';
      const label = newPath ?? oldPath ?? '';
      if (git !== null && ((git.create && kind !== 'create') || (git.delete && kind !== 'delete'))) {
        return patchFailure({
          code: 'malformed',
          message: `the git header says ${git.create ? 'new' : 'deleted'} file but the --- / +++ lines do not`,
          file: label,
          line: c.i + 1,
        });
      }
      if (kind === 'create' && o.allowCreate !== true) {
        return patchFailure({
          code: 'create_refused',
          message: 'creating a file (--- /dev/null) is not allowed',
          file: label,
        });
      }
      if (kind === 'delete' && o.allowDelete !== true) {
        return patchFailure({
          code: 'delete_refused',
          message: 'deleting a file (+++ /dev/null) is not allowed',
          file: label,
        });
      }
      if (files.length >= limits.maxFiles) {
        return patchFailure({
          code: 'too_many_files',
          message: `the patch names more than ${limits.maxFiles} files`,
        });
      }
      c.i += 2;
      const hunks: Hunk[] = [];
      while ((lines[c.i] ?? '').startsWith('@@')) {
        hunkTotal += 1;
        if (hunkTotal > limits.maxHunks) {
          return patchFailure({
            code: 'too_many_hunks',
            message: `the patch has more than ${limits.maxHunks} hunks`,
          });
        }
        const h = readHunk(c, hunks.length + 1);
        if (isError(h)) return patchFailure({ ...h, file: label });
        hunks.push(h);
      }
      if (hunks.length === 0) {
        return patchFailure({
          code: 'malformed',
          message: 'a file header without hunks',
          file: label,
          line: c.i + 1,
        });
      }
      files.push({ oldPath, newPath, kind, hunks });
      git = null;
      continue;
    }
    if (l.startsWith('diff --git ')) {
      if (git !== null) {
        return patchFailure({
          code: 'unsupported',
          message: `a git entry without text hunks (empty file, mode-only change) at patch line ${git.line}`,
          line: git.line,
        });
      }
      git = { create: false, delete: false, line: c.i + 1 };
      c.i += 1;
      continue;
    }
    if (git !== null) {
      const bad = GIT_UNSUPPORTED.find((p) => l.startsWith(p));
      if (bad !== undefined) {
        return patchFailure({
          code: 'unsupported',
          message: `"${bad.trim()}" (binary patches, renames, copies and mode changes are not applied)`,
          line: c.i + 1,
        });
      }
      if (l.startsWith('new file mode ')) git.create = true;
      else if (l.startsWith('deleted file mode ')) git.delete = true;
      else if (!l.startsWith('index ')) {
        return patchFailure({
          code: 'malformed',
          message: `unexpected git header line ${c.i + 1}`,
          line: c.i + 1,
        });
      }
      c.i += 1;
      continue;
    }
    if (l.startsWith('@@')) {
      return patchFailure({
        code: 'malformed',
        message: `a hunk outside a file at patch line ${c.i + 1}`,
        line: c.i + 1,
      });
    }
    if (files.length > 0) {
      // between and after files: plain `diff …` separators and blank lines only
      if (l.startsWith('diff ') || l.trim() === '') {
        c.i += 1;
        continue;
      }
      if (l.startsWith(' ') || l.startsWith('+') || l.startsWith('-')) {
        return patchFailure({
          code: 'count_mismatch',
          message: `patch line ${c.i + 1} is a body line outside any hunk's counts`,
          line: c.i + 1,
        });
      }
      return patchFailure({ code: 'malformed', message: `unexpected patch line ${c.i + 1}`, line: c.i + 1 });
    }
    c.i += 1; // preamble before the first file (a commit message, a `diff -u a b` line)
  }
  if (git !== null) {
    return patchFailure({
      code: 'unsupported',
      message: `a git entry without text hunks (empty file, mode-only change) at patch line ${git.line}`,
      line: git.line,
    });
  }
  if (files.length === 0)
    return patchFailure({ code: 'no_files', message: 'no --- / +++ file header found' });
  return { ok: true, files };
}

/**
 * Parses a unified diff. Hunk bodies are read by their header counts (an empty body line is an
 * empty context line); a body longer or shorter than the counts is `count_mismatch`; a
 * `\ No newline at end of file` marker must end its side of the last hunk. Free text before the
 * first file is ignored; between files only `diff …` lines, git extended headers (`index`, `new
 * file mode`, `deleted file mode`) and blank lines are allowed. Never throws.
 *
 * @example
 * ```ts
 * const r = parsePatch('--- a/A.lean\n+++ b/A.lean\n@@ -1 +1 @@\n-sorry\n+rfl\n');
 * if (r.ok) r.files[0]?.hunks.length; // 1
 * ```
 */
export function parsePatch(text: unknown, options: ParsePatchOptions = {}): ParsePatchResult {
  if (typeof text !== 'string')
    return patchFailure({ code: 'not_text', message: 'the patch is not a string' });
  try {
    return parseUnchecked(text, options);
  } catch (e) {
    return patchFailure({
      code: 'internal',
      message: `parser defect: ${e instanceof Error ? e.message : String(e)}`,
    });
  }
}
