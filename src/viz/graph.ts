/**
 * The machine → graph model of the visualiser (pure): every state node of an xstate v5 machine
 * becomes a {@link VizNode}, every transition candidate (an `on` branch, an `always` branch, an
 * invoke's `onDone`/`onError` branch, a state's `onDone` branch) a {@link VizEdge}. Guards and
 * actions appear by name (static params are printed, dynamic params are not); the exporters
 * (Mermaid, DOT, JSON, HTML/SVG) all read this model, so they agree by construction.
 */
import type { AnyStateMachine } from 'xstate';

/** The type of a state node. */
export type VizNodeType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** One state node. */
export interface VizNode {
  /** The xstate node id, e.g. `cycle.plan.discover` (the root's id is the machine id). */
  readonly id: string;
  /** The node's key in its parent (`discover`); the machine id for the root. */
  readonly key: string;
  /** Keys from the root, e.g. `['plan', 'discover']` (empty for the root). */
  readonly path: readonly string[];
  /** The parent's id, or null for the root. */
  readonly parent: string | null;
  readonly type: VizNodeType;
  /** True when this node is its parent's initial state. */
  readonly initial: boolean;
  /** True for `type: 'final'` nodes. */
  readonly final: boolean;
  /** Ids of the child nodes in document order. */
  readonly children: readonly string[];
  /** Entry action names. */
  readonly entry: readonly string[];
  /** Exit action names. */
  readonly exit: readonly string[];
  /** Invoked actors: explicit invoke id and actor source name. */
  readonly invoke: readonly { readonly id: string; readonly src: string }[];
  /** The state's `description`, or null. */
  readonly description: string | null;
}

/** How a transition is triggered. */
export type VizEdgeKind = 'event' | 'always' | 'done' | 'error' | 'state-done';

/** One transition candidate (one branch of a guarded transition array). */
export interface VizEdge {
  /** Stable id `e<n>` in document order. */
  readonly id: string;
  /** Source node id. */
  readonly source: string;
  /** Target node ids (empty for a targetless transition; several only for parallel targets). */
  readonly targets: readonly string[];
  readonly kind: VizEdgeKind;
  /** The raw event type (`START`, `xstate.done.actor.worker`, `` for `always`). */
  readonly event: string;
  /** The invoke id for `done`/`error` edges, else null. */
  readonly invoke: string | null;
  /** The guard as text (`canRetry`, `answered(answer=stop)`, `and(canRetry, requiresPresent)`), or null. */
  readonly guard: string | null;
  /** Action names (static params printed as `name(key=value)`). */
  readonly actions: readonly string[];
  /** True for `reenter: true`. */
  readonly reenter: boolean;
  /** Position among the candidates of the same source and event (0 = tried first). */
  readonly order: number;
}

/** The graph of one machine. */
export interface MachineGraph {
  /** The machine id (`cycle`, `chain`, `gate`). */
  readonly id: string;
  /** The root's id (equals {@link MachineGraph.id}). */
  readonly root: string;
  /** Every node including the root, in document order (parents before children). */
  readonly nodes: readonly VizNode[];
  /** Every transition candidate in document order. */
  readonly edges: readonly VizEdge[];
}

interface RawTransition {
  readonly eventType: string;
  readonly target?: readonly { readonly id: string }[] | undefined;
  readonly guard?: unknown;
  readonly actions?: readonly unknown[];
  readonly reenter?: boolean;
}

interface RawNode {
  readonly id: string;
  readonly key: string;
  readonly path: readonly string[];
  readonly type: string;
  readonly parent?: RawNode | undefined;
  readonly states: Readonly<Record<string, RawNode>>;
  readonly config: { readonly initial?: unknown };
  readonly transitions: ReadonlyMap<string, readonly RawTransition[]>;
  readonly always?: readonly RawTransition[] | undefined;
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
  readonly invoke: readonly { readonly id: string; readonly src: unknown }[];
  readonly description?: string | undefined;
}

const DONE_ACTOR = 'xstate.done.actor.';
const ERROR_ACTOR = 'xstate.error.actor.';
const DONE_STATE = 'xstate.done.state.';

function paramsText(params: unknown): string {
  if (params === undefined || params === null || typeof params === 'function') return '';
  if (typeof params !== 'object') return `(${String(params)})`;
  const parts = Object.entries(params as Record<string, unknown>).map(([k, v]) => {
    if (typeof v === 'function') return `${k}=…`;
    return `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
  });
  return `(${parts.join(', ')})`;
}

/**
 * The text of a guard: its name, static params, or a combinator (`and(a, b)`, `not(a)`).
 *
 * @example
 * ```ts
 * guardText({ type: 'answered', params: { answer: 'stop' } }); // 'answered(answer=stop)'
 * guardText('canRetry'); // 'canRetry'
 * ```
 */
export function guardText(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const f = guard as { name?: string; guards?: unknown; guard?: unknown };
    if (Array.isArray(f.guards)) return `${f.name || 'combinator'}(${f.guards.map(guardText).join(', ')})`;
    if (f.guard !== undefined) return `${f.name || 'combinator'}(${guardText(f.guard)})`;
    return f.name && f.name !== 'guard' ? f.name : 'inline';
  }
  if (typeof guard === 'object') {
    const g = guard as { type?: unknown; params?: unknown };
    if (typeof g.type === 'string') return `${g.type}${paramsText(g.params)}`;
  }
  return 'inline';
}

/**
 * The text of an action: its name with static params (`setStop(reason=user-stop)`).
 *
 * @example
 * ```ts
 * actionText('absorbWork'); // 'absorbWork'
 * ```
 */
export function actionText(action: unknown): string {
  if (typeof action === 'string') return action;
  if (typeof action === 'function') {
    const f = action as { name?: string; type?: unknown };
    if (typeof f.type === 'string' && !f.type.startsWith('xstate.')) return f.type;
    return f.name && f.name !== 'action' ? f.name : 'inline';
  }
  if (action !== null && typeof action === 'object') {
    const a = action as { type?: unknown; params?: unknown };
    if (typeof a.type === 'string') return `${a.type}${paramsText(a.params)}`;
  }
  return 'inline';
}

function srcText(src: unknown): string {
  if (typeof src === 'string') return src;
  const s = src as { id?: unknown } | null;
  return typeof s?.id === 'string' ? s.id : 'inline';
}

function edgeKind(event: string): { kind: VizEdgeKind; invoke: string | null } {
  if (event === '') return { kind: 'always', invoke: null };
  if (event.startsWith(DONE_ACTOR)) return { kind: 'done', invoke: event.slice(DONE_ACTOR.length) };
  if (event.startsWith(ERROR_ACTOR)) return { kind: 'error', invoke: event.slice(ERROR_ACTOR.length) };
  if (event.startsWith(DONE_STATE)) return { kind: 'state-done', invoke: null };
  return { kind: 'event', invoke: null };
}

function nodeType(raw: RawNode): VizNodeType {
  switch (raw.type) {
    case 'compound':
    case 'parallel':
    case 'final':
    case 'history':
      return raw.type;
    default:
      return 'atomic';
  }
}

/**
 * Builds the graph model of an xstate v5 machine from its state nodes (`machine.root`).
 * Deterministic: nodes and edges follow the machine's document order.
 *
 * @example
 * ```ts
 * import { cycleMachine } from 'handoff-runtime/machines';
 * const g = machineGraph(cycleMachine);
 * g.nodes.filter((n) => n.final).map((n) => n.key); // ['solved', 'stuck', 'stopped']
 * ```
 */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root as unknown as RawNode;
  const nodes: VizNode[] = [];
  const edges: VizEdge[] = [];
  const visit = (raw: RawNode): void => {
    const parent = raw.parent ?? null;
    const initialKey = parent === null ? undefined : initialKeyOf(parent);
    const children = Object.values(raw.states ?? {});
    const type = nodeType(raw);
    nodes.push({
      id: raw.id,
      key: parent === null ? machine.id : raw.key,
      path: [...raw.path],
      parent: parent === null ? null : parent.id,
      type,
      initial: parent !== null && initialKey === raw.key,
      final: type === 'final',
      children: children.map((c) => c.id),
      entry: raw.entry.map(actionText),
      exit: raw.exit.map(actionText),
      invoke: raw.invoke.map((i) => ({ id: i.id, src: srcText(i.src) })),
      description: raw.description ?? null,
    });
    const push = (list: readonly RawTransition[]): void => {
      list.forEach((t, order) => {
        const event = t.eventType ?? '';
        const { kind, invoke } = edgeKind(event);
        edges.push({
          id: `e${edges.length}`,
          source: raw.id,
          targets: (t.target ?? []).map((x) => x.id),
          kind,
          event,
          invoke,
          guard: guardText(t.guard),
          actions: (t.actions ?? []).map(actionText),
          reenter: t.reenter === true,
          order,
        });
      });
    };
    for (const list of raw.transitions.values()) push(list);
    if (raw.always) push(raw.always);
    for (const c of children) visit(c);
  };
  visit(root);
  return { id: machine.id, root: root.id, nodes, edges };
}

function initialKeyOf(parent: RawNode): string | undefined {
  const init = parent.config.initial;
  if (typeof init === 'string') return init;
  if (init !== null && typeof init === 'object' && typeof (init as { target?: unknown }).target === 'string')
    return (init as { target: string }).target;
  if (parent.type === 'compound') return Object.keys(parent.states)[0];
  return undefined;
}

/**
 * The display label of an edge's trigger: `START`, `done: worker`, `error: worker`, `always`.
 *
 * @example
 * ```ts
 * eventLabel({ kind: 'done', event: 'xstate.done.actor.worker', invoke: 'worker' }); // 'done: worker'
 * ```
 */
export function eventLabel(e: Pick<VizEdge, 'kind' | 'event' | 'invoke'>): string {
  switch (e.kind) {
    case 'always':
      return 'always';
    case 'done':
      return `done: ${e.invoke ?? ''}`;
    case 'error':
      return `error: ${e.invoke ?? ''}`;
    case 'state-done':
      return 'done (state)';
    default:
      return e.event;
  }
}

/**
 * The diagram label of an edge: trigger plus guard in brackets (`done: worker [outcomeIs(kind=…)]`).
 *
 * @example
 * ```ts
 * edgeLabel(edge); // 'RETRY [canRetry]'
 * ```
 */
export function edgeLabel(e: VizEdge): string {
  return e.guard === null ? eventLabel(e) : `${eventLabel(e)} [${e.guard}]`;
}

/**
 * Indexes a graph's nodes by id.
 *
 * @example
 * ```ts
 * nodeIndex(g).get('cycle.plan')?.children.length; // 4
 * ```
 */
export function nodeIndex(g: MachineGraph): ReadonlyMap<string, VizNode> {
  return new Map(g.nodes.map((n) => [n.id, n]));
}

/**
 * True when node `id` is `ancestor` or lies below it (follows the parent chain, so custom
 * state ids work too).
 *
 * @example
 * ```ts
 * isWithin(nodeIndex(g), 'cycle.plan.discover', 'cycle.plan'); // true
 * ```
 */
export function isWithin(index: ReadonlyMap<string, VizNode>, id: string, ancestor: string): boolean {
  let cur: string | null = id;
  while (cur !== null) {
    if (cur === ancestor) return true;
    cur = index.get(cur)?.parent ?? null;
  }
  return false;
}

/**
 * A node's display path (`plan.discover`; the machine id for the root).
 *
 * @example
 * ```ts
 * displayPath(node); // 'plan.discover'
 * ```
 */
export function displayPath(n: VizNode): string {
  return n.path.length === 0 ? n.key : n.path.join('.');
}
