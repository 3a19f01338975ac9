/**
 * The dispatch a sub-agent is working on (layer 3, adapter): set around a checked sub-agent's run,
 * so the tools it calls (`ownedFileTools`, `handoffDraftTool`) act on that dispatch's owned files
 * only, whatever paths the model names.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dispatch } from '../../contract/index.js';

const current = new AsyncLocalStorage<Dispatch>();

/**
 * Runs `fn` with `dispatch` as the current dispatch of everything it awaits.
 *
 * @example
 * ```ts
 * await withDispatch(dispatch, () => runner.run(agent, prompt));
 * ```
 */
export function withDispatch<T>(dispatch: Dispatch, fn: () => Promise<T>): Promise<T> {
  return current.run(dispatch, fn);
}

/**
 * The dispatch of the checked sub-agent run this code runs in, or undefined outside one.
 *
 * @example
 * ```ts
 * currentDispatch()?.owned_files; // ['/repo/src/greeting.ts']
 * ```
 */
export function currentDispatch(): Dispatch | undefined {
  return current.getStore();
}
