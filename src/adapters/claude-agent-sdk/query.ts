/**
 * The Claude Agent SDK's `query` as the adapters use it (layer 3, effects): the narrowest shape of
 * the function — a prompt string and options in, an async stream of `SDKMessage` out — so a
 * scripted stream serves tests and examples, and the SDK's own `query` fits unchanged. The SDK is
 * an optional peer: it is loaded only when no `query` is injected.
 */
import type { Options, SDKMessage } from '@anthropic-ai/claude-agent-sdk';

/**
 * The `query` function an adapter calls: the SDK's own `query` (its `Query` is an async generator
 * of `SDKMessage`), or any function with that shape — a scripted stream in tests. The adapters
 * always pass a string prompt and their own `abortController` in `options`.
 *
 * @example
 * ```ts
 * import { query } from '@anthropic-ai/claude-agent-sdk';
 * const real: ClaudeQuery = query; // the SDK's query fits as is
 * const scripted: ClaudeQuery = async function* () { yield resultMessage('{"facts":[],"artifact_refs":[]}'); };
 * ```
 */
export type ClaudeQuery = (params: { prompt: string; options?: Options }) => AsyncIterable<SDKMessage>;

/**
 * The module specifier of the SDK (an optional peer dependency).
 *
 * @example
 * ```ts
 * console.log(`npm install ${CLAUDE_AGENT_SDK}`);
 * ```
 */
export const CLAUDE_AGENT_SDK = '@anthropic-ai/claude-agent-sdk';

/**
 * Loads the SDK's `query` with a dynamic import — what the adapters do when no `query` was
 * injected. Rejects with an error naming the package (`npm install @anthropic-ai/claude-agent-sdk`)
 * when it is not installed or has no `query` export. `load` replaces the import (tests).
 *
 * @example
 * ```ts
 * const query = await loadClaudeQuery(); // the SDK's query; it needs its platform binary to run
 * ```
 */
export async function loadClaudeQuery(
  load: (specifier: string) => Promise<unknown> = (s) => import(s),
): Promise<ClaudeQuery> {
  let mod: unknown;
  try {
    mod = await load(CLAUDE_AGENT_SDK);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      `the Claude Agent SDK is not installed (npm install ${CLAUDE_AGENT_SDK}), and no query was injected: ${why}`,
    );
  }
  const q = typeof mod === 'object' && mod !== null ? (mod as { query?: unknown }).query : undefined;
  if (typeof q !== 'function') throw new Error(`${CLAUDE_AGENT_SDK} has no query function`);
  return q as ClaudeQuery;
}
