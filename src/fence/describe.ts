/**
 * One-line descriptions of fence violations (pure), for stuck reasons and logs. Every string that
 * came from a worker-edited file is bounded (signatures to {@link MAX_DESCRIBED_SIGNATURE}
 * characters with an ellipsis) and has its control and bidirectional-override characters escaped,
 * so a description can never rewrite a terminal line.
 */
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
 * | added-axiom | ``axiom added (`signature`)`` |
 * | added-context | ``context command added (`signature`)`` |
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
      return `${who}: axiom added (${after})`;
    case 'added-context':
      return `${who}: context command added (${after})`;
  }
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

/** Escapes C0/C1 controls, DEL, line/paragraph separators and bidi controls as `\u{…}`. */
function clean(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`,
  );
}
