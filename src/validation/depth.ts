/**
 * The nesting-depth limit of records and its measure (pure, no recursion).
 *
 * A record is data someone else wrote — a worker's handoff, a reviewer's output, a settings file —
 * and much of what reads it walks it recursively: zod refinements, `structuredClone`,
 * `JSON.stringify`, deep freezing, the YAML composer. Recursion over attacker-chosen depth ends in
 * `RangeError: Maximum call stack size exceeded` (or, inside V8's regexp compiler, an uncatchable
 * abort), and a value that was accepted once and fails every later read poisons the journal it was
 * written to. So every record is held to one depth limit, checked without recursion before
 * anything else walks it, in the same way wherever the record is validated, appended or loaded.
 */
import type { ValidationIssue } from './result.js';

/**
 * The deepest nesting any record may have: 64 levels of objects and arrays, the record itself
 * being level 1 (`{}` and `[]` have depth 1, a scalar depth 0, `{"a":[{}]}` depth 3).
 *
 * Why 64: real records nest a handful of levels (a dispatch or handoff 2–4, a review's output or a
 * baton's fact values perhaps 10–20), so 64 never refuses real data; and it is far below where the
 * recursive readers fail on a fresh stack — the YAML composer below 1,000 levels (and it can abort
 * the process), `structuredClone` near 3,000, `JSON.stringify` near 4,000, plain JavaScript
 * recursion in the thousands — and they fail sooner when the caller's stack is already deep. A
 * record within the limit is safe for every reader of the runtime and of its users. Envelopes
 * that wrap one record (a journal event line, a run manifest, the handoff cache) add one level:
 * their members are held to the limit ({@link memberDepthIssue}), so the record inside keeps it
 * whole.
 *
 * @example
 * ```ts
 * nestingDepth(deepValue) > MAX_RECORD_DEPTH; // refuse it: validators report `too_deep`
 * ```
 */
export const MAX_RECORD_DEPTH = 64;

/** The {@link ValidationIssue} code of a value nested deeper than its limit. */
export const TOO_DEEP = 'too_deep';

interface DepthProbe {
  /** The depth, exact up to `limit`; `limit + 1` means "deeper than the limit" (or cyclic). */
  readonly depth: number;
  /** The top-level member (key or index) under which the limit is first exceeded, `''` for the root. */
  readonly member: string;
}

/**
 * Measures `value` depth-first with an explicit stack, stopping as soon as the limit is exceeded.
 * Each object is walked again only when it is reached deeper than before, so shared references
 * cost at most `limit` walks each and a cycle counts as too deep.
 */
function probe(value: unknown, limit: number): DepthProbe {
  if (typeof value !== 'object' || value === null) return { depth: 0, member: '' };
  if (limit < 1) return { depth: limit + 1, member: '' };
  const nodes: object[] = [value];
  const depths: number[] = [1];
  const members: string[] = [''];
  const reached = new Map<object, number>();
  let max = 0;
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    const member = members.pop() as string;
    if (depth > limit) return { depth: limit + 1, member };
    const before = reached.get(node);
    if (before !== undefined && before >= depth) continue;
    reached.set(node, depth);
    if (depth > max) max = depth;
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    const keys = depth === 1 && !Array.isArray(node) ? Object.keys(node) : null;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeof child !== 'object' || child === null) continue;
      nodes.push(child);
      depths.push(depth + 1);
      members.push(depth === 1 ? (keys === null ? String(i) : (keys[i] as string)) : member);
    }
  }
  return { depth: max, member: '' };
}

/**
 * The nesting depth of `value` (objects and arrays; a scalar is 0, `{}` is 1), measured without
 * recursion. Exact up to `limit`; anything deeper — or cyclic — is reported as `limit + 1`, and the
 * walk stops there, so a value nested 100,000 deep costs no more than one nested `limit + 1` deep.
 *
 * @example
 * ```ts
 * nestingDepth({ a: [{}] }); // 3
 * nestingDepth(JSON.parse('['.repeat(1e5) + ']'.repeat(1e5))); // 65 (MAX_RECORD_DEPTH + 1)
 * ```
 */
export function nestingDepth(value: unknown, limit: number = MAX_RECORD_DEPTH): number {
  return probe(value, limit).depth;
}

/** {@link probe}, or the `unvalidatable` issue when reading the value throws (a getter, a proxy). */
function guardedProbe(value: unknown, limit: number): DepthProbe | ValidationIssue {
  try {
    return probe(value, limit);
  } catch (e) {
    return { path: '', code: 'unvalidatable', message: `input could not be inspected: ${String(e)}` };
  }
}

function tooDeep(path: string, limit: number): ValidationIssue {
  return {
    path,
    code: TOO_DEEP,
    message: `nests deeper than ${limit} levels of objects and arrays, or is cyclic (limit MAX_RECORD_DEPTH = ${MAX_RECORD_DEPTH})`,
  };
}

/**
 * The `too_deep` issue of a value nested deeper than `limit`, or null when it is within it. The
 * issue's path is the top-level member holding the over-deep branch (`''` for the root itself).
 * Never throws.
 *
 * @example
 * ```ts
 * depthIssue({ output: deep }); // { path: 'output', code: 'too_deep', message: 'nests deeper than 64 levels …' }
 * depthIssue({ output: {} }); // null
 * ```
 */
export function depthIssue(value: unknown, limit: number = MAX_RECORD_DEPTH): ValidationIssue | null {
  const p = guardedProbe(value, limit);
  if (!('depth' in p)) return p;
  return p.depth <= limit ? null : tooDeep(p.member, limit);
}

/**
 * The `too_deep` issue of an envelope — a value whose members are records (a journal event line
 * and its `payload`, a manifest and its `dispatch`) — when one of its members nests deeper than
 * `limit`, or null. The envelope itself may be `limit + 1` deep, so the record it wraps has the
 * same limit inside it as on its own. Never throws.
 *
 * @example
 * ```ts
 * memberDepthIssue({ kind: 'review', payload: deep }); // { path: 'payload', code: 'too_deep', … }
 * ```
 */
export function memberDepthIssue(value: unknown, limit: number = MAX_RECORD_DEPTH): ValidationIssue | null {
  const p = guardedProbe(value, limit + 1);
  if (!('depth' in p)) return p;
  return p.depth <= limit + 1 ? null : tooDeep(p.member, limit);
}
