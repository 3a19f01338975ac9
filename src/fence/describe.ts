/**
 * One-line descriptions of fence violations (pure), for stuck reasons and logs. Every string that
 * came from a worker-edited file is bounded (signatures to {@link MAX_DESCRIBED_SIGNATURE}
 * characters with an ellipsis) and has its control and bidirectional-override characters escaped,
 * so a description can never rewrite a terminal line.
 */
import { grantFor } from './proof-work.js';
import type { FenceViolation } from './violation.js';

/**
 * Longest signature quoted in a description, in code points (longer ones end with `…`).
 *
 * @example
 * ```ts
 * describeViolation('A.lean', v).length; // bounded: each quoted signature ≤ MAX_DESCRIBED_SIGNATURE
 * ```
 */
export const MAX_DESCRIBED_SIGNATURE = 160;

/**
 * Describes a violation in one line: `header fence: <file>: <kind> <declaration>: <change> (…)`.
 *
 * | change | text |
 * |---|---|
 * | changed | ``statement changed (`before` → `after`)``; a kind change: ``changed to def (`before` → `after`)`` |
 * | added-hypothesis | ``hypothesis added `(h : …)` (`before` → `after`)`` |
 * | renamed | ``renamed to u (`signature`)`` |
 * | deleted | ``declaration deleted (was `before`)`` |
 * | added-axiom | ``axiom added (`signature`): a new axiom can prove anything, and no grant allows one`` |
 * | added-context | ``context command added (`signature`)`` |
 * | added-declaration | ``new def (`signature`): proof work may add only theorem, lemma and example (grant: fence:new-definitions)`` |
 * | added-command | `header fence: <file>: new command `…` before theorem t (line 3): …` (or `at the end of the file`) |
 * | removed-command | `header fence: <file>: command removed `…` before theorem t (line 3)` |
 * | unparseable | `header fence: <file>: headers unreadable after the worker returned (<error>)` |
 *
 * @example
 * ```ts
 * describeViolation('A.lean', {
 *   declaration: 't', kind: 'theorem', change: 'changed', before: '(n : Nat) : n + 0 = n', after: ': True', line: 1,
 * });
 * // 'header fence: A.lean: theorem t: statement changed (`(n : Nat) : n + 0 = n` → `: True`)'
 * ```
 */
export function describeViolation(file: string, v: FenceViolation): string {
  const head = `header fence: ${clean(file)}`;
  if (v.change === 'unparseable') {
    return `${head}: headers unreadable after the worker returned (${clean(bound(v.detail ?? 'no detail'))})`;
  }
  if (v.change === 'added-command' || v.change === 'removed-command') {
    const where = v.declaration === '' ? 'at the end of the file' : `before ${clean(v.declaration)}`;
    const what =
      v.change === 'added-command' ? `new command ${quote(v.after)}` : `command removed ${quote(v.before)}`;
    return `${head}: ${what} ${where} (line ${v.line}): ${RULE}${grantNote(v.kind)}`;
  }
  const who = `${head}: ${clean(v.kind)} ${clean(v.declaration)}`;
  const before = quote(v.before);
  const after = quote(v.after);
  switch (v.change) {
    case 'changed':
      return v.kindAfter !== undefined
        ? `${who}: changed to ${clean(v.kindAfter)} (${before} → ${after})`
        : `${who}: statement changed (${before} → ${after})`;
    case 'added-hypothesis': {
      const binders = v.added ?? [];
      const noun = binders.length > 1 ? 'hypotheses' : 'hypothesis';
      const list = binders.map((b) => ` ${quote(b)}`).join('');
      return `${who}: ${noun} added${list} (${before} → ${after})`;
    }
    case 'renamed':
      return `${who}: renamed to ${clean(v.renamedTo ?? '?')} (${before})`;
    case 'deleted':
      return `${who}: declaration deleted (was ${before})`;
    case 'added-axiom':
      return `${who}: axiom added (${after}): a new axiom can prove anything, and no grant allows one`;
    case 'added-declaration':
      return `${who}: new ${clean(v.kind)} (${after}): ${RULE}${grantNote(v.kind)}`;
    case 'added-context':
      return `${who}: context command added (${after})`;
  }
}

const RULE = 'proof work may add only theorem, lemma and example';

function grantNote(keyword: string): string {
  const grant = grantFor(keyword);
  return grant === null ? '' : ` (grant: ${grant})`;
}

/** A signature in backticks, bounded; `(none)` for null. */
function quote(signature: string | null): string {
  return signature === null ? '(none)' : `\`${clean(bound(signature))}\``;
}

function bound(text: string): string {
  const chars = Array.from(text);
  return chars.length <= MAX_DESCRIBED_SIGNATURE
    ? text
    : `${chars.slice(0, MAX_DESCRIBED_SIGNATURE - 1).join('')}…`;
}

/**
 * Escapes C0/C1 controls, DEL, line/paragraph separators, bidi controls (U+061C, U+200E–U+200F,
 * U+202A–U+202E, U+2066–U+2069) and the invisible zero-width and format characters (U+200B–U+200D,
 * U+2060–U+2064, U+FEFF) as `\u{…}`: a name that differs from another only by one of them must
 * look different.
 */
function clean(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u061c\u2028\u2029\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g,
    (c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`,
  );
}
