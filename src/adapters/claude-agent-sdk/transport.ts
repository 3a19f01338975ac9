/**
 * A Claude subagent as the cycle runtime's worker (layer 3, effects): a `WorkerTransport` for
 * `createDelegatingWorker`, which turns it into the cycle's `WorkerPort` and checks every answer.
 */
import type { Dispatch } from '../../contract/index.js';
import { describeThrown } from '../../delegate/describe-thrown.js';
import type { ProgressSink, TransportResult, WorkerTransport } from '../../runtime/delegating-worker.js';
import { runSubagent } from './subagent-run.js';
import { type ClaudeWorkerOptions, workerOptions } from './worker.js';
import { workerPrompt } from './worker-prompt.js';

/**
 * Adapts a Claude subagent to a worker transport of the cycle runtime: pass it to
 * `createDelegatingWorker({ projectRoot, scratch, transport })` and the result is the cycle's
 * `WorkerPort`. Each dispatch prompts the subagent with `prompt(dispatch)` and aborts the SDK's
 * controller when the cycle's signal aborts. The subagent's final answer goes back as the
 * handoff (`kind: 'output'`, no progress lines) and the delegating worker checks it: an invalid
 * record or a wrong echo is a `protocol-error`, a custody breach a `custody-violation`. A run
 * without an answer is an `operational-error` result naming why. Never rejects.
 *
 * @example
 * ```ts
 * const worker = createDelegatingWorker({
 *   projectRoot, scratch,
 *   transport: claudeTransport({ query, options: { cwd: projectRoot, permissionMode: 'acceptEdits' } }),
 * });
 * await runCycle({ ports: { ...ports, worker }, ... });
 * ```
 * @throws HandoffError `usage` (at creation) for a bad `prompt` or limit.
 */
export function claudeTransport(o: ClaudeWorkerOptions = {}): WorkerTransport {
  const limits = workerOptions(o);
  const prompt = o.prompt ?? workerPrompt;
  return {
    async run(dispatch: Dispatch, signal: AbortSignal, _onProgress?: ProgressSink): Promise<TransportResult> {
      let text: string;
      try {
        text = prompt(dispatch);
      } catch (e) {
        return { kind: 'operational-error', detail: `the prompt function threw: ${describeThrown(e)}` };
      }
      const out = await runSubagent({ query: o.query, prompt: text, options: o.options, signal, limits });
      if (!out.ok) return { kind: 'operational-error', detail: out.error.message };
      try {
        o.onRun?.(out.run, dispatch);
      } catch (e) {
        return { kind: 'operational-error', detail: `onRun threw: ${describeThrown(e)}` };
      }
      return { kind: 'output', progress: [], handoff: out.run.answer };
    },
  };
}
