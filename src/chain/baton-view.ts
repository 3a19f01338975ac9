/**
 * `BatonView`: what a stage (or a semantic validator) sees — a detached, read-only copy of the
 * baton. Assigning to the view or its facts throws `TypeError`; nested values are private deep
 * copies, so mutating them never reaches the baton or any other view.
 */
import type { Baton } from './baton.js';
import { deepCopy, readOnly } from './immutable.js';

function refuse(what: string): never {
  throw new TypeError(`read-only view: cannot ${what}`);
}

/**
 * A read-only map of the baton's facts whose values are deep-copied on first access (and then
 * kept, so one view sees one private copy per key). Behaves like a plain object for `in`,
 * `Object.keys`, spreading and equality checks.
 */
function lazyFacts(baton: Baton): Readonly<Record<string, unknown>> {
  const records = new Map(baton.records.map((r) => [r.key, r]));
  const copies = new Map<string, unknown>();
  const copyOf = (key: string): unknown => {
    if (!copies.has(key)) copies.set(key, deepCopy(records.get(key)?.value));
    return copies.get(key);
  };
  return new Proxy(Object.create(null) as Record<string, unknown>, {
    get: (_t, key) => (typeof key === 'string' && records.has(key) ? copyOf(key) : undefined),
    has: (_t, key) => typeof key === 'string' && records.has(key),
    ownKeys: () => [...records.keys()],
    getOwnPropertyDescriptor: (_t, key) =>
      typeof key === 'string' && records.has(key)
        ? { value: copyOf(key), writable: false, enumerable: true, configurable: true }
        : undefined,
    set: (_t, key) => refuse(`assign ${String(key)}`),
    deleteProperty: (_t, key) => refuse(`delete ${String(key)}`),
    defineProperty: (_t, key) => refuse(`define ${String(key)}`),
    setPrototypeOf: () => refuse('change the prototype'),
  });
}

/** A read-only, detached view of a baton for one stage run. */
export interface BatonView {
  readonly baton_id: string;
  readonly contract_digest: string;
  readonly intent: string;
  readonly revision: number;
  /** The stage this view was made for. */
  readonly stage_name: string;
  /** The run id of that stage run (the idempotency key for its side effects). */
  readonly stage_run_id: string;
  /** Committed facts: a read-only map over deep copies. */
  readonly facts: Readonly<Record<string, unknown>>;
  readonly artifact_refs: readonly string[];
  readonly trace: readonly string[];
}

/**
 * Makes a fresh view of `baton` for `stageName`/`stageRunId`. Every call copies again, so two
 * views never share state.
 *
 * @example
 * ```ts
 * const view = createView(b, 'settle', runId); view.facts.month; // '2026-06'
 * ```
 */
export function createView(baton: Baton, stageName: string, stageRunId: string): BatonView {
  return readOnly({
    baton_id: baton.baton_id,
    contract_digest: baton.contract_digest,
    intent: baton.intent,
    revision: baton.revision,
    stage_name: stageName,
    stage_run_id: stageRunId,
    facts: lazyFacts(baton),
    artifact_refs: Object.freeze([...baton.artifact_refs]),
    trace: Object.freeze([...baton.trace]),
  });
}
