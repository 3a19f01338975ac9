/**
 * Exact application of one file's patch (layer 1, pure): every hunk's context and removed lines
 * must be the file's lines at exactly the stated position — no offset, no fuzz, no whitespace
 * leniency — hunks in order and non-overlapping, each new-side start consistent with the hunks
 * before it, and the final-newline state the patch states must be the file's. Line endings are
 * kept: a CRLF file stays CRLF. Never throws.
 */
import type { FilePatch, HunkLine } from './parse.js';
import { type PatchError, patchFailure } from './patch-error.js';

/**
 * What {@link applyFilePatch} returns. For a `delete` patch the text is `''` (the caller removes
 * the file).
 *
 * @example
 * ```ts
 * const r: ApplyResult = applyFilePatch('a\n', patch);
 * if (r.ok) r.text;
 * ```
 */
export type ApplyResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: PatchError };

interface Line {
  readonly content: string;
  readonly eol: '' | '\n' | '\r\n';
}

/** Splits text into lines with their terminators (`\r\n`, `\n`, or none for an unterminated last line). */
function splitLines(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      out.push({ content: text.slice(start), eol: '' });
      break;
    }
    const crlf = nl > start && text.charCodeAt(nl - 1) === 13;
    out.push({ content: text.slice(start, crlf ? nl - 1 : nl), eol: crlf ? '\r\n' : '\n' });
    start = nl + 1;
  }
  return out;
}

const show = (s: string): string => {
  const t = JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
  return t;
};

/**
 * Applies `patch` to `original` exactly. Matching is by text: a patch made from the file's bytes
 * (git's, which keeps each line's `\r`) must match them byte for byte; a patch without any `\r`
 * matches each line's text without its terminator, and its added lines take the file's dominant
 * ending (CRLF for a CRLF file). A `create` patch needs `original === ''`; a `delete` patch must
 * remove every line and yields `''`.
 *
 * Refusals: `hunk_order` (a hunk before or overlapping the previous one, or a new-side start that
 * does not follow from the hunks before it), `hunk_mismatch` (a line that is not the file's line at
 * that position, with the hunk number and the line, or a hunk past the end of the file),
 * `newline_mismatch` (the patch states a final newline the file lacks, or the reverse, or adds a
 * `\ No newline` line that is not last).
 *
 * @example
 * ```ts
 * const p = parsePatch('--- a/x\n+++ b/x\n@@ -2 +2 @@\n-sorry\n+rfl\n');
 * if (p.ok) applyFilePatch('theorem t :=\nsorry\n', p.files[0]!); // { ok: true, text: 'theorem t :=\nrfl\n' }
 * ```
 */
export function applyFilePatch(original: string, patch: FilePatch): ApplyResult {
  try {
    return applyUnchecked(original, patch);
  } catch (e) {
    return patchFailure({
      code: 'internal',
      message: `applier defect: ${e instanceof Error ? e.message : String(e)}`,
    });
  }
}

function applyUnchecked(original: string, patch: FilePatch): ApplyResult {
  if (typeof original !== 'string')
    return patchFailure({ code: 'not_text', message: 'the original is not a string' });
  if (patch.kind === 'create' && original !== '') {
    return patchFailure({
      code: 'hunk_mismatch',
      message: 'a creation patch needs a file that does not exist yet',
    });
  }
  const orig = splitLines(original);
  const crlf = orig.filter((l) => l.eol === '\r\n').length;
  const lf = orig.filter((l) => l.eol === '\n').length;
  const exactBytes = patch.hunks.some((h) => h.lines.some((l) => l.text.endsWith('\r')));
  const addEol: '\n' | '\r\n' = !exactBytes && crlf > lf ? '\r\n' : '\n';
  const matches = (o: Line, l: HunkLine): boolean =>
    exactBytes ? l.text === o.content + (o.eol === '\r\n' ? '\r' : '') : l.text === o.content;
  const out: string[] = [];
  let cursor = 0;
  let delta = 0;
  for (let k = 0; k < patch.hunks.length; k++) {
    const h = patch.hunks[k];
    if (h === undefined) break;
    const n = k + 1;
    const oldIdx = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
    const newIdx = h.newCount === 0 ? h.newStart : h.newStart - 1;
    if (oldIdx < cursor) {
      return patchFailure({
        code: 'hunk_order',
        message: `starts at line ${h.oldStart}, before the end of hunk ${n - 1} (line ${cursor})`,
        hunk: n,
        line: h.oldStart,
      });
    }
    if (newIdx !== oldIdx + delta) {
      const want = oldIdx + delta + (h.newCount === 0 ? 0 : 1);
      return patchFailure({
        code: 'hunk_order',
        message: `new-side start +${h.newStart} does not follow from the earlier hunks (expected +${want})`,
        hunk: n,
        line: h.oldStart,
      });
    }
    if (oldIdx + h.oldCount > orig.length) {
      return patchFailure({
        code: 'hunk_mismatch',
        message: `lines ${h.oldStart}–${h.oldStart + h.oldCount - 1} are past the end of the file (${orig.length} lines)`,
        hunk: n,
        line: h.oldStart,
      });
    }
    for (let i = cursor; i < oldIdx; i++) {
      const o = orig[i] as Line;
      out.push(o.content + o.eol);
    }
    let j = oldIdx;
    for (const l of h.lines) {
      if (l.op === '+') {
        const prev = out[out.length - 1];
        if (prev !== undefined && !prev.endsWith('\n')) {
          return patchFailure({
            code: 'newline_mismatch',
            message: `an added line would be joined to line ${j}, which ends the file without a newline`,
            hunk: n,
            line: j,
          });
        }
        const text = !exactBytes && addEol === '\r\n' && l.text.endsWith('\r') ? l.text.slice(0, -1) : l.text;
        out.push(text + (l.noEol ? '' : addEol));
        continue;
      }
      const o = orig[j] as Line;
      if (!matches(o, l)) {
        return patchFailure({
          code: 'hunk_mismatch',
          message: `line ${j + 1} is ${show(o.content)}, the patch expects ${show(l.text)} there (no offset or fuzz is applied)`,
          hunk: n,
          line: j + 1,
        });
      }
      if (l.noEol !== (o.eol === '')) {
        return patchFailure({
          code: 'newline_mismatch',
          message: l.noEol
            ? `the patch says line ${j + 1} ends the file without a newline; the file has one`
            : `line ${j + 1} ends the file without a newline; the patch does not say so`,
          hunk: n,
          line: j + 1,
        });
      }
      if (l.op === ' ') out.push(o.content + o.eol);
      j += 1;
    }
    const endsNoEol = h.lines.some((l) => l.noEol && l.op !== '-');
    if (endsNoEol && j !== orig.length) {
      return patchFailure({
        code: 'newline_mismatch',
        message: `the patch ends the file without a newline at line ${j}, but ${orig.length - j} more line(s) follow`,
        hunk: n,
        line: j,
      });
    }
    cursor = j;
    delta += h.newCount - h.oldCount;
  }
  for (let i = cursor; i < orig.length; i++) {
    const o = orig[i] as Line;
    out.push(o.content + o.eol);
  }
  const text = out.join('');
  if (patch.kind === 'delete' && text !== '') {
    return patchFailure({
      code: 'hunk_mismatch',
      message: 'a deletion patch must remove every line of the file',
    });
  }
  return { ok: true, text };
}
