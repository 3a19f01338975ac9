/**
 * `@openai/agents`, loaded for `handoff-runtime/openai-agents` (layer 3): an optional peer
 * dependency, imported with a top-level `await import()` — a missing package is one line naming
 * what to install (src/errors/missing-peer.ts) instead of node's ERR_MODULE_NOT_FOUND.
 */
import { importPeer } from '../../errors/missing-peer.js';

/**
 * The OpenAI Agents SDK module.
 *
 * @example
 * ```ts
 * const t = openaiAgents.tool({ name: 'x', description: '…', parameters, execute });
 * ```
 */
export const openaiAgents: typeof import('@openai/agents') = await importPeer(
  'handoff-runtime/openai-agents',
  '@openai/agents',
  () => import('@openai/agents'),
);
