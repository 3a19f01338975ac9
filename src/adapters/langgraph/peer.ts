/**
 * `@langchain/langgraph`, loaded for `handoff-runtime/langgraph` (layer 3): an optional peer
 * dependency, imported with a top-level `await import()` — a missing package is one line naming
 * what to install (src/errors/missing-peer.ts) instead of node's ERR_MODULE_NOT_FOUND.
 */
import { importPeer } from '../../errors/missing-peer.js';

/**
 * The LangGraph module.
 *
 * @example
 * ```ts
 * const g = new langgraph.StateGraph(annotation);
 * ```
 */
export const langgraph: typeof import('@langchain/langgraph') = await importPeer(
  'handoff-runtime/langgraph',
  '@langchain/langgraph',
  () => import('@langchain/langgraph'),
);

/**
 * LangGraph's `END`, `START` and `Annotation` (what `import { … } from '@langchain/langgraph'` gives).
 *
 * @example
 * ```ts
 * const State = Annotation.Root({ n: Annotation<number>() });
 * ```
 */
export const END: typeof import('@langchain/langgraph').END = langgraph.END;
/** LangGraph's `START` (see {@link END}). */
export const START: typeof import('@langchain/langgraph').START = langgraph.START;
/** LangGraph's `Annotation` (see {@link END}). */
export const Annotation: typeof import('@langchain/langgraph').Annotation = langgraph.Annotation;
