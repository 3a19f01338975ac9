/**
 * `getShortestPaths` with a bound: the graph walk of a model test stops with a named path instead of
 * hanging when a broken machine (a guard inverted, a counter that never stops growing) makes its
 * state graph unbounded. xstate/graph explores breadth-first and serializes every snapshot it
 * reaches together with the event and the snapshot it came from; the wrapper of `serializeState`
 * records that parent link the first time a state is seen, so when the walk passes `maxStates`
 * distinct states or a state lies deeper than `maxDepth` events, the error names the events from
 * the initial state to the state that broke the bound.
 */
import type { AnyEventObject, AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { getShortestPaths } from 'xstate/graph';

/** How far a walk may go; set a few times above what the machine's bounded graph needs. */
export interface WalkBound {
  /** Distinct (serialized) states the walk may reach. */
  readonly maxStates: number;
  /** Events from the initial state to any state. */
  readonly maxDepth: number;
}

type PathOptions = NonNullable<Parameters<typeof getShortestPaths>[1]>;

/** The walk options a model test passes (its own serializer and events are required here). */
export interface BoundedPathOptions {
  readonly input?: unknown;
  readonly events: (s: AnyMachineSnapshot) => readonly AnyEventObject[];
  readonly serializeState: (s: AnyMachineSnapshot) => string;
}

/** A state seen by the walk: how it was first reached. */
interface Seen {
  readonly parent: string | null;
  readonly event: string | null;
  readonly depth: number;
  readonly value: string;
}

/** The event types from the initial state to `key`, and the state values along the way. */
function pathTo(seen: Map<string, Seen>, key: string): string {
  const steps: string[] = [];
  for (let at = seen.get(key); at !== undefined && at.parent !== null; at = seen.get(at.parent)) {
    steps.push(`${at.event} → ${at.value}`);
  }
  const root = [...seen.values()].find((s) => s.parent === null);
  return [root?.value ?? '?', ...steps.reverse()].join('\n  ');
}

/** Thrown when a walk breaks its bound; `path` names the events that got there. */
export class WalkBoundError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(`${message}; reached by:\n  ${path}`);
    this.name = 'WalkBoundError';
  }
}

/**
 * The shortest paths of `machine` from its initial state, bounded: throws {@link WalkBoundError}
 * naming the path to the first state past `bound` instead of walking forever.
 *
 * @example
 * ```ts
 * const paths = boundedShortestPaths(gateMachine, { input, events, serializeState }, { maxStates: 2_000, maxDepth: 60 });
 * ```
 */
export function boundedShortestPaths<M extends AnyStateMachine>(
  machine: M,
  options: BoundedPathOptions,
  bound: WalkBound,
): ReturnType<typeof getShortestPaths<M>> {
  const seen = new Map<string, Seen>();
  const keys = new WeakMap<object, string>();
  const keyOf = (s: AnyMachineSnapshot): string => {
    let k = keys.get(s);
    if (k === undefined) {
      k = options.serializeState(s);
      keys.set(s, k);
    }
    return k;
  };
  const serializeState = (
    s: AnyMachineSnapshot,
    event?: AnyEventObject,
    prev?: AnyMachineSnapshot,
  ): string => {
    const key = keyOf(s);
    if (seen.has(key)) return key;
    const parentKey = prev === undefined ? null : keyOf(prev);
    const parent = parentKey === null ? undefined : seen.get(parentKey);
    const entry: Seen = {
      parent: parentKey,
      event: event?.type ?? null,
      depth: parent === undefined ? 0 : parent.depth + 1,
      value: JSON.stringify(s.value),
    };
    seen.set(key, entry);
    if (seen.size > bound.maxStates) {
      throw new WalkBoundError(
        `the graph walk of '${machine.id}' passed ${bound.maxStates} distinct states (an unbounded machine?)`,
        pathTo(seen, key),
      );
    }
    if (entry.depth > bound.maxDepth) {
      throw new WalkBoundError(
        `the graph walk of '${machine.id}' reached a state ${entry.depth} events deep (bound ${bound.maxDepth})`,
        pathTo(seen, key),
      );
    }
    return key;
  };
  return getShortestPaths(machine, {
    input: options.input,
    events: options.events,
    serializeState,
  } as PathOptions) as ReturnType<typeof getShortestPaths<M>>;
}

/**
 * The largest depth and the state count of a set of shortest paths (to set bounds with headroom).
 *
 * @example
 * ```ts
 * walkSize(paths); // { states: 212, depth: 17 }
 * ```
 */
export function walkSize(paths: readonly { readonly steps: readonly unknown[] }[]): {
  states: number;
  depth: number;
} {
  return { states: paths.length, depth: Math.max(0, ...paths.map((p) => p.steps.length - 1)) };
}
