/**
 * State deltas (layer 1, pure): what changed between two invocation states, as a short list of
 * path operations, and their replay. The state file's log (state-log.ts) records one delta per
 * save instead of rewriting the whole state, so a save's size does not grow with the run.
 *
 * The controller's states are immutable values that share structure: a list that only grew keeps
 * its old items (the same objects) in front. {@link stateDelta} therefore compares by identity —
 * an unchanged member costs one comparison, a grown list becomes a `push` of its new items — and
 * falls back to `set` (the whole new value) for anything else, which is always correct, only
 * larger. {@link applyDelta} never mutates its input.
 */

/** A path of object keys from the state's root. */
export type DeltaPath = readonly string[];

/** One operation of a delta. */
export type DeltaOp =
  /** The value at `path` becomes `value`. */
  | { readonly op: 'set'; readonly path: DeltaPath; readonly value: unknown }
  /**
   * The list at `path` keeps its first `at` items and gains `values` after them (positional, so a
   * replay on a list another writer grew meanwhile keeps this writer's list, as a whole rewrite would).
   */
  | {
      readonly op: 'push';
      readonly path: DeltaPath;
      readonly at: number;
      readonly values: readonly unknown[];
    }
  /** The key at `path` is removed. */
  | { readonly op: 'del'; readonly path: DeltaPath };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function diffInto(a: unknown, b: unknown, path: string[], out: DeltaOp[]): void {
  if (a === b) return;
  if (Array.isArray(a) && Array.isArray(b) && b.length >= a.length) {
    let prefix = true;
    for (let i = 0; i < a.length; i++) {
      if (a[i] !== b[i]) {
        prefix = false;
        break;
      }
    }
    if (prefix) {
      if (b.length > a.length)
        out.push({ op: 'push', path: [...path], at: a.length, values: b.slice(a.length) });
      return;
    }
  } else if (isRecord(a) && isRecord(b)) {
    for (const k of Object.keys(a)) {
      if (!Object.hasOwn(b, k) || b[k] === undefined) {
        if (a[k] !== undefined) out.push({ op: 'del', path: [...path, k] });
      }
    }
    for (const k of Object.keys(b)) {
      if (b[k] === undefined) continue;
      if (!Object.hasOwn(a, k) || a[k] === undefined)
        out.push({ op: 'set', path: [...path, k], value: b[k] });
      else diffInto(a[k], b[k], [...path, k], out);
    }
    return;
  }
  out.push({ op: 'set', path: [...path], value: b });
}

/**
 * The operations that turn `before` into `after` (both JSON-like values; `undefined` members count
 * as absent). An empty list means nothing changed.
 *
 * @example
 * ```ts
 * const a = { last_seq: 1, history: [h1] };
 * stateDelta(a, { ...a, last_seq: 2, history: [...a.history, h2] });
 * // [{ op: 'set', path: ['last_seq'], value: 2 }, { op: 'push', path: ['history'], at: 1, values: [h2] }]
 * ```
 */
export function stateDelta(before: unknown, after: unknown): DeltaOp[] {
  const out: DeltaOp[] = [];
  diffInto(before, after, [], out);
  return out;
}

/** Why a delta could not be applied. */
export interface DeltaMismatch {
  readonly ok: false;
  /** The operation's index and what was wrong. */
  readonly detail: string;
}

function applyOne(v: unknown, op: DeltaOp, depth: number): { ok: true; value: unknown } | DeltaMismatch {
  if (depth === op.path.length) {
    if (op.op === 'set') return { ok: true, value: op.value };
    if (op.op === 'push') {
      if (!Array.isArray(v))
        return { ok: false, detail: `push onto a non-list at ${op.path.join('.') || '(root)'}` };
      if (v.length < op.at)
        return { ok: false, detail: `push at ${op.at} onto a list of ${v.length} at ${op.path.join('.')}` };
      return { ok: true, value: [...v.slice(0, op.at), ...op.values] };
    }
    return { ok: false, detail: 'del of the root' };
  }
  if (!isRecord(v))
    return { ok: false, detail: `no object at ${op.path.slice(0, depth).join('.') || '(root)'}` };
  const k = op.path[depth] as string;
  if (op.op === 'del' && depth === op.path.length - 1) {
    const { [k]: _gone, ...rest } = v;
    return { ok: true, value: rest };
  }
  const inner = applyOne(v[k], op, depth + 1);
  return inner.ok ? { ok: true, value: { ...v, [k]: inner.value } } : inner;
}

/**
 * Replays `ops` on `state` (which is not changed). A path through a non-object, or a push onto a
 * non-list, is a mismatch (a delta recorded against another state).
 *
 * @example
 * ```ts
 * applyDelta({ n: 1, xs: [1] }, [{ op: 'set', path: ['n'], value: 2 }, { op: 'push', path: ['xs'], at: 1, values: [2] }]);
 * // { ok: true, value: { n: 2, xs: [1, 2] } }
 * ```
 */
export function applyDelta(
  state: unknown,
  ops: readonly DeltaOp[],
): { readonly ok: true; readonly value: unknown } | DeltaMismatch {
  let v = state;
  for (const [i, op] of ops.entries()) {
    const r = applyOne(v, op, 0);
    if (!r.ok) return { ok: false, detail: `operation ${i}: ${r.detail}` };
    v = r.value;
  }
  return { ok: true, value: v };
}
