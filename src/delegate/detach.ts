/**
 * Detaching a worker's answer from the worker (layer 1, pure): whatever a worker function
 * returned — a plain object, a Proxy, an object full of getters that answer differently on each
 * read, a value nested 100,000 deep, a cycle — is read exactly once, by the canonical JSON writer,
 * into plain JSON data. Every later check sees that one copy; nothing the worker holds can change
 * it afterwards.
 */
import { tryCanonicalJson } from '../canonical/index.js';
import { depthIssue, MAX_RECORD_DEPTH } from '../validation/index.js';
import { describeThrown } from './describe-thrown.js';

/**
 * The largest answer accepted, in bytes of canonical JSON: 16 MiB, the output bound a subprocess
 * worker has (src/process `runContained`'s default).
 *
 * @example
 * ```ts
 * detachAnswer({ tools: ['x'.repeat(MAX_ANSWER_BYTES)] }).ok; // false
 * ```
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * A detached answer, or why it cannot be one.
 *
 * @example
 * ```ts
 * const d: Detached = detachAnswer(answer); if (d.ok) validateHandoff(d.value);
 * ```
 */
export type Detached =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly detail: string };

/**
 * Reads `value` once into plain JSON data — every member is read exactly once, by the canonical
 * JSON writer, which keeps its own stack — and refuses it when it cannot be read (a throwing
 * getter or Proxy trap), is cyclic, holds what JSON cannot carry (`undefined`, functions, symbols,
 * bigint, non-finite numbers, class instances), exceeds {@link MAX_ANSWER_BYTES}, or nests deeper
 * than `MAX_RECORD_DEPTH` (measured on the copy, without recursion). Never throws.
 *
 * @example
 * ```ts
 * detachAnswer({ a: 1 }); // { ok: true, value: { a: 1 } }
 * detachAnswer({ a: () => 1 }).ok; // false: 'not JSON data: canonical JSON cannot represent a function at $.a'
 * ```
 */
export function detachAnswer(value: unknown): Detached {
  // one pass of the (non-recursive) canonical writer reads every member exactly once
  const text = tryCanonicalJson(value);
  if (!text.ok) return { ok: false, detail: `not JSON data: ${describeThrown(text.error)}` };
  if (text.json.length > MAX_ANSWER_BYTES) {
    return {
      ok: false,
      detail: `the answer is ${text.json.length} bytes of JSON; the limit is ${MAX_ANSWER_BYTES}`,
    };
  }
  let copy: unknown;
  try {
    copy = JSON.parse(text.json) as unknown;
  } catch (e) {
    return { ok: false, detail: `not JSON data: ${describeThrown(e)}` };
  }
  const deep = depthIssue(copy, MAX_RECORD_DEPTH);
  if (deep !== null) {
    return { ok: false, detail: `${deep.path === '' ? '(root)' : deep.path}: ${deep.message}` };
  }
  return { ok: true, value: copy };
}
